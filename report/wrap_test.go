package report

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/google/go-cmp/cmp"
)

// measuredWrap is wrap with every width measured whole by lipgloss: what
// the plain-ASCII shortcut must agree with on every line.
func measuredWrap(text string, indent, hang, width int) []string {
	if width <= 0 || indent+lipgloss.Width(text) <= width {
		return []string{text}
	}
	var segs []string
	cur := ""
	room := width - indent
	for _, word := range strings.Split(text, " ") {
		switch {
		case cur == "":
			cur = word
		case lipgloss.Width(cur)+1+lipgloss.Width(word) <= room:
			cur += " " + word
		default:
			segs = append(segs, cur)
			cur = word
			room = width - hang
		}
	}
	return append(segs, cur)
}

func TestWrapMatchesMeasuredWidths(t *testing.T) {
	long := strings.Repeat("ledger row checked 3 encounters · ", 8)
	tests := []struct {
		name string
		text string
	}{
		{"plain ASCII", long},
		{"one long word", strings.Repeat("x", 200) + " tail"},
		{"wide characters", strings.Repeat("検査の記録 ", 30)},
		{"combining mark after a space", strings.Repeat("e \u0301 word ", 20)},
		{"emoji and joiners", strings.Repeat("👩\u200d💻 ran ✓ · ", 20)},
		{"ASCII then wide", long + strings.Repeat("表 ", 20)},
		{"wide then ASCII", strings.Repeat("表 ", 20) + long},
		{"escaped control", Sanitize("a\x1b[31m red \x07 bell " + long)},
		{"double spaces", strings.Repeat("a  b   c ", 30)},
		{"the report's own marks", strings.Repeat("⚠ row — ran 0× · «x» → ✓ ✗ … ", 12)},
		{"a mark with a variation selector", strings.Repeat("⚠\ufe0f armed · ran ", 20)},
		{"a mark with a combining mark", strings.Repeat("· \u0301· ran — ", 20)},
		{"empty", ""},
		{"leading, trailing and only spaces", "  " + long + "   "},
		{"spaces around a long word", " " + strings.Repeat("y", 90) + "  z  " + strings.Repeat("w", 50) + " "},
		{"only spaces", strings.Repeat(" ", 100)},
	}
	for _, tt := range tests {
		for _, shape := range [][3]int{{0, 2, 80}, {4, 6, 40}, {2, 4, 12}, {0, 0, 0}} {
			got := wrap(tt.text, shape[0], shape[1], shape[2])
			want := measuredWrap(tt.text, shape[0], shape[1], shape[2])
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s at indent %d, hang %d, width %d (-measured +wrap):\n%s", tt.name, shape[0], shape[1], shape[2], diff)
			}
		}
	}
}

// TestOwnMarksAreOneColumn holds ownMark to what plainWidth assumes of
// each mark: one column, alone and between any two plain characters.
func TestOwnMarksAreOneColumn(t *testing.T) {
	for r := rune(0); r < 0x3000; r++ {
		if !ownMark(r) {
			continue
		}
		m := string(r)
		for _, s := range []string{m, "a" + m + "b", m + m, "⚠" + m + "·", m + " " + m} {
			w, ok := plainWidth(s)
			if !ok || w != lipgloss.Width(s) {
				t.Errorf("%q: plain width %d (plain %v), measured %d", s, w, ok, lipgloss.Width(s))
			}
		}
	}
}

// FuzzWrap holds wrap, which cuts its segments out of the text, to the
// measured wrap, which joins words again.
func FuzzWrap(f *testing.F) {
	f.Add("ledger row checked 3 encounters · ledger row", 2, 4, 12)
	f.Add("  a  b   c ", 0, 0, 3)
	f.Add(strings.Repeat("表 ", 9), 1, 3, 7)
	f.Fuzz(func(t *testing.T, text string, indent, hang, width int) {
		indent, hang, width = indent%64, hang%64, width%128
		got := wrap(text, indent, hang, width)
		if want := measuredWrap(text, indent, hang, width); !slices.Equal(got, want) {
			t.Fatalf("wrap(%q, %d, %d, %d) = %q, measured %q", text, indent, hang, width, got, want)
		}
	})
}

// TestLineOnceWritesWhatLineWrites: a line rendered once and written again
// from its first rendering is, every time, what line writes, at any width
// and with colour on or off; a text with escapes is sanitized the same.
func TestLineOnceWritesWhatLineWrites(t *testing.T) {
	texts := []string{ValidationNote, "Answer validation (replayed)", "bell\a and \x1b[31mred", ""}
	for _, o := range []TextOptions{{}, {Width: 40}, {Width: 80, Color: true}, {Width: 12, Color: true}} {
		for _, text := range texts {
			var want, got strings.Builder
			line, once := newTextWriter(&want, o), newTextWriter(&got, o)
			for range 3 {
				line.line(4, styleDim, text)
				once.lineOnce(4, styleDim, text)
			}
			if diff := cmp.Diff(want.String(), got.String()); diff != "" {
				t.Errorf("%+v, %q (-line +lineOnce):\n%s", o, text, diff)
			}
		}
	}
}

// TestFitCutsALongWordRatherThanDroppingIt: a one-line summary is cut at
// a word boundary, unless a long word would leave most of the line empty;
// then the word itself is cut, between characters, to the line's room.
func TestFitCutsALongWordRatherThanDroppingIt(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name, text, want string
	}{
		{"fits", "witness 1 of 2: tool:a = b", "witness 1 of 2: tool:a = b"},
		{"at a word", "witness 1 of 2: tool:alpha argument-ground = \"evicted\" — window ledger", "witness 1 of 2: tool:alpha …"},
		{"a long first word", "witness 1 of 2: tool:" + long + " = 1", "witness 1 of 2: tool:xxxxxxxxxxxxxxxxxx…"},
		{"wide characters", "witness: " + strings.Repeat("名", 40), "witness: 名名名名名名名名名名名名名名名…"},
		{"escaped controls", "w: a\x1bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", `w: a\x1bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb…`},
	}
	tw := newTextWriter(io.Discard, TextOptions{Width: 46})
	for _, tt := range tests {
		got := tw.fit(6, tt.text)
		if got != tt.want {
			t.Errorf("%s: fit = %q, want %q", tt.name, got, tt.want)
		}
		if w := cellWidth(Sanitize(got)); w > 40 {
			t.Errorf("%s: %q is %d cells wide, more than the 40 left", tt.name, got, w)
		}
	}
}
