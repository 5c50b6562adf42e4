// Package install writes Trail Boss into the harnesses' own settings and takes it out again
// byte for byte: its hooks in Claude Code's settings.json (settings.go), its notify program
// and hooks in Codex CLI's config.toml (codexconfig.go), and its block in tmux.conf
// (tmuxconf.go).
package install

// Installing and removing Trail Boss's entries in a Claude Code settings.json. The functions
// here are pure: bytes in, bytes out; the command line reads and writes the files.
//
// A settings file belongs to its user: everything that is not ours keeps its bytes. Edits
// are surgical: an entry is inserted after the last item of its container (or removed with
// the separator that joins it to its neighbour), in the layout of the file (its indentation,
// its line ends, one item per line or all on one). So removing what was inserted gives the
// original bytes back; where it cannot (see Uninstall), the result is still the same JSON.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/trailboss/trailboss/hooks"
)

// Event is a Claude Code hook event that Trail Boss listens to, with the matcher of its
// entry ("" for events that take none). Claude Code waits for a Sync event's hook, which
// may then answer for the person (a held permission); every other hook is "async": true,
// so that it can never slow Claude Code.
type Event struct {
	Name, Matcher string
	Sync          bool
	// Former are matchers earlier releases wrote for this event: an install upgrades our
	// group under one of them in place rather than add a second.
	Former []string
}

// Events returns the hook events Trail Boss installs, in the order of the README's block.
func Events() []Event {
	return []Event{
		{Name: "SessionStart"},
		{Name: "UserPromptSubmit"},
		{Name: "Stop"},
		{Name: "StopFailure"},
		{Name: "PermissionRequest", Matcher: "*", Sync: true},
		// Every tool: in Claude Code 2.1.332's auto mode a permission dialog fires no
		// PermissionRequest, and the PreToolUse before it is what says what it asks.
		{Name: "PreToolUse", Matcher: "*", Former: []string{"AskUserQuestion|ExitPlanMode"}},
		{Name: "PostToolUse", Matcher: "*"},
		{Name: "PostToolUseFailure", Matcher: "*"},
		{Name: "Notification", Matcher: "permission_prompt|idle_prompt|elicitation_dialog"},
		{Name: "SessionEnd"},
	}
}

// syncTimeout is the "timeout" (seconds) of a Sync event's hook: long enough to hold for a
// prompt's whole time to live (see hooks.PermissionHookTimeout).
var syncTimeout = int(hooks.PermissionHookTimeout / time.Second)

