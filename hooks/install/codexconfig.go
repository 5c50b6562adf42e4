package install

// Installing and removing Trail Boss's entries in Codex CLI's config.toml. The functions here
// are pure: bytes in, bytes out; the command line reads and writes the file.
//
// Three marked blocks, each a run of whole lines:
//
//   - the notify block, `notify = [TRAILBOSS, "emit", "--codex"]`, goes where the root keys
//     end (before the first table, and before the comments right above it), since a TOML key
//     after a table header would belong to that table;
//   - the features block, `daemon_auto_start = false` under [features], goes right under the
//     user's [features] header, or, with its own header, before the hooks block: it keeps
//     Codex from sharing one background app-server between its TUIs, which would run every
//     TUI's hooks with the first TUI's environment (see CodexAppServer);
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
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
	"github.com/trailboss/trailboss/hooks"
)

// Markers of the blocks. Each is a whole line.
const (
	codexNotifyStart   = "# >>> trailboss >>>"
	codexNotifyEnd     = "# <<< trailboss <<<"
	codexFeaturesStart = "# >>> trailboss features >>>"
	codexFeaturesEnd   = "# <<< trailboss features <<<"
	codexHooksStart    = "# >>> trailboss hooks >>>"
	codexHooksEnd      = "# <<< trailboss hooks <<<"
)

// CodexHookTimeout is the timeout, in seconds, of each hook installed: the emitter gives up
// long before it.
const CodexHookTimeout = 5

// CodexHookEvents returns the Codex hook events Trail Boss installs. Turn ends come from
// notify; Stop is installed as well only when notify is the user's own (withStop), since
// both fire at every turn end. Interrupt fires the moment the human presses Esc mid-turn
// (0.169 and 0.171 both fire it; neither fires Stop or notify then), so an interrupted
// session is queued at once rather than when its screen goes quiet.
func CodexHookEvents(withStop bool) []string {
	evs := []string{"SessionStart", "UserPromptSubmit", "PermissionRequest", "PostToolUse", "Interrupt"}
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
	// AppServer says what became of Codex's shared app-server.
	AppServer CodexAppServer
}

// CodexAppServer says whether Codex's TUIs share one background app-server, and who said so.
// A shared app-server runs every TUI's hooks and notify with the environment of the TUI that
// started it, so their TMUX_PANE is not their own (see ErrSharedAppServer): Trail Boss turns
// it off with `[features] daemon_auto_start = false`.
type CodexAppServer int

const (
	// AppServerTurnedOff: Trail Boss's daemon_auto_start = false is in the config.
	AppServerTurnedOff CodexAppServer = iota
	// AppServerOffAlready: the user's own config already says daemon_auto_start = false.
	AppServerOffAlready
	// AppServerKeptOn: the user's config says daemon_auto_start = true; left alone.
	AppServerKeptOn
	// AppServerNotEdited: the config writes features in a way Trail Boss does not edit (an
	// inline table, dotted keys): left alone, daemon_auto_start unset.
	AppServerNotEdited
)

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
	switch {
	case doc.autoStart != nil && !*doc.autoStart:
		res.AppServer = AppServerOffAlready
	case doc.autoStart != nil:
		res.AppServer = AppServerKeptOn
	case doc.featuresOdd:
		res.AppServer = AppServerNotEdited
	}
	res.Config = assembleCodex(base, doc, bin, res)
	if err := checkTOML(res.Config); err != nil && res.AppServer == AppServerTurnedOff {
		// A features table TOML does not let us add to (one defined by its subtables in a
		// way this parser accepts and Codex may not): leave it to the user.
		res.AppServer = AppServerNotEdited
		res.Config = assembleCodex(base, doc, bin, res)
	}
	if err := checkTOML(res.Config); err != nil {
		return CodexInstall{}, fmt.Errorf("adding Trail Boss's entries would make the config invalid (%v): is \"notify\" or \"hooks\" already used in another way?", err)
	}
	return res, nil
}

