// Package simagent is a simulated Claude Code session for the demo and the end-to-end tests.
// It goes through the real hook path: every hook is a `trailboss emit` child process reading
// the payload on stdin with the pane's environment, and every turn is appended to a
// transcript in Claude Code's JSONL shape. It reads its keyboard as Claude Code does: a
// finished turn takes a line (text, then Enter), and a permission dialog takes one key, with
// no Enter (see Keyboard).
//
// Its script is a list of turns, each "stop:<what it says>" (finish a turn and wait for a
// line), "ask:<command>" (wait at a permission prompt for a Bash command: 1 or 2 allow it, 3
// or Esc refuse it, Enter picks the highlighted entry), or "yn:<question>" (ask on screen with
// "[y/N]" and read a line, as a shell script does: no hook says so, so only the screen shows
// it — run it under trailboss run or trailboss watch to have it queued).
package simagent

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// Run runs the simulated agent with the demo-agent verb's flags until its script ends or ctx
// does; trailboss is the binary whose emit verb fires its hooks.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, trailboss string) error {
	fs := flag.NewFlagSet("demo-agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	session := fs.String("session", "", "session id (default: random)")
	transcript := fs.String("transcript", "", "transcript file to append to (default: under $HOME/.claude/projects)")
	work := fs.Duration("work", 1500*time.Millisecond, "how long each turn works before it stops")
	first := fs.Duration("first", -1, "how long the first turn works (default: --work)")
	script := fs.String("script", "stop:Done. Shall I go on?", "turns, separated by |: stop:TEXT, ask:COMMAND, yn:QUESTION, or idle (work forever); the last repeats")
	hooks := fs.String("hooks", "all", "comma-separated hook events to fire (the others are 'lost'), or all")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("demo-agent takes no arguments, got %q", strings.Join(fs.Args(), " "))
	}
	a := &simAgent{out: stdout, trailboss: trailboss, session: *session, transcript: *transcript, hooks: *hooks}
	if a.session == "" {
		a.session = randomID()
	}
	cwd, _ := os.Getwd()
	a.cwd = cwd
	if a.transcript == "" {
		home, _ := os.UserHomeDir()
		a.transcript = filepath.Join(home, ".claude", "projects", projectDir(cwd), a.session+".jsonl")
	}
	if err := os.MkdirAll(filepath.Dir(a.transcript), 0o755); err != nil {
		return err
	}
	turns := strings.Split(*script, "|")
	a.keys = OpenKeyboard(stdin)
	defer a.keys.cooked()

	a.hook(ctx, map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
	fmt.Fprintf(a.out, "simulated agent %s\n", a.session)
	for i := 0; ctx.Err() == nil; i++ {
		turn := turns[min(i, len(turns)-1)]
		kind, text, _ := strings.Cut(turn, ":")
		if kind == "idle" {
			<-ctx.Done()
			return nil
		}
		a.work = *work
		if i == 0 && *first >= 0 {
			a.work = *first
		}
		if !a.working(ctx) {
			return nil
		}
		switch kind {
		case "ask":
			if !a.askPermission(ctx, text) {
				return nil
			}
		case "yn":
			if !a.askYesNo(ctx, text) {
				return nil
			}
		default:
			if !a.stop(ctx, text) {
				return nil
			}
		}
	}
	return nil
}

type simAgent struct {
	out                      io.Writer
	trailboss                string // the binary whose emit verb fires a hook
	work                     time.Duration
	session, transcript, cwd string
	last                     string    // uuid of the last transcript line
	lastAt                   time.Time // and its timestamp
	hooks                    string    // which hook events fire: "all" or a comma list
	keys                     *Keyboard // the pane's keyboard
}

