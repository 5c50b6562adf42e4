package wire_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/trailboss/trailboss/daemon/wire"
)

// Every channel reads what became of an answer the same way, and the audit log keeps it
// in its own words.
func TestOutcomeOf(t *testing.T) {
	refusal := &wire.PromptRefusal{Reason: wire.RefusedExpired, Message: "this prompt expired"}
	for _, tc := range []struct {
		res                wire.Delivered
		err                error
		kind, reason, msg  string
		auditRes, auditWhy string
	}{
		{wire.Delivered{Delivered: true, Confirmed: true}, nil, wire.OutcomeConfirmed, "", "", "confirmed", ""},
		{wire.Delivered{Delivered: true}, nil, wire.OutcomeDelivered, "", "", "delivered", ""},
		{wire.Delivered{}, fmt.Errorf("claim: %w", refusal), wire.OutcomeRefused, wire.RefusedExpired, "this prompt expired", "refused", wire.RefusedExpired},
		{wire.Delivered{}, &wire.BadAnswerError{Message: "choice \"x\" is not offered"}, wire.OutcomeBadAnswer, "", "choice \"x\" is not offered", "refused", "choice \"x\" is not offered"},
		{wire.Delivered{}, fmt.Errorf("%w: look again", wire.ErrUnknownPrompt), wire.OutcomeUnknownPrompt, "", "no prompt has that id: look again", "refused", "unknown prompt"},
		{wire.Delivered{}, errors.New("disk full"), wire.OutcomeFailed, "", "disk full", "failed", "disk full"},
	} {
		o := wire.OutcomeOf(tc.res, tc.err)
		if o.Kind != tc.kind || o.Reason != tc.reason || o.Message != tc.msg {
			t.Errorf("OutcomeOf(%+v, %v) = %+v, want {%s %s %s}", tc.res, tc.err, o, tc.kind, tc.reason, tc.msg)
		}
		if o.Delivered() != (tc.err == nil) {
			t.Errorf("OutcomeOf(%+v, %v).Delivered() = %v", tc.res, tc.err, o.Delivered())
		}
		if res, why := o.Audit(); res != tc.auditRes || why != tc.auditWhy {
			t.Errorf("the audit log keeps %+v as %q, %q; want %q, %q", o, res, why, tc.auditRes, tc.auditWhy)
		}
	}
}
