package report

import (
	"bytes"
	"encoding/json"
	"testing"
)

// indentSeeds hold what the fast path must get right: empty and nested
// containers, escaped quotes and backslashes before a closing quote,
// structural characters inside strings, scalars at the top, whitespace
// around and inside the value.
var indentSeeds = []string{
	`{}`, `[]`, `""`, `{"a":{}}`, `{"a":[]}`, `[[],{},[{}]]`,
	`{"a":"b","c":[1,2.5e-3,true,false,null],"d":{"e":"f"}}`,
	`["a\"b","c\\","d\\\"","\\\\",",:{}[]"]`,
	`{"k\"ey":"v\\\\\"al"}`,
	`1`, `true`, `null`, `-0.5`,
	" { \"a\" : [ 1 , 2 ] , \"b\" : { } } \n\t ",
	"\n[\r\n]\n",
	`{"x":"\u0000\u001f\u2028 é 中"}`,
}

// FuzzIndent holds appendIndented to json.Indent on every valid value, as
// the encoder writes it (compact, a newline after) and as given.
func FuzzIndent(f *testing.F) {
	for _, s := range indentSeeds {
		f.Add([]byte(s), "")
		f.Add([]byte(s), "    ")
	}
	f.Fuzz(func(t *testing.T, data []byte, prefix string) {
		if !json.Valid(data) {
			return
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			t.Fatal(err)
		}
		compact.WriteByte('\n')
		for _, src := range [][]byte{compact.Bytes(), data} {
			var want bytes.Buffer
			if err := json.Indent(&want, src, prefix, "  "); err != nil {
				t.Fatalf("json.Indent(%q): %v", src, err)
			}
			lead := []byte("kept:")
			got := appendIndented(append([]byte(nil), lead...), src, prefix, "  ")
			if !bytes.HasPrefix(got, lead) || !bytes.Equal(got[len(lead):], want.Bytes()) {
				t.Errorf("appendIndented(%q, %q)\n got %q\nwant %q", src, prefix, got, want.Bytes())
			}
		}
	})
}

func TestIndentSeeds(t *testing.T) {
	for _, s := range indentSeeds {
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(s), "", "  "); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got := appendIndented(nil, []byte(s), "", "  "); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("appendIndented(%q) = %q, want %q", s, got, want.Bytes())
		}
	}
}
