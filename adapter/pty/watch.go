package pty

import "time"

// phase is where the session stands as far as the daemon was told.
type phase int

const (
	phaseIdle     phase = iota // no prompt reported, or output moved on after one
	phasePrompt                // a prompt was reported and is not answered
	phaseAnswered              // an answer was written to the reported prompt
)

// change is one state to report: a prompt, or working. Gen numbers it.
type change struct {
	gen    uint64
	state  State
	prompt *Prompt
	at     time.Time
}

// watcher is the stall watchdog's state: it decides, from when output came and what the
// buffer's tail shows, when the session waits on a prompt, when that prompt changed, and
// when output moved on. Its methods take the time and the tail as values and do no I/O;
// the supervisor calls them under its lock.
type watcher struct {
	settle, stall, suppress time.Duration

	phase    phase
	prompt   *Prompt // the prompt reported last (phasePrompt, phaseAnswered)
	gen      uint64  // the number of the last state
	promptID string  // the daemon's id of prompt, once it answered the report

	lastOut  time.Time // when output last came (echoes of answers too)
	outCount uint64    // outputs that were more than an echo
	// moved is when output first came after the last report or answer; zero if none.
	moved time.Time
	// reportedAt is outCount when the prompt was reported.
	reportedAt uint64
	// suppressUntil: no prompt is read before this, after an answer was written (QA-019).
	suppressUntil time.Time
	// lastExcerpt is the last non-blank screen seen at a quiet moment (QA-003).
	lastExcerpt string
	// waitingSince is the first of the looks in a row, since output last came, that found
	// the child waiting on its terminal; zero if the last look did not.
	waitingSince time.Time
}

func newWatcher(settle, stall, suppress time.Duration, now time.Time) *watcher {
	return &watcher{settle: settle, stall: stall, suppress: suppress, lastOut: now}
}

// poll is how often a quiet child with no prompt that does not wait on its terminal is
// looked at again after the stall time: once a settle time, since each look scans /proc. A
// child that sleeps or computes and then reads is stuck within a settle time and a confirm
// of its read.
func (w *watcher) poll() time.Duration { return w.settle }

// confirm is how soon a child first seen waiting after the stall time is looked at again
// before it is reported.
func (w *watcher) confirm() time.Duration { return max(w.settle/4, time.Millisecond) }

// output notes output at now; echo says it was only the echo of an answer.
func (w *watcher) output(now time.Time, echo bool) {
	w.lastOut = now
	w.waitingSince = time.Time{}
	if echo {
		return
	}
	w.outCount++
	if w.moved.IsZero() {
		w.moved = now
	}
}

// step decides what the session shows at now. tail returns the buffer's bytes; waiting
// says the child waits on its terminal: a process in its foreground is blocked reading it
// and none computes (it may always be true where that cannot be told). Quiet output alone
// is not waiting: a child that sleeps or computes with no prompt on screen is not stuck.
// hidden says the child's terminal reads a line without showing it (echoMode.hidesLine):
// a prompt asked so is Secret, whatever its words. step returns the states to report, in
// order, and how long until it should be asked again (0: not before the next output).
func (w *watcher) step(now time.Time, tail func() []byte, waiting, hidden bool) ([]change, time.Duration) {
	if now.Before(w.suppressUntil) {
		return nil, w.suppressUntil.Sub(now)
	}
	moved := !w.moved.IsZero()
	if quiet := now.Sub(w.lastOut); quiet < w.settle {
		// Output flows. A prompt that output keeps flowing past for the settle time has
		// been left behind, even if the output has not paused yet.
		if w.phase != phaseIdle && moved && now.Sub(w.moved) >= w.settle {
			return []change{w.set(now, StateWorking, nil)}, w.settle - quiet
		}
		return nil, w.settle - quiet
	}
	if w.phase == phaseAnswered && !moved {
		return nil, 0 // the child took the answer and has said nothing since
	}
	d := detect(tail())
	if d.prompt != nil && hidden {
		d.prompt.Secret = true
	}
	if d.excerpt != "" {
		w.lastExcerpt = d.excerpt
	}
	switch {
	case d.prompt != nil:
		if w.phase == phasePrompt && samePrompt(d.prompt, w.prompt) {
			w.moved = time.Time{} // a redraw of the prompt on screen
			return nil, 0
		}
		return []change{w.set(now, StatePrompt, d.prompt)}, 0
	case d.busy:
		if w.phase != phaseIdle {
			return []change{w.set(now, StateWorking, nil)}, 0
		}
		return nil, 0
	}
	var out []change
	if w.phase != phaseIdle && moved {
		out = append(out, w.set(now, StateWorking, nil))
	}
	if w.phase == phasePrompt {
		return out, 0 // the made-up prompt below stands until output moves on
	}
	stallAt := w.lastOut.Add(w.stall)
	if !waiting {
		w.waitingSince = time.Time{}
		return out, max(stallAt.Sub(now), w.poll()) // look again until it reads
	}
	if w.waitingSince.IsZero() {
		w.waitingSince = now
	}
	if now.Before(stallAt) {
		return out, stallAt.Sub(now)
	}
	if w.waitingSince.Equal(now) {
		// Seen waiting once: a child that printed its prompt and read at this moment has
		// its prompt still on the way. The next look tells.
		return out, w.confirm()
	}
	p := &Prompt{Kind: KindFreeText, Question: QuestionNoPrompt, Excerpt: w.lastExcerpt, LowConfidence: true, Secret: hidden}
	return append(out, w.set(now, StatePrompt, p)), 0
}

// set makes st (with p for StatePrompt) the session's state and returns it to report.
func (w *watcher) set(now time.Time, st State, p *Prompt) change {
	w.gen++
	w.moved = time.Time{}
	w.promptID = ""
	w.prompt = p
	w.phase = phaseIdle
	if st == StatePrompt {
		w.phase, w.reportedAt = phasePrompt, w.outCount
	}
	return change{gen: w.gen, state: st, prompt: p, at: now}
}

// setPromptID records the daemon's id for the prompt of state gen, unless the session has
// moved on since.
func (w *watcher) setPromptID(gen uint64, id string) {
	if gen == w.gen && w.phase == phasePrompt {
		w.promptID = id
	}
}

// awaitingID reports whether a prompt was reported and the daemon's id for it has not come
// back yet.
func (w *watcher) awaitingID() bool { return w.phase == phasePrompt && w.promptID == "" }

// mayWrite reports whether an answer to prompt id may be written now: it is the prompt
// reported last, it is not answered, and it still shows (no output came since it was
// reported, or what came still reads as the same prompt).
func (w *watcher) mayWrite(id string, tail func() []byte) bool {
	if w.phase != phasePrompt || id == "" || id != w.promptID {
		return false
	}
	return w.outCount == w.reportedAt || samePrompt(detect(tail()).prompt, w.prompt)
}

// wrote notes that an answer was written at now, and returns the state number that says
// so: nothing is pending any more, and no prompt is read for the suppress time.
func (w *watcher) wrote(now time.Time) uint64 {
	w.gen++
	w.phase = phaseAnswered
	w.promptID = ""
	w.moved = time.Time{}
	w.suppressUntil = now.Add(w.suppress)
	return w.gen
}

// exited notes that the child is gone and returns the state number of the exit: no answer
// is written any more.
func (w *watcher) exited() uint64 {
	w.gen++
	w.phase, w.prompt, w.promptID = phaseIdle, nil, ""
	return w.gen
}
