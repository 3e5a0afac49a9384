package checks

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExtractValues(t *testing.T) {
	tests := []struct {
		name, answer string
		minDigits    int
		want         []string
	}{
		{"names and long numbers", "Array SHPMAXDLVAP001 holds 41200 GB.", 4, []string{"shpmaxdlvap001", "41200"}},
		{"thousands separators collapse", "It peaked at 41,200 IOPS, then 98765.", 4, []string{"41200", "98765"}},
		{"short numbers are prose", "3 issues in 24 hours, 24/7, 48-port", 4, nil},
		{"a glued unit is judged on its number", "41200iops and 32G and 100MB", 4, []string{"41200"}},
		{"identifiers need four characters", "po1 a1 fc1/3 4417-ganymede", 4, []string{"fc1/3", "4417-ganymede"}},
		{"minDigits lowers the bar", "screen 42 and 7", 2, []string{"42"}},
		{"decoration is stripped", "**SHP-01**, (`rack-a1`)", 4, []string{"shp-01", "rack-a1"}},
		{"JSON answers are read by their values, not their keys", `{"p95LatencyMs": 98765, "host": "esx-0042", "note": "fine"}`, 4, []string{"98765", "esx-0042"}},
		{"a float keeps its digits", `{"v": 4120.5}`, 4, []string{"4120.5"}},
		{"values are distinct", "rack-a1 and RACK-A1", 4, []string{"rack-a1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vs, unread := ExtractValues(tc.answer, tc.minDigits)
			if tc.name == "a glued unit is judged on its number" && (len(vs) == 0 || !contains(vs[0].Spellings, "41200iops")) {
				t.Errorf("the glued spelling is kept for lookups: %+v", vs)
			}
			var got []string
			for _, v := range vs {
				got = append(got, v.Value)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" || unread != 0 {
				t.Errorf("values (-want +got):\n%s (unread %d)", diff, unread)
			}
		})
	}
	long := strings.Repeat("x ", MaxAnswerTokens+7)
	if _, unread := ExtractValues(long, 4); unread != 7 {
		t.Errorf("an answer past the reading cap: %d tokens unread, want 7", unread)
	}
}

func TestIsLibraryAuthored(t *testing.T) {
	for _, tc := range []struct {
		m    Message
		want bool
	}{
		{Message{Role: RoleUser, Content: "[dropped history — 2 earlier message(s) were dropped"}, true},
		{Message{Role: RoleUser, Content: "[evidence check] values 41200"}, true},
		{Message{Role: RoleUser, Content: "[schema check] the answer failed"}, true},
		{Message{Role: RoleUser, Content: "[compacted history] earlier turns"}, true},
		{Message{Role: RoleUser, Content: "steer", Delivered: true}, true},
		{Message{Role: RoleUser, Content: "How is array performance? [dropped history"}, false},
	} {
		if got := IsLibraryAuthored(tc.m); got != tc.want {
			t.Errorf("IsLibraryAuthored(%q) = %v", tc.m.Content, got)
		}
	}
}

// staleFrame is the seed's field case: turn 1 fetched the inventory, turn 2
// asks something new and calls nothing.
func staleFrame(extra ...Message) Frame {
	f := Frame{Source: FrameFromInjected, System: []string{"You are a storage assistant. Site code SITE-9001."}, Messages: []Message{
		{Role: RoleUser, Content: "what arrays are there?"},
		{Role: RoleAssistant, Content: ""},
		{Role: RoleTool, Content: `[{"array":"SHPMAXDLVAP001","capacity_gb":41200}]`, ToolName: "array_inventory"},
		{Role: RoleAssistant, Content: "Array SHPMAXDLVAP001 holds 41200 GB."},
		{Role: RoleUser, Content: "[dropped history — 1 earlier message(s) were dropped from this window"},
		{Role: RoleUser, Content: "how is array performance?"},
	}}
	f.Messages = append(f.Messages, extra...)
	return f
}

