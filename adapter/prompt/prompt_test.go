package prompt

import (
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// classifyTest is one screen and what Classify must read off it. keys are the Choices'
// keys in order (nil: no choices); def is the Default's key.
type classifyTest struct {
	name     string
	in       string
	kind     Kind
	minConf  float64
	question string
	keys     []string
	def      string
	secret   bool
}

var (
	yn      = []string{"y", "n"}
	yesno   = []string{"yes", "no"}
	enter   = []string{KeyEnter}
	numbers = []string{"1", "2", "3"}
)

// The variants of QA-006, QA-007, QA-008 and QA-020 of AtlasBridge's QA scenarios
// (seeds/atlasbridge-qa-scenarios.md), each its own row named after the scenario.
var qaTests = []classifyTest{
	// QA-006: multiple choice, numeric and alphabetic; ≥ 0.75; the safe default is the
	// first choice, never "n".
	{"QA-006/numeric", "Select an option:\n1) Deploy to staging\n2) Deploy to production\n3) Cancel\nEnter choice [1-3]: ",
		MultipleChoice, 0.85, "Select an option:", numbers, "1", false},
	{"QA-006/alpha", "Choose action:\na) Approve\nb) Reject\nc) Skip\n> ",
		MultipleChoice, 0.85, "Choose action:", []string{"a", "b", "c"}, "a", false},
	{"QA-006/numeric-bare", "1) Option A\n2) Option B",
		MultipleChoice, 0.75, "", []string{"1", "2"}, "1", false},
	{"QA-006/alpha-bare", "a) Option A\nb) Option B",
		MultipleChoice, 0.75, "", []string{"a", "b"}, "a", false},
	{"QA-006/nine-choices", "Pick a region:\n1) us-east-1\n2) us-east-2\n3) us-west-1\n4) us-west-2\n5) eu-west-1\n6) eu-west-2\n7) eu-central-1\n8) ap-south-1\n9) ap-northeast-1\n#? ",
		MultipleChoice, 0.85, "Pick a region:", []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, "1", false},

	// QA-007: every yes/no variant is YesNo with ≥ 0.65 and the safe default no, whatever
	// the prompt capitalises ("[Y/n]" does not make yes the default).
	{"QA-007/(y/n)", "Delete this file? (y/n)", YesNo, 0.9, "Delete this file? (y/n)", yn, "n", false},
	{"QA-007/[Y/n]", "Continue? [Y/n]", YesNo, 0.9, "Continue? [Y/n]", yn, "n", false},
	{"QA-007/[y/N]", "Are you sure? [y/N]", YesNo, 0.9, "Are you sure? [y/N]", yn, "n", false},
	{"QA-007/(yes/no)", "Overwrite? (yes/no)", YesNo, 0.9, "Overwrite? (yes/no)", yesno, "no", false},
	{"QA-007/press-y-or-n", "Press y to continue, n to cancel", YesNo, 0.65, "Press y to continue, n to cancel", yn, "n", false},
	{"QA-007/[y] [n]", "Confirm [y] [n]:", YesNo, 0.9, "Confirm [y] [n]:", yn, "n", false},
	{"QA-007/bare-y/N", "Proceed? y/N", YesNo, 0.65, "Proceed? y/N", yn, "n", false},
	{"QA-007/[Y/N]", "Proceed? [Y/N]", YesNo, 0.9, "Proceed? [Y/N]", yn, "n", false},
	{"QA-007/[y]", "Install these 3 packages? [y]", YesNo, 0.65, "Install these 3 packages? [y]", yn, "n", false},
	{"QA-007/[n]", "Remove the old config? [n]", YesNo, 0.65, "Remove the old config? [n]", yn, "n", false},
	{"QA-007/bare-yes/no", "Are you sure you want to continue connecting yes/no", YesNo, 0.65,
		"Are you sure you want to continue connecting yes/no", yesno, "no", false},
	{"QA-007/press-y-to-confirm", "Press y to confirm", YesNo, 0.65, "Press y to confirm", yn, "n", false},

	// QA-008: press-enter gates are PressEnter with ≥ 0.65, default Enter, never y or n.
	{"QA-008/press-enter", "Press Enter to continue", PressEnter, 0.9, "Press Enter to continue", enter, KeyEnter, false},
	{"QA-008/press-return", "Press Return to start", PressEnter, 0.9, "Press Return to start", enter, KeyEnter, false},
	{"QA-008/hit-enter", "Hit enter to proceed", PressEnter, 0.9, "Hit enter to proceed", enter, KeyEnter, false},
	{"QA-008/[Press Enter]", "[Press Enter]", PressEnter, 0.9, "[Press Enter]", enter, KeyEnter, false},
	{"QA-008/more", "-- More --", PressEnter, 0.9, "-- More --", enter, KeyEnter, false},
	{"QA-008/(press enter)", "(press enter)", PressEnter, 0.9, "(press enter)", enter, KeyEnter, false},

	// QA-020: CRLF output (ConPTY) classifies as LF output does, with ≥ 0.65, and
	// Unicode or undecodable bytes around it do no harm.
	{"QA-020/crlf-delete-(y/n)", "Delete? (y/n)\r\n", YesNo, 0.9, "Delete? (y/n)", yn, "n", false},
	{"QA-020/crlf-proceed-[Y/N]", "Proceed? [Y/N]\r\n", YesNo, 0.9, "Proceed? [Y/N]", yn, "n", false},
	{"QA-020/crlf-press-enter", "Press Enter to continue\r\n", PressEnter, 0.9, "Press Enter to continue", enter, KeyEnter, false},
	{"QA-020/crlf-numbered", "1) Option A\r\n2) Option B\r\n", MultipleChoice, 0.65, "", []string{"1", "2"}, "1", false},
	{"QA-020/crlf-continue-(y/n)", "Continue? (y/n)\r\n", YesNo, 0.9, "Continue? (y/n)", yn, "n", false},
	{"QA-020/crlf-free-text", "Enter new filename: \r\n", FreeText, 0.65, "Enter new filename:", nil, "", false},
	{"QA-020/unicode-before-prompt", "\u2714 Done\r\n\u2714 Built in 3.2s\r\nContinue? (y/n)\r\n", YesNo, 0.9, "Continue? (y/n)", yn, "n", false},
	// The scenario prints the Unicode output after the question: output after a question
	// means it is no longer what the program waits on.
	{"QA-020/unicode-after-prompt", "Continue? (y/n)\r\n\u2714 Done\r\n", Unknown, 0, "", nil, "", false},
	{"QA-020/undecodable-bytes", "\xff\xfe\u2714 Done\r\nProceed? [Y/N]\r\n", YesNo, 0.9, "Proceed? [Y/N]", yn, "n", false},
	{"QA-020/conpty-redraw", "\x1b[?25l\x1b[2J\x1b[m\x1b[HContinue? (y/n)\x1b]0;C:\\Windows\\system32\\cmd.exe\x07\x1b[?25h\r\n",
		YesNo, 0.9, "Continue? (y/n)", yn, "n", false},
}

// Other prompts: the brief's examples, neighbours of the QA scenarios, and screens that
// are not prompts.
var genericTests = []classifyTest{
	{"QA-001/partial-line", "Do you want to continue? (y/n)", YesNo, 0.9, "Do you want to continue? (y/n)", yn, "n", false},
	{"QA-002/redraw-then-prompt", "Loading... \rLoading... \rLoading... \rLoading. Done!\r\nProceed? (y/n) ",
		YesNo, 0.9, "Proceed? (y/n)", yn, "n", false},
	{"QA-003/overwritten-before-block", "Delete file? (y/n) \r                  \r", Unknown, 0, "", nil, "", false},
	{"QA-005/second-question", "Overwrite existing file? (y/n) y\nEnter new filename: ", FreeText, 0.6, "Enter new filename:", nil, "", false},
	{"QA-018/prompt-after-flood", strings.Repeat("compiling module 0042 of 9999 ... ok\n", 20000) + "Continue? (y/n) ",
		YesNo, 0.9, "Continue? (y/n)", yn, "n", false},

	{"yes-no/brief-proceed-(yes/no)?", "Proceed (yes/no)?", YesNo, 0.9, "Proceed (yes/no)?", yesno, "no", false},
	{"yes-no/ssh-fingerprint", "Are you sure you want to continue connecting (yes/no/[fingerprint])? ", YesNo, 0.9,
		"Are you sure you want to continue connecting (yes/no/[fingerprint])?", yesno, "no", false},
	{"yes-no/(y)es/(n)o", "Apply this patch? (y)es/(n)o", YesNo, 0.9, "Apply this patch? (y)es/(n)o", yn, "n", false},
	{"yes-no/apt", "After this operation, 12.3 MB of additional disk space will be used.\nDo you want to continue? [Y/n] ",
		YesNo, 0.9, "Do you want to continue? [Y/n]", yn, "n", false},
	{"yes-no/marker-under-question", "Delete all 42 snapshots?\n[y/N]", YesNo, 0.9, "Delete all 42 snapshots? [y/N]", yn, "n", false},
	{"yes-no/glued-by-other-stripper", "Doyouwanttocontinue?[Y/n]", YesNo, 0.9, "Doyouwanttocontinue?[Y/n]", yn, "n", false},
	{"yes-no/marker-mid-sentence-is-not-a-question", "Run with (y/n) answered automatically by the --yes flag and logged to the audit file",
		Unknown, 0, "", nil, "", false},

	{"yes-no/marker-beats-press-enter", "Continue? [Y/n] (press enter for yes)", YesNo, 0.9,
		"Continue? [Y/n] (press enter for yes)", yn, "n", false},
	{"press-enter/any-key", "Press any key to continue . . .", PressEnter, 0.9, "Press any key to continue . . .", enter, KeyEnter, false},
	{"press-enter/vim", "Press ENTER or type command to continue", PressEnter, 0.9, "Press ENTER or type command to continue", enter, KeyEnter, false},
	{"press-enter/more-percent", "line 1\nline 2\n--More--(45%)", PressEnter, 0.9, "--More--(45%)", enter, KeyEnter, false},

	{"choice/brief-inline", "Pick one: 1) foo 2) bar 3) baz", MultipleChoice, 0.75, "Pick one:", numbers, "1", false},
	{"choice/brief-bracketed", "Build type:\n[1] Debug\n[2] Release\nSelect: ", MultipleChoice, 0.85, "Build type:", []string{"1", "2"}, "1", false},
	{"choice/bash-select", "1) start\n2) stop\n3) status\n#? ", MultipleChoice, 0.8, "", numbers, "1", false},
	{"choice/dotted-with-cursor", "Which template?\n> 1. Minimal\n  2. Full\n  3. Empty\n", MultipleChoice, 0.8, "Which template?", numbers, "1", false},
	{"choice/wrapped-label", "Strategy:\n1) Rebase onto main and force-push the\n   branch when done\n2) Merge main in\nChoice: ",
		MultipleChoice, 0.85, "Strategy:", []string{"1", "2"}, "1", false},
	{"choice/prose-list-then-shell-prompt", "Next steps:\n1. Build\n2. Test\ndev@box:~/shop$", Unknown, 0, "", nil, "", false},
	{"choice/not-starting-at-one", "Options:\n2) foo\n3) bar\n> ", Unknown, 0, "", nil, "", false},

	{"free-text/brief-name", "Enter your name:", FreeText, 0.7, "Enter your name:", nil, "", false},
	{"free-text/question-mark-alone", "What should the release be called?", FreeText, 0.5, "What should the release be called?", nil, "", false},
	{"free-text/question-over-marker", "What should the release be called?\n> ", FreeText, 0.6, "What should the release be called?", nil, "", false},
	{"free-text/heading-colon", "Errors:", FreeText, 0.4, "Errors:", nil, "", false},
	{"free-text/sudo-password", "[sudo] password for dev: ", FreeText, 0.9, "[sudo] password for dev:", nil, "", true},
	{"free-text/ssh-passphrase", "Enter passphrase for key '/home/dev/.ssh/id_ed25519': ", FreeText, 0.9,
		"Enter passphrase for key '/home/dev/.ssh/id_ed25519':", nil, "", true},
	{"free-text/git-password", "Password for 'https://dev@github.com': ", FreeText, 0.9, "Password for 'https://dev@github.com':", nil, "", true},
	{"free-text/api-token", "Paste your API token:", FreeText, 0.9, "Paste your API token:", nil, "", true},

	{"free-text/after-user-echo-and-rule", "⏺ Ready.\n> deploy it\n────────────────\nDeploying to production\nType the environment name to confirm:",
		FreeText, 0.7, "Type the environment name to confirm:", nil, "", false},
	{"none/markdown-bullet", "Remaining work:\n* Updating the docs\n* Adding tests", Unknown, 0, "", nil, "", false},
	{"none/empty", "", Unknown, 0, "", nil, "", false},
	{"none/blank-lines", "\n\n   \r\n\t\n", Unknown, 0, "", nil, "", false},
	{"none/plain-output", "ok  \tgithub.com/trailboss/trailboss/daemon\t0.412s\nPASS", Unknown, 0, "", nil, "", false},
	{"none/question-scrolled-away", "Continue? (y/n) y\nRemoving build/ ...\nDone.", Unknown, 0, "", nil, "", false},
	{"none/escapes-only", "\x1b[2J\x1b[H\x1b[?25l\x1b]0;title\x07", Unknown, 0, "", nil, "", false},
	{"none/question-mark-first", "? for shortcuts", Unknown, 0, "", nil, "", false},
}

func TestClassifyQAScenarios(t *testing.T) { runClassify(t, qaTests) }

func TestClassifyGeneric(t *testing.T) { runClassify(t, genericTests) }

func runClassify(t *testing.T, tests []classifyTest) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Classify(tt.in)
			if got.Kind != tt.kind {
				t.Fatalf("kind %v (%.2f, %q), want %v\nscreen:\n%s", got.Kind, got.Confidence, got.Question, tt.kind, StripANSI(tt.in))
			}
			if got.Confidence < tt.minConf || got.Confidence > 1 || (tt.kind == Unknown) != (got.Confidence == 0) {
				t.Errorf("confidence %.2f, want at least %.2f", got.Confidence, tt.minConf)
			}
			if tt.kind != Unknown && tt.kind != Busy && got.Confidence >= 0.9 != (tt.minConf >= 0.9) {
				t.Errorf("confidence %.2f on the wrong side of 0.9 (want at least %.2f)", got.Confidence, tt.minConf)
			}
			if got.Question != tt.question {
				t.Errorf("question %q, want %q", got.Question, tt.question)
			}
			var keys []string
			for _, c := range got.Choices {
				keys = append(keys, c.Key)
			}
			if strings.Join(keys, ",") != strings.Join(tt.keys, ",") {
				t.Errorf("keys %q, want %q", keys, tt.keys)
			}
			if got.Default.Key != tt.def {
				t.Errorf("default %q, want key %q", got.Default, tt.def)
			}
			if got.Secret != tt.secret {
				t.Errorf("secret %v, want %v", got.Secret, tt.secret)
			}
			if got.Harness != "" || got.Screen != "" {
				t.Errorf("harness %q screen %q on a generic prompt", got.Harness, got.Screen)
			}
		})
	}
}

