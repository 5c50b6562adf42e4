package hot

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

// served is one request as the server read it.
type served struct {
	head string // request line and headers, CRLF-separated
	body string
}

// serve listens on a unix socket and answers each connection with answer, given what was
// asked; it returns the daemon's target and the requests it read.
func serve(t *testing.T, answer func(req served, conn net.Conn)) (Target, <-chan served) {
	t.Helper()
	dir, err := os.MkdirTemp("", "hot") // short: a socket's path is limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan served, 8)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				req, err := readRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				got <- req
				answer(req, conn)
			}()
		}
	}()
	return Target{Socket: sock, Token: "tok"}, got
}

func readRequest(br *bufio.Reader) (served, error) {
	var req served
	length := 0
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return req, err
		}
		if line == "\r\n" {
			break
		}
		req.head += line
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	body := make([]byte, length)
	_, err := io.ReadFull(br, body)
	req.body = string(body)
	return req, err
}

func reply(text string) func(served, net.Conn) {
	return func(_ served, conn net.Conn) { io.WriteString(conn, text) }
}

func TestPostSendsTheRequestAndReadsAContentLengthAnswer(t *testing.T) {
	target, got := serve(t, reply("HTTP/1.1 202 Accepted\r\nContent-Type: application/json\r\nContent-Length: 37\r\n\r\n"+
		`{"hold":{"prompt_id":"p1"},"x":"yz"}`+"\n"))
	c := &Client{target: target, timeout: 5 * time.Second}
	var ack wire.HookAck
	err := c.PostFor(context.Background(), "/v1/hooks/claude", []byte(`{"a":1}`),
		map[string]string{wire.HeaderPane: "%3", wire.HeaderCanHold: "1"}, &ack)
	if err != nil {
		t.Fatal(err)
	}
	if ack.Hold == nil || ack.Hold.PromptID != "p1" {
		t.Errorf("answer decoded as %+v, want the hold of p1", ack)
	}
	req := <-got
	want := "POST /v1/hooks/claude HTTP/1.1\r\nHost: trailboss\r\nUser-Agent: Go-http-client/1.1\r\nContent-Length: 7\r\n" +
		"Authorization: Bearer tok\r\nContent-Type: application/json\r\nX-Tmux-Pane: %3\r\nX-Trailboss-Can-Hold: 1\r\n" +
		"Connection: close\r\n"
	if req.head != want || req.body != `{"a":1}` {
		t.Errorf("the daemon read\n%q %q\nwant\n%q %q", req.head, req.body, want, `{"a":1}`)
	}
}

func TestGetReadsAChunkedAnswer(t *testing.T) {
	target, got := serve(t, reply("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"+
		"5;ext=1\r\n{\"stu\r\n"+"c\r\nck\":2,\"coo\"\r\n"+"a\r\n:1,\"x\":3}\n\r\n"+"0\r\nTrailer: t\r\n\r\n"))
	c := &Client{target: target, timeout: 5 * time.Second}
	st, err := c.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Stuck != 2 {
		t.Errorf("status %+v, want 2 stuck", st)
	}
	req := <-got
	if !strings.HasPrefix(req.head, "GET /v1/status HTTP/1.1\r\n") || strings.Contains(req.head, "Content-Length") {
		t.Errorf("the daemon read %q", req.head)
	}
}

// TestADaemonThatNeverAnswersIsBusyWithinTheTimeout: a daemon that takes the connection and
// never answers, on its socket or over TCP, is said to be busy or unreachable once the
// request's time is over — not down: it may well be running.
func TestADaemonThatNeverAnswersIsBusyWithinTheTimeout(t *testing.T) {
	hung := make(chan struct{})
	t.Cleanup(func() { close(hung) })
	onSocket, _ := serve(t, func(served, net.Conn) { <-hung })
	tcp, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tcp.Close() })
	go func() {
		for {
			conn, err := tcp.Accept()
			if err != nil {
				return
			}
			go func() { defer conn.Close(); <-hung }()
		}
	}()
	for _, target := range []Target{onSocket, {Addr: tcp.Addr().String(), Token: "tok"}} {
		c := &Client{target: target, timeout: 150 * time.Millisecond}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // should the client not give up
		start := time.Now()
		err := c.PostFor(ctx, "/v1/events", []byte(`{}`), nil, nil)
		took := time.Since(start)
		cancel()
		var busy *BusyError
		if !errors.As(err, &busy) || !errors.Is(busy.Cause, context.DeadlineExceeded) || errors.Is(err, ErrDown) {
			t.Fatalf("%s: err %v, want ErrBusy (and not ErrDown) for a deadline exceeded", target.Where(), err)
		}
		want := "the daemon at " + target.Where() + " did not answer within 150ms: it is busy or unreachable — try again"
		if !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: message %q, want it to start %q", target.Where(), err, want)
		}
		if took < 150*time.Millisecond || took > 2*time.Second {
			t.Errorf("%s: gave up after %v, want just over 150ms", target.Where(), took)
		}
	}
}

