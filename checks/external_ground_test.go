package checks

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestExternalGroundExcusesExactlyThatArgument: an argument the live run
// excused (call id and path) is passed over and named; the same value in
// another argument or another call is still judged.
func TestExternalGroundExcusesExactlyThatArgument(t *testing.T) {
	d, err := ParseDeclarations("d.yaml", []byte("tools:\n  backup_status: { argumentsFrom: [fleet_report] }\n"))
	if err != nil {
		t.Fatal(err)
	}
	frame := Frame{System: []string{"You triage machines."}, Messages: []Message{{Role: RoleUser, Content: "status of the one I picked?"}}}
	call := func(id string) ToolCall {
		return ToolCall{ID: id, Name: "backup_status", Args: json.RawMessage(`{"machine":"4417-ganymede","twin":"4417-ganymede"}`)}
	}
	for _, tc := range []struct {
		name     string
		excused  map[string]string
		findings []string
		notes    int
		want     Disposition
	}{
		{"no ground", nil, []string{"machine", "twin"}, 0, CheckedFail},
		{"one argument", map[string]string{ExcuseKey("c1", "machine"): "viewer-selection"}, []string{"twin"}, 1, CheckedFail},
		{"both arguments", map[string]string{ExcuseKey("c1", "machine"): "viewer-selection", ExcuseKey("c1", "twin"): "viewer-selection"}, nil, 2, CheckedPass},
		{"another call", map[string]string{ExcuseKey("c9", "machine"): "viewer-selection"}, []string{"machine", "twin"}, 0, CheckedFail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judgeChoice(ChoiceView{Call: CallView{Frame: frame, Iteration: 1}, Calls: []ToolCall{call("c1")}, Excused: tc.excused}, d)
			var got []string
			for _, f := range v.Findings {
				got = append(got, f.Predicate)
			}
			if strings.Join(got, ",") != strings.Join(tc.findings, ",") || v.Disposition != tc.want || len(v.Excused) != tc.notes {
				t.Fatalf("findings %v, disposition %v, excused %q; want %v, %v, %d", got, v.Disposition, v.Excused, tc.findings, tc.want, tc.notes)
			}
			for _, x := range v.Excused {
				if !strings.Contains(x, `external ground "viewer-selection"`) || !strings.Contains(x, "(call c1)") {
					t.Errorf("excusal %q does not name the call and the source", x)
				}
			}
		})
	}
}