// The safe default never answers yes to a yes/no question, is Enter for a press-enter
// gate and the first entry of a menu, and is absent where nothing can be assumed. The
// first entry of Claude Code's approval menus is the approving one: Default follows the
// rule for menus there (see Result.Default), and the refusing entry is the one that
// starts "No".
func TestSafeDefaults(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Choice
	}{
		{"yes/no capital Y", "Continue? [Y/n]", Choice{"n", "No"}},
		{"yes/no capital Y spelt out", "Proceed? (YES/no)", Choice{"no", "No"}},
		{"yes/no bare Y", "Proceed? Y/n", Choice{"n", "No"}},
		{"yes/no lone [y]", "Install? [y]", Choice{"n", "No"}},
		{"press enter", "Press Enter to continue", Choice{KeyEnter, "Enter"}},
		{"numbered menu", "1) Deploy to production\n2) Cancel\n> ", Choice{"1", "Deploy to production"}},
		{"lettered menu", "a) Approve\nb) Reject\n> ", Choice{"a", "Approve"}},
		{"free text", "Enter your name:", Choice{}},
		{"password", "Password:", Choice{}},
		{"busy", "✻ Thinking… (3s · esc to interrupt)", Choice{}},
		{"unknown", "hello", Choice{}},
		{"Claude permission menu", permissionDialog, Choice{"1", "Yes"}},
		{"Claude plan menu", planDialog, Choice{"1", "Yes, and auto-accept edits"}},
		{"Claude trust menu", trustDialog1x, Choice{"1", "Yes, proceed"}},
		{"Claude AskUserQuestion", askUserQuestion, Choice{"1", "PostgreSQL"}},
		{"Claude idle box", idleBox, Choice{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Classify(tt.in)
			if got.Default != tt.want {
				t.Errorf("default %q, want %q (kind %v)", got.Default, tt.want, got.Kind)
			}
			if got.Kind == YesNo && (len(got.Choices) != 2 || got.Choices[1] != got.Default) {
				t.Errorf("yes/no choices %q do not end with the default", got.Choices)
			}
		})
	}
}