// TestASocketWhoseQueueIsFullIsBusy: a daemon that accepts nothing more (its queue of
// connections full) is busy, not down; a socket nothing listens on is down.
func TestASocketWhoseQueueIsFullIsBusy(t *testing.T) {
	dir, err := os.MkdirTemp("", "hot")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil { // room for one waiting connection
		t.Fatal(err)
	}
	c := &Client{target: Target{Socket: sock, Token: "tok"}, timeout: 300 * time.Millisecond}
	var errs []error
	for range 3 {
		_, err := c.Status(context.Background())
		errs = append(errs, err)
	}
	if last := errs[len(errs)-1]; !errors.Is(last, ErrBusy) || errors.Is(last, ErrDown) {
		t.Errorf("with the queue full: %v, want ErrBusy", errs)
	}
	syscall.Close(fd)
	os.Remove(sock)
	if err := syscall.Mknod(sock, syscall.S_IFSOCK|0o600, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Status(context.Background()); !errors.Is(err, ErrDown) {
		t.Errorf("a socket nothing listens on: %v, want ErrDown", err)
	}
}

func TestACancelledContextEndsTheWaitAtOnce(t *testing.T) {
	hung := make(chan struct{})
	t.Cleanup(func() { close(hung) })
	target, _ := serve(t, func(served, net.Conn) { <-hung })
	c := &Client{target: target, timeout: time.Minute}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := c.Status(ctx)
	var down *DownError
	if !errors.As(err, &down) || !errors.Is(down.Cause, context.Canceled) {
		t.Fatalf("err %v, want ErrDown for a cancelled context", err)
	}
}

func TestAnAnswerCutShortIsAnError(t *testing.T) {
	for name, text := range map[string]string{
		"content-length": "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"stuck\":",
		"chunked":        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n20\r\n{\"stuck\":",
		"chunked-no-end": "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			target, _ := serve(t, reply(text))
			c := &Client{target: target, timeout: 5 * time.Second}
			_, err := c.Status(context.Background())
			if err == nil || errors.Is(err, ErrDown) || !strings.Contains(err.Error(), "GET /v1/status: ") {
				t.Errorf("err %v, want the body's error", err)
			}
		})
	}
	t.Run("headers", func(t *testing.T) {
		target, _ := serve(t, reply("HTTP/1.1 200 OK\r\nContent-Type: appl"))
		c := &Client{target: target, timeout: 5 * time.Second}
		if _, err := c.Status(context.Background()); !errors.Is(err, ErrDown) {
			t.Errorf("err %v, want ErrDown: no answer came", err)
		}
	})
}

func TestTheDaemonsRefusalCarriesItsMessage(t *testing.T) {
	answer := func(code string) string {
		body := `{"error":"bad payload"}` + "\n"
		return "HTTP/1.1 " + code + "\r\nContent-Type: application/json\r\nContent-Length: " +
			strconv.Itoa(len(body)) + "\r\n\r\n" + body
	}
	target, _ := serve(t, reply(answer("400 Bad Request")))
	c := &Client{target: target, timeout: 5 * time.Second}
	err := c.PostFor(context.Background(), "/v1/events", []byte(`{}`), nil, nil)
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Status != "400 Bad Request" || refused.Message != "bad payload" {
		t.Errorf("err %v, want the daemon's refusal", err)
	}

	target, _ = serve(t, reply(answer("503 Service Unavailable")))
	c = &Client{target: target, timeout: 5 * time.Second}
	err = c.PostFor(context.Background(), "/v1/events", []byte(`{}`), nil, nil)
	if err == nil || err.Error() != "daemon could not take the event: 503 Service Unavailable: bad payload" {
		t.Errorf("err %v", err)
	}

	target, _ = serve(t, reply(answer("404 Not Found")))
	c = &Client{target: target, timeout: 5 * time.Second}
	_, _, err = c.Next(context.Background(), "/tmp/s", "%1")
	if err == nil || err.Error() != "GET /v1/next: 404 Not Found: bad payload" {
		t.Errorf("err %v", err)
	}
}

func TestAnotherServersAnswerIsForeign(t *testing.T) {
	target, _ := serve(t, reply("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 2\r\n\r\nhi"))
	c := &Client{target: target, timeout: 5 * time.Second}
	if _, err := c.Status(context.Background()); !errors.Is(err, ErrForeign) {
		t.Errorf("err %v, want ErrForeign", err)
	}
}

func TestAHeaderThatWouldBreakTheRequestIsNotSent(t *testing.T) {
	target, got := serve(t, reply("HTTP/1.1 204 No Content\r\n\r\n"))
	c := &Client{target: target, timeout: 5 * time.Second}
	err := c.PostFor(context.Background(), "/v1/events", []byte(`{}`), map[string]string{wire.HeaderTmux: "a\r\nX-Evil: 1"}, nil)
	if !errors.Is(err, ErrDown) {
		t.Errorf("err %v, want it failed before it was sent", err)
	}
	select {
	case req := <-got:
		t.Errorf("the daemon read %q", req.head)
	case <-time.After(50 * time.Millisecond):
	}
}
