package lab

// The Prompt Lab's synthetic children: `trailboss lab child NAME --record FILE`, which the
// lab runs under `trailboss run`. Each writes its prompts to the terminal it is given, reads
// the answers from it, and records both, with times, in FILE (one JSON object a line), so
// the lab can tell when a prompt was written and exactly which bytes reached the child.
//
// A child reads its terminal in non-canonical mode with echo on and CR left as CR: every
// byte written to the PTY arrives as it was written (so "y\r" is seen as "y\r", and
// press-enter as a lone "\r"), and the terminal still echoes it, as it does for most
// programs. The echo-loop child keeps the terminal exactly as it comes (canonical, echo,
// CR read as LF), like a plain line-reading CLI.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// childStep is one thing a child does: write say, pause, read a line, wait for the lab's
// SIGUSR1, or write flood lines.
type childStep struct {
	say   string
	pause time.Duration
	read  bool
	wait  bool
	flood int
}

// ask is a prompt and the read of its answer; the newline after the answer is the one a
// terminal would echo in canonical mode.
func ask(prompt string) []childStep {
	return []childStep{{say: prompt}, {read: true}, {say: "\n"}}
}

// floodLines is how many lines the flood child writes before its prompt.
const floodLines = 100_000

// Prompts the children ask, which the scenarios look for.
const (
	promptPartial      = "Do you want to continue? (y/n)"
	promptRedraw       = "Proceed? (y/n) "
	promptOverwrite    = "Delete file? (y/n) "
	promptOverwriteSeq = "Overwrite existing file? (y/n) "
	promptFilename     = "Enter new filename: "
	promptMenuNumeric  = "Select an option:\n1) Deploy to staging\n2) Deploy to production\n3) Cancel\nEnter choice [1-3]: "
	promptMenuAlpha    = "Choose action:\na) Approve\nb) Reject\nc) Skip\n> "
	promptCommit       = "Enter a commit message: "
	promptMigration    = "Continue with the migration? (y/n) "
	promptPatch        = "Apply the patch? (y/n) "
	promptFlood        = "Continue? (y/n) "
	promptEcho         = "Proceed? (y/n) "
	promptEchoLater    = "Save changes? (y/n) "
	promptBranch       = "Enter the branch to delete: "
	promptLongMenuHead = "Select the release notes to publish:\n"
)

// yesNoVariants and pressEnterVariants are AtlasBridge's lists (QA-007, QA-008).
var (
	yesNoVariants = []string{
		"Delete this file? (y/n)",
		"Continue? [Y/n]",
		"Are you sure? [y/N]",
		"Overwrite? (yes/no)",
		"Press y to continue, n to cancel",
		"Confirm [y] [n]:",
		"Proceed? y/N",
	}
	pressEnterVariants = []string{
		"Press Enter to continue",
		"Press Return to start",
		"Hit enter to proceed",
		"[Press Enter]",
		"-- More --",
		"(press enter)",
	}
)

// childProgram is a synthetic child: its steps, and whether it leaves the terminal cooked,
// or cooked with echo off (hidden: a line read without showing it, as `read -s` and
// getpass read a password).
type childProgram struct {
	steps  []childStep
	cooked bool
	hidden bool
}

