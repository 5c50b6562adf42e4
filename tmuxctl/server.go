// Package tmuxctl runs tmux commands against one tmux server, named by its socket path.
// Every command is run with an argv, never through a shell, and always with -S so that
// no other tmux server (the operator's default one included) is ever touched by accident.
// Output is requested with -F formats and parsed by pure functions into structs.
package tmuxctl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// Sentinels wrapped by the errors of Server methods.
var (
	// ErrNoServer says nothing listens on the socket: the socket is missing or stale, or
	// the server went away. Callers use it to retire the sessions of a dead server; any
	// other error (permission denied, a missing tmux binary, a timeout) says nothing
	// about whether the server is alive.
	ErrNoServer = errors.New("tmux server not running")
	// ErrNoPane says tmux does not know the pane, or that no pane matched.
	ErrNoPane = errors.New("no such tmux pane")
	// ErrNoClient says tmux does not know the client, or that no client is attached.
	ErrNoClient = errors.New("no such tmux client")
	// ErrInvalidTarget says an argument was refused before tmux was run: a pane id that
	// is not "%" and digits, a client name that tmux would read as a flag, an option name
	// that is not a user option.
	ErrInvalidTarget = errors.New("invalid tmux target")
)

// Server runs tmux commands against one tmux server, named by its socket path.
type Server struct {
	Bin    string   // tmux binary; "tmux" when empty (overridable for tests)
	Socket string   // socket path passed as -S; must be non-empty
	Env    []string // environment of tmux processes; the caller's own when nil

	control *control // runs what it can without a process (Pool.Server); nil for none
}

// New returns a Server for the tmux server listening on socket, run with the "tmux" in PATH.
func New(socket string) *Server {
	return &Server{Socket: socket}
}

// waitDelay bounds how long a finished tmux may keep its output pipes open through a child.
const waitDelay = 2 * time.Second

// run runs tmux -u -S socket args… and returns its standard output. args[0] names the
// command in errors. A failure wraps the sentinel that tmux's message matches, if any.
// A Server of a Pool runs it through the pool's control client of the server when it can.
func (s *Server) run(ctx context.Context, args ...string) (string, error) {
	if s.control != nil && s.Socket != "" {
		out, err := s.control.run(ctx, args)
		if !errors.Is(err, errControlDown) {
			return out, err
		}
	}
	return s.runInput(ctx, "", args...)
}

// runInput is run with stdin as tmux's standard input.
func (s *Server) runInput(ctx context.Context, stdin string, args ...string) (string, error) {
	name := args[0]
	if s.Socket == "" {
		return "", fmt.Errorf("tmux %s: empty socket path", name)
	}
	bin := s.Bin
	if bin == "" {
		bin = "tmux"
	}
	// -u: without it, a tmux whose locale is not UTF-8 turns every control character
	// (our field separator) and every non-ASCII byte of its output into "_".
	cmd := exec.CommandContext(ctx, bin, append([]string{"-u", "-S", s.Socket}, args...)...)
	cmd.Env = s.Env
	cmd.WaitDelay = waitDelay
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	processesStarted.Add(1)
	if err := cmd.Run(); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return "", fmt.Errorf("tmux %s: %w", name, ctxErr)
		}
		msg := strings.TrimSpace(stderr.String())
		if kind := classify(msg); kind != nil {
			return "", fmt.Errorf("tmux %s: %w: %w: %s", name, kind, err, msg)
		}
		if msg == "" {
			return "", fmt.Errorf("tmux %s: %w", name, err)
		}
		return "", fmt.Errorf("tmux %s: %w: %s", name, err, msg)
	}
	return stdout.String(), nil
}

// classify returns the sentinel that a tmux error message stands for, or nil.
//
// tmux 3.3a says "no server running on SOCK" when the socket file exists but nothing
// listens (also after kill-server, which leaves the file behind), and
// "error connecting to SOCK (No such file or directory)" when it is missing. Other
// connection errors, such as "(Permission denied)", say nothing about the server's life.
func classify(stderr string) error {
	switch {
	case strings.Contains(stderr, "no server running on "),
		strings.Contains(stderr, "error connecting to ") &&
			(strings.Contains(stderr, "(No such file or directory)") ||
				strings.Contains(stderr, "(Connection refused)")),
		strings.Contains(stderr, "server exited unexpectedly"):
		return ErrNoServer
	case strings.Contains(stderr, "can't find pane"):
		return ErrNoPane
	case strings.Contains(stderr, "can't find client"),
		strings.Contains(stderr, "no current client"):
		return ErrNoClient
	}
	return nil
}

// arg protects one argv element from tmux's command-line parsing. tmux splits commands
// at any argument that ends in ";" (the ";" is dropped and the arguments after it start
// a new command), and reads a trailing "\;" as a literal ";". Putting a backslash before
// a trailing ";" makes tmux see exactly s. Nothing else in an argument is special.
func arg(s string) string {
	if strings.HasSuffix(s, ";") {
		return s[:len(s)-1] + `\;`
	}
	return s
}

// checkPane returns an error wrapping ErrInvalidTarget unless pane is a tmux pane id.
func checkPane(pane string) error {
	if !adapter.ValidPane(pane) {
		return fmt.Errorf("%w: pane %q is not a tmux pane id (%% and digits)", ErrInvalidTarget, clip(pane))
	}
	return nil
}

// checkClient returns an error wrapping ErrInvalidTarget when client is empty or would
// be read by tmux as a flag.
func checkClient(client string) error {
	if client == "" || strings.HasPrefix(client, "-") {
		return fmt.Errorf("%w: client name %q", ErrInvalidTarget, clip(client))
	}
	return nil
}

// clip shortens hostile input before it is quoted into an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// DefaultSocket returns the socket of the user's default tmux server (the one plain "tmux"
// starts: $TMUX_TMPDIR, else /tmp, then tmux-UID/default), or "" when no such socket exists.
func DefaultSocket(getenv func(string) string) string {
	dir := getenv("TMUX_TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	path := filepath.Join(dir, "tmux-"+strconv.Itoa(os.Getuid()), "default")
	if fi, err := os.Stat(path); err != nil || fi.Mode()&os.ModeSocket == 0 {
		return ""
	}
	return path
}
