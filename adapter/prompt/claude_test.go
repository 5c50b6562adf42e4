package prompt

import (
	"strconv"
	"strings"
	"testing"
)

// Claude Code's screens, drawn the way its terminal UI (Ink) writes them: SGR colours,
// cursor-forward instead of spaces between words, a frame redrawn by erasing the lines of
// the one before (ESC[2K, ESC[1A … ESC[G) and writing the next.

const orange = "38;2;215;119;87" // Claude's accent colour

// sgr wraps s in the SGR attributes code and a reset.
func sgr(code, s string) string { return "\x1b[" + code + "m" + s + "\x1b[39m\x1b[22m" }

// fwd draws the spaces of s as cursor-forward, as Claude Code does.
func fwd(s string) string { return strings.ReplaceAll(s, " ", "\x1b[1C") }

// ink renders frames one after another the way Ink's log-update does: each frame is
// written with a newline after it, and the next one first erases every line of it.
func ink(frames ...string) string {
	var b strings.Builder
	prev := 0
	for _, f := range frames {
		for i := 0; i < prev; i++ {
			b.WriteString("\x1b[2K")
			if i < prev-1 {
				b.WriteString("\x1b[1A")
			}
		}
		if prev > 0 {
			b.WriteString("\x1b[G")
		}
		out := f + "\n"
		b.WriteString(out)
		prev = strings.Count(out, "\n") + 1
	}
	return b.String()
}

func lines(ls ...string) string { return strings.Join(ls, "\r\n") }

var glyphs = []string{"·", "✢", "✳", "✶", "✻", "✽"}

// spinner is the spinner line at tick n.
func spinner(n int) string {
	return sgr(orange, glyphs[n%len(glyphs)]) + " " + sgr(orange, fwd("Thinking…")) + " " +
		sgr("2", fwd("("+strconv.Itoa(n)+"s · esc to interrupt)"))
}

// inputRule is the horizontal rule Claude Code 2.x draws above and below its input box.
var inputRule = sgr("2", strings.Repeat("─", 80))

// idleBox is Claude Code 2.x's input box, empty, with its status line under it.
var idleBox = lines(inputRule, sgr("2", "> "), inputRule, "  "+sgr("2", fwd("? for shortcuts")))

// idleBox1x is Claude Code 1.x's boxed input with its placeholder; the right border is
// reached with a long cursor-forward.
var idleBox1x = lines(
	sgr("2", "╭"+strings.Repeat("─", 78)+"╮"),
	sgr("2", "│")+" > "+sgr("2", fwd(`Try "refactor <filepath>"`))+"\x1b[49C"+sgr("2", "│"),
	sgr("2", "╰"+strings.Repeat("─", 78)+"╯"),
	"  "+sgr("2", fwd("? for shortcuts")))

var history = lines(
	sgr("1", "> ")+fwd("clean up the build output"),
	"",
	sgr(orange, "⏺")+" "+fwd("I'll remove the build directory first."),
	"")

// permissionDialog is the Bash permission dialog of Claude Code 2.x.
var permissionDialog = lines(
	sgr(orange, strings.Repeat("─", 80)),
	" "+sgr("1", fwd("Bash command")),
	"",
	"   "+fwd("rm -rf build"),
	"   "+sgr("2", fwd("Remove the build directory")),
	"",
	" "+fwd("Do you want to proceed?"),
	" "+sgr(orange, fwd("❯ 1. Yes")),
	"   "+fwd("2. Yes, and don't ask again for rm commands in /home/dev/shop"),
	"   "+fwd("3. No, and tell Claude what to do differently ")+sgr("2", "(esc)"))

var permissionChoices = []Choice{
	{"1", "Yes"},
	{"2", "Yes, and don't ask again for rm commands in /home/dev/shop"},
	{"3", "No, and tell Claude what to do differently (esc)"},
}

// box draws body inside Claude Code 1.x's rounded box of width 80.
func box(body ...string) string {
	out := []string{sgr(orange, "╭"+strings.Repeat("─", 78)+"╮")}
	for _, l := range body {
		out = append(out, sgr(orange, "│")+" "+l+"\x1b[80G"+sgr(orange, "│"))
	}
	return lines(append(out, sgr(orange, "╰"+strings.Repeat("─", 78)+"╯"))...)
}