// assembleCodex returns base, a config without Trail Boss's blocks, with the blocks res
// says, keeping base's line ends and its final newline or lack of one.
func assembleCodex(base []byte, doc codexDoc, bin string, res CodexInstall) []byte {
	nl := lineEnding(base)
	ls := splitLines(base)
	noFinalNewline := len(ls) > 0 && ls[len(ls)-1].end == ""
	if noFinalNewline {
		ls[len(ls)-1].end = nl // for now; taken off again at the end
	}
	features := res.AppServer == AppServerTurnedOff
	// Blocks go in at two places at most inside base, the notify block's before the
	// features block's (the root keys end before any table): copy base up to each.
	var out []line
	next := 0
	if res.Notify {
		at := insertionLine(ls, doc)
		out = append(out, ls[next:at]...)
		out = append(out, toLines(codexNotifyBlock(bin), nl)...)
		next = at
	}
	if features && doc.featuresTable >= 0 {
		at := lineIndex(ls, doc.featuresTable) + 1 // right under the user's [features]
		out = append(out, ls[next:at]...)
		out = append(out, toLines(codexFeaturesBlock(false), nl)...)
		next = at
	}
	out = append(out, ls[next:]...)
	if features && doc.featuresTable < 0 {
		out = append(out, toLines(codexFeaturesBlock(true), nl)...)
	}
	out = append(out, toLines(codexHooksBlock(bin, res.Hooks), nl)...)
	if noFinalNewline {
		out[len(out)-1].end = ""
	}
	return joinLines(out)
}