func TestGroundingIndex(t *testing.T) {
	g := NewGroundingIndex(staleFrame())
	if g.CurrentTurn != 2 || g.ToolResultsThisTurn != 0 || g.Truncated {
		t.Fatalf("turn %d, %d results this turn, truncated %v; want turn 2, 0, false", g.CurrentTurn, g.ToolResultsThisTurn, g.Truncated)
	}
	for _, v := range []string{"shpmaxdlvap001", "41200", "capacity_gb"} {
		if turn, ok := g.Lookup(v); !ok || turn != 1 {
			t.Errorf("Lookup(%s) = %d, %v; want turn 1", v, turn, ok)
		}
	}
	if !g.Exempt("site-9001") {
		t.Error("the system prompt's values are exempt")
	}
	// A result served this turn re-stamps the value.
	g = NewGroundingIndex(staleFrame(Message{Role: RoleTool, Content: "SHPMAXDLVAP001: 98765 IOPS"}))
	if turn, _ := g.Lookup("shpmaxdlvap001"); turn != 2 || g.ToolResultsThisTurn != 1 {
		t.Errorf("re-served value stamped turn %d with %d results this turn", turn, g.ToolResultsThisTurn)
	}
	// An absence does not ground what it was asked for.
	g = NewGroundingIndex(Frame{Source: "t", Messages: []Message{{Role: RoleUser, Content: "q"}, {Role: RoleTool, Content: `{"af_absent":true,"looked_for":{"machine":"4417-ganymede"},"try_instead":"fleet-0042"}`}}})
	if _, ok := g.Lookup("4417-ganymede"); ok {
		t.Error("looked_for of an absence must not ground its value")
	}
	if _, ok := g.Lookup("fleet-0042"); !ok {
		t.Error("the rest of an absence grounds")
	}
	g = NewGroundingIndex(Frame{Source: "t", Gaps: []string{"a message carries no rawContent"}})
	if !g.Truncated || !strings.Contains(g.Why, "rawContent") {
		t.Errorf("a frame with gaps is an incomplete index: %v %q", g.Truncated, g.Why)
	}
}

func TestPriorTurnEvidence(t *testing.T) {
	tests := []struct {
		name     string
		frame    Frame
		answer   string
		want     Disposition
		says     []string
		findings int
	}{
		{"the four-turns-stale field case: no tool this turn", staleFrame(), "SHPMAXDLVAP001 is at 41200 GB — enable the perf collector.", CheckedFail,
			[]string{"2 values", "turn 1 or earlier", "at least 1 turn before turn 2", "called no tool and served no result", PriorTurnEvidenceCeiling}, 1},
		{"a tool this turn that contributed nothing", staleFrame(Message{Role: RoleTool, Content: "perf collector: running"}), "SHPMAXDLVAP001 is at 41200 GB.", CheckedFail,
			[]string{"This turn served 1 tool result and the answer states no value from any of them", PriorTurnEvidenceCeiling}, 1},
		{"the honest follow-up: one value from this turn", staleFrame(Message{Role: RoleTool, Content: `{"iops":98765}`}), "SHPMAXDLVAP001 is running 98765 IOPS against 41200 GB.", CheckedPass, nil, 0},
		{"exempt values are invisible", staleFrame(), "SITE-9001 is fine.", Unreachable, nil, 0},
		{"no value at all", staleFrame(), "Performance looks fine.", Unreachable, nil, 0},
		{"no user turn", Frame{Source: "t", Messages: []Message{{Role: RoleTool, Content: "41200"}}}, "41200", Unreachable, nil, 0},
		{"a truncated index", Frame{Source: "t", Gaps: []string{"gap"}, Messages: []Message{{Role: RoleUser, Content: "q"}}}, "41200", NotApplicable, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := priorTurnEvidenceOf(NewGroundingIndex(tc.frame), tc.answer, 4, 3)
			if v.Disposition != tc.want || len(v.Findings) != tc.findings {
				t.Fatalf("%v with %d findings (%v), want %v with %d", v.Disposition, len(v.Findings), v.Reasons, tc.want, tc.findings)
			}
			for _, f := range v.Findings {
				if !f.Advisory || f.Identity() != "prior-turn-evidence @claim [answer final] grounding " {
					t.Errorf("finding %s advisory %v", f.Identity(), f.Advisory)
				}
				for _, s := range tc.says {
					if !strings.Contains(f.Message, s) {
						t.Errorf("message %q does not say %q", f.Message, s)
					}
				}
			}
			if (v.Disposition == Unreachable || v.Disposition == NotApplicable) && len(v.Reasons) == 0 {
				t.Error("an unjudged answer names why")
			}
		})
	}
}

