// Package liverule holds the pure rules that say what a harness's live state file, and the
// tail of its transcript, mean for a queued session: plain functions over values, shared by
// the engine (which pairs a dialog with the call it is about) and the watchers (which read
// the files). It imports only the words the daemon shares (adapter, queue, wire).
//
// A harness's own words come in through Words, which the daemon's registry of harnesses
// fills: nothing here names one.
package liverule

import (
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
)

// Details of a wait that the live state saw and no hook has put in words.
const (
	// DetailDialog: a dialog that is not a permission for a call (an offer of the harness,
	// a startup question). It is answered in its pane.
	DetailDialog = "dialog"
	// DetailAsking: a permission dialog whose call no hook or transcript has said yet.
	DetailAsking = "asking"
)

// DetailRefused is the detail of a session whose human pressed Esc at its permission
// dialog, question or plan: it no longer waits for that answer but at its prompt.
const DetailRefused = "refused"

// DetailDenied is the detail of a session whose dialog a person denied through Trail Boss
// (the held hook's deny, or the No typed into the pane): it too waits at its prompt now.
const DetailDenied = "denied"

// Words are a harness's own words for the waits its live state shows and no hook put in
// words.
type Words struct {
	// Name is the harness as its users know it; the words name it ("… asks a question").
	Name string
	// Dialog, when set, returns the words of a dialog that is not a permission, opened
	// while call was about to run, or "" when the harness has no words of its own for it.
	Dialog func(call adapter.ToolCall) string
}

// Question is the summary of a question no hook or transcript has put in words yet.
func (w Words) Question() string { return w.Name + " asks a question: see its pane" }

// View is what the daemon knows of a session beside its row when it reads the session's
// state file.
type View struct {
	Rec    *queue.Prompt           // its latest prompt record, or nil
	Call   *adapter.ToolCall       // the call it is about to make (announced by a hook, or in its transcript), or nil
	Prev   adapter.LiveState       // the state read before this one; zero on a first reading
	Hooked bool                    // hooks speak for it: a prompt's hook will say who submitted it
	Tail   *adapter.TranscriptLine // its transcript's last conversation line at a turn's end; nil when not read
	TurnBy string                  // who submitted the prompt of the turn that ended, as its transcript says
	Words  Words                   // its harness's words
}