func TestKindString(t *testing.T) {
	want := map[Kind]string{Unknown: "unknown", YesNo: "yes-no", PressEnter: "press-enter",
		MultipleChoice: "multiple-choice", FreeText: "free-text", Busy: "busy", Busy + 1: "Kind(6)", -1: "Kind(-1)"}
	for k, s := range want {
		if k.String() != s || k.Valid() != !strings.HasPrefix(s, "Kind(") {
			t.Errorf("Kind %d: String %q Valid %v, want %q", int(k), k.String(), k.Valid(), s)
		}
	}
}

// A question longer than MaxQuestionLen is cut on a rune boundary.
func TestQuestionIsCut(t *testing.T) {
	in := strings.Repeat("é", 400) + " (y/n)"
	got := Classify(in)
	if got.Kind != YesNo || len(got.Question) > MaxQuestionLen || !utf8.ValidString(got.Question) ||
		!strings.HasSuffix(got.Question, "…") {
		t.Errorf("kind %v question of %d bytes: %q", got.Kind, len(got.Question), got.Question)
	}
}

// Classify reads only the end of a huge input: it still finds what the input ends with,
// and its work stays bounded however much came before.
func TestClassifyHugeInput(t *testing.T) {
	in := "Continue? (y/n)\n" + strings.Repeat(strings.Repeat("x", 99)+"\n", 80000) + "Press Enter to continue"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := Classify(in)
	runtime.ReadMemStats(&after)
	if got.Kind != PressEnter || got.Question != "Press Enter to continue" {
		t.Errorf("kind %v question %q, want %v", got.Kind, got.Question, PressEnter)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("Classify of %d bytes allocated %d bytes", len(in), alloc)
	}
}