func FuzzExtractValues(f *testing.F) {
	for _, s := range []string{"Array SHPMAXDLVAP001 holds 41,200 GB.", `{"a":[1,"fc1/3"]}`, "0xEF0101, 24/7", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		vs, _ := ExtractValues(s, 4)
		seen := map[string]bool{}
		for _, v := range vs {
			if v.Value == "" || seen[v.Value] || countDigits(v.Value) == 0 {
				t.Errorf("%q: bad value %q", s, v.Value)
			}
			seen[v.Value] = true
		}
		g := NewGroundingIndex(Frame{Source: "f", Messages: []Message{{Role: RoleUser, Content: "q"}, {Role: RoleTool, Content: s}}})
		// Every value a result states grounds the same answer.
		r := g.Read(vs)
		if len(r.Ungrounded) > 0 {
			t.Errorf("%q: values %q of a text are not found in an index of the same text", s, r.Ungrounded)
		}
	})
}

// TestLongNumbersKeepTheirDigits: a number longer than a float64 holds
// exactly (a serial) is looked up by its digits whether a result or an
// answer states it as JSON or as text; JSON.parse alone would round it to
// 1e+21 on one side only.
func TestLongNumbersKeepTheirDigits(t *testing.T) {
	const serial = "1000000000000000000000"
	for _, tc := range []struct{ name, result, answer string }{
		{"JSON answer, text result", "serial " + serial + " is healthy", serial},
		{"text answer, JSON result", `{"serial":` + serial + `}`, "Serial " + serial + " is healthy."},
		{"JSON on both sides", `{"serial":-` + serial + `}`, `{"serial":-` + serial + `}`},
		{"text on both sides", "serial " + serial, "serial " + serial},
	} {
		g := NewGroundingIndex(Frame{Source: "t", Messages: []Message{{Role: RoleUser, Content: "q"}, {Role: RoleTool, Content: tc.result}}})
		vs, _ := ExtractValues(tc.answer, 4)
		if len(vs) == 0 {
			t.Errorf("%s: no value read from %q", tc.name, tc.answer)
			continue
		}
		if r := g.Read(vs); len(r.Ungrounded) > 0 {
			t.Errorf("%s: %q ungrounded in %q", tc.name, r.Ungrounded, tc.result)
		}
	}
}

// TestScalarTextsReadAsText: an answer or a tool result that is a bare JSON
// number or string is read as text on both sides, as an object or array is
// read structurally on both: the same text grounds itself either way.
func TestScalarTextsReadAsText(t *testing.T) {
	for _, tc := range []struct{ result, answer, want string }{
		{"1000E0", "1000E0", "1000e0"},
		{`{"reading":1000E0}`, `[1000E0]`, "1000"},
		{`"fc1/3 at 41,200"`, `"fc1/3 at 41,200"`, "fc1/3"},
		{"12345", "12345", "12345"},
	} {
		g := NewGroundingIndex(Frame{Source: "t", Messages: []Message{{Role: RoleUser, Content: "q"}, {Role: RoleTool, Content: tc.result}}})
		vs, _ := ExtractValues(tc.answer, 4)
		if len(vs) == 0 || vs[0].Value != tc.want {
			t.Errorf("ExtractValues(%q) = %+v, want first value %q", tc.answer, vs, tc.want)
			continue
		}
		if r := g.Read(vs); len(r.Ungrounded) > 0 {
			t.Errorf("%q: %q ungrounded in %q", tc.answer, r.Ungrounded, tc.result)
		}
	}
}
