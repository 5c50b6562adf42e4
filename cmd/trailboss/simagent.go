package main

import (
	"bufio"
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
)

// runDemoAgent is a simulated Claude Code session for the demo and the end-to-end tests. It
// goes through the real hook path: every hook is a `trailboss emit` child process reading
// the payload on stdin with the pane's environment, and every turn is appended to a
// transcript in Claude Code's JSONL shape. A line typed in its pane is the human's answer.
//
// Its script is a list of turns, each "stop:<what it says>" (finish a turn and wait) or
// "ask:<command>" (wait at a permission prompt for a Bash command).
func runDemoAgent(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("demo-agent", flag.ContinueOnError)
	session := fs.String("session", "", "session id (default: random)")
	transcript := fs.String("transcript", "", "transcript file to append to (default: under $HOME/.claude/projects)")
	work := fs.Duration("work", 1500*time.Millisecond, "how long each turn works before it stops")
	first := fs.Duration("first", -1, "how long the first turn works (default: --work)")
	script := fs.String("script", "stop:Done. Shall I go on?", "turns, separated by |: stop:TEXT, ask:COMMAND, or idle (work forever); the last repeats")
	hooks := fs.String("hooks", "all", "comma-separated hook events to fire (the others are 'lost'), or all")
	if err := parse(fs, args, e.stderr); err != nil {
		return err
	}
	a := &simAgent{out: e.stdout, session: *session, transcript: *transcript, hooks: *hooks}
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
	a.in = readLines(e.stdin)

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
		default:
			if !a.stop(ctx, text) {
				return nil
			}
		}
	}
	return nil
}

// readLines returns the lines read from r, one at a time; the channel closes at the end of
// r. A line typed in the agent's pane is the human's answer.
func readLines(r io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		in := bufio.NewScanner(r)
		for in.Scan() {
			lines <- in.Text()
		}
	}()
	return lines
}

// answer returns the human's next line; false when the input ended or ctx did.
func (a *simAgent) answer(ctx context.Context) (string, bool) {
	select {
	case <-ctx.Done():
		return "", false
	case l, ok := <-a.in:
		return l, ok
	}
}

type simAgent struct {
	out                      io.Writer
	work                     time.Duration
	session, transcript, cwd string
	last                     string        // uuid of the last transcript line
	hooks                    string        // which hook events fire: "all" or a comma list
	in                       <-chan string // the lines typed in the pane
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

func randomID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
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
	cmd := exec.CommandContext(ctx, selfPath(), "emit")
	cmd.Stdin = bytes.NewReader(body)
	_ = cmd.Run() // emit never fails and prints nothing
}

// line appends one transcript line of the given type and message.
func (a *simAgent) line(typ string, message map[string]any, extra map[string]any) {
	id := randomID()
	rec := map[string]any{"type": typ, "uuid": id, "parentUuid": a.last, "sessionId": a.session,
		"timestamp": time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), "isSidechain": false,
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
	fmt.Fprintf(a.out, "● %s\n\n> ", text)
	prompt, ok := a.answer(ctx)
	if !ok {
		return false
	}
	a.hook(ctx, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": prompt})
	a.line("user", map[string]any{"role": "user", "content": prompt}, nil)
	return true
}

// askPermission waits at a permission prompt for command; any answer lets the tool run.
func (a *simAgent) askPermission(ctx context.Context, command string) bool {
	toolID := "toolu_" + randomID()[:12]
	input := map[string]any{"command": command}
	a.hook(ctx, map[string]any{"hook_event_name": "PermissionRequest", "tool_name": "Bash",
		"tool_input": input, "permission_mode": "default"})
	fmt.Fprintf(a.out, "Bash command\n  %s\nDo you want to proceed?\n❯ 1. Yes\n  2. No\n> ", command)
	if _, ok := a.answer(ctx); !ok {
		return false
	}
	// The tool call is written only after the permission is answered, as Claude Code does.
	a.line("assistant", map[string]any{"role": "assistant", "stop_reason": "tool_use",
		"content": []map[string]any{{"type": "tool_use", "id": toolID, "name": "Bash", "input": input}}}, nil)
	a.line("user", map[string]any{"role": "user", "content": []map[string]any{{
		"type": "tool_result", "tool_use_id": toolID, "content": "ok", "is_error": false}}}, nil)
	a.hook(ctx, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash",
		"tool_input": input, "tool_use_id": toolID, "tool_response": map[string]any{"stdout": "ok"}})
	fmt.Fprintln(a.out, "ran:", command)
	return true
}
