package daemon

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/enginetest"
	"github.com/trailboss/trailboss/daemon/fault"
	"github.com/trailboss/trailboss/daemon/liverule"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/store"
	"github.com/trailboss/trailboss/daemon/transcript"
)

// Test fixtures shared by the daemon package's tests.

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// at returns t0 plus sec seconds (fractions allowed).
func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

const testSocket = "/tmp/tbx-test/s"

var discard = slog.New(slog.DiscardHandler)

// newEngine returns an Engine over a fresh store in a temp dir, and the store's path.
func newEngine(t *testing.T) (*Engine, string) { return enginetest.Open(t, NewEngine) }

// onDisk opens a second handle on the store at path and returns session id as committed,
// ended or not.
func onDisk(t *testing.T, path, id string) (queue.Session, bool) {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, found, err := st.LoadSession(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s, found
}

// event returns an event of session id at time when on pane (on testSocket; no socket
// when pane is "").
func event(id string, kind adapter.Kind, when time.Time, pane string) adapter.Event {
	ev := adapter.Event{Harness: "claude", SessionID: id, Kind: kind, At: when, Pane: pane}
	if pane != "" {
		ev.TmuxSocket = testSocket
	}
	if kind == adapter.KindStuck {
		ev.Reason, ev.Summary = adapter.ReasonStopped, "done?"
	}
	return ev
}

func ingest(t *testing.T, e *Engine, ev adapter.Event) bool {
	t.Helper()
	out, err := e.Ingest(context.Background(), ev)
	if err != nil {
		t.Fatalf("ingest %s %s: %v", ev.SessionID, ev.Kind, err)
	}
	return out.Changed
}

func itemIDs(items []queue.Item) []string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	return ids
}

func sameIDs(a, b []string) bool {
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

func TestIngestCommitsBeforeReturning(t *testing.T) {
	ctx := context.Background()
	e, path := newEngine(t)
	if !ingest(t, e, event("A", adapter.KindStuck, at(1), "%1")) {
		t.Fatal("a first stuck event reported no change")
	}

	got, found := onDisk(t, path, "A")
	if !found || !got.Stuck || got.Pane != "%1" || !got.Since.Equal(at(1)) || got.Summary != "done?" {
		t.Fatalf("on disk after Ingest: found=%v %+v", found, got)
	}

	// A fresh engine over the same file sees the queue as it was.
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	loaded, err := st.LoadSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded) != 1 || loaded[0].ID != "A" || !loaded[0].Stuck {
		t.Fatalf("LoadSessions after Ingest: %+v", loaded)
	}
	e2, err := NewEngine(ctx, st, time.Minute, discard)
	if err != nil {
		t.Fatal(err)
	}
	if ids := itemIDs(e2.Items()); !sameIDs(ids, []string{"A"}) {
		t.Fatalf("a restarted engine queues %v, want [A]", ids)
	}
}

func TestIngestUnchangedEventWritesNothingAndDoesNotNotify(t *testing.T) {
	e, path := newEngine(t)
	ingest(t, e, event("A", adapter.KindStuck, at(5), "%1"))
	ch := e.Subscribe()
	if ingest(t, e, event("A", adapter.KindUnstuck, at(4), "%1")) {
		t.Fatal("an event older than the last applied one reported a change")
	}
	select {
	case <-ch:
		t.Fatal("subscribers were signalled for an event that changed nothing")
	default:
	}
	if got, _ := onDisk(t, path, "A"); !got.Stuck {
		t.Fatalf("an older unstuck event dequeued the session on disk: %+v", got)
	}
	ingest(t, e, event("A", adapter.KindUnstuck, at(6), "%1"))
	select {
	case <-ch:
	default:
		t.Fatal("subscribers were not signalled after a committed change")
	}
}

