package checks

import (
	"bytes"
	"encoding/json"
	"testing"
)

// encodedJSON is what jsonValue wrote before its shortcut for plain text:
// the encoder's output, without HTML escaping.
func encodedJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null"
	}
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}

var jsonValueSeeds = []string{"", "plain", "rack-a1 <b>&</b>", "q\"b", `back\slash`, "tab\there", "\x00\x1f\x7f", "é", "\u2028\u2029", "\xff", "~ !#$%'()*+,-./:;=?@[]^_`{|}"}

func TestJSONValueMatchesEncoder(t *testing.T) {
	for _, s := range jsonValueSeeds {
		if got, want := string(jsonValue(s)), encodedJSON(s); got != want {
			t.Errorf("jsonValue(%q) = %s, the encoder writes %s", s, got, want)
		}
	}
	for _, v := range []any{42, 4.5, true, nil, []string{"a"}} {
		if got, want := string(jsonValue(v)), encodedJSON(v); got != want {
			t.Errorf("jsonValue(%v) = %s, the encoder writes %s", v, got, want)
		}
	}
}

func FuzzJSONValue(f *testing.F) {
	for _, s := range jsonValueSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(jsonValue(s)), encodedJSON(s); got != want {
			t.Fatalf("jsonValue(%q) = %s, the encoder writes %s", s, got, want)
		}
	})
}
