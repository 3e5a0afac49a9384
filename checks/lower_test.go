package checks

import (
	"strings"
	"testing"
	"unicode"
)

// locateByLowering is locate as it was before frames kept their lowered
// texts: every text lowered again for every value.
func locateByLowering(needle string, frame Frame) groundedness {
	for _, s := range frame.System {
		if strings.Contains(strings.ToLower(s), needle) {
			return groundedInFrame
		}
	}
	inAssistant := false
	for _, m := range frame.Messages {
		has := strings.Contains(strings.ToLower(m.Content), needle)
		if !has {
			continue
		}
		if m.Role == RoleAssistant {
			inAssistant = true
			continue
		}
		return groundedInFrame
	}
	if inAssistant {
		return onlyInAssistant
	}
	return nowhereInFrame
}

// caseTexts exercise what lowering does beyond ASCII: letters that lower
// to ASCII (İ, the Kelvin sign), letters whose lower case is longer or
// shorter in UTF-8, invalid UTF-8 (lowered to U+FFFD), and long texts.
var caseTexts = []string{
	"", "RACK-A1", "rack-a1", "İstanbul-4417", "\u212a8s-node", "ȺB-12", "caf\xff-2024", "\xef\xbf\xbd-2024",
	"The nightly job BKP-4417-GANYMEDE-tier2 finished at 02:14. " + strings.Repeat("padding ", 10),
	strings.Repeat("Ünïcödé ", 12) + "HOST-9 ß ẞ ς Σ",
}

func TestLocateMatchesLowering(t *testing.T) {
	values := []string{"rack-a1", "istanbul-4417", "i̇stanbul-4417", "k8s-node", "ⱥb-12", "\ufffd-2024", "bkp-4417", "host-9", "ß ß", "nowhere-1"}
	for _, sys := range caseTexts {
		for _, user := range caseTexts {
			for _, asst := range caseTexts {
				frame := Frame{System: []string{sys}, Messages: []Message{{Role: RoleAssistant, Content: asst}, {Role: RoleUser, Content: user}, {Role: RoleTool, Content: asst + user}}}
				ft := newFrameTexts(frame)
				for _, v := range values {
					needle := strings.ToLower(v)
					if got, _, _ := locate(needle, frame, ft); got != locateByLowering(needle, frame) {
						t.Fatalf("locate(%q) in %q / %q / %q = %d, want %d", needle, sys, user, asst, got, locateByLowering(needle, frame))
					}
				}
			}
		}
	}
}

func FuzzLocate(f *testing.F) {
	f.Add("System RACK-A1", "user İ", "assistant \u212a", "rack-a1")
	f.Fuzz(func(t *testing.T, sys, user, asst, value string) {
		frame := Frame{System: []string{sys}, Messages: []Message{{Role: RoleUser, Content: user}, {Role: RoleAssistant, Content: asst}}}
		needle := strings.ToLower(value)
		if got, _, _ := locate(needle, frame, newFrameTexts(frame)); got != locateByLowering(needle, frame) {
			t.Fatalf("locate(%q) = %d, want %d", needle, got, locateByLowering(needle, frame))
		}
	})
}

// TestToLowerMatchesStrings holds toLower to strings.ToLower: every rune
// alone and after an ASCII run of each length (so it lands on both sides
// of an eight-byte step), every byte value, and the case texts at every
// offset.
func TestToLowerMatchesStrings(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if got, want := toLower(s), strings.ToLower(s); got != want {
			t.Fatalf("toLower(%q) = %q, want %q", s, got, want)
		}
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r%64 != 0 && r > 0x3000 && (r < 0x10400 || r > 0x1E943) {
			continue // long stretches without case; sampled
		}
		for _, pad := range []int{0, 7, 8, 9} {
			check(strings.Repeat("Ab", pad)[:pad] + string(r) + "Z")
		}
	}
	for b := 0; b < 256; b++ {
		for _, pad := range []int{0, 3, 8, 15} {
			check(strings.Repeat("xY", pad)[:pad] + string([]byte{byte(b)}) + "@[`{QRST")
		}
	}
	for _, s := range caseTexts {
		for i := range len(s) {
			check(s[i:])
		}
	}
}

func FuzzToLower(f *testing.F) {
	for _, s := range caseTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := toLower(s), strings.ToLower(s); got != want {
			t.Fatalf("toLower(%q) = %q, want %q", s, got, want)
		}
	})
}

func BenchmarkToLower(b *testing.B) {
	text := strings.Repeat("The nightly job BKP-4417 on rack A1 finished at 02:14 — café ", 64)
	for _, bc := range []struct {
		name string
		f    func(string) string
	}{{"strings.ToLower", strings.ToLower}, {"toLower", toLower}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				bc.f(text)
			}
		})
	}
}
