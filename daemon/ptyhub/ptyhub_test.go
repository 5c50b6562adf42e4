package ptyhub

import (
	"context"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

// A supervisor takes the answer and says it wrote it: Send reports delivered.
func TestSendWaitsForTheSupervisorsWord(t *testing.T) {
	var h PTYHub
	out, detach := h.Attach("s1")
	defer detach()
	go func() {
		a := <-out
		if a.PromptID != "p1" || a.Data != "y\r" {
			t.Errorf("the supervisor got %+v", a)
		}
		h.Written(wire.PTYWritten{SessionID: "s1", AnswerID: a.AnswerID, OK: true})
	}()
	if ok, why := h.Send(context.Background(), "s1", "p1", "y\r", 5*time.Second); !ok {
		t.Fatalf("not delivered: %s", why)
	}
}

// The supervisor's refusal (the screen moved on, say) reaches whoever answered, word for word.
func TestSendPassesOnASupervisorsRefusal(t *testing.T) {
	var h PTYHub
	out, detach := h.Attach("s1")
	defer detach()
	go func() {
		a := <-out
		h.Written(wire.PTYWritten{SessionID: "s1", AnswerID: a.AnswerID, OK: false, Reason: "the prompt is no longer on screen"})
	}()
	if ok, why := h.Send(context.Background(), "s1", "p1", "y\r", 5*time.Second); ok || why != "the prompt is no longer on screen" {
		t.Fatalf("Send = %v, %q; want the supervisor's refusal", ok, why)
	}
}

// No supervisor, or one that never confirms: nothing is reported written.
func TestSendWithoutAWorkingSupervisorIsNotDelivered(t *testing.T) {
	var h PTYHub
	if ok, why := h.Send(context.Background(), "s1", "p1", "y\r", time.Second); ok || why != "its supervisor is not connected" {
		t.Fatalf("no supervisor: Send = %v, %q", ok, why)
	}
	_, detach := h.Attach("s1")
	defer detach()
	// The stream is attached but nobody reads it: the buffered answer is taken, never confirmed.
	if ok, why := h.Send(context.Background(), "s1", "p1", "y\r", 50*time.Millisecond); ok || why != "its supervisor did not confirm the write in time" {
		t.Fatalf("silent supervisor: Send = %v, %q", ok, why)
	}
}

// A newer stream for the same session wins; the old one's detach does not remove it, and a
// confirmation for an answer the hub never sent is not taken.
func TestTheLatestStreamWins(t *testing.T) {
	var h PTYHub
	_, detachOld := h.Attach("s1")
	_, detachNew := h.Attach("s1")
	detachOld()
	if !h.Attached("s1") {
		t.Fatal("the old stream's detach removed the new one")
	}
	if h.Written(wire.PTYWritten{SessionID: "s1", AnswerID: "a-forged", OK: true}) {
		t.Error("a confirmation of an answer never sent was taken")
	}
	detachNew()
	if h.Attached("s1") {
		t.Fatal("still attached after the last detach")
	}
}
