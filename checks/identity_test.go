package checks

import (
	"sort"
	"strings"
	"testing"
	"unicode/utf16"
)

// lessUTF16Plain is the UTF-16 order spelled out: both strings encoded,
// then compared unit by unit.
func lessUTF16Plain(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

// identityPlain is Identity spelled out.
func identityPlain(kind, seam string, subjects []Subject, predicate string) string {
	rendered := make([]string, len(subjects))
	for i, s := range subjects {
		rendered[i] = s.String()
	}
	sort.SliceStable(rendered, func(i, j int) bool { return lessUTF16Plain(rendered[i], rendered[j]) })
	return kind + " @" + seam + " [" + strings.Join(rendered, " + ") + "] " + predicate + " "
}

// TestCompareUTF16 pins the order JavaScript sorts strings in, where it
// differs from Go's byte order.
func TestCompareUTF16(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"a", "", 1},
		{"a", "ab", -1},
		{"\U0001F600", "\uFFFD", -1}, // a surrogate pair sorts below U+E000–U+FFFF
		{"\uE000", "\U00010000", 1},
		{"\U0001F600x", "\U0001F600", 1},
		{"\xff", "\uFFFD", 0}, // an invalid byte reads as U+FFFD
		{"tool a", "tool b", -1},
	}
	for _, tt := range tests {
		if got := CompareUTF16(tt.a, tt.b); got != tt.want {
			t.Errorf("CompareUTF16(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// FuzzIdentity holds Identity and the UTF-16 order to their plain forms.
func FuzzIdentity(f *testing.F) {
	f.Add("tool", "b", "\U0001F600", "\uFFFD", "pred")
	f.Add("entity", "", "x", "x\xff", "")
	f.Fuzz(func(t *testing.T, kind, id1, id2, id3, predicate string) {
		for _, p := range [][2]string{{id1, id2}, {id2, id3}, {id1, id3}} {
			if got, want := LessUTF16(p[0], p[1]), lessUTF16Plain(p[0], p[1]); got != want {
				t.Fatalf("LessUTF16(%q, %q) = %v, want %v", p[0], p[1], got, want)
			}
		}
		subjects := []Subject{{Kind: kind, ID: id1}, {Kind: "tool", ID: id2}, {Kind: kind, ID: id3}, {Kind: "tool", ID: id1},
			{Kind: kind, ID: id2}}
		for n := range len(subjects) + 1 {
			got := Identity("kind", "seam", subjects[:n], predicate)
			if want := identityPlain("kind", "seam", subjects[:n], predicate); got != want {
				t.Fatalf("Identity of %d subjects = %q, want %q", n, got, want)
			}
		}
	})
}
