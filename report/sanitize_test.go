package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain ascii", "call-llm#88", "call-llm#88"},
		{"non-ascii text passes", "ran 3× · ⚠ — naïve 日本 😀", "ran 3× · ⚠ — naïve 日本 😀"},
		{"empty", "", ""},
		{"CSI colour", "\x1b[31mRED\x1b[0m", `\x1b[31mRED\x1b[0m`},
		{"OSC title with BEL", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"OSC 8 hyperlink with ST", "\x1b]8;;http://x\x1b\\link", `\x1b]8;;http://x\x1b\link`},
		{"carriage return", "ok\rEVIL", `ok\rEVIL`},
		{"tab and newline stay on one line", "a\tb\nc", `a\tb\nc`},
		{"backspace and delete", "a\bb\x7f", `a\x08b\x7f`},
		{"NUL and other C0", "\x00\x01\x1f", `\x00\x01\x1f`},
		{"C1 CSI and NEL", "\u009b31m\u0085", `\u009b31m\u0085`},
		{"bidi overrides", "\u202aa\u202bb\u202cc\u202dd\u202ee", `\u202aa\u202bb\u202cc\u202dd\u202ee`},
		{"bidi isolates", "\u2066a\u2067b\u2068c\u2069", `\u2066a\u2067b\u2068c\u2069`},
		{"bidi marks", "\u200ea\u200fb\u061cc", `\u200ea\u200fb\u061cc`},
		{"line and paragraph separators", "a\u2028b\u2029c", `a\u2028b\u2029c`},
		{"invalid UTF-8", "a\xffb\xc3", `a\xffb\xc3`},
		{"lone surrogate bytes", "\xed\xa0\x80", `\xed\xa0\x80`},
		{"replacement character itself passes", "\ufffd", "\ufffd"},
		{"idempotent on escapes", `\x1b`, `\x1b`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sanitize(tt.in); got != tt.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := Sanitize(Sanitize(tt.in)); again != tt.want {
				t.Errorf("Sanitize is not idempotent on %q: %q", tt.in, again)
			}
		})
	}
}

// unsafeOutput reports the first character a terminal could act on, or a
// byte that is not UTF-8.
func unsafeOutput(s string, allowNewline bool) (rune, bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return rune(s[i]), true
		case r == '\n' && allowNewline:
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, unsafeFormat(r):
			return r, true
		}
		i += size
	}
	return 0, false
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[31m", "\x1b]0;t\x07", "a\rb", "\u202e", "\xff\xfe", "\u009b", "\t\n", "日本\u2066"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		if r, bad := unsafeOutput(out, false); bad {
			t.Fatalf("Sanitize(%q) = %q still carries %U", s, out, r)
		}
		if Sanitize(out) != out {
			t.Fatalf("Sanitize is not idempotent on %q", s)
		}
		if clean(s) && out != s {
			t.Fatalf("a clean string changed: %q -> %q", s, out)
		}
		lines := SanitizeLines(s)
		if r, bad := unsafeOutput(lines, true); bad {
			t.Fatalf("SanitizeLines(%q) = %q still carries %U", s, lines, r)
		}
		if strings.Count(lines, "\n") != strings.Count(s, "\n") {
			t.Fatalf("SanitizeLines(%q) = %q does not keep its lines", s, lines)
		}
		if want := strings.ReplaceAll(Sanitize(s), `\n`, "\n"); !strings.Contains(s, `\n`) && lines != want {
			t.Fatalf("SanitizeLines(%q) = %q, want %q", s, lines, want)
		}
	})
}

// TestTextOutputIsTerminalSafe renders the hostile fixture (ESC, OSC, CR,
// bidi in messages, ids, stage ids, paths, problems and type names) and
// checks that no byte of the plain text output can drive a terminal.
func TestTextOutputIsTerminalSafe(t *testing.T) {
	for _, gc := range goldenCases() {
		if gc.text.Color {
			continue
		}
		var buf bytes.Buffer
		if err := RenderText(&buf, buildGolden(t, gc), gc.text); err != nil {
			t.Fatal(err)
		}
		if r, bad := unsafeOutput(buf.String(), true); bad {
			t.Errorf("%s: text output carries %U", gc.name, r)
		}
	}
}

func TestISOMillis(t *testing.T) {
	tests := []struct {
		ms   float64
		want string
		ok   bool
	}{
		{1796026292760, "2026-11-30T08:11:32.760Z", true},
		{0, "1970-01-01T00:00:00.000Z", true},
		{-1, "1969-12-31T23:59:59.999Z", true},
		{1.9, "1970-01-01T00:00:00.001Z", true},
		{8.64e15, "+275760-09-13T00:00:00.000Z", true},
		{-8.64e15, "-271821-04-20T00:00:00.000Z", true},
		{-62198755200000, "-000001-01-01T00:00:00.000Z", true},
		{8.64e15 + 1, "", false},
	}
	for _, tt := range tests {
		got, ok := isoMillis(tt.ms)
		if got != tt.want || ok != tt.ok {
			t.Errorf("isoMillis(%v) = %q, %v; want %q, %v", tt.ms, got, ok, tt.want, tt.ok)
		}
	}
}