// SyntaxError says where a settings file is not valid JSON.
type SyntaxError struct {
	Line, Column int // 1-based; the column counts characters
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("not valid JSON at line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// ErrShape says a settings file is JSON but not shaped as Claude Code reads it (the top
// level is not an object, "hooks" is not an object, an event is not a list).
var ErrShape = errors.New("unexpected settings shape")

// Install returns settings with a hook running command added for each of Events, every other
// byte kept. An event that already has a Trail Boss hook under the same matcher is left as
// it is, except that a Trail Boss hook pointing at another trailboss binary is pointed at
// command, and that a Sync event's hook loses its "async" and gets syncTimeout (an install
// from before holding wrote it async: it is upgraded in place, never doubled); so
// installing twice returns the input unchanged. Empty settings (a missing file)
// give a new file holding only the hooks. Invalid JSON returns a *SyntaxError; JSON of
// another shape an error wrapping ErrShape.
func Install(settings []byte, command string) ([]byte, error) {
	return claudeHooks.install(settings, command)
}

// hookSet is what one harness's settings.json takes of ours: its events, and our hook
// object for each. Claude Code's and Gemini CLI's (gemini.go) share the file's shape.
type hookSet struct {
	events func() []Event
	hook   func(ev Event, command string) ordered
}

var claudeHooks = hookSet{events: Events, hook: ourHook}

func (s hookSet) install(settings []byte, command string) ([]byte, error) {
	if len(bytes.TrimSpace(settings)) == 0 {
		return s.fresh(command), nil
	}
	b := settings
	// Each pass makes one edit: an insertion (at most one per event and one for "hooks") or
	// a rewrite of one hook object's command. The bound only guards against a bug.
	for range len(settings) + 2*len(s.events()) {
		d, err := parseSettings(b)
		if err != nil {
			return nil, err
		}
		next, edited, err := d.installStep(s, command)
		if err != nil || !edited {
			return b, err
		}
		b = next
	}
	return nil, errors.New("install: too many edits (a bug)")
}

// Uninstall returns settings without Trail Boss's hooks: every hook whose command runs
// `trailboss emit` (command, or any other path to a trailboss binary). A matcher group, an
// event or the "hooks" object is dropped when removing our hooks left it empty, so that
// Uninstall(Install(x)) is x byte for byte in the usual case. Not always: Install cannot
// record that an event's list (or "hooks") was already there and empty, so that empty list
// is dropped too; Claude Code reads both the same. Settings without our hooks are returned
// unchanged. Errors as Install.
func Uninstall(settings []byte, command string) ([]byte, error) {
	if len(bytes.TrimSpace(settings)) == 0 {
		return settings, nil
	}
	b := settings
	for {
		d, err := parseSettings(b)
		if err != nil {
			return nil, err
		}
		next, edited, done := d.uninstallStep(command)
		if !edited {
			return b, nil
		}
		b = next
		if done {
			return b, nil
		}
	}
}

// Installed returns the events (in the file's order) that have a Trail Boss hook, or nil for
// settings that are empty or not valid. To know whether setup would change anything, compare
// Install's result with its input.
func Installed(settings []byte, command string) []string {
	if len(bytes.TrimSpace(settings)) == 0 {
		return nil
	}
	d, err := parseSettings(settings)
	if err != nil {
		return nil
	}
	h := d.root.get("hooks")
	if h == nil || h.kind != kObject {
		return nil
	}
	var out []string
	for i, m := range h.members {
		if !h.effective(i) || m.val.kind != kArray {
			continue
		}
		if hasOurs(m.val, command) {
			out = append(out, m.key)
		}
	}
	return out
}

// SameJSON reports whether a and b are valid JSON holding the same value (object key order
// and formatting aside).
func SameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return jsonEqual(va, vb)
}

func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			w, ok := b[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

// IsTrailbossEmit reports whether a hook command runs `trailboss emit` from any trailboss
// binary, trailboss-hot included: "trailboss emit", "/opt/bin/trailboss emit",
// "'/my dir/trailboss-hot' emit"; for Gemini CLI's hooks, with " --gemini" after it.
func IsTrailbossEmit(command string) bool {
	command = strings.TrimSuffix(strings.TrimSpace(command), " "+GeminiEmitFlag)
	prog, ok := strings.CutSuffix(strings.TrimSpace(command), " emit")
	if !ok {
		return false
	}
	prog = strings.TrimSpace(prog)
	switch {
	case len(prog) >= 2 && prog[0] == '\'' && prog[len(prog)-1] == '\'':
		prog = strings.ReplaceAll(prog[1:len(prog)-1], `'\''`, `'`)
	case len(prog) >= 2 && prog[0] == '"' && prog[len(prog)-1] == '"':
		prog = prog[1 : len(prog)-1]
	case strings.ContainsAny(prog, " \t'\"\\;&|$`"):
		return false // more than one word: some other program
	}
	return IsTrailbossProgram(prog)
}

// IsTrailbossProgram reports whether prog, a path or a name, is a trailboss binary that
// runs emit: trailboss, or trailboss-hot (the small binary of the hot verbs).
func IsTrailbossProgram(prog string) bool {
	switch path.Base(prog) {
	case "trailboss", "trailboss-hot":
		return true
	}
	return false
}

// ---- what we insert ----------------------------------------------------------------------

// ordered is a JSON object whose keys keep their order.
type ordered []field

type field struct {
	key string
	val any // ordered, []any, string, int or bool
}

func ourHook(ev Event, command string) ordered {
	h := ordered{{"type", "command"}, {"command", command}}
	if ev.Sync {
		return append(h, field{"timeout", syncTimeout})
	}
	return append(h, field{"async", true})
}

func (s hookSet) group(ev Event, command string) ordered {
	var g ordered
	if ev.Matcher != "" {
		g = append(g, field{"matcher", ev.Matcher})
	}
	return append(g, field{"hooks", []any{s.hook(ev, command)}})
}

func (s hookSet) allGroups(command string) ordered {
	var o ordered
	for _, ev := range s.events() {
		o = append(o, field{ev.Name, []any{s.group(ev, command)}})
	}
	return o
}

// fresh is a new settings file holding only our hooks, laid out as Claude Code
// writes its settings (JSON.stringify with two spaces).
func (s hookSet) fresh(command string) []byte {
	l := layout{nl: "\n", unit: "  ", colon: ": ", comma: ", "}
	root := ordered{{"hooks", s.allGroups(command)}}
	return []byte(l.render(root, "", true) + "\n")
}

// ---- the document: a JSON tree that knows where each value sits in the bytes ------------

type kind int

const (
	kObject kind = iota
	kArray
	kString
	kOther
)

type node struct {
	kind       kind
	start, end int // the value is b[start:end]
	members    []member
	elems      []*node
	str        string // decoded, for kString
}

type member struct {
	key      string
	keyStart int
	keyEnd   int
	val      *node
}

// get returns the value of the last member named key (the one JSON readers keep), or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != kObject {
		return nil
	}
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return n.members[i].val
		}
	}
	return nil
}

