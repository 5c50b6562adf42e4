// Package adapter defines the normalized Event, the daemon's only input. Each harness has
// a subpackage that turns its own signals (hook payloads, transcripts, screens) into Events;
// everything downstream of an Event knows nothing about the harness that produced it.
//
// This package imports nothing of ours.
package adapter

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Kind says what happened to a session.
type Kind string

const (
	// KindStart registers a session and binds it to its pane; its queue state is unchanged.
	KindStart Kind = "start"
	// KindTouch re-asserts session → pane without changing queue state (an event we know
	// but that says nothing about waiting, such as a PreToolUse of an ordinary tool).
	KindTouch Kind = "touch"
	// KindStuck says the session now waits for its human.
	KindStuck Kind = "stuck"
	// KindUnstuck says the session moved on: its human answered, or a tool ran.
	KindUnstuck Kind = "unstuck"
	// KindEnd retires the session.
	KindEnd Kind = "end"
)

// Reasons are display-only: the queue never orders by them.
const (
	ReasonPermission = "permission"
	ReasonStopped    = "stopped"
)

// Event says: session SessionID of harness Harness at pane Pane on the tmux server whose
// socket is TmuxSocket is now Kind, as observed at time At by its source.
type Event struct {
	Harness        string
	SessionID      string
	Kind           Kind
	Pane           string // "%N", or "" when the source did not know it
	TmuxSocket     string // absolute socket path, or "" outside tmux
	Reason         string // ReasonPermission or ReasonStopped, for KindStuck
	Detail         string // finer display detail: question, plan, error, interrupted, idle …
	Summary        string // what the agent said, or what it wants to run
	TranscriptPath string
	Cwd            string
	At             time.Time
	// Backup marks a late, repeated signal (such as Claude Code's Notification): it may start
	// a stuck item but never rewrites one that is already queued.
	Backup bool
	// Ask is what a stuck event asks of its human, when its source can tell (a permission's
	// tool, a question's options, the menu on a screen); nil lets the daemon derive it from
	// the reason: a finished turn waits for free text.
	Ask *Ask
	// Program is what sent it, when the daemon could tell: a hook, however it came (its
	// socket peer, or its own word checked against /proc), a verified live state file, the
	// screen of a pane the daemon read itself.
	Program Program
	// AskerUnknown: the event's source says who sent it (a hook, a generic envelope) and
	// this time that could not be verified. The session then keeps no identity from its
	// earlier events, which proves nothing about this one. A source that never says who
	// sent it (a transcript, the screen of a pane a hook bound) leaves it false, and its
	// zero Program keeps what the session knew.
	AskerUnknown bool
	// Call is the tool call the event announces (a PreToolUse: about to run) or ends (a
	// PostToolUse: Done), when its source says. A permission dialog that another source
	// sees open without saying for what (Claude Code's live state) is the session's call
	// about to run: the daemon pairs the two.
	Call *ToolCall
	// By says who moved an unstuck session on: ByHuman (its operator: a typed prompt, an
	// answered dialog), ByOther (a background task's end, a schedule), ByUnknown (its source
	// cannot tell, and another will: Claude Code's live state going busy, before the
	// prompt's hook). "" is a source that does not say, taken as the operator as ever. On a
	// stuck event, ByHuman says the turn that ended was its operator's: a new wait, whatever
	// place an earlier stop kept.
	By string
	// Submitted marks an unstuck event that says a prompt was submitted (a turn begins),
	// as opposed to a dialog answered or a tool that ran.
	Submitted bool
	// Turn is the agent's own id of the turn the event belongs to, when its source says
	// (Codex's turn_id). EndsTurn marks the agent's word that the turn is complete (Codex's
	// agent-turn-complete): an event of that turn arriving later is stale, a hook process
	// that was slow to start, and must not undo the turn's end.
	Turn     string
	EndsTurn bool
}

// Who moved a session on (Event.By).
const (
	ByHuman   = "human"
	ByOther   = "other"
	ByUnknown = "unknown"
)

// ToolCall is one tool call of a session, by its id: about to run (a PreToolUse), or done
// (Done: a PostToolUse). One about to run says how a permission for it is queued: the
// detail, summary and Ask that a permission request for that very call would carry.
type ToolCall struct {
	ID      string
	Done    bool
	Tool    string
	Mode    string // the session's permission mode when it was called ("auto", "default", …), if said
	Detail  string
	Summary string
	Ask     *Ask
}

// Ask kinds: what an answer looks like.
const (
	AskPermission = "permission"  // choices allow and deny
	AskYesNo      = "yes_no"      // choices y and n (or yes and no)
	AskMenu       = "choice"      // a menu: choices 1, 2, … or its letters
	AskFreeText   = "free_text"   // a line of text, no choices
	AskPressEnter = "press_enter" // one choice, enter
	// AskNone: the wait cannot be answered from afar (a dialog of several screens); only
	// in its pane.
	AskNone = "none"
)

