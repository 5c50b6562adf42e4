package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/statedir"
)

// newClient returns a client for srv (or addr when srv is nil) with a fresh token.
func newClient(t *testing.T, addr string) (*Client, string) {
	t.Helper()
	dir := t.TempDir()
	tok, err := statedir.EnsureToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(addr, dir, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return c, tok
}

func addrOf(srv *httptest.Server) string { return strings.TrimPrefix(srv.URL, "http://") }

// freeAddr returns a loopback address on which nothing listens.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestErrDownWhenNothingListens(t *testing.T) {
	c, _ := newClient(t, freeAddr(t))
	ctx := context.Background()
	if _, err := c.Status(ctx); !errors.Is(err, ErrDown) {
		t.Fatalf("Status: %v, want ErrDown", err)
	}
	if _, found, err := c.Next(ctx, "", ""); !errors.Is(err, ErrDown) || found {
		t.Fatalf("Next: found=%v %v, want ErrDown", found, err)
	}
	if _, err := c.Queue(ctx); !errors.Is(err, ErrDown) {
		t.Fatalf("Queue: %v, want ErrDown", err)
	}
}

func TestNewWithoutATokenIsErrDown(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil { // private, as the daemon makes it: clients refuse an open one
		t.Fatal(err)
	}
	_, err := New("127.0.0.1:1", dir, time.Second)
	var down *DownError
	if !errors.Is(err, ErrDown) || !errors.As(err, &down) || !strings.Contains(down.Cause.Error(), "no token") {
		t.Fatalf("New without a token: %v, want ErrDown whose cause says there is no token", err)
	}
	if err.Error() != ErrDown.Error() {
		t.Fatalf("New without a token says %q, want the one daemon-down message", err)
	}
}

func TestErrorsCarryTheDaemonsMessage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/status" {
			w.WriteHeader(http.StatusBadGateway)
			w.Write([]byte("plain text trouble\n"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":"pane -t is not a tmux pane id (% and digits)"}`))
	}))
	defer srv.Close()
	c, _ := newClient(t, addrOf(srv))

	_, found, err := c.Next(context.Background(), "", "-t")
	if err == nil || found {
		t.Fatalf("Next on a 400: found=%v err=%v, want an error", found, err)
	}
	if errors.Is(err, ErrDown) {
		t.Fatalf("a daemon that answered is reported down: %v", err)
	}
	for _, want := range []string{"pane -t is not a tmux pane id", "400", "/v1/next"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if strings.Contains(err.Error(), `{"error"`) {
		t.Errorf("error %q shows the raw JSON, not the daemon's message", err)
	}
	// An answer that is not JSON is not the daemon's: another program has the port.
	if _, err := c.Status(context.Background()); !errors.Is(err, ErrForeign) || strings.Contains(err.Error(), "plain text trouble") {
		t.Fatalf("Status on a non-JSON 502: %v, want ErrForeign without the other program's body", err)
	}
}

func TestNextAndSkip(t *testing.T) {
	var mu sync.Mutex // the handler runs on the server's goroutines
	var reqs []*http.Request
	var reply func(w http.ResponseWriter)
	setReply := func(f func(w http.ResponseWriter)) { mu.Lock(); reply = f; mu.Unlock() }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reqs = append(reqs, r.Clone(context.Background()))
		f := reply
		mu.Unlock()
		f(w)
	}))
	defer srv.Close()
	c, tok := newClient(t, addrOf(srv))
	ctx := context.Background()

	setReply(func(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) })
	if it, found, err := c.Next(ctx, "/tmp/s", "%3"); err != nil || found || it.SessionID != "" {
		t.Fatalf("Next on 204: %+v found=%v err=%v, want nothing", it, found, err)
	}
	if it, found, err := c.Skip(ctx, "/tmp/s", "%3"); err != nil || found || it.SessionID != "" {
		t.Fatalf("Skip on 204: %+v found=%v err=%v, want nothing", it, found, err)
	}
	requests := func() []*http.Request { mu.Lock(); defer mu.Unlock(); return append([]*http.Request(nil), reqs...) }
	got := requests()
	for i, r := range got {
		if r.Header.Get("Authorization") != "Bearer "+tok {
			t.Errorf("request %d: Authorization %q", i, r.Header.Get("Authorization"))
		}
		if q := r.URL.Query(); q.Get("socket") != "/tmp/s" || q.Get("pane") != "%3" {
			t.Errorf("request %d: query %q, want socket and pane", i, r.URL.RawQuery)
		}
		if r.Header.Get("Origin") != "" {
			t.Errorf("request %d carries an Origin header, which the daemon refuses", i)
		}
	}
	if got[0].Method != http.MethodGet || got[0].URL.Path != "/v1/next" ||
		got[1].Method != http.MethodPost || got[1].URL.Path != "/v1/skip" {
		t.Fatalf("requests %s %s, %s %s", got[0].Method, got[0].URL.Path, got[1].Method, got[1].URL.Path)
	}

	setReply(func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"position":1,"session_id":"A","pane":"%5","tmux_socket":"/tmp/s","reason":"permission",` +
			`"since":"2026-11-21T09:00:01Z","ready":true,"cooldown_until":null,"new_field":1}`))
	})
	it, found, err := c.Skip(ctx, "", "")
	if err != nil || !found || it.SessionID != "A" || it.Pane != "%5" || it.Reason != "permission" ||
		!it.Since.Equal(time.Date(2026, 11, 21, 9, 0, 1, 0, time.UTC)) || !it.Ready {
		t.Fatalf("Skip on 200: %+v found=%v err=%v", it, found, err)
	}
	if got = requests(); got[len(got)-1].URL.RawQuery != "" {
		t.Fatalf("no socket and pane sent a query %q", got[len(got)-1].URL.RawQuery)
	}

	setReply(func(w http.ResponseWriter) { w.Write([]byte(`not json`)) })
	if _, found, err := c.Next(ctx, "", ""); err == nil || found {
		t.Fatalf("Next on an undecodable 200: found=%v err=%v, want an error", found, err)
	}
}

// TestTimeoutIsErrBusy: a daemon that takes the request and never answers may be running:
// busy or unreachable, not down.
func TestTimeoutIsErrBusy(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
	}))
	defer srv.Close()
	defer close(release)
	dir := t.TempDir()
	if _, err := statedir.EnsureToken(dir); err != nil {
		t.Fatal(err)
	}
	c, err := New(addrOf(srv), dir, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.Status(context.Background())
	if !errors.Is(err, ErrBusy) || errors.Is(err, ErrDown) ||
		!strings.HasPrefix(err.Error(), "the daemon at "+addrOf(srv)+" did not answer within 100ms: it is busy or unreachable") {
		t.Fatalf("a daemon that never answers: %v, want ErrBusy", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("gave up after %v, want about the 100ms timeout", d)
	}
}