var children = map[string]childProgram{
	// QA-001: a prompt without a line end, then a blocking read.
	"partial-line": {steps: ask(promptPartial)},
	// QA-002: a spinner redrawn in place with colours and CR, resolving to a prompt.
	"ansi-redraw": {steps: redrawSteps()},
	// QA-003: a prompt erased with spaces before the read.
	"overwrite-before-block": {steps: []childStep{
		{say: promptOverwrite}, {say: "\r" + strings.Repeat(" ", len(promptOverwrite)) + "\r"}, {read: true}, {say: "\n"}}},
	// QA-004: a read with nothing written at all.
	"silent-block": {steps: []childStep{{read: true}, {say: "\n"}}},
	// QA-005: two prompts, the second at once after the first is answered.
	"sequential-prompts": {steps: append(ask(promptOverwriteSeq), ask(promptFilename)...)},
	// QA-006: a numbered menu, then a lettered one.
	"menus": {steps: append(ask(promptMenuNumeric), ask(promptMenuAlpha)...)},
	// QA-007 and QA-008: each variant in turn.
	"yes-no-variants":      {steps: askEach(yesNoVariants)},
	"press-enter-variants": {steps: askEach(pressEnterVariants)},
	// QA-009: a line of free text.
	"free-text": {steps: ask(promptCommit)},
	// Issue 18, text bound to what the person saw: a line of text, then another question.
	"two-texts": {steps: append(ask(promptCommit), ask(promptBranch)...)},
	// Issue 18, a message too long for Telegram: a menu of 20 long options (5,000
	// characters), then, once answered, a yes/no question.
	"long-menu": {steps: append(ask(longMenu()), ask(promptMigration)...)},
	// QA-016 and QA-017: one question, answered (or not) while the lab restarts the daemon
	// or kills the child.
	"migration": {steps: ask(promptMigration)},
	"patch":     {steps: ask(promptPatch)},
	// QA-018: on the lab's signal, 100,000 lines as fast as the terminal takes them, then
	// a prompt.
	"flood": {steps: append([]childStep{{wait: true}, {flood: floodLines}}, ask(promptFlood)...)},
	// QA-019: a cooked terminal echoes the answer; on the lab's signal, a genuine second
	// prompt.
	"echo-loop": {cooked: true, steps: []childStep{
		{say: promptEcho}, {read: true}, {wait: true}, {say: promptEchoLater}, {read: true}}},
}

// longMenu is a numbered menu of 20 options (the most a record takes) of 250 characters
// each: over 5,000 characters.
func longMenu() string {
	var b strings.Builder
	b.WriteString(promptLongMenuHead)
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "%d) %s\n", i, strings.TrimSpace(strings.Repeat(fmt.Sprintf("notes %02d ", i), 28)))
	}
	b.WriteString("Enter choice [1-20]: ")
	return b.String()
}

func askEach(prompts []string) []childStep {
	var steps []childStep
	for _, p := range prompts {
		steps = append(steps, ask(p+" ")...)
	}
	return steps
}

// redrawSteps is a spinner of twelve frames 50 ms apart (longer than the lab's settle, so
// a supervisor that classifies before output is quiet would see it), then AtlasBridge's
// "Loading. Done!" and the prompt.
func redrawSteps() []childStep {
	frames := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏", "⠋", "⠙"}
	var steps []childStep
	for _, f := range frames {
		steps = append(steps, childStep{say: "\x1b[2K\x1b[36m" + f + "\x1b[0m Loading... \r", pause: 50 * time.Millisecond})
	}
	steps = append(steps, childStep{say: "\x1b[2KLoading. Done!\n"})
	return append(steps, ask(promptRedraw)...)
}

// childEvent is one line of a child's record.
type childEvent struct {
	T    int64  `json:"t"`  // Unix nanoseconds
	Ev   string `json:"ev"` // start, said, read, waiting, go, flooded, exit
	PID  int    `json:"pid,omitempty"`
	Text string `json:"text,omitempty"` // what was written (said)
	Data string `json:"data,omitempty"` // what was read
}

// ErrNoChild says that no synthetic child has the name given.
var ErrNoChild = errors.New("no such child")

