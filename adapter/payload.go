package adapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Helpers for harness adapters that read JSON payloads.

// DecodeOne decodes body, which must be exactly one JSON value, into v. An error wraps
// ErrInvalid and says, after what, what is wrong in words a sender can act on.
func DecodeOne(body []byte, v any, what string) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %s: %s", ErrInvalid, what, JSONProblem(err))
	}
	if dec.More() {
		return fmt.Errorf("%w: %s: more than one JSON value", ErrInvalid, what)
	}
	return nil
}

// JSONProblem turns a decoding error into a short sentence that names the field.
func JSONProblem(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		if typeErr.Field == "" {
			return "the payload must be one JSON object, not a " + typeErr.Value
		}
		return fmt.Sprintf("field %q must be a %s, not a %s", typeErr.Field, typeErr.Type, typeErr.Value)
	}
	var syntaxErr *json.SyntaxError
	if errors.As(err, &syntaxErr) {
		return fmt.Sprintf("malformed JSON at byte %d: %v", syntaxErr.Offset, err)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "empty or truncated JSON"
	}
	return err.Error()
}

// RawText renders a field that may be a string or any other JSON value; "" for null.
func RawText(raw json.RawMessage) string {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// JoinNonEmpty joins the parts that are not empty with sep.
func JoinNonEmpty(sep string, parts ...string) string {
	kept := make([]string, 0, len(parts))
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, sep)
}

// Deref returns *s, or "" for nil: for optional string fields.
func Deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