// UninstallCodex returns config without Trail Boss's blocks, and whether there were any.
// Lines inside a block that are not Trail Boss's (Codex's own edits) are kept; so is the
// [features] header of the features block when Codex put keys of its own under it. A start
// marker without its end marker is an error.
func UninstallCodex(config []byte) ([]byte, bool, error) {
	ls := splitLines(config)
	var out []line
	found, keptLast := false, false
	in, end := "", "" // inside a block: its start marker and the end marker looked for
	start := 0
	var block []int // the indexes of the lines inside the block
	for i, l := range ls {
		text := strings.TrimRight(l.text, " \t\r")
		switch {
		case in == "" && (text == codexNotifyStart || text == codexFeaturesStart || text == codexHooksStart):
			in, end, start, found, block = text, codexEndOf[text], i, true, block[:0]
		case in != "" && text == end:
			for _, j := range keptInBlock(ls, block, in) {
				out = append(out, ls[j])
			}
			in, keptLast = "", false
		case in != "":
			block = append(block, i)
		default:
			out = append(out, l)
			keptLast = i == len(ls)-1
		}
	}
	if in != "" {
		return nil, false, fmt.Errorf("line %d starts a trailboss block (%q) that never ends (%q): fix it by hand",
			start+1, strings.TrimSpace(ls[start].text), end)
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

// codexEndOf maps each block's start marker to its end marker.
var codexEndOf = map[string]string{codexNotifyStart: codexNotifyEnd, codexFeaturesStart: codexFeaturesEnd,
	codexHooksStart: codexHooksEnd}

// keptInBlock returns the indexes, among the lines inside a block, of those uninstall keeps:
// the ones that are not Trail Boss's. Under the features block's own [features] header, keys
// Codex added belong to [features]: the header stays with them.
func keptInBlock(ls []line, block []int, start string) []int {
	var kept []int
	header := -1
	for _, j := range block {
		text := strings.TrimSpace(ls[j].text)
		switch {
		case start == codexFeaturesStart && text == "[features]":
			header = j
		case isOurCodexLine(text, start):
		default:
			kept = append(kept, j)
		}
	}
	if header >= 0 && len(kept) > 0 {
		kept = append([]int{header}, kept...)
	}
	return kept
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

// CodexSharesAppServer reports whether Codex, with config, starts the background app-server
// that all its TUIs share (see CodexAppServer): unless features.daemon_auto_start is false.
// A config that is not valid TOML is read as Codex's default, which shares it.
func CodexSharesAppServer(config []byte) bool {
	doc, err := scanCodexConfig(config)
	return err != nil || doc.autoStart == nil || *doc.autoStart
}

// CodexNotifyChain returns a notify line that runs the user's program and then Trail Boss's,
// each with the payload Codex appends: a shell gets it as $1.
func CodexNotifyChain(user []string, bin string) string {
	words := make([]string, len(user))
	for i, w := range user {
		words[i] = hooks.ShellWord(w)
	}
	script := strings.Join(words, " ") + ` "$1"; ` + hooks.ShellWord(bin) + ` emit --codex "$1"`
	return "notify = " + tomlArray([]string{"sh", "-c", script, "trailboss-notify"})
}

// ---- what we write -----------------------------------------------------------------------

func codexNotifyBlock(bin string) string {
	return codexNotifyStart + "\n" +
		"# Trail Boss: Codex runs this when a turn ends. `trailboss setup --undo` removes this block.\n" +
		"notify = " + tomlArray([]string{bin, "emit", "--codex"}) + "\n" +
		codexNotifyEnd + "\n"
}

// codexNoAutoStart is the line that keeps Codex from sharing a background app-server.
const codexNoAutoStart = "daemon_auto_start = false"

// codexFeaturesBlock returns the features block: with its own [features] header, or to go
// right under the user's.
func codexFeaturesBlock(header bool) string {
	var b strings.Builder
	b.WriteString(codexFeaturesStart + "\n")
	b.WriteString("# Trail Boss: each Codex runs its own app-server, so its hooks carry its own pane. " +
		"`trailboss setup --undo` removes this block.\n")
	if header {
		b.WriteString("[features]\n")
	}
	b.WriteString(codexNoAutoStart + "\n")
	b.WriteString(codexFeaturesEnd + "\n")
	return b.String()
}

func codexHooksBlock(bin string, events []string) string {
	var b strings.Builder
	b.WriteString(codexHooksStart + "\n")
	b.WriteString("# Trail Boss: approvals and answers. Codex runs these once you trust them (/hooks in Codex).\n")
	command := tomlString(hooks.ShellWord(bin) + " emit --codex")
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

// isOurCodexLine reports whether a line inside the block that start opens is one Trail Boss
// writes (for any trailboss binary), as opposed to one Codex added there.
func isOurCodexLine(text, start string) bool {
	t := strings.TrimSpace(text)
	switch {
	case t == "", strings.HasPrefix(t, "# Trail Boss"):
		return true
	case start == codexFeaturesStart:
		return t == codexNoAutoStart
	case t == `type = "command"`, ourHookHeader.MatchString(t), ourTimeout.MatchString(t):
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
	ourHookHeader = regexp.MustCompile(`^\[\[hooks\.(SessionStart|UserPromptSubmit|PermissionRequest|PostToolUse|Interrupt|Stop)(\.hooks)?\]\]$`)
	ourTimeout    = regexp.MustCompile(`^timeout = [0-9]+$`)
)

// isTrailbossNotify reports whether a notify argv runs `trailboss emit --codex` from any
// trailboss binary.
func isTrailbossNotify(argv []string) bool {
	return len(argv) == 3 && IsTrailbossProgram(argv[0]) && argv[1] == "emit" && argv[2] == "--codex"
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

	featuresTable int   // byte offset of the line of the [features] header, or -1
	autoStart     *bool // features.daemon_auto_start, however it is written, when it is a boolean
	featuresOdd   bool  // features written otherwise than under a [features] header
}

// scanCodexConfig finds the first table header, the root notify key and how features (and
// its daemon_auto_start) are written in a valid config.
func scanCodexConfig(b []byte) (codexDoc, error) {
	doc := codexDoc{firstTable: -1, featuresTable: -1, comments: map[int]bool{}}
	p := unstable.Parser{KeepComments: true}
	p.Reset(b)
	var table []string // the key of the table the key/values belong to
	for p.NextExpression() {
		n := p.Expression()
		switch n.Kind {
		case unstable.Comment:
			doc.comments[lineStart(b, int(n.Raw.Offset))] = true
		case unstable.Table, unstable.ArrayTable:
			table = keyParts(n.Key())
			at := -1
			if key := n.Key(); key.Next() {
				at = lineStart(b, int(key.Node().Raw.Offset))
			}
			if doc.firstTable < 0 {
				doc.firstTable = at
			}
			switch {
			case n.Kind == unstable.Table && len(table) == 1 && table[0] == "features":
				doc.featuresTable = at
			case n.Kind == unstable.ArrayTable && len(table) > 0 && table[0] == "features":
				doc.featuresOdd = true
			}
		case unstable.KeyValue:
			key := append(append([]string(nil), table...), keyParts(n.Key())...)
			doc.scanFeatures(table, key, n.Value())
			if doc.firstTable >= 0 || len(key) != 1 || key[0] != "notify" {
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

// scanFeatures notes, of a key/value under table whose full key is key, what it says about
// features: whether it is features.daemon_auto_start, and whether it writes features by a
// dotted key or an inline table outside a [features] header.
func (doc *codexDoc) scanFeatures(table, key []string, v *unstable.Node) {
	if len(key) == 0 || key[0] != "features" {
		return
	}
	if len(table) == 0 {
		doc.featuresOdd = true
	}
	switch {
	case len(key) == 2 && key[1] == "daemon_auto_start" && v.Kind == unstable.Bool:
		on := string(v.Data) == "true"
		doc.autoStart = &on
	case len(key) == 1 && v.Kind == unstable.InlineTable:
		for it := v.Children(); it.Next(); {
			if kv := it.Node(); kv.Kind == unstable.KeyValue {
				doc.scanFeatures(table, append(key, keyParts(kv.Key())...), kv.Value())
			}
		}
	}
}

// keyParts returns the parts of a dotted key.
func keyParts(it unstable.Iterator) []string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
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

// lineIndex returns the index of the line that starts at byte offset off.
func lineIndex(ls []line, off int) int {
	at := 0
	for i, l := range ls {
		if at >= off {
			return i
		}
		at += len(l.text) + len(l.end)
	}
	return len(ls)
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
