package hooks

// Installing and removing Trail Boss's entries in Codex CLI's config.toml. The functions here
// are pure: bytes in, bytes out; the command line reads and writes the file.
//
// Two marked blocks, each a run of whole lines:
//
//   - the notify block, `notify = [TRAILBOSS, "emit", "--codex"]`, goes where the root keys
//     end (before the first table, and before the comments right above it), since a TOML key
//     after a table header would belong to that table;
//   - the hooks block, Codex's inline `[[hooks.EVENT]]` tables, goes at the end of the file,
//     so that hooks the user already has keep their positions (Codex keys its trust in a
//     hook by event, group index and hash).
//
// Everything else keeps its bytes, and removing the blocks gives them back. Codex rewrites
// config.toml itself (a trusted project, a trusted hook under [hooks.state], /model), and may
// then put its own lines inside a block: uninstall takes out only the lines that are Trail
// Boss's, and keeps the rest.

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Markers of the two blocks. Each is a whole line.
const (
	codexNotifyStart = "# >>> trailboss >>>"
	codexNotifyEnd   = "# <<< trailboss <<<"
	codexHooksStart  = "# >>> trailboss hooks >>>"
	codexHooksEnd    = "# <<< trailboss hooks <<<"
)

// CodexHookTimeout is the timeout, in seconds, of each hook installed: the emitter gives up
// long before it.
const CodexHookTimeout = 5

// CodexHookEvents returns the Codex hook events Trail Boss installs. Turn ends come from
// notify; Stop is installed as well only when notify is the user's own (withStop), since
// both fire at every turn end.
func CodexHookEvents(withStop bool) []string {
	evs := []string{"SessionStart", "UserPromptSubmit", "PermissionRequest", "PostToolUse"}
	if withStop {
		evs = append(evs, "Stop")
	}
	return evs
}

// CodexInstall is what InstallCodex made of a config.
type CodexInstall struct {
	Config []byte // the config with Trail Boss's blocks
	// UserNotify is the user's own notify program, left alone: Trail Boss's notify line is
	// not installed and the Stop hook is, instead. Nil when notify is free or already runs
	// `trailboss emit --codex`.
	UserNotify []string
	// UserNotifyOdd is set when the user's notify is not a list of strings (so it cannot be
	// chained by CodexNotifyChain).
	UserNotifyOdd bool
	Notify        bool     // Trail Boss's notify line is in Config
	Hooks         []string // the hook events installed
}

