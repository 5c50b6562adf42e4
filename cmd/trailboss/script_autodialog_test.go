package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/trailboss/trailboss/cmd/internal/simagent"
	"golang.org/x/sys/unix"
)

// autoDialogMain is the "auto-dialog" command of the scripts (TestMain): a stand-in for
// Claude Code 2.1.332 asking, in auto mode, for one Bash command. It draws the dialog as
// the real one does (testscripts/answer_auto_mode_dialog.txtar; the real screen is
// adapter/prompt/testdata/claude-2.1.332/r-permission-dialog.txt): unnumbered, No first,
// the highlight (❯) on No; ↑ and ↓ move the highlight, Enter picks the highlighted option,
// Esc picks No, and any other key does nothing, as the real one was seen to do with digits.
// It reads its terminal in raw mode and writes every key it gets to LOG, one a line ("key
// Down", "key Enter", "key '2'", "key Esc"), then what it picked ("picked Yes"). An Enter
// that comes within enterGrace of the dialog appearing is dropped ("key Enter dropped"),
// as the real one was seen to drop it (Claude Code 2.1.318's changelog: keys sent as a
// prompt appears are ignored).
//
//	auto-dialog SESSION LOG COMMAND [NEXT]
//
// The real dialog fires no PermissionRequest, and the daemon does not yet make a record of
// the PreToolUse it fires; so that the dialog has a prompt record, it sends one
// PermissionRequest of its own through `trailboss emit`, from its pane, before the dialog
// is drawn, as PreToolUse comes before it: an answer can come as the dialog appears.
// With NEXT, the first key finds another dialog in place of the first, for command NEXT
// (a second tool call's, as prompts replace each other): the key goes to that one.
// Picked Yes, it fires PostToolUse; picked No, it says "Interrupted" as Claude Code does.
func autoDialogMain() {
	if len(os.Args) != 4 && len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: auto-dialog SESSION LOG COMMAND [NEXT]")
		os.Exit(2)
	}
	session, logPath, command := os.Args[1], os.Args[2], os.Args[3]
	next := ""
	if len(os.Args) == 5 {
		next = os.Args[4]
	}
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	say := func(format string, args ...any) { fmt.Fprintf(log, format+"\n", args...) }
	fd := int(os.Stdin.Fd())
	saved, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		fmt.Fprintln(os.Stderr, "auto-dialog needs a terminal:", err)
		os.Exit(1)
	}
	raw := *saved
	raw.Lflag &^= unix.ICANON | unix.ECHO | unix.ISIG | unix.IEXTEN
	raw.Iflag &^= unix.ICRNL | unix.IXON
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &raw); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer func() { _ = unix.IoctlSetTermios(fd, unix.TCSETS, saved) }()

	sel := 0 // 0: No, 1: Yes
	draw := func() {
		fmt.Print("\x1b[H\x1b[2J" + autoDialogScreen(command, sel))
		say("drawn %s, the highlight on %s", command, autoDialogOptions[sel])
	}
	autoDialogHook(session, map[string]any{"hook_event_name": "PermissionRequest", "tool_name": "Bash",
		"tool_input": map[string]any{"command": command, "description": "Touch a file"}, "permission_mode": "auto"})
	time.Sleep(drawAfter)
	keys := simagent.OpenKeyboard(os.Stdin)
	draw()
	appeared := time.Now()
	keys.Discard() // keys typed before the dialog was drawn are dropped, as Claude Code drops them
	picked := false
	for {
		k, ok := keys.Key(context.Background())
		if !ok {
			return
		}
		if picked {
			say("key %q after the pick", k) // nothing is asked any more: a key now is a stray one
			continue
		}
		if next != "" {
			command, next, sel = next, "", 0
			draw()
			appeared = time.Now()
		}
		switch k {
		case simagent.KeyUp:
			say("key Up")
			sel = max(sel-1, 0)
		case simagent.KeyDown:
			say("key Down")
			sel = min(sel+1, len(autoDialogOptions)-1)
		case simagent.KeyEnter, simagent.KeyEsc:
			if k == simagent.KeyEnter && time.Since(appeared) < enterGrace {
				say("key Enter dropped")
				continue
			}
			name := "Enter"
			if k == simagent.KeyEsc {
				name, sel = "Esc", 0
			}
			say("key %s", name)
			say("picked %s", autoDialogOptions[sel])
			fmt.Print("\x1b[H\x1b[2J❯ run touch\n\n")
			if sel == 1 {
				autoDialogHook(session, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash",
					"tool_input": map[string]any{"command": command}, "tool_response": map[string]any{"stdout": ""}})
				fmt.Print("  Ran 1 shell command\n\n● done\n")
			} else {
				fmt.Printf("  Did not run 1 call\n  ⎿  $ %s\n  ⎿  Interrupted · What should Claude do instead?\n", command)
			}
			picked = true
			continue
		default:
			say("key %q", k)
			continue
		}
		draw()
	}
}

// enterGrace is how long after the dialog appears an Enter is dropped: an Enter sent within
// 120 ms of Claude Code 2.1.332's dialog first being seen was dropped 6 times in 9, one
// sent 140 ms or more after it never.
const enterGrace = 150 * time.Millisecond

// drawAfter is how long after its hook the dialog is drawn.
const drawAfter = 300 * time.Millisecond

// autoDialogOptions are the options of Claude Code 2.1.332's auto-mode dialog, in its order.
var autoDialogOptions = []string{"No", "Yes"}

// autoDialogScreen is the screen of Claude Code 2.1.332 asking in auto mode for command,
// line for line as the real one draws it, with the highlight on option sel.
func autoDialogScreen(command string, sel int) string {
	rule, dashes := strings.Repeat("─", 100), strings.Repeat("╌", 100)
	var b strings.Builder
	fmt.Fprintf(&b, "❯ run touch\n\n● Touching a file\n  ⎿  $ %s\n\n\n%s\n Bash command\n Touch a file\n%s\n %s\n%s\n", command, rule, dashes, command, dashes)
	b.WriteString(" Auto mode can't check actions in this session, so this one needs your approval\n\n Do you want to proceed?\n")
	for i, o := range autoDialogOptions {
		mark := "  "
		if i == sel {
			mark = "❯ "
		}
		fmt.Fprintf(&b, " %s%s\n", mark, o)
	}
	b.WriteString("\n Esc to cancel · Tab to amend")
	return b.String()
}

// autoDialogHook fires one Claude Code hook event for session: `trailboss emit` with the
// payload on stdin, from this process (the agent of the pane), with the pane's
// environment, as Claude Code runs its hooks.
func autoDialogHook(session string, payload map[string]any) {
	cwd, _ := os.Getwd()
	payload["session_id"], payload["cwd"] = session, cwd
	payload["transcript_path"] = filepath.Join(os.Getenv("TRANSCRIPTS"), session+".jsonl")
	body, _ := json.Marshal(payload)
	cmd := exec.Command("trailboss", "emit")
	cmd.Stdin = bytes.NewReader(body)
	_ = cmd.Run() // emit prints nothing and exits 0, as a hook must
}
