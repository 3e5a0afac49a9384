package replay

import (
	"strings"
	"testing"
)

func TestJoinedUTF16Len(t *testing.T) {
	tests := []struct {
		name   string
		pieces []string
	}{
		{name: "none"},
		{name: "one", pieces: []string{"You triage racks."}},
		{name: "empty pieces", pieces: []string{"", "", ""}},
		{name: "astral characters", pieces: []string{"rack 🔥", "𝔘 and é", "x"}},
		{name: "a piece cut inside a character", pieces: []string{"ab\xe2\x82", "\xac tail", "\xf0\x9f"}},
		{name: "stray continuation bytes", pieces: []string{"\x80\x80", "\xbf"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := joinedUTF16Len(tt.pieces, 2), utf16Len(strings.Join(tt.pieces, "\n\n")); got != want {
				t.Errorf("joinedUTF16Len = %d, utf16Len of the join = %d", got, want)
			}
		})
	}
}

func FuzzJoinedUTF16Len(f *testing.F) {
	f.Add("a\xe2\x82", "\xac", "🔥")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		pieces := []string{a, b, c}
		if got, want := joinedUTF16Len(pieces, 2), utf16Len(strings.Join(pieces, "\n\n")); got != want {
			t.Fatalf("%q: joinedUTF16Len = %d, utf16Len of the join = %d", pieces, got, want)
		}
	})
}
