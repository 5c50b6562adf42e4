// Package telegram is the Telegram relay (docs/delivery.md, "The Telegram relay"): it shows each pending prompt
// record in one chat with buttons for its choices, edits the message once the prompt is
// over, and carries the operator's taps and replies to the daemon's delivery (Host.Deliver).
// Only the configured chat and users are let in. It sees the daemon only through the small
// interfaces of Host, which the daemon's engine, deliverer and store satisfy; it does not
// import package daemon.
//
// It talks to the Bot API with net/http rather than github.com/go-telegram/bot: that
// library's getUpdates loop is private, retries after 100 ms doubling to 5 s (we must back
// off from 1 s to 60 s and say a 409 Conflict once), and moves its offset forward as soon
// as an update is queued in memory, before any handler ran, so an offset kept after
// handling needs the loop in our hands. What would be left of it, six JSON methods, is
// this file.
package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// DefaultAPIURL is the Bot API's own address.
const DefaultAPIURL = "https://api.telegram.org"

// Bot calls the Bot API with one bot's token.
type Bot struct {
	base  string // api_url, no trailing slash
	token string
	http  *http.Client
}

// NewBot returns a Bot for token at apiURL ("" is DefaultAPIURL).
func NewBot(apiURL, token string) *Bot {
	if apiURL == "" {
		apiURL = DefaultAPIURL
	}
	// No overall client timeout: each call's context bounds it, and a long poll's is long.
	return &Bot{base: strings.TrimRight(apiURL, "/"), token: token, http: &http.Client{}}
}

// APIError is the Bot API's refusal of a call: its error_code and description.
type APIError struct {
	Method      string
	Code        int
	Description string
	RetryAfter  int // seconds, for 429
}

func (e *APIError) Error() string {
	return fmt.Sprintf("telegram %s: %d %s", e.Method, e.Code, e.Description)
}

// Conflict reports whether err is the Bot API's 409: another program takes this bot's
// updates (a second poller on the token, or a webhook).
func Conflict(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Code == http.StatusConflict
}

// Unauthorized reports whether err is the Bot API refusing the token (401 or 404, which
// is what it answers for a token it does not know).
func Unauthorized(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && (ae.Code == http.StatusUnauthorized || ae.Code == http.StatusNotFound)
}

// notModified reports whether err is the Bot API's "message is not modified": an edit to
// what the message already says, which is no failure.
func notModified(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Code == http.StatusBadRequest && strings.Contains(ae.Description, "not modified")
}

// badEntities reports whether err is Telegram failing to parse a message's markup.
func badEntities(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Code == http.StatusBadRequest && strings.Contains(ae.Description, "can't parse entities")
}

// badRequest reports whether err is the Bot API's 400: Telegram refuses this very call (a
// message too long, markup it cannot parse, a button it does not take), which sending it
// again will not change.
func badRequest(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Code == http.StatusBadRequest
}

// gone reports whether err says a message can no longer be edited (deleted, too old).
func gone(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Code == http.StatusBadRequest &&
		(strings.Contains(ae.Description, "not found") || strings.Contains(ae.Description, "can't be edited"))
}

type apiResponse struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Parameters  *struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
}

// call POSTs params as JSON to method and decodes its result into out (when not nil). An
// error never holds the token.
func (b *Bot) call(ctx context.Context, method string, params, out any) error {
	body, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("telegram %s: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.base+"/bot"+b.token+"/"+method, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("telegram %s: %s", method, b.redact(err.Error()))
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("telegram %s: %s", method, b.redact(err.Error()))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("telegram %s: read the answer: %s", method, b.redact(err.Error()))
	}
	var r apiResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		// Not the Bot API's JSON: a proxy's or a load balancer's page during an outage.
		return &APIError{Method: method, Code: resp.StatusCode, Description: http.StatusText(resp.StatusCode) + " (not a Bot API answer)"}
	}
	if !r.OK {
		e := &APIError{Method: method, Code: r.ErrorCode, Description: b.redact(r.Description)}
		if e.Code == 0 {
			e.Code = resp.StatusCode
		}
		if r.Parameters != nil {
			e.RetryAfter = r.Parameters.RetryAfter
		}
		return e
	}
	if out != nil {
		if err := json.Unmarshal(r.Result, out); err != nil {
			return fmt.Errorf("telegram %s: unexpected result: %w", method, err)
		}
	}
	return nil
}