// CodexSyntaxError says where a config.toml is not valid TOML.
type CodexSyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *CodexSyntaxError) Error() string {
	return fmt.Sprintf("not valid TOML at line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// InstallCodex returns config with Trail Boss's notify program and hooks for bin (the
// trailboss program as Codex should run it: "trailboss" from PATH, or an absolute path)
// added, and every other byte kept. Blocks already there are replaced, so installing twice
// returns the input unchanged. A notify the user already has is never replaced (see
// CodexInstall.UserNotify). It returns a *CodexSyntaxError for a config that is not valid
// TOML, and an error when the result would not be (a "hooks" key of another shape).
func InstallCodex(config []byte, bin string) (CodexInstall, error) {
	if err := checkTOML(config); err != nil {
		return CodexInstall{}, err
	}
	base, _, err := UninstallCodex(config)
	if err != nil {
		return CodexInstall{}, err
	}
	doc, err := scanCodexConfig(base)
	if err != nil {
		return CodexInstall{}, err
	}
	res := CodexInstall{}
	switch {
	case !doc.hasNotify:
		res.Notify = true
	case doc.notify == nil:
		res.UserNotifyOdd = true
	case !isTrailbossNotify(doc.notify):
		res.UserNotify = doc.notify
	}
	res.Hooks = CodexHookEvents(doc.hasNotify && !isTrailbossNotify(doc.notify))

	nl := lineEnding(base)
	ls := splitLines(base)
	noFinalNewline := len(ls) > 0 && ls[len(ls)-1].end == ""
	if noFinalNewline {
		ls[len(ls)-1].end = nl // for now; taken off again at the end
	}
	var out []line
	if res.Notify {
		block := toLines(codexNotifyBlock(bin), nl)
		at := insertionLine(ls, doc)
		out = append(out, ls[:at]...)
		out = append(out, block...)
		out = append(out, ls[at:]...)
	} else {
		out = ls
	}
	out = append(out, toLines(codexHooksBlock(bin, res.Hooks), nl)...)
	if noFinalNewline {
		out[len(out)-1].end = ""
	}
	res.Config = joinLines(out)
	if err := checkTOML(res.Config); err != nil {
		return CodexInstall{}, fmt.Errorf("adding Trail Boss's entries would make the config invalid (%v): is \"notify\" or \"hooks\" already used in another way?", err)
	}
	return res, nil
}

// UninstallCodex returns config without Trail Boss's blocks, and whether there were any.
// Lines inside a block that are not Trail Boss's (Codex's own edits) are kept. A start
// marker without its end marker is an error.
func UninstallCodex(config []byte) ([]byte, bool, error) {
	ls := splitLines(config)
	var out []line
	found, keptLast := false, false
	in := "" // the end marker we are looking for, inside a block
	start := 0
	for i, l := range ls {
		text := strings.TrimRight(l.text, " \t\r")
		switch {
		case in == "" && text == codexNotifyStart:
			in, start, found = codexNotifyEnd, i, true
		case in == "" && text == codexHooksStart:
			in, start, found = codexHooksEnd, i, true
		case in != "" && text == in:
			in = ""
		case in != "" && isOurCodexLine(text):
		default:
			out = append(out, l)
			keptLast = i == len(ls)-1
		}
	}
	if in != "" {
		return nil, false, fmt.Errorf("line %d starts a trailboss block (%q) that never ends (%q): fix it by hand",
			start+1, strings.TrimSpace(ls[start].text), in)
	}
	if !found {
		return config, false, nil
	}
	if !keptLast && ls[len(ls)-1].end == "" && len(out) > 0 {
		// The file ended with our end marker and no line end: the one before it was ours.
		out[len(out)-1].end = ""
	}
	return joinLines(out), true, nil
}

// CodexInstalled reports whether config holds Trail Boss's notify line (in its block) and
// the hooks block.
func CodexInstalled(config []byte) (notify, hooks bool) {
	for _, l := range splitLines(config) {
		switch strings.TrimRight(l.text, " \t\r") {
		case codexNotifyStart:
			notify = true
		case codexHooksStart:
			hooks = true
		}
	}
	return notify, hooks
}

// CodexNotifyChain returns a notify line that runs the user's program and then Trail Boss's,
// each with the payload Codex appends: a shell gets it as $1.
func CodexNotifyChain(user []string, bin string) string {
	words := make([]string, len(user))
	for i, w := range user {
		words[i] = shellQuoteWord(w)
	}
	script := strings.Join(words, " ") + ` "$1"; ` + shellQuoteWord(bin) + ` emit --codex "$1"`
	return "notify = " + tomlArray([]string{"sh", "-c", script, "trailboss-notify"})
}

// ---- what we write -----------------------------------------------------------------------

func codexNotifyBlock(bin string) string {
	return codexNotifyStart + "\n" +
		"# Trail Boss: Codex runs this when a turn ends. `trailboss setup --undo` removes this block.\n" +
		"notify = " + tomlArray([]string{bin, "emit", "--codex"}) + "\n" +
		codexNotifyEnd + "\n"
}

func codexHooksBlock(bin string, events []string) string {
	var b strings.Builder
	b.WriteString(codexHooksStart + "\n")
	b.WriteString("# Trail Boss: approvals and answers. Codex runs these once you trust them (/hooks in Codex).\n")
	command := tomlString(shellQuoteWord(bin) + " emit --codex")
	for i, ev := range events {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "[[hooks.%s]]\n[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %s\ntimeout = %d\n",
			ev, ev, command, CodexHookTimeout)
	}
	b.WriteString(codexHooksEnd + "\n")
	return b.String()
}

// isOurCodexLine reports whether a line inside a block is one Trail Boss writes (for any
// trailboss binary), as opposed to one Codex added there.
func isOurCodexLine(text string) bool {
	t := strings.TrimSpace(text)
	switch {
	case t == "", strings.HasPrefix(t, "# Trail Boss"), t == `type = "command"`, ourHookHeader.MatchString(t),
		ourTimeout.MatchString(t):
		return true
	case strings.HasPrefix(t, "notify"):
		var v struct {
			Notify []string `toml:"notify"`
		}
		return toml.Unmarshal([]byte(t), &v) == nil && isTrailbossNotify(v.Notify)
	case strings.HasPrefix(t, "command"):
		var v struct {
			Command string `toml:"command"`
		}
		return toml.Unmarshal([]byte(t), &v) == nil && isTrailbossCodexCommand(v.Command)
	}
	return false
}

var (
	ourHookHeader = regexp.MustCompile(`^\[\[hooks\.(SessionStart|UserPromptSubmit|PermissionRequest|PostToolUse|Stop)(\.hooks)?\]\]$`)
	ourTimeout    = regexp.MustCompile(`^timeout = [0-9]+$`)
)

// isTrailbossNotify reports whether a notify argv runs `trailboss emit --codex` from any
// trailboss binary.
func isTrailbossNotify(argv []string) bool {
	return len(argv) == 3 && path.Base(argv[0]) == "trailboss" && argv[1] == "emit" && argv[2] == "--codex"
}

// isTrailbossCodexCommand reports whether a hook command runs `trailboss emit --codex`.
func isTrailbossCodexCommand(command string) bool {
	prog, ok := strings.CutSuffix(strings.TrimSpace(command), " --codex")
	return ok && IsTrailbossEmit(prog)
}

// ---- reading the config ------------------------------------------------------------------

type codexDoc struct {
	firstTable int          // byte offset of the line of the first table header, or -1
	comments   map[int]bool // byte offsets of the lines that hold only a comment
	hasNotify  bool         // a root notify key
	notify     []string     // its value, when it is a list of strings
}

// scanCodexConfig finds the first table header and the root notify key of a valid config.
func scanCodexConfig(b []byte) (codexDoc, error) {
	doc := codexDoc{firstTable: -1, comments: map[int]bool{}}
	p := unstable.Parser{KeepComments: true}
	p.Reset(b)
	for p.NextExpression() {
		n := p.Expression()
		switch n.Kind {
		case unstable.Comment:
			doc.comments[lineStart(b, int(n.Raw.Offset))] = true
		case unstable.Table, unstable.ArrayTable:
			if doc.firstTable < 0 {
				key := n.Key()
				if key.Next() {
					doc.firstTable = lineStart(b, int(key.Node().Raw.Offset))
				}
			}
		case unstable.KeyValue:
			if doc.firstTable >= 0 {
				continue
			}
			var parts []string
			for it := n.Key(); it.Next(); {
				parts = append(parts, string(it.Node().Data))
			}
			if len(parts) != 1 || parts[0] != "notify" {
				continue
			}
			doc.hasNotify = true
			doc.notify = stringArray(n.Value())
		}
	}
	if err := p.Error(); err != nil {
		return doc, err
	}
	return doc, nil
}

// stringArray returns the strings of an array node, or nil when it is anything else.
func stringArray(n *unstable.Node) []string {
	if n.Kind != unstable.Array {
		return nil
	}
	out := []string{}
	for it := n.Children(); it.Next(); {
		c := it.Node()
		if c.Kind == unstable.Comment {
			continue
		}
		if c.Kind != unstable.String {
			return nil
		}
		out = append(out, string(c.Data))
	}
	return out
}

// insertionLine returns the index of the line before which the notify block goes: the first
// table's header, moved up over the comment lines right above it; the end without a table.
func insertionLine(ls []line, doc codexDoc) int {
	if doc.firstTable < 0 {
		return len(ls)
	}
	starts := make([]int, len(ls)) // byte offset of each line
	at, off := 0, 0
	for i, l := range ls {
		starts[i] = off
		if off == doc.firstTable {
			at = i
		}
		off += len(l.text) + len(l.end)
	}
	for at > 0 && doc.comments[starts[at-1]] {
		at--
	}
	return at
}

// checkTOML returns a *CodexSyntaxError when b is not a valid TOML document.
func checkTOML(b []byte) error {
	var v map[string]any
	err := toml.Unmarshal(b, &v)
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return &CodexSyntaxError{Line: row, Column: col, Msg: strings.TrimPrefix(de.Error(), "toml: ")}
	}
	return err
}

