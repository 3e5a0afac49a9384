package report

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// logSafeOnce is the guard's rule applied to a whole output at once: the
// reference the streaming guard is held to.
func logSafeOnce(s string, esc logEscapes) string {
	var b strings.Builder
	lines := strings.SplitAfter(s, "\n")
	for _, line := range lines {
		colon := -1
		if esc.lineStart {
			rest := strings.TrimLeftFunc(line, func(r rune) bool { return r != utf8.RuneError && unicode.IsSpace(r) })
			if strings.HasPrefix(rest, "::") {
				colon = len(line) - len(rest) + 1
			}
		}
		for i := 0; i < len(line); i++ {
			switch {
			case i == colon:
				b.WriteString(esc.colon)
			case line[i] == '[' && i >= 2 && line[i-2:i] == "##":
				b.WriteString(esc.bracket)
			default:
				b.WriteByte(line[i])
			}
		}
	}
	return b.String()
}

func TestLogSafe(t *testing.T) {
	tests := []struct {
		name, format, in, want string
	}{
		{"plain text passes", FormatText, "RUN run-1\n  ✓ GREEN: no defect\n", "RUN run-1\n  ✓ GREEN: no defect\n"},
		{"a command at a line's start", FormatText, "::error file=a::forged\n", ":\\x3aerror file=a::forged\n"},
		{"a command after blanks", FormatText, "x\n      ::add-mask::secret\n", "x\n      :\\x3aadd-mask::secret\n"},
		{"after a Unicode blank", FormatText, "\u00a0\u3000::error::x", "\u00a0\u3000:\\x3aerror::x"},
		{"not at a line's start", FormatText, "see ::error::x", "see ::error::x"},
		{"a single colon", FormatText, ":x::", ":x::"},
		{"legacy prefix anywhere", FormatText, "a ##[error]b ##[stop-commands]t", `a ##\x5berror]b ##\x5bstop-commands]t`},
		{"three hashes", FormatText, "###[", `###\x5b`},
		{"hash bracket hash bracket", FormatText, "##[#[", `##\x5b#[`},
		{"json", FormatJSON, `  "message": "##[error]x"`, `  "message": "##\u005berror]x"`},
		{"junit", FormatJUnit, `<failure message="##[error]"/>`, `<failure message="##&#91;error]"/>`},
		{"markdown", FormatMarkdown, "::error::x ##[y]", `:\:error::x ##\[y]`},
		{"github keeps its own commands", FormatGitHub, "::error file=a::m ##[error]x\n", "::error file=a::m ##\\x5berror]x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			w := LogSafe(&b, tt.format)
			n, err := w.Write([]byte(tt.in))
			if err != nil || n != len(tt.in) {
				t.Fatalf("Write = %d, %v", n, err)
			}
			if got := b.String(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			if ref := logSafeOnce(tt.in, escapesOf(tt.format)); ref != tt.want {
				t.Errorf("reference %q, want %q", ref, tt.want)
			}
		})
	}
}

// FuzzLogSafe holds the streaming guard, whatever the cut of its writes,
// to the rule applied to the whole output at once.
func FuzzLogSafe(f *testing.F) {
	for _, s := range []string{"::error::x\n  ::a\n##[b]", "\u00a0::x", "#\n#[", "a##", "\xc3::", " \xe3\x80\x80::e", "##[##[", "#:#:"} {
		f.Add(s, uint8(1), uint8(3))
	}
	f.Fuzz(func(t *testing.T, s string, cut1, cut2 uint8) {
		for _, format := range []string{FormatText, FormatGitHub} {
			var b bytes.Buffer
			w := LogSafe(&b, format)
			rest := s
			for _, c := range []int{int(cut1), int(cut2)} {
				c = min(c, len(rest))
				w.Write([]byte(rest[:c]))
				rest = rest[c:]
			}
			w.Write([]byte(rest))
			if want := logSafeOnce(s, escapesOf(format)); b.String() != want {
				t.Fatalf("%s: %q → %q, want %q", format, s, b.String(), want)
			}
		}
	})
}

// The page's own template, script and style must hold neither sequence:
// the guard would change them, and the Content-Security-Policy admits the
// script and style by the hashes of their bytes.
func TestHTMLAssetsHoldNoLogCommand(t *testing.T) {
	for name, asset := range map[string]string{"template": htmlTemplateText, "script": htmlScript, "style": htmlStyle} {
		if got := logSafeOnce(asset, markupEscapes); got != asset {
			t.Errorf("the page's %s holds \"##[\" or a line starting \"::\", which the log guard would change", name)
		}
	}
}

// BenchmarkLogSafe: the guard's cost on a text report's lines, written
// in the 64 KiB pieces renderBuffered gives it.
func BenchmarkLogSafe(b *testing.B) {
	line := "      [3] dangling-reference @compose · iteration 2 · 'screen_fire' is offered while the results grounding its arguments (whats_here) #have left the window.\n"
	text := []byte(strings.Repeat(line, (1<<20)/len(line)))
	b.SetBytes(int64(len(text)))
	w := LogSafe(io.Discard, FormatText)
	for b.Loop() {
		for p := text; len(p) > 0; {
			n := min(len(p), 64<<10)
			w.Write(p[:n])
			p = p[n:]
		}
	}
}