func FuzzClassify(f *testing.F) {
	for _, tests := range [][]classifyTest{qaTests, genericTests} {
		for _, tt := range tests {
			if len(tt.in) < 4096 {
				f.Add(tt.in)
			}
		}
	}
	for _, s := range claudeScreens() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := Classify(in)
		if !got.Kind.Valid() {
			t.Fatalf("invalid kind %d", got.Kind)
		}
		if got.Confidence < 0 || got.Confidence > 1 || (got.Kind == Unknown) != (got.Confidence == 0) {
			t.Fatalf("kind %v with confidence %v", got.Kind, got.Confidence)
		}
		if len(got.Question) > MaxQuestionLen || !utf8.ValidString(got.Question) {
			t.Fatalf("question %q", got.Question)
		}
		switch got.Kind {
		case YesNo, PressEnter, MultipleChoice:
			found := false
			for _, c := range got.Choices {
				found = found || c == got.Default
				if c.Key == "" || len(c.Label) > maxLabelLen || !utf8.ValidString(c.Label) {
					t.Fatalf("choice %q", c)
				}
			}
			if !found {
				t.Fatalf("default %q is none of %q", got.Default, got.Choices)
			}
			if got.Kind == YesNo && got.Default.Label != "No" {
				t.Fatalf("yes/no default %q", got.Default)
			}
		default:
			if got.Default != (Choice{}) || len(got.Choices) != 0 {
				t.Fatalf("%v with default %q and choices %q", got.Kind, got.Default, got.Choices)
			}
		}
		if got.Secret && got.Kind != FreeText {
			t.Fatalf("secret %v", got.Kind)
		}
	})
}
