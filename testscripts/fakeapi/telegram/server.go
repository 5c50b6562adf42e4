// Package telegram is a fake Telegram Bot API on a loopback port, for the relay's
// tests, the Prompt Lab and the benchmarks: getMe, long-polling getUpdates with offset,
// sendMessage, editMessageText, editMessageReplyMarkup and answerCallbackQuery, with
// switches for an outage (503 for every call) and a 409 Conflict, and a phone's side:
// taps, texts and replies from any user in any chat, and redelivery of an update.
//
// It keeps its own JSON shapes rather than the relay's, so that a wrong field name on
// either side shows up as a failing test. It checks what Telegram checks and the relay
// could get wrong: HTML that does not parse, callback_data over 64 bytes, an edit to a
// message that does not exist or that changes nothing, a callback answered twice.
package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Button is one inline button of a message.
type Button struct {
	Text string `json:"text"`
	Data string `json:"callback_data"`
}

// Message is a message the bot sent, as the chat shows it now.
type Message struct {
	ID       int64
	ChatID   int64
	HTML     string // as sent or last edited
	Text     string // what the phone shows: the HTML's text
	Buttons  [][]Button
	Sent     [][]Button // the buttons it was sent with
	ReplyTo  int64
	SentAt   time.Time
	Edits    int
	EditedAt time.Time
	History  []string    // the texts it had before its edits
	EditAts  []time.Time // when each edit was made
}

// Keys returns the callback data of every button, row by row.
func (m Message) Keys() []string {
	var out []string
	for _, row := range m.Buttons {
		for _, b := range row {
			out = append(out, b.Data)
		}
	}
	return out
}

// SentKeys returns the callback data of the buttons it was sent with: a stale button a
// phone may still show after the message lost them.
func (m Message) SentKeys() []string {
	var out []string
	for _, row := range m.Sent {
		for _, b := range row {
			out = append(out, b.Data)
		}
	}
	return out
}

// CallbackAnswer is the bot's answerCallbackQuery for a tap.
type CallbackAnswer struct {
	ID   string
	Text string
	At   time.Time
}

// Call is one request the bot made.
type Call struct {
	Method string
	Status int
	At     time.Time
}

// BotUser is the bot that getMe returns.
var BotUser = map[string]any{"id": 7000001, "is_bot": true, "first_name": "Trail Boss", "username": "trailboss_test_bot"}

type queued struct {
	id   int64
	raw  json.RawMessage
	copy bool // a redelivery: it goes once, whatever the offset
}

// Server is the fake Bot API.
type Server struct {
	URL   string // http://127.0.0.1:PORT, the relay's api_url
	Token string

	srv *http.Server

	mu        sync.Mutex
	changed   chan struct{}             // closed and replaced at every change
	queue     []queued                  // updates not yet confirmed, and redelivered copies
	sent      map[int64]json.RawMessage // every update ever queued, for Redeliver
	nextID    int64                     // the next update_id
	messages  map[int64]*Message
	nextMsg   int64
	callbacks map[string]bool // callback query id → answered
	answers   []CallbackAnswer
	calls     []Call
	outage    bool
	conflict  bool
	refuse    string        // sendMessage and editMessageText of a text holding it answer 400
	polling   chan struct{} // closed to end the getUpdates held now (a newer one came)
}

// Start starts a fake Bot API for token on 127.0.0.1.
func Start(token string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fake Bot API: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), Token: token, changed: make(chan struct{}),
		nextID: 100, nextMsg: 1, sent: map[int64]json.RawMessage{}, messages: map[int64]*Message{}, callbacks: map[string]bool{}}
	s.srv = &http.Server{Handler: s, ErrorLog: log.New(io.Discard, "", 0), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server, ending any poll it holds.
func (s *Server) Close() {
	s.mu.Lock()
	s.changeLocked()
	s.mu.Unlock()
	_ = s.srv.Close()
}

// changeLocked wakes everyone waiting for a change; s.mu must be held.
func (s *Server) changeLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Changed returns a channel that is closed at the next change: a request, a tap, a switch.
func (s *Server) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// Wait waits until cond holds, checking it at every change, or until timeout.
func (s *Server) Wait(timeout time.Duration, cond func() bool) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		ch := s.Changed()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-t.C:
			if cond() {
				return nil
			}
			return errors.New("timed out")
		}
	}
}

// SetOutage makes every call fail with 503 (an HTML page, as a proxy gives) while on.
func (s *Server) SetOutage(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outage = on
	s.changeLocked()
}

// Refuse makes every sendMessage and editMessageText whose text holds substr answer 400,
// as Telegram does for a message it will not take; "" ends it.
func (s *Server) Refuse(substr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = substr
	s.changeLocked()
}

// SetConflict makes getUpdates answer 409 Conflict while on, as Telegram does when
// another program polls the same token.
func (s *Server) SetConflict(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conflict = on
	s.changeLocked()
}