// Where an Ask was read.
const (
	AskFromHook   = "hook"   // a hook payload: the agent said what it asks
	AskFromScreen = "screen" // a pane's screen, classified
	AskFromPTY    = "pty"    // the output of trailboss run's child, classified
	// AskFromTranscript: the call a transcript holds, for a dialog no hook named (Claude
	// Code without hooks); asked as its hook would have.
	AskFromTranscript = "transcript"
)

// Program is the identity of what sent an event, so that an answer is typed only into that
// very program: the tmux server (its pid), the pane's first process, and the agent's own
// process with its start time (a pid alone may be reused). A zero field was not known; an
// answer is typed only into a program all of whose fields are known (Known).
type Program struct {
	TmuxPID    int
	PanePID    int
	AgentPID   int
	AgentStart uint64 // clock ticks after boot, /proc/PID/stat field 22
}

// Known reports whether p names the tmux server, the pane's first process and the agent:
// the least an answer needs before it is typed into a pane.
func (p Program) Known() bool { return p.TmuxPID > 0 && p.PanePID > 0 && p.AgentPID > 0 }

// Ask is a question put to the operator and the answers it takes.
type Ask struct {
	Kind     string
	Question string
	Choices  []AskChoice
	From     string
	// Secret marks a question for a password, passphrase or token: it is answered at the
	// keyboard only, and no answer to it is ever sent, logged or stored.
	Secret bool
	// Subject names exactly what a hook's permission is for: a fingerprint of the tool and
	// its whole input (Claude Code: claude.Subject), which Question, cut for display, is
	// not. A hook that holds for the record checks that it names its own request. "" when
	// the source cannot tell (a screen, a derived ask).
	Subject string
}

// AskChoice is one answer an Ask offers: Key is what is sent, Label what it means.
type AskChoice struct {
	Key   string
	Label string
}

// Same reports whether a and b ask the same thing (of the same subject) with the same
// answers.
func (a *Ask) Same(b *Ask) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || a.Question != b.Question || a.Subject != b.Subject || len(a.Choices) != len(b.Choices) {
		return false
	}
	for i := range a.Choices {
		if a.Choices[i] != b.Choices[i] {
			return false
		}
	}
	return true
}

// Label returns the label of a's choice key, or "" when a offers no such choice.
func (a *Ask) Label(key string) string {
	for _, c := range a.Choices {
		if c.Key == key {
			return c.Label
		}
	}
	return ""
}

// PermissionAsk is the Ask of a tool permission: allow or deny.
func PermissionAsk(question, from string) *Ask {
	return &Ask{Kind: AskPermission, Question: question, From: from,
		Choices: []AskChoice{{Key: ChoiceAllow, Label: "Allow"}, {Key: ChoiceDeny, Label: "Deny"}}}
}

// MenuAsk is the Ask of a question with options, keys 1, 2, … as its menu numbers them (at
// most nine: a menu digit is one key), asked by a hook; from is where it was read.
func MenuAsk(question string, labels []string, from string) *Ask {
	ask := &Ask{Kind: AskMenu, Question: CleanText(question, 300), From: from}
	for i, label := range labels {
		if i == 9 {
			break
		}
		ask.Choices = append(ask.Choices, AskChoice{Key: strconv.Itoa(i + 1), Label: CleanText(label, 200)})
	}
	return ask
}

// Limits on the strings an Event carries, so that a hostile or broken source cannot make
// the daemon store or display megabytes per session.
const (
	MaxSessionIDLen = 256
	MaxSummaryLen   = 2000
	MaxPathLen      = 4096
)

// ErrInvalid marks an event or field that a source must not send; the API answers 400.
var ErrInvalid = errors.New("invalid event")

// ErrIgnored marks a valid payload of an event that Trail Boss does not use (a subagent's
// stop, a compaction): it is acknowledged and changes nothing.
var ErrIgnored = errors.New("event not used by trailboss")