var editDialog = box(
	sgr("1", fwd("Edit file")),
	sgr("2", "╭"+strings.Repeat("─", 74)+"╮"),
	sgr("2", "│")+" "+fwd("internal/pay/client.go")+"\x1b[78G"+sgr("2", "│"),
	sgr("2", "│")+"\x1b[78G"+sgr("2", "│"),
	sgr("2", "│")+" "+sgr("41", fwd(" 41 -  return http.DefaultClient"))+"\x1b[78G"+sgr("2", "│"),
	sgr("2", "│")+" "+sgr("42", fwd(" 41 +  return retrying(http.DefaultClient, 3)"))+"\x1b[78G"+sgr("2", "│"),
	sgr("2", "╰"+strings.Repeat("─", 74)+"╯"),
	fwd("Do you want to make this edit to client.go?"),
	sgr(orange, fwd("❯ 1. Yes")),
	fwd("  2. Yes, allow all edits during this session ")+sgr("2", "(shift+tab)"),
	fwd("  3. No, and tell Claude what to do differently ")+sgr("2", "(esc)"))

var createDialog = lines(
	sgr(orange, strings.Repeat("─", 80)),
	" "+sgr("1", fwd("Create file")),
	" "+fwd("docs/RETRIES.md"),
	"   1 "+fwd("# Retries"),
	"   2 ",
	"   3 "+fwd("The pay client retries idempotent calls three times."),
	"",
	" "+fwd("Do you want to create RETRIES.md?"),
	" "+sgr(orange, fwd("❯ 1. Yes")),
	"   "+fwd("2. Yes, allow all edits during this session (shift+tab)"),
	"   "+fwd("3. No, and tell Claude what to do differently (esc)"))

var planDialog = box(
	sgr("1", fwd("Ready to code?")),
	"",
	fwd("Here is Claude's plan:"),
	sgr("2", "╭"+strings.Repeat("─", 74)+"╮"),
	sgr("2", "│")+" "+fwd("1. Add a retry wrapper around the pay client")+"\x1b[78G"+sgr("2", "│"),
	sgr("2", "│")+" "+fwd("2. Cover it with a table test")+"\x1b[78G"+sgr("2", "│"),
	sgr("2", "╰"+strings.Repeat("─", 74)+"╯"),
	"",
	fwd("Would you like to proceed?"),
	"",
	sgr(orange, fwd("❯ 1. Yes, and auto-accept edits")),
	fwd("  2. Yes, and manually approve edits"),
	fwd("  3. No, keep planning"))

var planDialog2x = lines(
	sgr(orange, strings.Repeat("─", 80)),
	" "+sgr("1", fwd("Ready to code?")),
	"",
	" "+fwd("Here is Claude's plan:"),
	"   "+fwd("1. Add a retry wrapper around the pay client"),
	"   "+fwd("2. Cover it with a table test"),
	"",
	" "+fwd("Claude has written up a plan and is ready to execute. Would you like to proceed?"),
	"",
	"   "+fwd("1. Yes, clear context and auto-accept edits (shift+tab)"),
	"   "+fwd("2. Yes, auto-accept edits"),
	"   "+fwd("3. Yes, manually approve edits"),
	" "+sgr(orange, fwd("❯ 4. Type here to tell Claude what to change")))

var askUserQuestion = lines(
	sgr(orange, strings.Repeat("─", 80)),
	" ←  "+sgr("7", fwd(" ☐ Database "))+"  "+fwd("☐ Cache  ✔ Submit  →"),
	"",
	sgr("1", fwd("Which database should the service use?")),
	"",
	sgr(orange, fwd("❯ 1. PostgreSQL")),
	"     "+sgr("2", fwd("Relational, mature, what ops already runs")),
	fwd("  2. SQLite"),
	"     "+sgr("2", fwd("Embedded, zero configuration")),
	fwd("  3. MongoDB"),
	"     "+sgr("2", fwd("Document store, flexible schema")),
	fwd("  4. DynamoDB"),
	"     "+sgr("2", fwd("Managed, scales without us")),
	fwd("  5. Type something."),
	"",
	sgr("2", fwd("Enter to select · ↑/↓ to navigate · Esc to cancel")))

