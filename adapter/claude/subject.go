package claude

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Subject returns the fingerprint of one tool call that a permission asks about: its tool
// and its whole input, however long. The daemon keeps it with the prompt record a
// PermissionRequest opens (adapter.Ask.Subject); the hook that holds for that record
// computes it from its own payload and prints a decision only when the two agree, so that
// an answer can never decide another tool call. The input is compared as JSON (key order
// and spacing do not matter), so a payload re-encoded on its way (the spool) keeps it.
func Subject(tool string, input json.RawMessage) string {
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(canonicalJSON(input))
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// canonicalJSON returns v encoded with sorted keys, no spaces and numbers as written, or
// v itself when it is not JSON.
func canonicalJSON(v json.RawMessage) []byte {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return v
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return v
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
