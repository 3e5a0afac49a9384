package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b  string
		limit int
		want  int
		ok    bool
	}{
		{"backup_statu", "backup_status", 2, 1, true},
		{"backup_status", "backup_status", 1, 0, true},
		{"fleet_reprot", "fleet_report", 2, 2, true},
		{"fleet_report", "backup_status", 4, 0, false},
		{"a", "", 1, 1, true},
		{"", "ab", 1, 0, false},
		{"ünïcode", "unicode", 2, 2, true},
		{strings.Repeat("x", 5000), strings.Repeat("x", 4999) + "y", 1, 1, true},
	}
	for _, tt := range tests {
		got, ok := editDistance(tt.a, tt.b, tt.limit)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("editDistance(%.20q, %.20q, %d) = %d, %v; want %d, %v", tt.a, tt.b, tt.limit, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRelevantTools(t *testing.T) {
	decl := &checks.Declarations{Tools: []checks.ToolDecl{{Name: "backup_statu", ArgumentsFrom: []string{"fleet_report"}}}}
	seen := []string{"backup_status", "fleet_report", "get_weather", "zzz"}
	for i := range 100 {
		seen = append(seen, "backup_sta"+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	got := RelevantTools(seen, decl)
	if !contains(got, "backup_status") || !contains(got, "fleet_report") || contains(got, "get_weather") {
		t.Errorf("RelevantTools = %v: want the declared and the near names only", got)
	}
	if len(got) > 1+maxNearTools*2 {
		t.Errorf("RelevantTools kept %d names, want a bounded few", len(got))
	}
	if RelevantTools(seen, nil) != nil {
		t.Errorf("RelevantTools without declarations is not nil")
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestHoldDeclarations: a declared name no run showed is reported with the
// nearest name any run shows; one some run shows is not; strict exits 2.
func TestHoldDeclarations(t *testing.T) {
	decl := &checks.Declarations{Source: "decl.yaml", Tools: []checks.ToolDecl{
		{Name: "backup_statu", ArgumentsFrom: []string{"fleet_report"}},
		{Name: "screen_fire", ArgumentsFrom: []string{"nothing_like_it"}},
	}}
	names := decl.ToolNames()
	names[0].Line = 2
	in := func(tools ...string) InputResult {
		rr := stateRun(t, "full")
		rr.Tools, rr.ToolsRead = tools, true
		return InputResult{Stats: &recording.Stats{Path: "in.jsonl", Format: recording.FormatNDJSON}, Runs: []RunResult{rr}}
	}
	inputs := []InputResult{in("backup_status"), in("fleet_report", "screen_fire")}
	for _, strict := range []bool{false, true} {
		r := Build(inputs, testOptions(Options{Declared: decl, DeclaredNames: names, StrictDeclarations: strict}))
		want := []UnseenTool{
			{NamedTool: checks.NamedTool{Name: "backup_statu", Field: "tools", Line: 2}, Suggestion: "backup_status"},
			{NamedTool: checks.NamedTool{Name: "nothing_like_it", Field: "tools.screen_fire.argumentsFrom"}},
		}
		if diff := cmp.Diff(want, r.Declarations.Unseen); diff != "" {
			t.Errorf("unseen (-want +got):\n%s", diff)
		}
		wantCode := ExitGreen
		if strict {
			wantCode = ExitUnreadable
		}
		if got := r.ExitCode(); got != wantCode {
			t.Errorf("strict %v: ExitCode() = %d, want %d", strict, got, wantCode)
		}
	}
	if s := (UnseenTool{NamedTool: names[0], Suggestion: "backup_status"}).Sentence("decl.yaml"); !strings.HasPrefix(s, `decl.yaml:2: tools names tool "backup_statu"`) || !strings.Contains(s, "did you mean backup_status?") {
		t.Errorf("Sentence = %q", s)
	}
	// No run read: nothing to hold the names against, nothing reported.
	r := Build([]InputResult{{Path: "gone.jsonl", Err: errString("gone")}}, testOptions(Options{Declared: decl, DeclaredNames: names}))
	if len(r.Declarations.Unseen) != 0 {
		t.Errorf("with no run read, %d names reported unseen", len(r.Declarations.Unseen))
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestUnseenNormalization: a declared name that differs from a tool the
// runs show only in Unicode normalization is found however many accents
// apart their bytes are, and said so, with the code points that differ;
// "did you mean résumé_status?" of two names that print alike helps no one.
func TestUnseenNormalization(t *testing.T) {
	nfd := "re\u0301sume\u0301_status"
	nfc := "r\u00e9sum\u00e9_status"
	long := strings.Repeat("e\u0301", 6) + "_x"
	longNFC := strings.Repeat("\u00e9", 6) + "_x"
	tests := []struct {
		name, declared, shown, want string
	}{
		{"nfd against nfc", nfd, nfc, `tools names tool "` + nfd + `", which no run of any input offered or called (it differs from ` + nfc + `, which a run did show, only in Unicode normalization: e U+0301 here, U+00E9 in the recording; write it as the recording does)`},
		{"nfc against nfd", nfc, nfd, "only in Unicode normalization: U+00E9 here, e U+0301 in the recording;"},
		{"past the typo distance", long, longNFC, "it differs from " + longNFC + ", which a run did show, only in Unicode normalization: e U+0301 here, U+00E9 in the recording;"},
		{"a typo still", "backup_statu", "backup_status", "(did you mean backup_status?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			decl := &checks.Declarations{Source: "decl.yaml", Tools: []checks.ToolDecl{{Name: tt.declared, ArgumentsFrom: []string{"fleet_report"}}}}
			names := decl.ToolNames()
			rr := stateRun(t, "full")
			rr.Tools, rr.ToolsRead = RelevantTools([]string{tt.shown, "fleet_report"}, decl), true
			r := Build([]InputResult{{Stats: &recording.Stats{Path: "in.jsonl", Format: recording.FormatNDJSON}, Runs: []RunResult{rr}}},
				testOptions(Options{Declared: decl, DeclaredNames: names}))
			if len(r.Declarations.Unseen) != 1 {
				t.Fatalf("unseen %+v", r.Declarations.Unseen)
			}
			u := r.Declarations.Unseen[0]
			if u.Suggestion != tt.shown {
				t.Errorf("suggestion %q, want %q", u.Suggestion, tt.shown)
			}
			if s := u.Sentence("decl.yaml"); !strings.Contains(s, tt.want) {
				t.Errorf("Sentence = %q, want it to hold %q", s, tt.want)
			}
		})
	}
}
