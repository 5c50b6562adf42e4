package openai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// stream writes one response's server-sent events.
type stream struct {
	w     http.ResponseWriter
	r     *http.Request
	id    string // distinguishes this response's ids from other responses'
	model string
	seq   int
	err   error // the first write error; once set, nothing more is written
}

func newStream(w http.ResponseWriter, r *http.Request, id, model string) *stream {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &stream{w: w, r: r, id: id, model: model}
}

// send streams rep as one whole response, or as much of it as the client stays for.
func (st *stream) send(rep reply) {
	st.event("response.created", map[string]any{"response": st.response("in_progress", []any{}, nil)})
	var item map[string]any
	if rep.call != nil {
		item = st.sendCall(rep.call)
	} else {
		item = st.sendText(rep)
	}
	if item == nil {
		return
	}
	st.event("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	in, out := 10, 1+len(rep.deltas)
	st.event("response.completed", map[string]any{"response": st.response("completed", []any{item}, map[string]any{
		"input_tokens":          in,
		"input_tokens_details":  map[string]any{"cached_tokens": 0},
		"output_tokens":         out,
		"output_tokens_details": map[string]any{"reasoning_tokens": 0},
		"total_tokens":          in + out,
	})})
}

// sendText streams a message item's text and returns the finished item, or nil if the
// client went away.
func (st *stream) sendText(rep reply) map[string]any {
	itemID := "msg_" + st.id
	st.event("response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{
		"type": "message", "id": itemID, "role": "assistant", "status": "in_progress", "content": []any{},
	}})
	at := map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0}
	st.event("response.content_part.added", with(at, "part", textPart("")))
	for i, d := range rep.deltas {
		if i > 0 && rep.pause > 0 && !st.wait(rep.pause) {
			return nil
		}
		st.event("response.output_text.delta", with(at, "delta", d))
	}
	text := rep.text()
	st.event("response.output_text.done", with(at, "text", text))
	st.event("response.content_part.done", with(at, "part", textPart(text)))
	if st.err != nil {
		return nil
	}
	return map[string]any{
		"type": "message", "id": itemID, "role": "assistant", "status": "completed",
		"content": []any{textPart(text)},
	}
}

// sendCall streams a function_call item and returns the finished item, or nil if the
// client went away.
func (st *stream) sendCall(call *functionCall) map[string]any {
	item := map[string]any{
		"type": "function_call", "id": "fc_" + st.id, "call_id": "call_" + st.id,
		"name": call.name, "arguments": "", "status": "in_progress",
	}
	st.event("response.output_item.added", map[string]any{"output_index": 0, "item": item})
	at := map[string]any{"item_id": item["id"], "output_index": 0}
	st.event("response.function_call_arguments.delta", with(at, "delta", call.arguments))
	st.event("response.function_call_arguments.done", with(at, "arguments", call.arguments))
	if st.err != nil {
		return nil
	}
	done := with(item, "arguments", call.arguments)
	done["status"] = "completed"
	return done
}

// response returns the response object the created and completed events carry.
func (st *stream) response(status string, output []any, usage map[string]any) map[string]any {
	resp := map[string]any{
		"id": "resp_" + st.id, "object": "response", "created_at": 0, "status": status,
		"model": st.model, "output": output,
	}
	if usage != nil {
		resp["usage"] = usage
	}
	return resp
}

// event writes one event whose data is fields plus its type and sequence number, and
// flushes it.
func (st *stream) event(typ string, fields map[string]any) {
	if st.err != nil {
		return
	}
	data := with(fields, "type", typ)
	data["sequence_number"] = st.seq
	st.seq++
	b, err := json.Marshal(data)
	if err != nil {
		panic(err) // the fields are strings, numbers, maps and slices
	}
	if _, err := fmt.Fprintf(st.w, "event: %s\ndata: %s\n\n", typ, b); err != nil {
		st.err = err
		return
	}
	if err := http.NewResponseController(st.w).Flush(); err != nil {
		st.err = err
	}
}

// wait pauses for d and reports whether the client is still there and the server open.
func (st *stream) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return st.err == nil
	case <-st.r.Context().Done():
		return false
	}
}

func textPart(text string) map[string]any {
	return map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
}

// with returns a copy of m with key set to v.
func with(m map[string]any, key string, v any) map[string]any {
	c := make(map[string]any, len(m)+1)
	for k, x := range m {
		c[k] = x
	}
	c[key] = v
	return c
}