// effective reports whether member i is the last one with its key: the one readers keep.
func (n *node) effective(i int) bool {
	for _, m := range n.members[i+1:] {
		if m.key == n.members[i].key {
			return false
		}
	}
	return true
}

// unique reports whether member i is the only one with its key.
func (n *node) unique(i int) bool {
	for j, m := range n.members {
		if j != i && m.key == n.members[i].key {
			return false
		}
	}
	return true
}

// lastIndex returns the index of the last member named key, or -1.
func (n *node) lastIndex(key string) int {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return i
		}
	}
	return -1
}

// count returns the number of items (members or elements).
func (n *node) count() int {
	if n.kind == kObject {
		return len(n.members)
	}
	return len(n.elems)
}

// itemStart is where item i begins (a member's key, or the element).
func (n *node) itemStart(i int) int {
	if n.kind == kObject {
		return n.members[i].keyStart
	}
	return n.elems[i].start
}

func (n *node) itemValue(i int) *node {
	if n.kind == kObject {
		return n.members[i].val
	}
	return n.elems[i]
}

type doc struct {
	b      []byte
	root   *node
	layout layout
}

// parseSettings checks that b is JSON whose top level is an object and parses it.
func parseSettings(b []byte) (*doc, error) {
	body := b
	bom := 0
	if bytes.HasPrefix(body, []byte("\xef\xbb\xbf")) { // tolerated, and kept
		body, bom = body[3:], 3
	}
	if !json.Valid(body) {
		var v any
		err := json.Unmarshal(body, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, syntaxError(b, bom+int(se.Offset), se.Error())
		}
		return nil, syntaxError(b, len(b), "invalid JSON")
	}
	p := &parser{b: b, i: bom}
	root := p.value()
	if root.kind != kObject {
		return nil, fmt.Errorf("%w: the top level is not an object", ErrShape)
	}
	d := &doc{b: b, root: root}
	d.layout = detectLayout(b, root)
	return d, nil
}

// syntaxError places the byte before offset (where the reader stopped) by line and column.
func syntaxError(b []byte, offset int, msg string) *SyntaxError {
	pos := min(max(offset-1, 0), len(b))
	line := 1 + bytes.Count(b[:pos], []byte("\n"))
	lineStart := bytes.LastIndexByte(b[:pos], '\n') + 1
	return &SyntaxError{Line: line, Column: utf8.RuneCount(b[lineStart:pos]) + 1, Msg: msg}
}

// parser reads JSON that json.Valid accepted, recording where each value sits.
type parser struct {
	b []byte
	i int
}

// comma skips the white space after a value, and the comma after it with the white space
// that follows, if there is one.
func (p *parser) comma() {
	p.ws()
	if p.b[p.i] == ',' {
		p.i++
		p.ws()
	}
}