// ValidPane reports whether p is a tmux pane id: "%" followed by decimal digits that fit in
// tmux's unsigned 32-bit pane number. Anything else must never reach a tmux command line.
func ValidPane(p string) bool {
	if len(p) < 2 || p[0] != '%' || len(p) > 11 {
		return false
	}
	for _, c := range p[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	_, err := strconv.ParseUint(p[1:], 10, 32)
	return err == nil
}

// SocketFromTmuxEnv returns the socket path from a TMUX environment value
// ("/tmp/tmux-1000/default,1234,0"), or "" when the value is empty. It returns an error when
// the value is not an absolute path with a pid and session index after it.
func SocketFromTmuxEnv(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	i := strings.LastIndexByte(v, ',')
	if i < 0 {
		return "", fmt.Errorf("%w: TMUX value %q is not socket,pid,index", ErrInvalid, clip(v, 80))
	}
	j := strings.LastIndexByte(v[:i], ',')
	if j < 0 {
		return "", fmt.Errorf("%w: TMUX value %q is not socket,pid,index", ErrInvalid, clip(v, 80))
	}
	sock := v[:j]
	if err := checkPath("TMUX socket", sock); err != nil {
		return "", err
	}
	if !strings.HasPrefix(sock, "/") {
		return "", fmt.Errorf("%w: TMUX socket %q is not an absolute path", ErrInvalid, clip(sock, 80))
	}
	return sock, nil
}

// Placed returns e as the queue takes it: a pane id means nothing without the tmux server
// it is on (every server numbers its panes from %0), so an event that names a pane but no
// server is taken as one from outside tmux, with no pane. This is the one rule for every
// route — hooks, generic envelopes, the screen adapter — so that the same pane never means
// one thing on one route and another elsewhere.
func (e Event) Placed() Event {
	if e.TmuxSocket == "" {
		e.Pane = ""
	}
	return e
}

// Validate checks what every harness must get right, so that nothing downstream has to.
// It returns an error wrapping ErrInvalid that names the first bad field.
func (e Event) Validate() error {
	switch {
	case e.SessionID == "":
		return fmt.Errorf("%w: missing session_id", ErrInvalid)
	case len(e.SessionID) > MaxSessionIDLen:
		return fmt.Errorf("%w: session_id longer than %d bytes", ErrInvalid, MaxSessionIDLen)
	case !utf8.ValidString(e.SessionID) || hasControl(e.SessionID):
		return fmt.Errorf("%w: session_id has invalid UTF-8 or control characters", ErrInvalid)
	case e.Harness == "":
		return fmt.Errorf("%w: missing harness", ErrInvalid)
	case e.Pane != "" && !ValidPane(e.Pane):
		return fmt.Errorf("%w: pane %q is not a tmux pane id (%% and digits)", ErrInvalid, clip(e.Pane, 40))
	case e.At.IsZero():
		return fmt.Errorf("%w: missing event time", ErrInvalid)
	}
	switch e.Kind {
	case KindStart, KindTouch, KindStuck, KindUnstuck, KindEnd:
	default:
		return fmt.Errorf("%w: unknown kind %q", ErrInvalid, clip(string(e.Kind), 40))
	}
	if e.Kind == KindStuck && e.Reason != ReasonPermission && e.Reason != ReasonStopped {
		return fmt.Errorf("%w: stuck reason %q is neither %q nor %q", ErrInvalid,
			clip(e.Reason, 40), ReasonPermission, ReasonStopped)
	}
	if err := checkPath("transcript_path", e.TranscriptPath); err != nil {
		return err
	}
	if err := checkPath("cwd", e.Cwd); err != nil {
		return err
	}
	return checkPath("tmux socket", e.TmuxSocket)
}

func checkPath(name, p string) error {
	switch {
	case len(p) > MaxPathLen:
		return fmt.Errorf("%w: %s longer than %d bytes", ErrInvalid, name, MaxPathLen)
	case !utf8.ValidString(p) || hasControl(p):
		return fmt.Errorf("%w: %s has invalid UTF-8 or control characters", ErrInvalid, name)
	}
	return nil
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}

// FormatMark returns how a format character is shown, "⟨U+202E⟩", and true; for any other
// rune it returns "" and false. Format characters (Unicode's Cf: bidi overrides and
// isolates, zero-width spaces and joiners, the byte order mark, tag characters, the soft
// hyphen) draw as nothing or reorder what is drawn around them, so that a command shown
// with them can read unlike what runs: wherever a command is shown they are shown as marks.
func FormatMark(r rune) (string, bool) {
	if !unicode.Is(unicode.Cf, r) && r != '\u115f' && r != '\u1160' && r != '\u3164' && r != '\uffa0' {
		return "", false // (the Hangul fillers are letters that draw as blanks)
	}
	return fmt.Sprintf("⟨U+%04X⟩", r), true
}

// ShowFormat returns s with every format character replaced by its mark (FormatMark).
func ShowFormat(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { _, ok := FormatMark(r); return ok })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if m, ok := FormatMark(r); ok {
			b.WriteString(m)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// CleanText makes free text from a harness safe to store and show on one terminal line:
// invalid UTF-8 and control characters (escape sequences included) become spaces, runs of
// white space fold to one, format characters become visible marks (FormatMark), and the
// result is cut to max bytes on a rune boundary with "…".
func CleanText(s string, max int) string {
	var b strings.Builder
	space := false
	for i, r := range s {
		if b.Len() >= max+8 {
			break
		}
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				r = ' '
			}
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == ' ' || r == '\u00a0' {
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		if m, ok := FormatMark(r); ok {
			b.WriteString(m)
			continue
		}
		b.WriteRune(r)
	}
	return clip(strings.TrimRight(b.String(), " "), max)
}

// Cut reports whether text may have been cut by CleanText (or clip): it ends with the
// "…" that marks a cut, at whatever length it was cut to (a screen's question at 300
// bytes, a hook's command at MaxSummaryLen). A text that ended with "…" of its own is
// taken as cut too: a command is approved only when all of it was shown, so the doubt
// goes to showing it as cut.
func Cut(text string) bool { return strings.HasSuffix(text, "…") }

// clip cuts s to at most max bytes on a rune boundary, marking the cut with "…".
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	if cut < 0 {
		cut = 0
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