var trustDialog1x = box(
	sgr("1", fwd("Do you trust the files in this folder?")),
	"",
	sgr("1", "/home/dev/shop"),
	"",
	fwd("Claude Code may read, write, or execute files contained in this directory. This can"),
	fwd("pose security risks, so only use files from trusted sources."),
	"",
	sgr("2", fwd("Learn more ( https://docs.anthropic.com/s/claude-code-security )")),
	"",
	sgr(orange, fwd("❯ 1. Yes, proceed")),
	fwd("  2. No, exit"))

var trustDialog2x = lines(
	sgr(orange, strings.Repeat("─", 80)),
	" "+sgr("1", fwd("Accessing workspace:")),
	"",
	" "+sgr("1", "/home/dev/shop"),
	"",
	" "+fwd("Quick safety check: Is this a project you created or one you trust? (Like your own"),
	" "+fwd("code, a well-known open source project, or work from your team). If not, take a"),
	" "+fwd("moment to review what's in this folder first."),
	"",
	" "+fwd("Claude Code'll be able to read, edit, and execute files here."),
	"",
	" "+sgr(orange, fwd("❯ 1. Yes, I trust this folder")),
	"   "+fwd("2. No, exit"),
	"",
	" "+sgr("2", fwd("Enter to confirm · Esc to cancel")))

var bypassWarning = box(
	sgr("31", fwd("WARNING: Claude Code running in Bypass Permissions mode")),
	"",
	fwd("In Bypass Permissions mode, Claude Code will not ask for your approval before"),
	fwd("running potentially dangerous commands."),
	"",
	sgr(orange, fwd("❯ 1. No, exit")),
	fwd("  2. Yes, I accept"))

// spinnerTicks redraws the spinner line over itself n times with CR and erase-line.
func spinnerTicks(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("\r\x1b[2K" + spinner(i))
	}
	return b.String()
}

// busyFrames are Ink frames of a working Claude: the spinner over the input box.
func busyFrames(n int) []string {
	var fs []string
	for i := 1; i <= n; i++ {
		fs = append(fs, lines(spinner(i), "", idleBox))
	}
	return fs
}

// claudeScreens returns every screen above, for the fuzz targets' seeds.
func claudeScreens() []string {
	var out []string
	for _, tt := range claudeTests {
		out = append(out, tt.in)
	}
	return out
}

