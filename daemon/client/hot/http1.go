package hot

// A small, strict HTTP/1.1 client: one request per connection (Connection: close), a body
// by Content-Length, chunked transfer-encoding or the connection's end. It is all the hot
// verbs need of HTTP, and it keeps net/http, crypto/tls and crypto/x509 out of
// trailboss-hot: their package init was half of its start.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// userAgent is what net/http says, so that a request reads the same from either client.
const userAgent = "Go-http-client/1.1"

// maxHeaderBytes bounds the status line and headers of an answer.
const maxHeaderBytes = 64 << 10

// ErrCutShort means the connection ended inside an answer: the daemon began to answer and
// did not finish.
var ErrCutShort = errors.New("the daemon's answer was cut short")

// response is one answer: its status, the headers this client reads, and its body up to
// the limit the caller gave. bodyErr says why the body is short, when it is.
type response struct {
	code        int
	status      string // "200 OK"
	contentType string
	body        []byte
	bodyErr     error
}

// request is one request to send.
type request struct {
	method  string
	target  string            // the path and query
	headers map[string]string // besides Host, User-Agent, Content-Length and Connection
	body    []byte            // nil for none
}

// roundTrip sends req to t and reads the answer's body up to limit bytes, all within
// timeout (none when 0) and ctx. An error means no answer came (nothing, or not HTTP); it
// is a *url.Error, as net/http's are, and wraps context.DeadlineExceeded when the time ran
// out.
func roundTrip(ctx context.Context, t Target, timeout time.Duration, req request, limit int64) (*response, error) {
	fail := func(err error) error {
		op := req.method[:1] + strings.ToLower(req.method[1:])
		return &url.Error{Op: op, URL: "http://" + t.Host() + req.target, Err: err}
	}
	head, err := writeHead(t.Host(), req)
	if err != nil {
		return nil, fail(err)
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	conn, err := t.Connect(ctx)
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		return nil, fail(err)
	}
	defer conn.Close()
	// The end of ctx (its deadline, or a cancel) ends a read or write that waits. The
	// connection gets no deadline of its own, which could pass before ctx says it is done.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	resp, err := exchange(conn, head, req.body, req.method, limit)
	if ctx.Err() != nil {
		// What the connection said (i/o timeout, or a deadline in the past) is the
		// context's doing: say that, as net/http does.
		if err != nil {
			return nil, fail(ctx.Err())
		}
		if resp.bodyErr != nil {
			resp.bodyErr = ctx.Err()
		}
	}
	if err != nil {
		return nil, fail(err)
	}
	return resp, nil
}

// writeHead returns the request line and headers of req to host, or an error when a header
// would break them (a control character in a name or value).
func writeHead(host string, req request) ([]byte, error) {
	var b strings.Builder
	b.WriteString(req.method + " " + req.target + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: " + userAgent + "\r\n")
	switch {
	case req.body != nil:
		b.WriteString("Content-Length: " + strconv.Itoa(len(req.body)) + "\r\n")
	case req.method == "POST" || req.method == "PUT" || req.method == "PATCH":
		b.WriteString("Content-Length: 0\r\n")
	}
	keys := make([]string, 0, len(req.headers))
	for k := range req.headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := req.headers[k]
		if !validHeaderName(k) {
			return nil, fmt.Errorf("invalid header field name %q", k)
		}
		if !ValidHeaderValue(v) {
			return nil, fmt.Errorf("invalid header field value for %q", k)
		}
		b.WriteString(k + ": " + v + "\r\n")
	}
	b.WriteString("Connection: close\r\n\r\n")
	return []byte(b.String()), nil
}

func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// ValidHeaderValue reports whether v can be sent as a header's value: no control
// character but a tab, which would break the request open (a token file a hand edited).
func ValidHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// exchange writes head and body to conn and reads the answer to method.
func exchange(conn *os.File, head, body []byte, method string, limit int64) (*response, error) {
	if _, err := conn.Write(append(head, body...)); err != nil {
		return nil, err
	}
	br := bufio.NewReader(conn)
	for {
		resp, chunked, length, err := readHead(br)
		if err != nil {
			return nil, err
		}
		if resp.code >= 100 && resp.code < 200 && resp.code != 101 {
			continue // an interim answer (100 Continue): the real one follows
		}
		if method == "HEAD" || resp.code == 204 || resp.code == 304 || resp.code < 200 {
			return resp, nil
		}
		resp.body, resp.bodyErr = readBody(br, chunked, length, limit)
		return resp, nil
	}
}