// ---- lines ---------------------------------------------------------------------------------

// line is one line of a file: its text and its line end ("\n", "\r\n", or "" for a last line
// without one).
type line struct{ text, end string }

func splitLines(b []byte) []line {
	var out []line
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, line{text: string(b)})
			break
		}
		text, end := string(b[:i]), "\n"
		if strings.HasSuffix(text, "\r") {
			text, end = text[:len(text)-1], "\r\n"
		}
		out = append(out, line{text: text, end: end})
		b = b[i+1:]
	}
	return out
}

func joinLines(ls []line) []byte {
	var b bytes.Buffer
	for _, l := range ls {
		b.WriteString(l.text)
		b.WriteString(l.end)
	}
	return b.Bytes()
}

func toLines(block, nl string) []line {
	var out []line
	for _, t := range strings.SplitAfter(block, "\n") {
		if t != "" {
			out = append(out, line{text: strings.TrimSuffix(t, "\n"), end: nl})
		}
	}
	return out
}

// lineEnding is the file's line end: CRLF when its first line ends so.
func lineEnding(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i > 0 && b[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

func lineStart(b []byte, off int) int {
	return bytes.LastIndexByte(b[:off], '\n') + 1
}

// ---- quoting -------------------------------------------------------------------------------

// tomlString writes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func tomlArray(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = tomlString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./+:@%=,-]+$`)

// shellQuoteWord writes s as one word for sh: as it is when it is plain, else in single
// quotes.
func shellQuoteWord(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