// ---- the phone's side ---------------------------------------------------------------------

func (s *Server) pushLocked(kind string, v map[string]any) int64 {
	id := s.nextID
	s.nextID++
	body := map[string]any{"update_id": id, kind: v}
	b, _ := json.Marshal(body)
	s.queue = append(s.queue, queued{id: id, raw: b})
	s.sent[id] = b
	s.changeLocked()
	return id
}

func user(id int64) map[string]any {
	return map[string]any{"id": id, "is_bot": false, "first_name": "User " + strconv.FormatInt(id, 10)}
}

// Tap presses the button with data under message msg in chat, as user; it returns the
// update's id and the callback query's id.
func (s *Server) Tap(userID, chat, msg int64, data string) (update int64, callbackID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	callbackID = "cb" + strconv.FormatInt(s.nextID, 10)
	s.callbacks[callbackID] = false
	m := map[string]any{"message_id": msg, "chat": map[string]any{"id": chat, "type": "private"}, "date": time.Now().Unix()}
	if sent, ok := s.messages[msg]; ok {
		m["text"] = sent.Text
	}
	update = s.pushLocked("callback_query", map[string]any{"id": callbackID, "from": user(userID), "message": m,
		"chat_instance": "1", "data": data})
	return update, callbackID
}

// Say sends text to the bot from user in chat, as a reply to message replyTo when it is not
// 0; it returns the update's id and the new message's id.
func (s *Server) Say(userID, chat int64, text string, replyTo int64) (update, msg int64) {
	return s.SayAt(userID, chat, text, replyTo, time.Now())
}

// SayAt is Say for a message dated date: written then, and read by the bot now (a text
// typed before something changed, or after a while).
func (s *Server) SayAt(userID, chat int64, text string, replyTo int64, date time.Time) (update, msg int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	msg = s.nextMsg
	s.nextMsg++
	m := map[string]any{"message_id": msg, "from": user(userID), "chat": map[string]any{"id": chat, "type": "private"},
		"date": date.Unix(), "text": text}
	if replyTo != 0 {
		r := map[string]any{"message_id": replyTo, "chat": map[string]any{"id": chat, "type": "private"}, "date": time.Now().Unix()}
		if sent, ok := s.messages[replyTo]; ok {
			r["text"] = sent.Text
			r["from"] = BotUser
		}
		m["reply_to_message"] = r
	}
	return s.pushLocked("message", m), msg
}

// Redeliver puts update id in the queue again, as an at-least-once delivery may, whatever
// offset confirmed it. It returns false when the server never had that update.
func (s *Server) Redeliver(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	raw, ok := s.sent[id]
	if ok {
		s.queue = append(s.queue, queued{id: id, raw: raw, copy: true})
		s.changeLocked()
	}
	return ok
}

// ---- what the bot did ----------------------------------------------------------------------

// Messages returns the bot's messages, oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for id := int64(1); id < s.nextMsg; id++ {
		if m, ok := s.messages[id]; ok {
			cp := *m
			cp.History = append([]string(nil), m.History...)
			cp.EditAts = append([]time.Time(nil), m.EditAts...)
			out = append(out, cp)
		}
	}
	return out
}

// Message returns the bot's message id.
func (s *Server) Message(id int64) (Message, bool) {
	for _, m := range s.Messages() {
		if m.ID == id {
			return m, true
		}
	}
	return Message{}, false
}

// CallbackAnswers returns the bot's answers to taps, oldest first.
func (s *Server) CallbackAnswers() []CallbackAnswer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]CallbackAnswer(nil), s.answers...)
}

// CallbackAnswer returns the bot's answer to callback query id.
func (s *Server) CallbackAnswer(id string) (CallbackAnswer, bool) {
	for _, a := range s.CallbackAnswers() {
		if a.ID == id {
			return a, true
		}
	}
	return CallbackAnswer{}, false
}

// Calls returns the requests the bot made to method ("" for all), oldest first.
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// ---- the Bot API --------------------------------------------------------------------------