func TestPaneClaimRetiresTheOldSessionAndLateEventsCannotTakeItBack(t *testing.T) {
	e, path := newEngine(t)
	ingest(t, e, event("A", adapter.KindStuck, at(1), "%1"))
	ingest(t, e, event("B", adapter.KindStart, at(5), "%1"))

	if _, live := e.Session("A"); live {
		t.Fatal("A is still live after B's event claimed its pane")
	}
	if a, _ := onDisk(t, path, "A"); !a.Ended || a.Stuck || a.Pane != "" {
		t.Fatalf("A on disk after B claimed %%1: %+v, want ended, not stuck, no pane", a)
	}
	if ids := itemIDs(e.Items()); len(ids) != 0 {
		t.Fatalf("queue after the pane changed hands: %v, want empty", ids)
	}

	// A's Stop hook raced B's SessionStart and lost: it is older than B's claim.
	if ingest(t, e, event("A", adapter.KindStuck, at(3), "%1")) {
		t.Fatal("a late event from A, older than B's claim, reported a change")
	}
	if _, live := e.Session("A"); live {
		t.Fatal("a late event revived A")
	}
	b, live := e.Session("B")
	if !live || b.Pane != "%1" || b.Ended {
		t.Fatalf("B after A's late event: live=%v %+v, want still on %%1", live, b)
	}
	if a, _ := onDisk(t, path, "A"); !a.Ended {
		t.Fatalf("A on disk after its late event: %+v, want ended", a)
	}
	if ids := itemIDs(e.Items()); len(ids) != 0 {
		t.Fatalf("queue after A's late event: %v, want empty", ids)
	}
}

func TestPaneClaimKeepsSessionsOnOtherPanesAndServers(t *testing.T) {
	e, _ := newEngine(t)
	ingest(t, e, event("A", adapter.KindStuck, at(1), "%1"))
	other := event("C", adapter.KindStuck, at(2), "%1")
	other.TmuxSocket = "/tmp/tbx-test/other" // same pane number, another tmux server
	ingest(t, e, other)
	ingest(t, e, event("D", adapter.KindStuck, at(3), "%2"))
	if ids := itemIDs(e.Items()); !sameIDs(ids, []string{"A", "C", "D"}) {
		t.Fatalf("queue %v, want [A C D]: only the same pane of the same server is claimed", ids)
	}
}

func TestOlderEventOfAnotherSessionDoesNotTakeAClaimedPane(t *testing.T) {
	e, _ := newEngine(t)
	ingest(t, e, event("B", adapter.KindStuck, at(5), "%1"))
	// C's Stop, stamped before B took the pane, arrives after B's event.
	ingest(t, e, event("C", adapter.KindStuck, at(3), "%1"))
	b, live := e.Session("B")
	if !live || b.Pane != "%1" || !b.Stuck {
		t.Fatalf("B after an older event of C on its pane: live=%v %+v, want still stuck on %%1", live, b)
	}
}

func TestLateFirstEventOfAnotherSessionDoesNotShareAClaimedPane(t *testing.T) {
	e, _ := newEngine(t)
	ingest(t, e, event("B", adapter.KindStart, at(5), "%1"))
	// C's Stop, stamped before B took the pane, arrives after B's SessionStart.
	ingest(t, e, event("C", adapter.KindStuck, at(3), "%1"))

	b, live := e.Session("B")
	if !live || b.Pane != "%1" {
		t.Fatalf("B lost %%1 to an older event: live=%v %+v", live, b)
	}
	for _, s := range e.Snapshot() {
		if s.ID != "B" && queue.SamePane(s, b) {
			t.Fatalf("session %s shares %%1 with B, which claimed it later: %+v", s.ID, s)
		}
	}
	for _, it := range e.Items() {
		if it.Pane == "%1" {
			t.Fatalf("queue sends the operator to %%1 for %s, but B holds that pane", it.ID)
		}
	}
}