// Event is the pure rule: what state file st means for session s, and false when it
// means nothing new.
//
//   - busy: a stuck session whose process went busy after it got stuck was answered (a
//     permission approved, a question answered, a prompt submitted);
//   - idle (or shell: the turn is over, a background task runs): a session stuck on a
//     dialog had it dismissed (Esc, or a No: rec tells) and waits at its prompt; one that
//     was working (busy or waiting before) ended its turn, with the transcript's words;
//   - waiting: a dialog is open, queued with the words of what it waits for: a permission
//     for the pending call, a question, another dialog. Words a hook gave (a
//     PermissionRequest's, whose record a hook may hold) are never replaced.
//
// A stuck event takes the time of the reading, or the session's last event when that is
// later: the file read now says the session waits, and a hook stamped later than the file
// (a hook process slow to start) is not newer news.
func Event(s queue.Session, v View, st adapter.LiveState) (adapter.Event, bool) {
	if s.Ended || s.Harness != st.Harness {
		return adapter.Event{}, false
	}
	ev := adapter.Event{Harness: s.Harness, SessionID: s.ID, At: Latest(st.At, s.LastEventAt)}
	answered := s.Stuck && st.At.After(s.Since) && st.At.After(s.LastEventAt)
	switch st.Status {
	case adapter.LiveBusy:
		if !answered {
			return adapter.Event{}, false
		}
		ev.Kind, ev.At, ev.By = adapter.KindUnstuck, st.At, adapter.ByHuman
		if s.Reason == adapter.ReasonStopped {
			// A dialog is answered by its operator. Who submitted a prompt, its hook says,
			// or the transcript when the turn ends.
			ev.By = adapter.ByUnknown
		}
		return ev, true
	case adapter.LiveIdle, adapter.LiveShell:
		switch {
		case answered && s.Reason == adapter.ReasonPermission && endedAfter(s, v.Tail):
			// The dialog was answered and the turn went on to its end, too fast for the
			// busy between to be read (under load a read missed it): a new stop, not Esc.
			stop := StuckFromTail(s, v.Rec, *v.Tail)
			stop.At, stop.By = st.At, v.TurnBy
			return stop, true
		case answered && s.Reason == adapter.ReasonPermission:
			return Refused(s, v.Rec, st.At), true
		case !s.Stuck && (v.Prev.Status == adapter.LiveBusy || v.Prev.Status == adapter.LiveWaiting):
			tail := adapter.TranscriptLine{At: ev.At}
			if v.Tail != nil {
				tail = *v.Tail
			}
			stop := StuckFromTail(s, v.Rec, tail)
			stop.At, stop.By = ev.At, v.TurnBy
			if stop.By == "" && !v.Hooked {
				stop.By = adapter.ByHuman // no one says a task woke it: a new wait
			}
			return stop, true
		case !s.Stuck && v.Prev.Status == "" && v.Tail != nil && v.Tail.State == adapter.TailWaiting:
			// First seen at its prompt after a turn (the daemon started later): it waits.
			// A reminder of a known wait: a session the operator dismissed stays so.
			stop := StuckFromTail(s, v.Rec, *v.Tail)
			stop.At, stop.Backup = ev.At, true
			return stop, true
		}
		return adapter.Event{}, false
	case adapter.LiveWaiting:
		detail, summary, ask := words(st.WaitingFor, v.Call, v.Words)
		switch {
		case !s.Stuck:
		case s.Reason == adapter.ReasonStopped && st.At.After(s.Since):
			// A wait after the stop it was queued for (a woken session asks): same place.
		case !WordsOnly(s, v.Words):
			return adapter.Event{}, false // its words are a hook's
		case s.Detail == detail && s.Summary == summary:
			return adapter.Event{}, false
		}
		ev.Stuck(adapter.ReasonPermission, detail, summary)
		ev.Ask = ask
		return ev, true
	}
	return adapter.Event{}, false
}

// endedAfter reports whether tail, the last conversation line of s's transcript, says its
// turn ended after s got stuck, with words: what the harness writes when the turn went on
// past the dialog s waits on. A dialog dismissed (Esc, No) ends with an interrupt marker.
func endedAfter(s queue.Session, tail *adapter.TranscriptLine) bool {
	return tail != nil && tail.State == adapter.TailWaiting && !tail.Interrupt && tail.Text != "" && tail.At.After(s.Since)
}

// AnsweredThenStopped reports whether ev, what Event made of a state file for session s,
// is the stop of a turn that went on past the dialog s was stuck on (endedAfter): a
// stuck-on-a-dialog session's only stop that is not a refusal.
func AnsweredThenStopped(s queue.Session, ev adapter.Event) bool {
	return s.Stuck && s.Reason == adapter.ReasonPermission && ev.Kind == adapter.KindStuck &&
		ev.Reason == adapter.ReasonStopped && ev.Detail != DetailRefused && ev.Detail != DetailDenied
}

// WordsOnly reports whether stuck session s has only the words the live state gave it
// with no call known (words): a hook's words, or a call's, are never replaced. w are
// its harness's words.
func WordsOnly(s queue.Session, w Words) bool {
	if s.Reason != adapter.ReasonPermission {
		return false
	}
	switch s.Detail {
	case DetailDialog, DetailAsking:
		return true
	case adapter.DetailQuestion:
		return s.Summary == w.Question()
	}
	return false
}