type failure struct {
	code int
	desc string
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot")
	token, method, ok2 := strings.Cut(rest, "/")
	status := http.StatusOK
	defer func() {
		s.mu.Lock()
		s.calls = append(s.calls, Call{Method: method, Status: status, At: time.Now()})
		s.changeLocked()
		s.mu.Unlock()
	}()
	s.mu.Lock()
	outage := s.outage
	s.mu.Unlock()
	if outage {
		status = http.StatusServiceUnavailable
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, "<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>")
		return
	}
	if !ok || !ok2 || token != s.Token {
		status = http.StatusUnauthorized
		writeFail(w, failure{http.StatusUnauthorized, "Unauthorized"})
		return
	}
	var params map[string]json.RawMessage
	if b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20)); len(b) > 0 {
		if err := json.Unmarshal(b, &params); err != nil {
			status = http.StatusBadRequest
			writeFail(w, failure{400, "Bad Request: the fake takes JSON bodies only"})
			return
		}
	}
	var result any
	var f *failure
	switch method {
	case "getMe":
		result = BotUser
	case "getUpdates":
		result, f = s.getUpdates(r.Context(), params)
	case "sendMessage":
		result, f = s.sendMessage(params)
	case "editMessageText":
		result, f = s.edit(params, true)
	case "editMessageReplyMarkup":
		result, f = s.edit(params, false)
	case "answerCallbackQuery":
		result, f = s.answerCallback(params)
	default:
		f = &failure{404, "Not Found: method " + method + " is not faked"}
	}
	if f != nil {
		status = f.code
		writeFail(w, *f)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": result})
}

func writeFail(w http.ResponseWriter, f failure) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.code)
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error_code": f.code, "description": f.desc})
}

func num(params map[string]json.RawMessage, key string) (int64, bool) {
	v, ok := params[key]
	if !ok {
		return 0, false
	}
	var n int64
	if err := json.Unmarshal(v, &n); err != nil {
		return 0, false
	}
	return n, true
}

func str(params map[string]json.RawMessage, key string) string {
	var s string
	_ = json.Unmarshal(params[key], &s)
	return s
}

func (s *Server) getUpdates(ctx context.Context, params map[string]json.RawMessage) (any, *failure) {
	offset, _ := num(params, "offset")
	timeout, _ := num(params, "timeout")
	limit, ok := num(params, "limit")
	if !ok || limit <= 0 || limit > 100 {
		limit = 100
	}
	s.mu.Lock()
	if s.polling != nil {
		close(s.polling) // Telegram ends the older of two polls with 409
	}
	mine := make(chan struct{})
	s.polling = mine
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.polling == mine {
			s.polling = nil
		}
		s.mu.Unlock()
	}()
	deadline := time.NewTimer(time.Duration(timeout) * time.Second)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		if s.conflict {
			s.mu.Unlock()
			return nil, &failure{409, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"}
		}
		if s.outage {
			s.mu.Unlock()
			return nil, &failure{502, "Bad Gateway"}
		}
		if offset > 0 {
			// Asking from offset confirms what came before it: Telegram forgets it. A
			// redelivered copy still comes, once.
			keep := s.queue[:0:0]
			for _, u := range s.queue {
				if u.copy || u.id >= offset {
					keep = append(keep, u)
				}
			}
			s.queue = keep
		}
		if n := min(len(s.queue), int(limit)); n > 0 {
			out := make([]json.RawMessage, 0, n)
			rest := s.queue[:0:0]
			for i, u := range s.queue {
				if i < n {
					out = append(out, u.raw)
					if u.copy {
						continue
					}
				}
				rest = append(rest, u)
			}
			s.queue = rest
			s.mu.Unlock()
			return out, nil
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-mine:
			return nil, &failure{409, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"}
		case <-deadline.C:
			return []json.RawMessage{}, nil
		case <-ctx.Done():
			return nil, &failure{499, "client went away"}
		}
	}
}

// keyboard reads reply_markup; it refuses callback_data over 64 bytes as Telegram does.
func keyboard(params map[string]json.RawMessage) ([][]Button, *failure) {
	raw, ok := params["reply_markup"]
	if !ok {
		return nil, nil
	}
	var kb struct {
		Rows [][]Button `json:"inline_keyboard"`
	}
	if err := json.Unmarshal(raw, &kb); err != nil {
		return nil, &failure{400, "Bad Request: can't parse reply keyboard markup JSON object"}
	}
	for _, row := range kb.Rows {
		for _, b := range row {
			if b.Text == "" || b.Data == "" || len(b.Data) > 64 {
				return nil, &failure{400, "Bad Request: BUTTON_DATA_INVALID"}
			}
		}
	}
	if len(kb.Rows) == 0 {
		return nil, nil
	}
	return kb.Rows, nil
}

// textOf checks a message's HTML as Telegram parses it and returns what the phone shows.
func (s *Server) textOf(params map[string]json.RawMessage) (string, string, *failure) {
	h := str(params, "text")
	mode := str(params, "parse_mode")
	if strings.TrimSpace(h) == "" {
		return "", "", &failure{400, "Bad Request: message text is empty"}
	}
	text := h
	if mode == "HTML" {
		var err error
		if text, err = ParseHTML(h); err != nil {
			return "", "", &failure{400, "Bad Request: can't parse entities: " + err.Error()}
		}
	}
	if utf8.RuneCountInString(text) > 4096 {
		return "", "", &failure{400, "Bad Request: message is too long"}
	}
	if s.refused(text) {
		return "", "", &failure{400, "Bad Request: refused by the test"}
	}
	return h, text, nil
}