// projectDir is Claude Code's folder name for a launch directory.
func projectDir(cwd string) string {
	var b strings.Builder
	for _, r := range cwd {
		if (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

// hook runs `trailboss emit` with payload on stdin, as Claude Code runs a command hook.
func (a *simAgent) hook(ctx context.Context, payload map[string]any) {
	name, _ := payload["hook_event_name"].(string)
	if a.hooks != "all" && !strings.Contains(","+a.hooks+",", ","+name+",") {
		return
	}
	payload["session_id"] = a.session
	payload["transcript_path"] = a.transcript
	payload["cwd"] = a.cwd
	body, _ := json.Marshal(payload)
	cmd := exec.CommandContext(ctx, a.trailboss, "emit")
	cmd.Stdin = bytes.NewReader(body)
	_ = cmd.Run() // emit never fails and prints nothing
}

// line appends one transcript line of the given type and message.
func (a *simAgent) line(typ string, message map[string]any, extra map[string]any) {
	id := randomID()
	// Timestamps have milliseconds, and each line's is later than the one before, as Claude
	// Code's are: a refused tool's result and the interrupt marker after it are 1 ms apart.
	at := time.Now().UTC().Truncate(time.Millisecond)
	if !at.After(a.lastAt) {
		at = a.lastAt.Add(time.Millisecond)
	}
	a.lastAt = at
	rec := map[string]any{"type": typ, "uuid": id, "parentUuid": a.last, "sessionId": a.session,
		"timestamp": at.Format("2006-01-02T15:04:05.000Z"), "isSidechain": false,
		"cwd": a.cwd, "version": "2.1.0", "message": message}
	for k, v := range extra {
		rec[k] = v
	}
	a.last = id
	b, _ := json.Marshal(rec)
	f, err := os.OpenFile(a.transcript, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(b, '\n'))
}

// working shows a spinner with the seconds spent for a.work, as Claude Code does while it
// works; false when ctx ended first.
func (a *simAgent) working(ctx context.Context) bool {
	spin := []string{"·", "✢", "✳", "✶", "✻", "✽"}
	start := time.Now()
	for i := 0; time.Since(start) < a.work; i++ {
		fmt.Fprintf(a.out, "\r%s Working… (%ds · esc to interrupt)", spin[i%len(spin)], int(time.Since(start).Seconds()))
		select {
		case <-ctx.Done():
			return false
		case <-time.After(150 * time.Millisecond):
		}
	}
	fmt.Fprint(a.out, "\r\x1b[K")
	return true
}

// stop ends a turn with text and waits for the human's next prompt.
func (a *simAgent) stop(ctx context.Context, text string) bool {
	a.line("assistant", map[string]any{"role": "assistant", "stop_reason": "end_turn",
		"content": []map[string]any{{"type": "text", "text": text}}}, nil)
	a.line("system", nil, map[string]any{"subtype": "turn_duration", "durationMs": a.work.Milliseconds()})
	a.hook(ctx, map[string]any{"hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": text})
	fmt.Fprintf(a.out, "● %s\n\n", text)
	return a.prompt(ctx)
}

// prompt shows the input box and waits for the human's next message: a line, as Claude
// Code's input box takes it (text, then Enter; Enter on an empty box does nothing). The box
// is drawn as Claude Code draws it, between two rules with its hint under it, so that it
// reads as Claude Code's own input box: only that takes a typed reply.
func (a *simAgent) prompt(ctx context.Context) bool {
	width := termCols(a.out) - 1
	if width <= 0 {
		width = 60
	}
	rule := strings.Repeat("─", width)
	// The rule under the box and the hint, then back up to the box's line, after "> ".
	fmt.Fprint(a.out, rule+"\n> \n"+rule+"\n  ? for shortcuts\x1b[2A\r\x1b[2C")
	defer fmt.Fprint(a.out, "\r\x1b[J") // the line was taken: the box's lower half goes
	var prompt string
	for strings.TrimSpace(prompt) == "" {
		l, ok := a.keys.line(ctx)
		if !ok {
			return false
		}
		prompt = l
	}
	a.hook(ctx, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": prompt})
	a.line("user", map[string]any{"role": "user", "content": prompt}, nil)
	return true
}

// permission entries, as Claude Code numbers its Bash dialog: the first two run the command.
const (
	permYes    = 0
	permAlways = 1
	permNo     = 2
)

// askPermission shows Claude Code's Bash permission dialog for command and waits for one
// key: 1 or 2 (or Enter on them) run it, 3 (or Enter on it, or Esc) refuses it. Run, the
// tool call and its result are written and PostToolUse fires; refused, the transcript says
// so as Claude Code writes it (no hook fires) and the agent waits for the human's message.
func (a *simAgent) askPermission(ctx context.Context, command string) bool {
	toolID := "toolu_" + randomID()[:12]
	input := map[string]any{"command": command}
	word, _, _ := strings.Cut(strings.TrimSpace(command), " ")
	entries := []string{"Yes", "Yes, and don't ask again for " + word + " commands in " + a.cwd,
		"No, and tell Claude what to do differently (esc)"}
	// The dialog takes keys from the moment it is drawn, and none typed before.
	a.keys.menu()
	defer a.keys.cooked()
	cols := termCols(a.out)
	head := fmt.Sprintf("Bash command\n\n  %s\n\nDo you want to proceed?\n", command)
	sel := permYes
	menu := menuText(entries, sel)
	fmt.Fprint(a.out, head+menu)
	a.hook(ctx, map[string]any{"hook_event_name": "PermissionRequest", "tool_name": "Bash",
		"tool_input": input, "permission_mode": "default"})
	picked := -1
	for picked < 0 {
		k, ok := a.keys.Key(ctx)
		if !ok {
			return false
		}
		switch k {
		case "1", "2", "3":
			picked = int(k[0] - '1')
		case KeyEnter:
			picked = sel
		case KeyEsc:
			picked = permNo
		case KeyUp, KeyDown:
			if k == KeyUp {
				sel = (sel + len(entries) - 1) % len(entries)
			} else {
				sel = (sel + 1) % len(entries)
			}
			redrawn := menuText(entries, sel)
			fmt.Fprint(a.out, eraseRows(rows(menu, cols))+redrawn)
			menu = redrawn
		}
	}
	// Answered, the dialog goes away, as Claude Code's does: what it asked is history.
	fmt.Fprint(a.out, eraseRows(rows(head+menu, cols)))
	a.keys.cooked()
	// The tool call is written only after the permission is answered, as Claude Code does.
	a.line("assistant", map[string]any{"role": "assistant", "stop_reason": "tool_use",
		"content": []map[string]any{{"type": "tool_use", "id": toolID, "name": "Bash", "input": input}}}, nil)
	fmt.Fprintf(a.out, "\n● Bash(%s)\n", command)
	if picked == permNo {
		a.line("user", map[string]any{"role": "user", "content": []map[string]any{{
			"type": "tool_result", "tool_use_id": toolID, "is_error": true,
			"content": "The user doesn't want to proceed with this tool use. The tool use was rejected " +
				"(eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are " +
				"doing and wait for the user to tell you how to proceed."}}},
			map[string]any{"toolUseResult": "User rejected tool use"})
		a.line("user", map[string]any{"role": "user", "content": []map[string]any{{
			"type": "text", "text": "[Request interrupted by user for tool use]"}}}, nil)
		fmt.Fprint(a.out, "  ⎿  Interrupted · What should Claude do instead?\n\n")
		return a.prompt(ctx)
	}
	a.line("user", map[string]any{"role": "user", "content": []map[string]any{{
		"type": "tool_result", "tool_use_id": toolID, "content": "ok", "is_error": false}}}, nil)
	a.hook(ctx, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash",
		"tool_input": input, "tool_use_id": toolID, "tool_response": map[string]any{"stdout": "ok"}})
	fmt.Fprintln(a.out, "  ⎿  ran:", command)
	return true
}

// menuText is a dialog's entries with the highlighted one marked ❯.
func menuText(entries []string, sel int) string {
	var b strings.Builder
	for i, e := range entries {
		mark := " "
		if i == sel {
			mark = "❯"
		}
		fmt.Fprintf(&b, "%s %d. %s\n", mark, i+1, e)
	}
	return b.String()
}

// eraseRows moves the cursor up n rows, to the start of the row, and clears the screen
// from there down: what was drawn on those rows is gone.
func eraseRows(n int) string { return fmt.Sprintf("\x1b[%dA\r\x1b[J", n) }

// rows returns how many screen rows text (whole lines) takes in a terminal cols wide (0:
// unknown, one row a line).
func rows(text string, cols int) int {
	n := 0
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		w := utf8.RuneCountInString(l)
		if cols > 0 && w > cols {
			n += (w + cols - 1) / cols
		} else {
			n++
		}
	}
	return n
}

// termCols returns the width of the terminal w writes to, or 0 when w is none.
func termCols(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}

// askYesNo asks question as a shell script does, "[y/N]", and reads a line: y or yes (any
// case) is yes, anything else no. It fires no hook and writes no transcript line: it is a
// program's own question, which only the screen shows.
func (a *simAgent) askYesNo(ctx context.Context, question string) bool {
	a.keys.Discard()
	fmt.Fprintf(a.out, "%s [y/N] ", question)
	l, ok := a.keys.line(ctx)
	if !ok {
		return false
	}
	// What it says then is no question: the screen must not read as asking again.
	said := "no"
	if l := strings.ToLower(strings.TrimSpace(l)); l == "y" || l == "yes" {
		said = "yes"
	}
	fmt.Fprintf(a.out, "answered %s to: %s\n", said, strings.TrimRight(question, "?"))
	return true
}

// randomID returns a random id in the form of a UUID, as Claude Code's session and line
// ids are.
func randomID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
