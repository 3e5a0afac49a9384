package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzParseBaseline: any bytes either parse or are refused with a
// BaselineError, never a panic; what parses encodes to a file that parses
// back to the same entries.
func FuzzParseBaseline(f *testing.F) {
	f.Add([]byte(`{"version":1,"entries":[]}`))
	f.Add([]byte(`{"version":1,"entries":[{"identity":"a @b [tool x] p ","kind":"a","seam":"b","reason":"r","expires":"2030-01-01"}]}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"version":1,"entries":[{"identity":"x","expires":"2030-13-01"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ParseBaseline("f.json", data)
		if err != nil {
			if _, ok := err.(*BaselineError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		var buf bytes.Buffer
		if err := b.Encode(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := ParseBaseline("f.json", buf.Bytes())
		if err != nil {
			t.Fatalf("own encoding refused: %v\n%s", err, buf.String())
		}
		want := append([]BaselineEntry{}, b.Entries...)
		sortEntries(want)
		if len(want) == 0 {
			want = []BaselineEntry{}
		}
		// Invalid UTF-8 is replaced by U+FFFD when encoded; compare only
		// what JSON can carry.
		for _, e := range want {
			if !utf8.ValidString(e.Identity + e.Kind + e.Seam + e.Reason + e.Expires) {
				return
			}
		}
		if diff := cmp.Diff(want, back.Entries); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	})
}

// FuzzEscapers: whatever a recording holds, a markdown cell stays one line
// with no raw markup, and a workflow command's data stays one line.
func FuzzEscapers(f *testing.F) {
	f.Add("pipe | tick ` <b> @user $x$ \r\n::error::x %0A")
	f.Add("\x1b[31m\u202e")
	f.Fuzz(func(t *testing.T, s string) {
		md := MarkdownEscape(s)
		if strings.ContainsAny(md, "\n\r<>") {
			t.Errorf("MarkdownEscape(%q) = %q", s, md)
		}
		// Every markup character is preceded by an odd number of
		// backslashes: escaped, and not an escaped backslash before it.
		for i := 0; i < len(md); i++ {
			if !strings.ContainsRune("|`*_[]~$", rune(md[i])) {
				continue
			}
			n := 0
			for j := i - 1; j >= 0 && md[j] == '\\'; j-- {
				n++
			}
			if n%2 == 0 {
				t.Errorf("unescaped %q at %d in %q", md[i], i, md)
			}
		}
		if d := GitHubData(s); strings.ContainsAny(d, "\r\n") {
			t.Errorf("GitHubData(%q) = %q", s, d)
		}
		if p := GitHubProperty(s); strings.ContainsAny(p, "\r\n,:") {
			t.Errorf("GitHubProperty(%q) = %q", s, p)
		}
	})
}