func (p *parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value() *node {
	p.ws()
	n := &node{start: p.i}
	switch p.b[p.i] {
	case '{':
		n.kind = kObject
		p.i++
		p.ws()
		for p.b[p.i] != '}' {
			p.ws()
			ks := p.i
			key := p.str()
			ke := p.i
			p.ws()
			p.i++ // ':'
			v := p.value()
			n.members = append(n.members, member{key: key, keyStart: ks, keyEnd: ke, val: v})
			p.comma()
		}
		p.i++
	case '[':
		n.kind = kArray
		p.i++
		p.ws()
		for p.b[p.i] != ']' {
			n.elems = append(n.elems, p.value())
			p.comma()
		}
		p.i++
	case '"':
		n.kind = kString
		n.str = p.str()
	default:
		n.kind = kOther
		for p.i < len(p.b) && !strings.ContainsRune(",]} \t\r\n", rune(p.b[p.i])) {
			p.i++
		}
	}
	n.end = p.i
	return n
}

func (p *parser) str() string {
	start := p.i
	p.i++
	for p.b[p.i] != '"' {
		if p.b[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	p.i++
	var s string
	_ = json.Unmarshal(p.b[start:p.i], &s)
	return s
}

// ---- layout ------------------------------------------------------------------------------

// layout is how a file writes its JSON, so that what we insert looks like the rest.
type layout struct {
	nl    string // line end: "\n" or "\r\n"
	unit  string // one level of indentation
	colon string // between a key and its value
	comma string // between items on one line
}

func detectLayout(b []byte, root *node) layout {
	l := layout{nl: "\n", unit: "  ", colon: ": ", comma: ", "}
	if bytes.Contains(b, []byte("\r\n")) {
		l.nl = "\r\n"
	}
	best := 0
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		rest := bytes.TrimLeft(line, " \t")
		ind := len(line) - len(rest)
		if ind == 0 || len(bytes.TrimSpace(rest)) == 0 {
			continue
		}
		if line[0] == '\t' {
			l.unit = "\t"
			break
		}
		if best == 0 || ind < best {
			best = ind
		}
	}
	if best > 0 && l.unit != "\t" {
		l.unit = strings.Repeat(" ", best)
	}
	if m := firstMember(root); m != nil {
		if between := b[m.keyEnd:m.val.start]; !bytes.Contains(between, []byte(" ")) && !bytes.Contains(between, []byte("\t")) {
			l.colon, l.comma = ":", ","
		}
	}
	return l
}

func firstMember(n *node) *member {
	switch n.kind {
	case kObject:
		if len(n.members) > 0 {
			return &n.members[0]
		}
	case kArray:
		for _, e := range n.elems {
			if m := firstMember(e); m != nil {
				return m
			}
		}
	}
	return nil
}

// render writes v; expanded puts one item per line, indent being the indentation of the
// line v starts on.
func (l layout) render(v any, indent string, expanded bool) string {
	switch v := v.(type) {
	case ordered:
		if len(v) == 0 {
			return "{}"
		}
		items := make([]string, len(v))
		for i, f := range v {
			items[i] = quote(f.key) + l.colon + l.render(f.val, indent+l.unit, expanded)
		}
		return l.wrap("{", "}", items, indent, expanded)
	case []any:
		if len(v) == 0 {
			return "[]"
		}
		items := make([]string, len(v))
		for i, e := range v {
			items[i] = l.render(e, indent+l.unit, expanded)
		}
		return l.wrap("[", "]", items, indent, expanded)
	case string:
		return quote(v)
	case int:
		return strconv.Itoa(v)
	case bool:
		if v {
			return "true"
		}
		return "false"
	}
	panic(fmt.Sprintf("render: %T", v))
}

func (l layout) wrap(open, close string, items []string, indent string, expanded bool) string {
	if !expanded {
		return open + strings.Join(items, l.comma) + close
	}
	inner := indent + l.unit
	return open + l.nl + inner + strings.Join(items, ","+l.nl+inner) + l.nl + indent + close
}

// quote writes s as a JSON string, leaving <, > and & as they are (as JSON.stringify does).
func quote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

// lineIndent returns the spaces and tabs that begin the line holding b[pos].
func lineIndent(b []byte, pos int) string {
	start := bytes.LastIndexByte(b[:pos], '\n') + 1
	end := start
	for end < len(b) && (b[end] == ' ' || b[end] == '\t') {
		end++
	}
	return string(b[start:end])
}

func multiline(b []byte, n *node) bool {
	return bytes.IndexByte(b[n.start:n.end], '\n') >= 0
}

// ---- edits -------------------------------------------------------------------------------

func splice(b []byte, from, to int, with string) []byte {
	out := make([]byte, 0, len(b)-(to-from)+len(with))
	out = append(out, b[:from]...)
	out = append(out, with...)
	return append(out, b[to:]...)
}

// insert adds an item (a member `"key": v`, or the element v when key is "") at the end of
// container c, laid out as c's other items are.
func (d *doc) insert(c *node, key string, v any) []byte {
	b, l := d.b, d.layout
	item := func(indent string, expanded bool) string {
		s := l.render(v, indent, expanded)
		if c.kind == kObject {
			s = quote(key) + l.colon + s
		}
		return s
	}
	n := c.count()
	if n == 0 {
		if !multiline(b, d.root) {
			return splice(b, c.start+1, c.end-1, item("", false))
		}
		outer := lineIndent(b, c.start)
		inner := outer + l.unit
		return splice(b, c.start+1, c.end-1, l.nl+inner+item(inner, true)+l.nl+outer)
	}
	last := c.itemValue(n - 1)
	if bytes.IndexByte(b[c.start:c.itemStart(0)], '\n') < 0 {
		// One line: `[a, b]` grows to `[a, b, new]`, the new item on one line too.
		return splice(b, last.end, last.end, l.comma+item("", false))
	}
	indent := lineIndent(b, c.itemStart(n-1))
	expanded := true
	for i := n - 1; i >= 0; i-- { // as the last sibling that is an object or a list
		if s := c.itemValue(i); s.kind == kObject || s.kind == kArray {
			expanded = multiline(b, s)
			break
		}
	}
	return splice(b, last.end, last.end, ","+l.nl+indent+item(indent, expanded))
}

// remove deletes item i of container c with the separator that joins it to a neighbour.
func (d *doc) remove(c *node, i int) []byte {
	n := c.count()
	switch {
	case n == 1:
		return splice(d.b, c.start+1, c.end-1, "")
	case i == n-1:
		return splice(d.b, c.itemValue(i-1).end, c.itemValue(i).end, "")
	default:
		return splice(d.b, c.itemStart(i), c.itemStart(i+1), "")
	}
}

// ---- install and uninstall, one edit at a time -------------------------------------------

func ours(h *node, command string) bool {
	if h.kind != kObject {
		return false
	}
	if t := h.get("type"); t != nil && (t.kind != kString || t.str != "command") {
		return false
	}
	c := h.get("command")
	return c != nil && c.kind == kString && (c.str == command || IsTrailbossEmit(c.str))
}

// groupHooks returns the "hooks" list of a matcher group, or nil.
func groupHooks(g *node) *node {
	if h := g.get("hooks"); h != nil && h.kind == kArray {
		return h
	}
	return nil
}

func hasOurs(event *node, command string) bool {
	for _, g := range event.elems {
		if hs := groupHooks(g); hs != nil {
			for _, h := range hs.elems {
				if ours(h, command) {
					return true
				}
			}
		}
	}
	return false
}

// sameMatcher reports whether a group's matcher is ours for ev: for events without a
// matcher any group will do (Claude Code ignores it there); "*" is also written "" or left
// out.
func sameMatcher(g *node, ev Event) bool {
	got := ""
	if m := g.get("matcher"); m != nil {
		if m.kind != kString {
			return false
		}
		got = m.str
	}
	switch ev.Matcher {
	case "":
		return true
	case "*":
		return got == "*" || got == ""
	}
	return got == ev.Matcher
}

func shapeError(d *doc, n *node, what string) error {
	se := syntaxError(d.b, n.start+1, "")
	return fmt.Errorf("%w: %s (line %d, column %d)", ErrShape, what, se.Line, se.Column)
}

// installStep makes the first edit Install needs, if any.
func (d *doc) installStep(s hookSet, command string) ([]byte, bool, error) {
	hooks := d.root.get("hooks")
	if hooks == nil {
		return d.insert(d.root, "hooks", s.allGroups(command)), true, nil
	}
	if hooks.kind != kObject {
		return nil, false, shapeError(d, hooks, `"hooks" is not an object`)
	}
	for _, ev := range s.events() {
		list := hooks.get(ev.Name)
		if list == nil {
			return d.insert(hooks, ev.Name, []any{s.group(ev, command)}), true, nil
		}
		if list.kind != kArray {
			return nil, false, shapeError(d, list, fmt.Sprintf("hooks.%s is not a list", ev.Name))
		}
		if next, edited := d.formerStep(list, ev, command); edited {
			return next, true, nil
		}
		found := false
		for _, g := range list.elems {
			hs := groupHooks(g)
			if hs == nil || !sameMatcher(g, ev) {
				continue
			}
			for _, h := range hs.elems {
				if !ours(h, command) {
					continue
				}
				if c := h.get("command"); c.str != command {
					// Another trailboss binary: point the hook at this one.
					return splice(d.b, c.start, c.end, quote(command)), true, nil
				}
				if next, edited := d.shapeStep(h, ev); edited {
					return next, true, nil
				}
				found = true
			}
		}
		if !found {
			return d.insert(list, "", s.group(ev, command)), true, nil
		}
	}
	return nil, false, nil
}

// formerStep makes the first edit that moves our hook out from under a matcher an earlier
// release wrote for ev, if any: a group that holds only our hooks gets ev's matcher; from a
// group shared with the user's hooks ours is taken out (the next step adds our own group).
func (d *doc) formerStep(list *node, ev Event, command string) ([]byte, bool) {
	for _, g := range list.elems {
		m := g.get("matcher")
		hs := groupHooks(g)
		if m == nil || m.kind != kString || hs == nil || !slices.Contains(ev.Former, m.str) {
			continue
		}
		if groupDoomed(g, command) {
			return splice(d.b, m.start, m.end, quote(ev.Matcher)), true
		}
		for j, h := range hs.elems {
			if ours(h, command) {
				return d.remove(hs, j), true
			}
		}
	}
	return nil, false
}

// shapeStep makes the first edit that our hook h needs to be what ev's hook is, if any: a
// Sync event's hook has no "async" (Claude Code would not wait for it, nor read its
// answer) and a "timeout" of syncTimeout. Other events' hooks are left as they are.
func (d *doc) shapeStep(h *node, ev Event) ([]byte, bool) {
	if !ev.Sync {
		return nil, false
	}
	if i := h.lastIndex("async"); i >= 0 {
		return d.remove(h, i), true
	}
	want := strconv.Itoa(syncTimeout)
	switch t := h.get("timeout"); {
	case t == nil:
		return d.insert(h, "timeout", syncTimeout), true
	case string(d.b[t.start:t.end]) != want:
		return splice(d.b, t.start, t.end, want), true
	}
	return nil, false
}

func groupDoomed(g *node, command string) bool {
	hs := groupHooks(g)
	if hs == nil || len(hs.elems) == 0 {
		return false
	}
	for _, h := range hs.elems {
		if !ours(h, command) {
			return false
		}
	}
	return true
}

func eventDoomed(list *node, command string) bool {
	if list.kind != kArray || len(list.elems) == 0 {
		return false
	}
	for _, g := range list.elems {
		if !groupDoomed(g, command) {
			return false
		}
	}
	return true
}

// uninstallStep makes the first edit Uninstall needs, if any; done says nothing is left.
func (d *doc) uninstallStep(command string) (out []byte, edited, done bool) {
	hi := d.root.lastIndex("hooks")
	if hi < 0 {
		return nil, false, true
	}
	hooks := d.root.members[hi].val
	if hooks.kind != kObject {
		return nil, false, true
	}
	// Everything under "hooks" is ours: drop it (unless a second "hooks" key would then
	// take its place).
	if len(hooks.members) > 0 && d.root.unique(hi) {
		all := true
		for i, m := range hooks.members {
			if !hooks.unique(i) || !eventDoomed(m.val, command) {
				all = false
				break
			}
		}
		if all {
			return d.remove(d.root, hi), true, true
		}
	}
	for i, m := range hooks.members {
		if !hooks.effective(i) || m.val.kind != kArray {
			continue
		}
		list := m.val
		if eventDoomed(list, command) {
			if hooks.unique(i) {
				return d.remove(hooks, i), true, false
			}
			return splice(d.b, list.start+1, list.end-1, ""), true, false
		}
		for gi, g := range list.elems {
			if groupDoomed(g, command) {
				return d.remove(list, gi), true, false
			}
		}
		for _, g := range list.elems {
			hs := groupHooks(g)
			if hs == nil {
				continue
			}
			for j, h := range hs.elems {
				if ours(h, command) {
					return d.remove(hs, j), true, false
				}
			}
		}
	}
	return nil, false, true
}
