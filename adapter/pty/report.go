package pty

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// reportTimeout bounds one report to the daemon.
const reportTimeout = 3 * time.Second

// reporter tells the daemon the session's state, in its own goroutine so that the child's
// output never waits for the daemon. It keeps only the latest state: while the daemon is
// down, states in between are dropped, and when it is back (or after the answer stream
// broke, as when the daemon restarted: QA-016) the reporter says start again, then the
// state that holds now, so a pending prompt is reported again.
type reporter struct {
	link       Link
	base       Report // the session's fields
	log        *slog.Logger
	onPromptID func(gen uint64, id string) // the daemon's id of the prompt of state gen

	mu        sync.Mutex
	want      Report // the state to tell; State "" before the first
	wantGen   uint64 // bumped with every state
	sentGen   uint64 // the state the daemon has
	epoch     uint64 // bumped by resync: what was sent before it may be lost
	needStart bool
	down      bool // the last attempt failed (for the log)
	wake      chan struct{}
	started   chan struct{} // closed when the daemon first took start
	exited    chan struct{} // closed when the daemon took exit
	once      sync.Once
}

func newReporter(link Link, base Report, log *slog.Logger, onPromptID func(uint64, string)) *reporter {
	return &reporter{link: link, base: base, log: log, onPromptID: onPromptID, needStart: true,
		wake: make(chan struct{}, 1), started: make(chan struct{}), exited: make(chan struct{})}
}

// set makes rep, state number gen, the state to tell.
func (r *reporter) set(gen uint64, rep Report) {
	r.mu.Lock()
	r.want, r.wantGen = rep, gen
	r.mu.Unlock()
	r.poke()
}

// resync says the daemon may have lost the session: start, then the state again.
func (r *reporter) resync() {
	r.mu.Lock()
	r.needStart, r.sentGen = true, 0
	r.epoch++
	r.mu.Unlock()
	r.poke()
}

func (r *reporter) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// run sends states until ctx is done.
func (r *reporter) run(ctx context.Context) {
	var b backoff
	for {
		r.mu.Lock()
		needStart := r.needStart
		rep, gen, epoch := r.want, r.wantGen, r.epoch
		dirty := rep.State != "" && gen != r.sentGen
		r.mu.Unlock()
		if !needStart && !dirty {
			select {
			case <-ctx.Done():
				return
			case <-r.wake:
			}
			continue
		}
		if needStart {
			rep = r.base
			rep.State, rep.At = StateStart, time.Now()
		}
		rctx, cancel := context.WithTimeout(ctx, reportTimeout)
		id, err := r.link.Report(rctx, rep)
		cancel()
		if ctx.Err() != nil {
			return
		}
		refused := errors.Is(err, ErrRefused)
		if err != nil && (needStart || !refused) {
			r.failed(err)
			if !sleep(ctx, b.next()) {
				return
			}
			continue
		}
		b.reset()
		r.mu.Lock()
		if r.down {
			r.down = false
			r.log.Info("the daemon is reachable again")
		}
		if needStart {
			r.needStart = r.needStart && epoch != r.epoch
			r.once.Do(func() { close(r.started) })
		} else if epoch == r.epoch {
			r.sentGen = gen
		}
		r.mu.Unlock()
		if refused {
			r.log.Warn("the daemon refused a report; going on without it", "state", rep.State, "err", err)
		}
		switch {
		case needStart:
		case rep.State == StateExit:
			close(r.exited)
			return
		case rep.State == StatePrompt && !refused:
			r.onPromptID(gen, id)
		}
	}
}

// reachable reports whether the daemon took the last report sent to it: it has taken a
// start, and nothing failed since.
func (r *reporter) reachable() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-r.started:
		return !r.down
	default:
		return false
	}
}

// failed notes that the daemon could not be reached: it gets start again once it is back.
func (r *reporter) failed(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.needStart = true
	if !r.down {
		r.down = true
		msg := "the daemon cannot be reached; the child runs on and the supervisor retries"
		if errors.Is(err, ErrRefused) {
			msg = "the daemon refused the session's start; the child runs on and the supervisor retries"
		}
		r.log.Warn(msg, "err", err)
	}
}
