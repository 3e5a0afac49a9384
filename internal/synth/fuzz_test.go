package synth

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzAppendJSString checks the JSON.stringify-style quoting against
// encoding/json: every valid string must round-trip.
func FuzzAppendJSString(f *testing.F) {
	for _, s := range []string{"", "plain", "q\"b\\s", "\x00\x1f\x7f", "températ—ure 🔥", "\u2028\u2029<>&", "12345678\"12345678"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			t.Skip()
		}
		b := appendJSString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%q quoted as %s: %v", s, b, err)
		}
		if got != s {
			t.Fatalf("%q round-tripped as %q", s, got)
		}
	})
}