// readHead reads an answer's status line and headers: its code, whether its body is chunked,
// and its Content-Length (-1 when it has none).
func readHead(br *bufio.Reader) (resp *response, chunked bool, length int64, err error) {
	budget := maxHeaderBytes
	line, err := readLine(br, &budget)
	if err != nil {
		return nil, false, 0, err
	}
	proto, status, ok := strings.Cut(line, " ")
	if !ok || (proto != "HTTP/1.1" && proto != "HTTP/1.0") {
		return nil, false, 0, fmt.Errorf("malformed HTTP response %q", line)
	}
	status = strings.TrimLeft(status, " ")
	code, _, _ := strings.Cut(status, " ")
	resp = &response{status: status}
	if len(code) != 3 {
		return nil, false, 0, fmt.Errorf("malformed HTTP status code %q", code)
	}
	if resp.code, err = strconv.Atoi(code); err != nil || resp.code < 100 {
		return nil, false, 0, fmt.Errorf("malformed HTTP status code %q", code)
	}
	length = -1
	for {
		line, err := readLine(br, &budget)
		if err != nil {
			return nil, false, 0, err
		}
		if line == "" {
			return resp, chunked, length, nil
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || !validHeaderName(k) {
			return nil, false, 0, fmt.Errorf("malformed MIME header line: %s", line)
		}
		v = strings.Trim(v, " \t")
		switch strings.ToLower(k) {
		case "content-type":
			resp.contentType = v
		case "content-length":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 || length >= 0 && n != length {
				return nil, false, 0, fmt.Errorf("bad Content-Length %q", v)
			}
			length = n
		case "transfer-encoding":
			if !strings.EqualFold(v, "chunked") {
				return nil, false, 0, fmt.Errorf("unsupported transfer encoding: %q", v)
			}
			chunked = true
		}
	}
}

// readLine reads one line ending in CRLF (or LF) and returns it without its end, taking its
// length from budget. A connection that ends first is ErrCutShort.
func readLine(br *bufio.Reader, budget *int) (string, error) {
	var line []byte
	for {
		part, more, err := br.ReadLine()
		if err != nil {
			if err == io.EOF {
				return "", ErrCutShort
			}
			return "", err
		}
		if *budget -= len(part) + 2; *budget < 0 {
			return "", errors.New("the daemon's answer has headers too long")
		}
		line = append(line, part...)
		if !more {
			return string(line), nil
		}
	}
}

// readBody reads at most limit bytes of a body: chunked, or of length (when not -1), or up
// to the connection's end. It returns what it read and, when the body ended early, why.
func readBody(br *bufio.Reader, chunked bool, length, limit int64) ([]byte, error) {
	var r io.Reader = br
	switch {
	case chunked:
		r = &chunkedReader{br: br}
	case length >= 0:
		r = &exactReader{r: br, left: length}
	}
	return io.ReadAll(io.LimitReader(r, limit))
}

// exactReader reads a body of a known length: ending before it is ErrCutShort.
type exactReader struct {
	r    io.Reader
	left int64
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > e.left {
		p = p[:e.left]
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if err == io.EOF && e.left > 0 {
		err = ErrCutShort
	}
	return n, err
}

// chunkedReader decodes a chunked body (RFC 9112 §7.1): a chunk's size in hex (its
// extensions ignored), its bytes, CRLF; a last chunk of size 0, trailers, an empty line.
type chunkedReader struct {
	br   *bufio.Reader
	left int64 // of the current chunk
	done bool
	err  error
}

func (c *chunkedReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.done {
		return 0, io.EOF
	}
	if c.left == 0 {
		if err := c.next(); err != nil {
			c.err = err
			return 0, err
		}
		if c.done {
			return 0, io.EOF
		}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.br.Read(p)
	c.left -= int64(n)
	if err == io.EOF {
		err = ErrCutShort
	}
	if err == nil && c.left == 0 {
		err = c.crlf()
	}
	c.err = err
	return n, err
}

// next reads a chunk's size line; at the last chunk, the trailers too.
func (c *chunkedReader) next() error {
	budget := maxHeaderBytes
	line, err := readLine(c.br, &budget)
	if err != nil {
		return err
	}
	size, _, _ := strings.Cut(line, ";")
	n, err := strconv.ParseInt(strings.TrimRight(size, " \t"), 16, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("malformed chunk size %q", line)
	}
	if n > 0 {
		c.left = n
		return nil
	}
	for { // trailers, up to the empty line that ends the body
		line, err := readLine(c.br, &budget)
		if err != nil {
			return err
		}
		if line == "" {
			c.done = true
			return nil
		}
	}
}

// crlf reads the line end after a chunk's bytes.
func (c *chunkedReader) crlf() error {
	budget := 2
	line, err := readLine(c.br, &budget)
	if err != nil {
		return err
	}
	if line != "" {
		return errors.New("malformed chunked encoding: no CRLF after a chunk")
	}
	return nil
}
