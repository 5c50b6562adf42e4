package httpapi

import "testing"

// Another host's refusal reaches the hub's caller word for word, the host named; what has
// no error (a delivery) is passed on as it came.
func TestAForwardedRefusalNamesItsHost(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":"delivery is off, so nothing was typed","reason":"delivery_off"}` + "\n": `{"error":"devbox: delivery is off, so nothing was typed","reason":"delivery_off"}` + "\n",
		`{"delivered":true,"via":"keys","confirmed":true}` + "\n":                          `{"delivered":true,"via":"keys","confirmed":true}` + "\n",
		"not json": "not json",
	} {
		if got := string(prefixError("devbox", []byte(body))); got != want {
			t.Errorf("prefixError(%q) = %q, want %q", body, got, want)
		}
	}
}