func (b *Bot) redact(s string) string {
	if b.token == "" {
		return s
	}
	return strings.ReplaceAll(s, b.token, "<token>")
}

// GetMe returns the bot's own user: the token works.
func (b *Bot) GetMe(ctx context.Context) (User, error) {
	var u User
	err := b.call(ctx, "getMe", struct{}{}, &u)
	return u, err
}

// GetUpdates long-polls for the updates from offset on, waiting up to timeout for one.
// Asking from offset confirms every update before it: Telegram forgets them.
func (b *Bot) GetUpdates(ctx context.Context, offset int64, timeout time.Duration, limit int) ([]Update, error) {
	params := map[string]any{"timeout": int(timeout / time.Second),
		"allowed_updates": []string{"message", "callback_query"}}
	if offset != 0 {
		params["offset"] = offset
	}
	if limit > 0 {
		params["limit"] = limit
	}
	// The server holds the poll up to timeout; allow for the way there and back.
	ctx, cancel := context.WithTimeout(ctx, timeout+15*time.Second)
	defer cancel()
	var ups []Update
	err := b.call(ctx, "getUpdates", params, &ups)
	return ups, err
}

// SendMessage sends an HTML message to chat, with buttons when kb is not nil, as a reply to
// message replyTo when it is not 0, and returns the message.
func (b *Bot) SendMessage(ctx context.Context, chat int64, html string, kb *Keyboard, replyTo int64) (Message, error) {
	params := map[string]any{"chat_id": chat, "text": html, "parse_mode": "HTML",
		"link_preview_options": map[string]bool{"is_disabled": true}}
	if kb != nil {
		params["reply_markup"] = kb
	}
	if replyTo != 0 {
		params["reply_parameters"] = map[string]any{"message_id": replyTo, "allow_sending_without_reply": true}
	}
	var m Message
	err := b.call(ctx, "sendMessage", params, &m)
	return m, err
}

// EditMessageText replaces a message's text, and its buttons with kb (none when kb is nil).
func (b *Bot) EditMessageText(ctx context.Context, chat, message int64, html string, kb *Keyboard) error {
	if kb == nil {
		kb = &Keyboard{Rows: [][]Button{}}
	}
	params := map[string]any{"chat_id": chat, "message_id": message, "text": html, "parse_mode": "HTML",
		"link_preview_options": map[string]bool{"is_disabled": true}, "reply_markup": kb}
	err := b.call(ctx, "editMessageText", params, nil)
	if notModified(err) {
		return nil
	}
	return err
}

// EditMessageReplyMarkup replaces a message's buttons with kb (none when kb is nil).
func (b *Bot) EditMessageReplyMarkup(ctx context.Context, chat, message int64, kb *Keyboard) error {
	if kb == nil {
		kb = &Keyboard{Rows: [][]Button{}}
	}
	err := b.call(ctx, "editMessageReplyMarkup", map[string]any{"chat_id": chat, "message_id": message, "reply_markup": kb}, nil)
	if notModified(err) {
		return nil
	}
	return err
}

// AnswerCallbackQuery acknowledges a button press, showing text (when not "") to the
// person who pressed it.
func (b *Bot) AnswerCallbackQuery(ctx context.Context, id, text string) error {
	params := map[string]any{"callback_query_id": id}
	if text != "" {
		params["text"] = text
	}
	return b.call(ctx, "answerCallbackQuery", params, nil)
}
