package tmuxctl

import (
	"context"
	"fmt"
	"strings"
)

// Typing into a pane. These are the only tmux commands of Trail Boss that type, and only
// the daemon's delivery code calls them, after its checks (DELIVERY.md): a person's own
// answer, through a channel the operator switched on, into the pane of the session that
// asked. A test keeps every other caller out.

// TypeLiteral types text into pane as if from the keyboard, with send-keys -l: every
// character is itself, never a key name, so "Enter" or "C-c" in the text is just letters.
func (s *Server) TypeLiteral(ctx context.Context, pane, text string) error {
	if err := checkPane(pane); err != nil {
		return err
	}
	if text == "" {
		return nil
	}
	_, err := s.run(ctx, "send-keys", "-t", pane, "-l", "--", arg(text))
	return err
}

// PasteText pastes text into pane as one bracketed paste (paste-buffer -p), so that a
// program that understands bracketed paste takes several lines as one input rather than
// one Enter per line. The buffer is named for the paste and deleted after it.
func (s *Server) PasteText(ctx context.Context, pane, buffer, text string) error {
	if err := checkPane(pane); err != nil {
		return err
	}
	if buffer == "" || strings.HasPrefix(buffer, "-") {
		return fmt.Errorf("%w: buffer name %q", ErrInvalidTarget, clip(buffer))
	}
	if _, err := s.runInput(ctx, text, "load-buffer", "-b", arg(buffer), "-"); err != nil {
		return err
	}
	_, err := s.run(ctx, "paste-buffer", "-p", "-d", "-b", arg(buffer), "-t", pane)
	return err
}

// PressEnter presses Enter in pane.
func (s *Server) PressEnter(ctx context.Context, pane string) error {
	if err := checkPane(pane); err != nil {
		return err
	}
	_, err := s.run(ctx, "send-keys", "-t", pane, "Enter")
	return err
}

// Arrow is an arrow key that moves a menu's highlight.
type Arrow string

// The arrow keys PressArrow presses, as tmux names them: tmux sends each as the one escape
// sequence the pane's mode wants, never an Escape on its own.
const (
	ArrowUp   Arrow = "Up"
	ArrowDown Arrow = "Down"
)

// PressArrow presses the arrow key a in pane, once. It returns an error wrapping
// ErrInvalidTarget for anything but ArrowUp and ArrowDown.
func (s *Server) PressArrow(ctx context.Context, pane string, a Arrow) error {
	if err := checkPane(pane); err != nil {
		return err
	}
	if a != ArrowUp && a != ArrowDown {
		return fmt.Errorf("%w: %q is not an arrow key", ErrInvalidTarget, clip(string(a)))
	}
	_, err := s.run(ctx, "send-keys", "-t", pane, string(a))
	return err
}