func (s *Server) refused(text string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refuse != "" && strings.Contains(text, s.refuse)
}

// ParseHTML checks Telegram's HTML subset: known tags, properly nested, entities escaped.
// It returns the text.
func ParseHTML(h string) (string, error) {
	allowed := map[string]bool{"b": true, "strong": true, "i": true, "em": true, "u": true, "s": true, "code": true,
		"pre": true, "blockquote": true, "a": true, "tg-spoiler": true}
	var stack []string
	var text strings.Builder
	for i := 0; i < len(h); {
		switch h[i] {
		case '<':
			end := strings.IndexByte(h[i:], '>')
			if end < 0 {
				return "", fmt.Errorf("unclosed start tag at byte offset %d", i)
			}
			tag := h[i+1 : i+end]
			i += end + 1
			if name, ok := strings.CutPrefix(tag, "/"); ok {
				if len(stack) == 0 || stack[len(stack)-1] != name {
					return "", fmt.Errorf("unexpected end tag %q", name)
				}
				stack = stack[:len(stack)-1]
				continue
			}
			name, _, _ := strings.Cut(tag, " ")
			if !allowed[name] {
				return "", fmt.Errorf("unsupported start tag %q", name)
			}
			stack = append(stack, name)
		case '&':
			end := strings.IndexByte(h[i:], ';')
			if end < 0 || end > 10 {
				return "", fmt.Errorf("unescaped & at byte offset %d", i)
			}
			ent := h[i : i+end+1]
			un := html.UnescapeString(ent)
			if un == ent {
				return "", fmt.Errorf("unknown entity %q", ent)
			}
			text.WriteString(un)
			i += end + 1
		case '>':
			return "", fmt.Errorf("unescaped > at byte offset %d", i)
		default:
			text.WriteByte(h[i])
			i++
		}
	}
	if len(stack) > 0 {
		return "", fmt.Errorf("unclosed tag %q", stack[len(stack)-1])
	}
	return text.String(), nil
}

func (s *Server) sendMessage(params map[string]json.RawMessage) (any, *failure) {
	chat, ok := num(params, "chat_id")
	if !ok {
		return nil, &failure{400, "Bad Request: chat_id is empty"}
	}
	h, text, f := s.textOf(params)
	if f != nil {
		return nil, f
	}
	kb, f := keyboard(params)
	if f != nil {
		return nil, f
	}
	var rp struct {
		MessageID int64 `json:"message_id"`
	}
	_ = json.Unmarshal(params["reply_parameters"], &rp)
	s.mu.Lock()
	defer s.mu.Unlock()
	m := &Message{ID: s.nextMsg, ChatID: chat, HTML: h, Text: text, Buttons: kb, Sent: kb, ReplyTo: rp.MessageID, SentAt: time.Now()}
	s.nextMsg++
	s.messages[m.ID] = m
	return map[string]any{"message_id": m.ID, "chat": map[string]any{"id": chat, "type": "private"},
		"date": m.SentAt.Unix(), "text": text, "from": BotUser}, nil
}

func sameButtons(a, b [][]Button) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func (s *Server) edit(params map[string]json.RawMessage, withText bool) (any, *failure) {
	chat, _ := num(params, "chat_id")
	id, _ := num(params, "message_id")
	kb, f := keyboard(params)
	if f != nil {
		return nil, f
	}
	var h, text string
	if withText {
		if h, text, f = s.textOf(params); f != nil {
			return nil, f
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.messages[id]
	if !ok || m.ChatID != chat {
		return nil, &failure{400, "Bad Request: message to edit not found"}
	}
	if (!withText || h == m.HTML) && sameButtons(kb, m.Buttons) {
		return nil, &failure{400, "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"}
	}
	if withText {
		m.History = append(m.History, m.HTML)
		m.HTML, m.Text = h, text
	}
	m.Buttons = kb
	m.Edits++
	m.EditedAt = time.Now()
	m.EditAts = append(m.EditAts, m.EditedAt)
	return map[string]any{"message_id": m.ID, "chat": map[string]any{"id": chat, "type": "private"},
		"date": m.SentAt.Unix(), "text": m.Text}, nil
}

func (s *Server) answerCallback(params map[string]json.RawMessage) (any, *failure) {
	id := str(params, "callback_query_id")
	text := str(params, "text")
	if utf8.RuneCountInString(text) > 200 {
		return nil, &failure{400, "Bad Request: MESSAGE_TOO_LONG"}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	answered, ok := s.callbacks[id]
	if !ok || answered {
		return nil, &failure{400, "Bad Request: query is too old and response timeout expired or query ID is invalid"}
	}
	s.callbacks[id] = true
	s.answers = append(s.answers, CallbackAnswer{ID: id, Text: text, At: time.Now()})
	return true, nil
}