// words says what a process waiting for waitingFor waits for, given the call it is about
// to make (nil when unknown) and its harness's words w: the detail, the summary and what
// it asks. A permission for a known call asks as a PermissionRequest for it would (its
// command, allow or deny); anything the daemon cannot put in words is answered in its
// pane (AskNone), never approved blind.
func words(waitingFor string, call *adapter.ToolCall, w Words) (detail, summary string, ask *adapter.Ask) {
	inPane := &adapter.Ask{Kind: adapter.AskNone, From: "live"}
	switch {
	case waitingFor == adapter.WaitingPermission && call != nil,
		waitingFor == adapter.WaitingInput && call != nil && call.Detail == adapter.DetailQuestion:
		a := *call.Ask
		return call.Detail, call.Summary, &a
	case waitingFor == adapter.WaitingPermission:
		return DetailAsking, w.Name + " asks permission; no hook said for what: see its pane", inPane
	case waitingFor == adapter.WaitingInput:
		return adapter.DetailQuestion, w.Question(), inPane
	case waitingFor == adapter.WaitingDialog && call != nil && w.Dialog != nil && w.Dialog(*call) != "":
		return DetailDialog, w.Dialog(*call), inPane
	case waitingFor == "" || waitingFor == adapter.WaitingDialog:
		return DetailDialog, w.Name + " shows a dialog: answer it in its pane", inPane
	}
	return DetailDialog, adapter.CleanText(w.Name+" waits: "+waitingFor, adapter.MaxSummaryLen), inPane
}

// Latest returns the later of a and b.
func Latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// StuckFromTail is the event that queues a session whose transcript says it waits. rec is
// its latest prompt record, or nil: an interrupt marker written just after that record was
// answered "deny" is the harness taking the No (read after the refused tool's result had
// already moved the session on), and says so.
func StuckFromTail(s queue.Session, rec *queue.Prompt, tail adapter.TranscriptLine) adapter.Event {
	summary := tail.Text
	if summary == "" && tail.Interrupt {
		summary = "interrupted"
	}
	ev := adapter.Event{Harness: s.Harness, SessionID: s.ID, Kind: adapter.KindStuck,
		Reason: adapter.ReasonStopped, Detail: tail.Detail, Summary: summary, At: tail.At}
	if tail.Interrupt && rec != nil && rec.SessionID == s.ID && rec.Status == queue.PromptAnswered && rec.Answer == "deny" &&
		!tail.At.Before(rec.ClosedAt) && tail.At.Sub(rec.ClosedAt) < denyEcho {
		ev.Detail = DetailDenied
		ev.Summary = deniedWords(rec.Channel, rec.Ask.Question)
	}
	return ev
}

// denyEcho bounds how long after a deny through Trail Boss the interrupt marker it causes
// is written: a harness seen doing so writes it within a few hundred milliseconds.
const denyEcho = 10 * time.Second

// Refused is the event that relabels s, stuck on a dialog, once the dialog went away with
// no hook saying how: a harness may show "Interrupted" and go idle both for Esc and for a
// No. rec is s's latest prompt record (nil when none): when it was answered "deny" for
// that same stuck moment, the person denied it from a channel, and the words say so;
// otherwise it was Esc at the keyboard. It keeps its place in the queue: it is the same
// wait, now at the prompt.
func Refused(s queue.Session, rec *queue.Prompt, at time.Time) adapter.Event {
	what := s.Summary
	if what == "" {
		what = "the request"
	}
	ev := adapter.Event{Harness: s.Harness, SessionID: s.ID, Kind: adapter.KindStuck,
		Reason: adapter.ReasonStopped, Detail: DetailRefused,
		Summary: adapter.CleanText("refused with Esc: "+what+" — waiting for your next message", adapter.MaxSummaryLen),
		At:      at}
	if rec != nil && rec.SessionID == s.ID && rec.Status == queue.PromptAnswered && rec.Answer == "deny" && rec.Since.Equal(s.Since) {
		ev.Detail, ev.Summary = DetailDenied, deniedWords(rec.Channel, what)
	}
	return ev
}

// deniedWords is the summary of a session whose request for what was denied from channel.
func deniedWords(channel, what string) string {
	if what == "" {
		what = "the request"
	}
	return adapter.CleanText("denied from "+wire.ChannelWords(channel)+": "+what+" — waiting for your next message", adapter.MaxSummaryLen)
}
