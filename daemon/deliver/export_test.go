package deliver

import (
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
)

// Fits is fits, for the tests of package deliver_test.
func (d *Deliverer) Fits(rec queue.Prompt, a wire.Answer) error { return d.fits(rec, a) }

// MaxAwaitPrompt is maxAwaitPrompt, for the tests of package deliver_test.
const MaxAwaitPrompt = maxAwaitPrompt