var claudeTests = []struct {
	name     string
	in       string
	kind     Kind
	screen   string
	harness  string
	question string
	choices  []Choice
	minConf  float64
}{
	{"permission dialog after Ink erased the spinner",
		history + ink(append(busyFrames(4), permissionDialog)...),
		MultipleChoice, ScreenPermission, HarnessClaude, "Do you want to proceed?", permissionChoices, 0.95},
	{"permission dialog below a spinner left on screen",
		history + spinnerTicks(5) + "\r\n\r\n" + permissionDialog,
		MultipleChoice, ScreenPermission, HarnessClaude, "Do you want to proceed?", permissionChoices, 0.95},
	{"permission dialog drawn by cursor positioning",
		"\x1b[2J\x1b[3J\x1b[H" + "\x1b[1;2HDo\x1b[1Cyou\x1b[1Cwant\x1b[1Cto\x1b[1Cproceed?" +
			"\x1b[2;2H❯\x1b[1C1.\x1b[1CYes\x1b[3;4H2.\x1b[1CNo,\x1b[1Cand\x1b[1Ctell\x1b[1CClaude\x1b[1Cwhat\x1b[1Cto\x1b[1Cdo\x1b[1Cdifferently",
		MultipleChoice, ScreenPermission, HarnessClaude, "Do you want to proceed?",
		[]Choice{{"1", "Yes"}, {"2", "No, and tell Claude what to do differently"}}, 0.95},
	{"permission dialog stripped of its spaces elsewhere",
		"Doyouwanttoproceed?\n❯1.Yes\n2.Yes,anddon'taskagainforrmcommands\n3.No,andtellClaudewhattododifferently(esc)",
		MultipleChoice, ScreenPermission, HarnessClaude, "Doyouwanttoproceed?",
		[]Choice{{"1", "Yes"}, {"2", "Yes,anddon'taskagainforrmcommands"}, {"3", "No,andtellClaudewhattododifferently(esc)"}}, 0.95},
	{"permission dialog with the cursor moved to No",
		lines(" Do you want to proceed?", "   1. Yes", "   2. Yes, and don't ask again", " ❯ 3. No, and tell Claude what to do differently (esc)"),
		MultipleChoice, ScreenPermission, HarnessClaude, "Do you want to proceed?",
		[]Choice{{"1", "Yes"}, {"2", "Yes, and don't ask again"}, {"3", "No, and tell Claude what to do differently (esc)"}}, 0.95},
	{"permission dialog from a fetch",
		lines(" Fetch", "", "   https://pkg.go.dev/net/http", "", " Do you want to allow Claude to fetch this content?", " ❯ 1. Yes", "   2. Yes, and don't ask again for pkg.go.dev", "   3. No, and tell Claude what to do differently (esc)"),
		MultipleChoice, ScreenPermission, HarnessClaude, "Do you want to allow Claude to fetch this content?", nil, 0.95},

	{"spinner below a dialog still on screen",
		history + permissionDialog + "\r\n\r\n" + spinnerTicks(6) + "\r\n\r\n" + idleBox,
		Busy, ScreenBusy, HarnessClaude, "", nil, 0.95},
	{"spinner just below a dialog, no input box",
		history + permissionDialog + "\r\n\r\n" + spinnerTicks(3),
		Busy, ScreenBusy, HarnessClaude, "", nil, 0.95},
	{"spinner scrolled away",
		spinner(2) + "\r\n" + strings.Repeat("compiling… ok\r\n", 41),
		Unknown, "", "", "", nil, 0},
	{"generic menu above a spinner",
		lines("1) fast", "2) thorough", "> 2", "", spinner(4)),
		Busy, ScreenBusy, HarnessClaude, "", nil, 0.95},
	{"spinner after Ink erased the dialog",
		history + ink(append([]string{permissionDialog}, busyFrames(3)...)...),
		Busy, ScreenBusy, HarnessClaude, "", nil, 0.95},
	{"spinner over the input box",
		history + ink(busyFrames(6)...),
		Busy, ScreenBusy, HarnessClaude, "", nil, 0.95},
	{"spinner with a todo list between it and the input box",
		history + lines(spinner(7), "  ⎿  ☒ Read the pay client", "     ☐ Add the retry wrapper", "     ☐ Cover it with a table test", "", idleBox),
		Busy, ScreenBusy, HarnessClaude, "", nil, 0.95},
	{"spinner without its esc hint",
		lines(sgr(orange, "✶")+" "+sgr(orange, fwd("Clauding…")), "", idleBox),
		Busy, ScreenBusy, HarnessClaude, "", nil, 0.85},
	{"spinner of a todo",
		lines(sgr(orange, "✻")+" "+fwd("Running the table tests… (esc to interrupt · ctrl+t to hide todos)"), "", idleBox),
		Busy, ScreenBusy, HarnessClaude, "", nil, 0.95},
	{"another agent's working line",
		lines("• Working (5s • esc to interrupt)", "", "▌ Ask Codex to do anything"),
		Busy, ScreenBusy, "", "", nil, 0.95},

	{"idle input box (2.x)", history + idleBox,
		FreeText, ScreenIdle, HarnessClaude, "", nil, 0.95},
	{"idle input box (1.x) with its placeholder", history + idleBox1x,
		FreeText, ScreenIdle, HarnessClaude, "", nil, 0.95},
	{"idle input box after a finished turn",
		history + lines(sgr(orange, "✻")+" "+fwd("Worked for 1m 3s"), "", idleBox),
		FreeText, ScreenIdle, HarnessClaude, "", nil, 0.95},
	{"idle input box with a suggestion and a mode line",
		lines("⏺ Done: the build directory is gone.", "", inputRule, "❯ "+sgr("2", fwd("push it")), inputRule, "  "+fwd("⏵⏵ accept edits on (shift+tab to cycle)")),
		FreeText, ScreenIdle, HarnessClaude, "", nil, 0.95},
	{"idle input box below an answered dialog left on screen",
		permissionDialog + "\r\n" + lines("⏺ Bash(rm -rf build)", "  ⎿  (No content)", "", "⏺ Done.", "") + idleBox,
		FreeText, ScreenIdle, HarnessClaude, "", nil, 0.95},
	{"idle input box far below a stale spinner",
		lines(spinner(3), "⏺ Here is the summary:", "  - one", "  - two", "  - three", "  - four", "  - five", "  - six",
			"  - seven", "  - eight", "  - nine", "  - ten", "  - eleven", "  - twelve", "  - thirteen", "  - fourteen", "  - fifteen", "  - sixteen", "", idleBox),
		FreeText, ScreenIdle, HarnessClaude, "", nil, 0.95},

	{"edit dialog", history + editDialog,
		MultipleChoice, ScreenEdit, HarnessClaude, "Do you want to make this edit to client.go?",
		[]Choice{{"1", "Yes"}, {"2", "Yes, allow all edits during this session (shift+tab)"}, {"3", "No, and tell Claude what to do differently (esc)"}}, 0.95},
	{"create dialog", history + createDialog,
		MultipleChoice, ScreenEdit, HarnessClaude, "Do you want to create RETRIES.md?", nil, 0.95},
	{"plan approval (boxed)", history + planDialog,
		MultipleChoice, ScreenPlan, HarnessClaude, "Would you like to proceed?",
		[]Choice{{"1", "Yes, and auto-accept edits"}, {"2", "Yes, and manually approve edits"}, {"3", "No, keep planning"}}, 0.95},
	{"plan approval with four options, cursor on the last", history + planDialog2x,
		MultipleChoice, ScreenPlan, HarnessClaude, "Claude has written up a plan and is ready to execute. Would you like to proceed?",
		[]Choice{{"1", "Yes, clear context and auto-accept edits (shift+tab)"}, {"2", "Yes, auto-accept edits"}, {"3", "Yes, manually approve edits"}, {"4", "Type here to tell Claude what to change"}}, 0.95},
	{"AskUserQuestion with four options", history + askUserQuestion,
		MultipleChoice, ScreenQuestion, HarnessClaude, "Which database should the service use?",
		[]Choice{{"1", "PostgreSQL"}, {"2", "SQLite"}, {"3", "MongoDB"}, {"4", "DynamoDB"}, {"5", "Type something."}}, 0.9},
	{"folder trust dialog (1.x)", trustDialog1x,
		MultipleChoice, ScreenTrust, HarnessClaude, "Do you trust the files in this folder?",
		[]Choice{{"1", "Yes, proceed"}, {"2", "No, exit"}}, 0.95},
	{"folder trust dialog (2.x)", trustDialog2x,
		MultipleChoice, ScreenTrust, HarnessClaude,
		"Quick safety check: Is this a project you created or one you trust? (Like your own code, a well-known open source project, or work from your team). If not, take a moment to review what's in this folder first.",
		[]Choice{{"1", "Yes, I trust this folder"}, {"2", "No, exit"}}, 0.95},
	{"a Claude menu of no known dialog", bypassWarning,
		MultipleChoice, "", HarnessClaude, "In Bypass Permissions mode, Claude Code will not ask for your approval before running potentially dangerous commands.",
		[]Choice{{"1", "No, exit"}, {"2", "Yes, I accept"}}, 0.85},
	{"a ❯ menu under a question",
		lines(" "+fwd("Which output style should Claude use?"), "", " "+sgr(orange, fwd("❯ 1. Default")), "   "+fwd("2. Explanatory"), "   "+fwd("3. Learning")),
		MultipleChoice, ScreenQuestion, HarnessClaude, "Which output style should Claude use?",
		[]Choice{{"1", "Default"}, {"2", "Explanatory"}, {"3", "Learning"}}, 0.9},
	{"prose that mentions esc to interrupt above the input box",
		lines("⏺ While I work you can press esc to interrupt me at any time.", "", idleBox),
		FreeText, ScreenIdle, HarnessClaude, "", nil, 0.95},
	{"menu entry between separators is not the input box",
		lines(" "+fwd("Which approach should we take?"), "", " "+fwd("  1. Small patch"), "   "+fwd("2. Rewrite the module"),
			inputRule, " "+sgr(orange, fwd("❯ 3. Chat about this")), inputRule, " "+sgr("2", fwd("Enter to select · ↑/↓ to navigate · Esc to cancel"))),
		MultipleChoice, ScreenQuestion, HarnessClaude, "Which approach should we take?",
		[]Choice{{"1", "Small patch"}, {"2", "Rewrite the module"}, {"3", "Chat about this"}}, 0.9},
	{"lone ❯ entry far from the next number",
		lines(" "+sgr(orange, fwd("❯ 1. Deploy")), "", "   a", "   b", "   c", "   d", "   e", "   2. Rollback"),
		Unknown, "", "", "", nil, 0},
	{"yes/no below the input box Claude left behind",
		history + idleBox + "\r\n" + lines("dev@box:~/shop$ sudo apt upgrade", "Reading package lists... Done",
			"The following packages will be upgraded:", "  libssl3 openssl", "Do you want to continue? [Y/n] "),
		YesNo, "", "", "Do you want to continue? [Y/n]", []Choice{{"y", "Yes"}, {"n", "No"}}, 0.9},
	{"free text below the input box is its footer",
		history + lines(inputRule, "> ", inputRule, "  "+fwd("/compact   Clear conversation history but keep a summary. Optional:")),
		FreeText, ScreenIdle, HarnessClaude, "", nil, 0.9},
	{"input box left behind, a shell below",
		history + idleBox + "\r\n" + strings.Repeat("dev@box:~/shop$ ls\r\nMakefile  go.mod  main.go\r\n", 7) + "dev@box:~/shop$ ",
		Unknown, "", "", "", nil, 0},
	{"dialog scrolled away under later output",
		permissionDialog + "\r\n" + lines("a", "b", "c", "d", "e", "f", "g", "$"),
		Unknown, "", "", "", nil, 0},
	{"numbered list in an answer above the idle box",
		lines("⏺ Next steps:", "  1. Add the retry wrapper", "  2. Cover it with a table test", "  3. Ship it", "", idleBox),
		FreeText, ScreenIdle, HarnessClaude, "", nil, 0.95},
}

func TestClassifyClaudeScreens(t *testing.T) {
	for _, tt := range claudeTests {
		t.Run(tt.name, func(t *testing.T) {
			got := Classify(tt.in)
			if got.Kind != tt.kind || got.Screen != tt.screen || got.Harness != tt.harness {
				t.Fatalf("got %v screen=%q harness=%q, want %v %q %q\nscreen:\n%s",
					got.Kind, got.Screen, got.Harness, tt.kind, tt.screen, tt.harness, StripANSI(tt.in))
			}
			if got.Question != tt.question {
				t.Errorf("question %q, want %q", got.Question, tt.question)
			}
			if tt.choices != nil && !equalChoices(got.Choices, tt.choices) {
				t.Errorf("choices %q, want %q", got.Choices, tt.choices)
			}
			if got.Confidence < tt.minConf || got.Confidence > 1 || (tt.kind == Unknown) != (got.Confidence == 0) {
				t.Errorf("confidence %.2f, want at least %.2f", got.Confidence, tt.minConf)
			}
			if tt.kind == MultipleChoice && got.Default != got.Choices[0] {
				t.Errorf("default %q, want the first choice %q", got.Default, got.Choices[0])
			}
		})
	}
}

func equalChoices(a, b []Choice) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
