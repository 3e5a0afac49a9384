package contenthash

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

func TestFNV1a(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "811c9dc5"},
		// Values agentfootprint 9.62.0 recorded (reference corpus).
		{"user:0:Go through every screen on the floor and find the hottest rack.", "445d50fd"},
		{"tool:whats_here:Lists the valid screen ids on this floor.", "8144a3b8"},
		{"sp:You walk the data-center floor.", "d48d7caf"},
		{"sp:skill:zone-audit:Audit zones.", "9811c273"},
		{"assistant:1:", "62db47c8"},
		{"tool:3:fired screen2: temperature 49C", "729df910"},
	}
	for _, tt := range tests {
		if got := FNV1a(tt.in); got != tt.want {
			t.Errorf("FNV1a(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestUTF16Units pins the hash to UTF-16 code units: characters outside the
// BMP count twice, invalid bytes as U+FFFD each.
func TestUTF16Units(t *testing.T) {
	for _, s := range []string{"température", "🔥 rack", "a—b✓", "bad \xff\xfe bytes", "\U0010FFFF"} {
		if got, want := FNV1a(s), reference(s); got != want {
			t.Errorf("FNV1a(%q) = %s, want %s", s, got, want)
		}
	}
}

// TestNoZeroPadding: JavaScript's toString(16) drops leading zeros.
func TestNoZeroPadding(t *testing.T) {
	for i := range 5000 {
		if h := FNV1a(strings.Repeat("x", i%50) + string(rune('a'+i%26)) + string(rune(i))); len(h) < 8 {
			if h[0] == '0' {
				t.Fatalf("hash %q is zero-padded", h)
			}
			return
		}
	}
	t.Error("no hash shorter than 8 characters among 5000 inputs")
}

func TestMessageEqualsJoined(t *testing.T) {
	for _, c := range []struct {
		role    string
		index   int
		content string
	}{{"tool", 3, "x🔥"}, {"user", 0, ""}, {"assistant", 12, "ok"}} {
		if got, want := Message(c.role, c.index, c.content), FNV1a(c.role+":"+strconv.Itoa(c.index)+":"+c.content); got != want {
			t.Errorf("Message(%q, %d, %q) = %s, want %s", c.role, c.index, c.content, got, want)
		}
	}
}

// reference is FNV-1a over utf16.Encode, the plainest statement of the rule.
func reference(s string) string {
	h := uint32(offset)
	for _, u := range utf16.Encode([]rune(s)) {
		h = (h ^ uint32(u)) * prime
	}
	return strconv.FormatUint(uint64(h), 16)
}

func FuzzFNV1a(f *testing.F) {
	f.Add("tool:3:fired")
	f.Add("🔥\xff")
	f.Fuzz(func(t *testing.T, s string) {
		if FNV1a(s) != reference(s) {
			t.Fatalf("FNV1a(%q) disagrees with the UTF-16 reference", s)
		}
	})
}