// RunChild is the synthetic child called name, run in this process on its standard input
// and output (`trailboss lab child NAME --record FILE`), recording what it writes and reads
// in the file record.
func RunChild(ctx context.Context, name, record string) error {
	c, ok := children[name]
	if !ok {
		return ErrNoChild
	}
	rec, err := os.OpenFile(record, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer rec.Close()
	note := func(ev childEvent) error {
		ev.T = time.Now().UnixNano()
		b, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		_, err = rec.Write(append(b, '\n'))
		return err
	}
	go_ := make(chan os.Signal, 1)
	signal.Notify(go_, syscall.SIGUSR1)
	defer signal.Stop(go_)
	switch {
	case c.hidden:
		if err := hiddenInput(int(os.Stdin.Fd())); err != nil {
			return fmt.Errorf("lab child: set up the terminal: %w", err)
		}
	case !c.cooked:
		if err := exactInput(int(os.Stdin.Fd())); err != nil {
			return fmt.Errorf("lab child: set up the terminal: %w", err)
		}
	}
	if err := note(childEvent{Ev: "start", PID: os.Getpid()}); err != nil {
		return err
	}
	for _, s := range c.steps {
		switch {
		case s.say != "":
			if _, err := os.Stdout.WriteString(s.say); err != nil {
				return err
			}
			if err := note(childEvent{Ev: "said", Text: s.say}); err != nil {
				return err
			}
		case s.read:
			if err := readLine(func(data string) error { return note(childEvent{Ev: "read", Data: data}) }); err != nil {
				return err
			}
		case s.wait:
			if err := note(childEvent{Ev: "waiting"}); err != nil {
				return err
			}
			select {
			case <-go_:
			case <-ctx.Done():
				return ctx.Err()
			}
			if err := note(childEvent{Ev: "go"}); err != nil {
				return err
			}
		case s.flood > 0:
			if err := flood(s.flood); err != nil {
				return err
			}
			if err := note(childEvent{Ev: "flooded"}); err != nil {
				return err
			}
		}
		if s.pause > 0 {
			time.Sleep(s.pause) // a spinner's frame, part of what the child shows
		}
	}
	return note(childEvent{Ev: "exit"})
}

// readLine reads standard input until a CR or LF, calling got with each chunk as read.
func readLine(got func(string) error) error {
	buf := make([]byte, 4096)
	for {
		n, err := os.Stdin.Read(buf)
		if n > 0 {
			if err := got(string(buf[:n])); err != nil {
				return err
			}
			if strings.ContainsAny(string(buf[:n]), "\r\n") {
				return nil
			}
		}
		if err != nil {
			return fmt.Errorf("read the answer: %w", err)
		}
	}
}

// flood writes n numbered lines to standard output in large writes.
func flood(n int) error {
	buf := make([]byte, 0, 64<<10)
	for i := 1; i <= n; i++ {
		buf = fmt.Appendf(buf, "flood line %06d of %d: the quick brown fox jumps over the lazy dog\n", i, n)
		if len(buf) > 60<<10 || i == n {
			if _, err := os.Stdout.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	return nil
}

// hiddenInput turns the terminal fd's echo off and leaves it canonical, as bash's `read -s`
// and Python's getpass do. A fd that is not a terminal is left alone.
func hiddenInput(fd int) error {
	var t syscall.Termios
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TCGETS, uintptr(unsafe.Pointer(&t))); e != 0 {
		if e == syscall.ENOTTY {
			return nil
		}
		return e
	}
	t.Lflag &^= syscall.ECHO
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TCSETS, uintptr(unsafe.Pointer(&t))); e != 0 {
		return e
	}
	return nil
}

// exactInput puts the terminal fd in non-canonical mode with CR kept as CR, one byte
// enough for a read, and echo left as it is. A fd that is not a terminal is left alone.
func exactInput(fd int) error {
	var t syscall.Termios
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TCGETS, uintptr(unsafe.Pointer(&t))); e != 0 {
		if e == syscall.ENOTTY {
			return nil
		}
		return e
	}
	t.Lflag &^= syscall.ICANON
	t.Iflag &^= syscall.ICRNL | syscall.INLCR | syscall.IGNCR
	t.Cc[syscall.VMIN], t.Cc[syscall.VTIME] = 1, 0
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TCSETS, uintptr(unsafe.Pointer(&t))); e != 0 {
		return e
	}
	return nil
}
