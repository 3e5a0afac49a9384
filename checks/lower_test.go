package checks

import (
	"fmt"
	"strings"
	"testing"
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
// shorter in UTF-8, invalid UTF-8 (lowered to U+FFFD), and texts long
// enough to be cached.
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
					if got, want := locate(needle, frame, ft), locateByLowering(needle, frame); got != want {
						t.Fatalf("locate(%q) in %q / %q / %q = %d, want %d", needle, sys, user, asst, got, want)
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
		if got, want := locate(needle, frame, newFrameTexts(frame)), locateByLowering(needle, frame); got != want {
			t.Fatalf("locate(%q) = %d, want %d", needle, got, want)
		}
	})
}

// TestTextLowererGenerations: whatever the cache holds or has dropped, a
// text lowers as strings.ToLower lowers it.
func TestTextLowererGenerations(t *testing.T) {
	c := textLowerer{limit: 1000}
	var texts []string
	for i := 0; i < 60; i++ {
		texts = append(texts, fmt.Sprintf("%s-%d-%s", caseTexts[i%len(caseTexts)], i, strings.Repeat("AbÇ", i%7)))
	}
	for round := 0; round < 3; round++ {
		for i, s := range texts {
			if i%3 == round {
				s = texts[(i*7)%len(texts)]
			}
			if got, want := c.lower(s), strings.ToLower(s); got != want {
				t.Fatalf("round %d: lower(%q) = %q, want %q", round, s, got, want)
			}
		}
		if c.size > c.limit {
			t.Fatalf("a generation holds %d bytes, past its limit of %d", c.size, c.limit)
		}
	}
}