func TestSkipTakesThePaneTheOperatorIsOnElseTheHead(t *testing.T) {
	ctx := context.Background()
	e, path := newEngine(t)
	now := t0.Add(time.Hour)
	e.now = func() time.Time { return now }
	ingest(t, e, event("X", adapter.KindStuck, at(1), "%1"))
	ingest(t, e, event("Y", adapter.KindStuck, at(2), "%2"))
	ingest(t, e, event("Z", adapter.KindStuck, at(3), "%3"))

	skip := func(f queue.Filter) (string, bool, bool) {
		t.Helper()
		head, found, skipped, err := e.Skip(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		return head.ID, found, skipped
	}

	// The operator is on Y's pane: Y is skipped, not the head X.
	if head, found, skipped := skip(queue.Filter{ExcludePane: "%2"}); head != "X" || !found || !skipped {
		t.Fatalf("skip on %%2: head=%q found=%v skipped=%v, want X true true", head, found, skipped)
	}
	y, _ := e.Session("Y")
	if !y.CooldownUntil.Equal(now.Add(time.Minute)) {
		t.Fatalf("Y cools until %v, want %v", y.CooldownUntil, now.Add(time.Minute))
	}
	if onY, _ := onDisk(t, path, "Y"); !onY.CooldownUntil.Equal(y.CooldownUntil) || onY.Rank != y.Rank {
		t.Fatalf("skip not committed: disk %+v, memory %+v", onY, y)
	}
	items := e.Items()
	if ids := itemIDs(items); !sameIDs(ids, []string{"X", "Z", "Y"}) || items[2].Ready {
		t.Fatalf("after skipping Y: %v (Y ready=%v), want [X Z Y] with Y cooling", ids, items[len(items)-1].Ready)
	}

	// Y is cooling, so skipping "on %2" again falls back to the head, X.
	if head, _, _ := skip(queue.Filter{ExcludePane: "%2"}); head != "Z" {
		t.Fatalf("skip on cooling %%2: new head %q, want Z (X skipped)", head)
	}
	if x, _ := e.Session("X"); x.CooldownUntil.IsZero() {
		t.Fatal("X was not the one skipped")
	}
	// A pane with no item: the head, Z, is skipped, and nothing is ready any more.
	if head, found, skipped := skip(queue.Filter{ExcludePane: "%9"}); found || !skipped || head != "" {
		t.Fatalf("skip of the last ready item: head=%q found=%v skipped=%v, want none, false, true", head, found, skipped)
	}
	if _, found, skipped := skip(queue.Filter{}); found || skipped {
		t.Fatalf("skip with only cooling items: found=%v skipped=%v, want false false", found, skipped)
	}

	// Once cooled, the first skipped comes back first.
	now = now.Add(2 * time.Minute)
	if ids := itemIDs(e.Items()); !sameIDs(ids, []string{"Y", "X", "Z"}) {
		t.Fatalf("after the cooldown: %v, want [Y X Z] (order of skipping)", ids)
	}
}

func TestSkipHonoursTheSocketFilter(t *testing.T) {
	e, _ := newEngine(t)
	ingest(t, e, event("A", adapter.KindStuck, at(1), "%1"))
	b := event("B", adapter.KindStuck, at(2), "%1")
	b.TmuxSocket = "/tmp/tbx-test/other"
	ingest(t, e, b)
	ingest(t, e, event("C", adapter.KindStuck, at(3), "%2"))

	head, found, skipped, err := e.Skip(context.Background(), queue.Filter{Socket: testSocket, ExcludePane: "%1"})
	if err != nil {
		t.Fatal(err)
	}
	if !skipped || !found || head.ID != "C" {
		t.Fatalf("skip on %%1 of %s: head=%q found=%v skipped=%v, want C", testSocket, head.ID, found, skipped)
	}
	if s, _ := e.Session("B"); !s.CooldownUntil.IsZero() {
		t.Fatal("skip on one server cooled the item at the same pane number of another server")
	}
	if s, _ := e.Session("A"); s.CooldownUntil.IsZero() {
		t.Fatal("A, at the operator's pane on the operator's server, was not skipped")
	}
}

func TestRetireEndsSessionsAndOrdersLateEvents(t *testing.T) {
	ctx := context.Background()
	e, path := newEngine(t)
	ingest(t, e, event("A", adapter.KindStuck, at(1), "%1"))
	ingest(t, e, event("B", adapter.KindStuck, at(2), "%2"))
	ch := e.Subscribe()

	if err := e.Retire(ctx, []string{"A", "never-seen"}, at(10)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
	default:
		t.Fatal("Retire did not signal subscribers")
	}
	if ids := itemIDs(e.Items()); !sameIDs(ids, []string{"B"}) {
		t.Fatalf("queue after retiring A: %v, want [B]", ids)
	}
	a, found := onDisk(t, path, "A")
	if !found || !a.Ended || !a.LastEventAt.Equal(at(10)) {
		t.Fatalf("A on disk: %+v, want ended with LastEventAt %v", a, at(10))
	}
	if _, found := onDisk(t, path, "never-seen"); found {
		t.Fatal("Retire wrote a row for a session it did not know")
	}
	if ingest(t, e, event("A", adapter.KindStuck, at(5), "%1")) {
		t.Fatal("an event from before the retirement revived A")
	}
	if err := e.Retire(ctx, nil, at(11)); err != nil {
		t.Fatalf("retiring nothing: %v", err)
	}
}

func TestFlushPositionsWritesOnlyDirtySessions(t *testing.T) {
	ctx := context.Background()
	e, path := newEngine(t)
	a := event("A", adapter.KindStart, at(1), "%1")
	a.TranscriptPath = "/tmp/tbx-test/a.jsonl"
	ingest(t, e, a)
	b := event("B", adapter.KindStart, at(2), "%2")
	b.TranscriptPath = "/tmp/tbx-test/b.jsonl"
	ingest(t, e, b)

	// Someone else's write to B's row: if Flush wrote B, it would overwrite it.
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	bRow, _, _ := st.LoadSession(ctx, "B")
	bRow.Summary = "marker"
	if err := st.SaveSessions(ctx, []queue.Session{bRow}); err != nil {
		t.Fatal(err)
	}

	// The file and the mark are 64-bit values: a mark with its top bit set must come back.
	aPos := transcript.Position{Offset: 1234, FileID: 77, Mark: 1<<63 | 5}
	e.SetTranscriptPosition("A", a.TranscriptPath, aPos, at(7))
	e.SetTranscriptPosition("B", "/tmp/tbx-test/another.jsonl", transcript.Position{Offset: 99}, at(8)) // stale path: ignored
	if got, _ := onDisk(t, path, "A"); got.Offset != 0 {
		t.Fatalf("SetTranscriptPosition wrote to disk before a flush: offset %d", got.Offset)
	}
	if err := e.FlushPositions(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := onDisk(t, path, "A"); got.Offset != 1234 || got.FileID != aPos.FileID || got.Mark != aPos.Mark || !got.TailAt.Equal(at(7)) {
		t.Fatalf("A on disk after flush: offset %d file %d mark %x tail %v, want %+v %v", got.Offset, got.FileID, got.Mark, got.TailAt, aPos, at(7))
	}
	if got, _ := onDisk(t, path, "B"); got.Summary != "marker" || got.Offset != 0 {
		t.Fatalf("B on disk after flush: %+v: B was not dirty and must not be written", got)
	}

	// Flushed positions are clean: a second flush writes nothing.
	aRow, _, _ := st.LoadSession(ctx, "A")
	aRow.Summary = "marker"
	if err := st.SaveSessions(ctx, []queue.Session{aRow}); err != nil {
		t.Fatal(err)
	}
	if err := e.FlushPositions(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := onDisk(t, path, "A"); got.Summary != "marker" {
		t.Fatalf("a second flush rewrote A: %+v", got)
	}

	// TailAt never moves back.
	e.SetTranscriptPosition("A", a.TranscriptPath, transcript.Position{Offset: 2000}, at(3))
	if s, _ := e.Session("A"); s.Offset != 2000 || !s.TailAt.Equal(at(7)) {
		t.Fatalf("after an older tail: offset %d tail %v, want 2000 %v", s.Offset, s.TailAt, at(7))
	}
}

// TestPaneWithoutServerIsNoPane: the one rule of every route — a pane named without its
// tmux server is taken as no pane, so it can neither be jumped to nor take another
// session's pane.
func TestPaneWithoutServerIsNoPane(t *testing.T) {
	e, _ := newEngine(t)
	ingest(t, e, event("placed", adapter.KindStuck, at(1), "%1"))
	ev := event("unplaced", adapter.KindStuck, at(2), "%1")
	ev.TmuxSocket = ""
	ingest(t, e, ev)
	if s := session(t, e, "unplaced"); s.Pane != "" || !s.Stuck {
		t.Fatalf("unplaced session: %+v", s)
	}
	if s := session(t, e, "placed"); s.Pane != "%1" || !s.Stuck {
		t.Fatalf("a pane without a server released the session on that pane: %+v", s)
	}
}

// A prompt's hook stamped after the dialog that came a model call later (hooks race, and a
// prompt cannot be submitted while a dialog holds the keyboard) does not take the dialog
// out of the queue, nor withdraw its record; once the dialog's record is answered, the
// next prompt does.
func TestAPromptDoesNotAnswerAnOpenDialog(t *testing.T) {
	e, _ := newEngine(t)
	dialog := event("s1", adapter.KindStuck, at(5), "%1")
	dialog.Reason, dialog.Detail, dialog.Summary = adapter.ReasonPermission, "Bash", "Bash: make deploy"
	dialog.Ask = adapter.PermissionAsk("Bash: make deploy", adapter.AskFromHook)
	ingest(t, e, dialog)
	rec, ok := e.PendingPrompt("s1")
	if !ok {
		t.Fatal("the dialog has no record")
	}
	prompt := event("s1", adapter.KindUnstuck, at(5.2), "%1")
	prompt.Submitted, prompt.By = true, adapter.ByHuman
	if ingest(t, e, prompt) {
		t.Fatal("a prompt fired before the dialog opened changed the session")
	}
	if s, _ := e.Session("s1"); !s.Stuck || s.Reason != adapter.ReasonPermission {
		t.Fatalf("a prompt fired before the dialog opened took it out of the queue: %+v", s)
	}
	if now, ok := e.PendingPrompt("s1"); !ok || now.ID != rec.ID {
		t.Fatalf("the dialog's record was withdrawn: %+v (was %s)", now, rec.ID)
	}

	if _, err := e.ClaimPrompt(context.Background(), rec.ID, "deny", "popup"); err != nil {
		t.Fatal(err)
	}
	prompt.At = at(9)
	if !ingest(t, e, prompt) {
		t.Fatal("the prompt after the dialog was answered changed nothing")
	}
	if s, _ := e.Session("s1"); s.Stuck {
		t.Fatalf("the prompt after the dialog was answered left it queued: %+v", s)
	}
}

// TestAWaitAnsweredInThePaneStaysWithoutARecord: auto mode's offer is queued with no
// prompt record (it is answered in its pane); the sweep saving the session's transcript
// position, or a skip, writes its row again and must not give it one (observed: an
// allow/deny record derived from its words, after a turn end that had a record of its own).
func TestAWaitAnsweredInThePaneStaysWithoutARecord(t *testing.T) {
	ctx := context.Background()
	e, _ := newEngine(t)
	start := event("A", adapter.KindStart, at(1), "%1")
	start.TranscriptPath = "/tmp/tbx-test/a.jsonl"
	ingest(t, e, start)
	ingest(t, e, event("A", adapter.KindStuck, at(2), "")) // a turn's end: its record asks for text
	if p := e.LatestPrompt("A"); p == nil || p.Status != queue.PromptPending {
		t.Fatalf("the turn's end has record %+v, want a pending one", p)
	}
	ingest(t, e, event("A", adapter.KindUnstuck, at(3), ""))
	offer := event("A", adapter.KindStuck, at(4), "")
	offer.Stuck(adapter.ReasonPermission, liverule.DetailDialog, "auto mode can't check actions in this session")
	offer.Ask = &adapter.Ask{Kind: adapter.AskNone, From: "live"}
	ingest(t, e, offer)
	noRecord := func(after string) {
		t.Helper()
		for _, it := range e.Items() {
			if it.ID == "A" && it.Prompt != nil {
				t.Fatalf("after %s the offer has a record: %+v", after, it.Prompt)
			}
		}
	}
	noRecord("it was queued")
	e.SetTranscriptPosition("A", start.TranscriptPath, transcript.Position{Offset: 4096}, at(4))
	if err := e.FlushPositions(ctx); err != nil {
		t.Fatal(err)
	}
	noRecord("its transcript position was saved")
	if err := e.SkipSession(ctx, "A"); err != nil {
		t.Fatal(err)
	}
	noRecord("a skip")
}

func session(t *testing.T, e *Engine, id string) queue.Session {
	t.Helper()
	s, ok := e.Session(id)
	if !ok {
		t.Fatalf("session %s is not live", id)
	}
	return s
}

// TestTakeIfAppliesOnlyToTheSessionAsRead: a watcher's event made from a session that has
// changed since is not applied, and says so; made from the session as it is, it is.
func TestTakeIfAppliesOnlyToTheSessionAsRead(t *testing.T) {
	ctx := context.Background()
	e, path := newEngine(t)
	ingest(t, e, event("A", adapter.KindStuck, at(1), "%1"))
	read, _ := e.Session("A")
	ingest(t, e, event("A", adapter.KindUnstuck, at(2), "%1")) // a hook, while the watcher decided

	stale := event("A", adapter.KindStuck, at(3), "%1")
	stale.Summary = "decided from the stuck session"
	if err := e.TakeIf(ctx, stale, read); !errors.Is(err, fault.ErrMoved) {
		t.Fatalf("TakeIf from a session that moved on: %v, want fault.ErrMoved", err)
	}
	if s, _ := e.Session("A"); s.Stuck {
		t.Fatalf("the stale event was applied: %+v", s)
	}
	if got, _ := onDisk(t, path, "A"); got.Stuck {
		t.Fatalf("the stale event reached the disk: %+v", got)
	}
	now, _ := e.Session("A")
	if err := e.TakeIf(ctx, stale, now); err != nil {
		t.Fatalf("TakeIf from the session as it is: %v", err)
	}
	if s, _ := e.Session("A"); !s.Stuck || s.Summary != stale.Summary {
		t.Fatalf("after TakeIf from the session as it is: %+v", s)
	}
}
