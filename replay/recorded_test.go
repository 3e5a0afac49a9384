package replay

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

func recI64(v int64) *int64 { return &v }

func recF64(v float64) *float64 { return &v }

func recCtxErr(payload string, stage string, line int64) recording.Event {
	return recording.Event{Type: recording.TypeContextError, Payload: json.RawMessage(payload), Meta: recording.Meta{RuntimeStageID: stage}, Line: line}
}

func recDisp(payload string) recording.Event {
	return recording.Event{Type: recording.TypeDisposition, Payload: json.RawMessage(payload), Meta: recording.Meta{RuntimeStageID: "integrity-disposition#0"}}
}

func TestRecordedFindings(t *testing.T) {
	tests := []struct {
		name  string
		event recording.Event
		want  checks.Finding
	}{
		{
			name: "corpus dangling-reference",
			event: recCtxErr(`{"kind":"dangling-reference","seam":"compose","subjects":[{"kind":"tool","id":"screen_fire"},{"kind":"tool","id":"whats_here"}],"witnesses":[{"subject":{"kind":"tool","id":"screen_fire"},"predicate":"argument-ground","value":"evicted","epoch":4,"stratum":"asserted","provenance":"window ledger"}],"epoch":4,"message":"m","iteration":4}`,
				"call-llm#88", 71),
			want: checks.Finding{
				Kind: "dangling-reference", Seam: "compose",
				Subjects: []checks.Subject{{Kind: "tool", ID: "screen_fire"}, {Kind: "tool", ID: "whats_here"}},
				Witnesses: []checks.Witness{{Subject: checks.Subject{Kind: "tool", ID: "screen_fire"}, Predicate: "argument-ground",
					Value: json.RawMessage(`"evicted"`), Epoch: recI64(4), Stratum: "asserted", Provenance: "window ledger"}},
				WitnessesRecorded: true, Epoch: recI64(4), Iteration: recI64(4), Message: "m", FiledAt: "call-llm#88", Line: 71,
			},
		},
		{
			name:  "claim with predicate, advisory and synthetic only when exactly true",
			event: recCtxErr(`{"kind":"unsupported-claim","seam":"claim","predicate":"nav","advisory":true,"synthetic":"true","subjects":[{"kind":"entity","id":"screen2"}],"witnesses":[]}`, "sf-route#43", 0),
			want: checks.Finding{Kind: "unsupported-claim", Seam: "claim", Predicate: "nav", Advisory: true,
				Subjects: []checks.Subject{{Kind: "entity", ID: "screen2"}}, Witnesses: []checks.Witness{}, WitnessesRecorded: true, FiledAt: "sf-route#43"},
		},
		{
			name:  "wrong types read as not recorded",
			event: recCtxErr(`{"kind":7,"seam":null,"predicate":["p"],"message":{"a":1},"advisory":1,"epoch":"4","iteration":1.5,"witnesses":{"n":1}}`, "", 3),
			want:  checks.Finding{Line: 3},
		},
		{
			name:  "subjects read defensively",
			event: recCtxErr(`{"subjects":[1,"x",null,{"kind":3,"id":{"b":[1, 2]}},{"id":"only-id"},{"kind":"tool"}]}`, "s", 0),
			want: checks.Finding{FiledAt: "s", Subjects: []checks.Subject{
				{Kind: "?", ID: `{"b":[1,2]}`}, {Kind: "?", ID: "only-id"}, {Kind: "tool", ID: "undefined"}}},
		},
		{
			name:  "non-object witnesses are kept so the count is the array length",
			event: recCtxErr(`{"witnesses":[3,{"runtimeStageId":"call-llm#1","synthetic":true,"epoch":-1}]}`, "", 0),
			want: checks.Finding{WitnessesRecorded: true, Witnesses: []checks.Witness{
				{Value: json.RawMessage(`3`)}, {RuntimeStageID: "call-llm#1", Synthetic: true, Epoch: recI64(-1)}}},
		},
		{
			name:  "payload not an object",
			event: recCtxErr(`[1,2]`, "call-llm#1", 9),
			want:  checks.Finding{FiledAt: "call-llm#1", Line: 9},
		},
		{
			name:  "payload not JSON at all",
			event: recCtxErr(`{"kind":`, "", 0),
			want:  checks.Finding{},
		},
		{
			name: "iteration falls back to meta.iterIndex",
			event: recording.Event{Type: recording.TypeContextError, Payload: json.RawMessage(`{"kind":"k"}`),
				Meta: recording.Meta{IterIndex: recF64(3)}},
			want: checks.Finding{Kind: "k", Iteration: recI64(3)},
		},
		{
			name: "payload iteration wins over meta.iterIndex",
			event: recording.Event{Type: recording.TypeContextError, Payload: json.RawMessage(`{"iteration":2}`),
				Meta: recording.Meta{IterIndex: recF64(3)}},
			want: checks.Finding{Iteration: recI64(2)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := Recorded([]recording.Event{tt.event})
			if len(ev.Findings) != 1 {
				t.Fatalf("got %d findings, want 1", len(ev.Findings))
			}
			// The event that carried the finding is its first evidence.
			at := []checks.Position{{What: checks.EvidenceFinding, Event: recording.TypeContextError, Line: tt.event.Line, Index: tt.event.Index}}
			if diff := cmp.Diff(at, ev.Findings[0].Evidence); diff != "" {
				t.Errorf("evidence positions (-want +got):\n%s", diff)
			}
			ev.Findings[0].Evidence = nil
			if diff := cmp.Diff(tt.want, ev.Findings[0]); diff != "" {
				t.Errorf("finding mismatch (-want +got):\n%s", diff)
			}
			if ev.IntegrityEvents != 1 || ev.Disposition != nil {
				t.Errorf("IntegrityEvents = %d, Disposition = %v", ev.IntegrityEvents, ev.Disposition)
			}
		})
	}
}

func TestRecordedDisposition(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		want    *Disposition
	}{
		{
			name:    "corpus ledger",
			payload: `{"posture":"observe","workExisted":true,"rows":[{"check":"invariant-violation","seam":"wire","checked":9,"findings":0,"notApplicable":0,"unreachable":0,"synthetic":0},{"check":"dangling-reference","seam":"compose","checked":6,"findings":6,"notApplicable":3,"unreachable":0,"lastFiredAt":1796026292760,"synthetic":0}]}`,
			want: &Disposition{Posture: "observe", WorkExisted: true, Rows: []checks.Row{
				{Check: "invariant-violation", Seam: "wire", Checked: 9},
				{Check: "dangling-reference", Seam: "compose", Checked: 6, Findings: 6, NotApplicable: 3, LastFiredAt: recF64(1796026292760)},
			}},
		},
		{
			name:    "rows absent",
			payload: `{"posture":"dev","workExisted":false}`,
			want:    &Disposition{Posture: "dev"},
		},
		{
			name:    "rows empty means no check registered",
			payload: `{"posture":"observe","workExisted":true,"rows":[]}`,
			want:    &Disposition{Posture: "observe", WorkExisted: true, Rows: []checks.Row{}},
		},
		{
			name:    "rows not an array",
			payload: `{"posture":5,"workExisted":"yes","rows":{"check":"x"}}`,
			want:    &Disposition{Posture: "unknown", RowsMalformed: true},
		},
		{
			name:    "rows null is not an array",
			payload: `{"rows":null}`,
			want:    &Disposition{Posture: "unknown", RowsMalformed: true},
		},
		{
			name:    "damaged counts count 0 and make the ledger unusable",
			payload: `{"rows":[7,{"check":1,"seam":"wire","checked":"3","findings":2.9,"notApplicable":null,"unreachable":1e400,"synthetic":-1,"lastFiredAt":"now"}]}`,
			// 7 names no check and is no row.
			want: &Disposition{Posture: "unknown", Rows: []checks.Row{{Seam: "wire"}}, Damage: []LedgerDamage{
				{Field: "payload.rows[1].checked", Problem: `is "3", not a count (a whole number from 0 to 9007199254740991)`},
				{Field: "payload.rows[1].findings", Problem: `is 2.9, not a count (a whole number from 0 to 9007199254740991): it is a fraction`},
				{Field: "payload.rows[1].notApplicable", Problem: `is null, not a count (a whole number from 0 to 9007199254740991)`},
				{Field: "payload.rows[1].unreachable", Problem: `is 1e400, not a count (a whole number from 0 to 9007199254740991): it is beyond what a producer can count exactly`},
				{Field: "payload.rows[1].synthetic", Problem: `is -1, not a count (a whole number from 0 to 9007199254740991): it is negative`},
			}},
		},
		{
			name:    "rows that are none of them objects",
			payload: `{"rows":[null,"row",[]]}`,
			want:    &Disposition{Posture: "unknown", RowsMalformed: true},
		},
		{
			name:    "the largest exact count is a count",
			payload: `{"rows":[{"check":"x","seam":"wire","checked":9007199254740991,"findings":6e0,"notApplicable":0.0,"unreachable":-0,"synthetic":1.5E1}]}`,
			want:    &Disposition{Posture: "unknown", Rows: []checks.Row{{Check: "x", Seam: "wire", Checked: 9007199254740991, Findings: 6, Synthetic: 15}}},
		},
		{
			name:    "repeated ledger keys",
			payload: `{"posture":"observe","rows":[{"check":"x","seam":"wire","checked":1,"findings":6,"findings":0}],"rows":[]}`,
			want: &Disposition{Posture: "observe", Rows: []checks.Row{}, Damage: []LedgerDamage{
				{Field: "payload.rows", Problem: "is repeated, so which value the producer meant is unknown"},
			}},
		},
		{
			name:    "payload not an object",
			payload: `"observe"`,
			want:    &Disposition{Posture: "unknown"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := Recorded([]recording.Event{recDisp(tt.payload)})
			if diff := cmp.Diff(tt.want, ev.Disposition); diff != "" {
				t.Errorf("disposition mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStrictLedgerCounts holds every spelling of a findings count that is
// not a count: read leniently, each read as 0 and turned a run whose
// finding was lost into a green one.
func TestStrictLedgerCounts(t *testing.T) {
	tests := []struct {
		value string
		why   string // "" for a count
		want  int64
	}{
		{"6", "", 6},
		{"0", "", 0},
		{"6.0", "", 6},
		{"6e0", "", 6},
		{"60e-1", "", 6},
		{"9007199254740991", "", 9007199254740991},
		{"-6", "negative", 0},
		{"9007199254740992", "beyond", 0},
		{"9007199254740993", "beyond", 0},
		{"1e21", "beyond", 0},
		{"1e999999999999999999999", "beyond", 0},
		{"1234567890123456789012345678901", "beyond", 0},
		{`"6"`, "not a count", 0},
		{"6.5", "fraction", 0},
		{"6.0000000000000001", "fraction", 0},
		{"6e-999999999999", "fraction", 0},
		{"true", "not a count", 0},
		{"null", "not a count", 0},
		{"[6]", "not a count", 0},
		{`{"n":6}`, "not a count", 0},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			payload := `{"rows":[{"check":"dangling-reference","seam":"compose","checked":6,"findings":` + tt.value + `}]}`
			ev := Recorded([]recording.Event{{Type: recording.TypeDisposition, Payload: json.RawMessage(payload), Line: 12}})
			d := ev.Disposition
			if got := d.Rows[0].Findings; got != tt.want {
				t.Errorf("findings = %d, want %d", got, tt.want)
			}
			if tt.why == "" {
				if len(d.Damage) != 0 {
					t.Errorf("a count read as damage: %v", d.Damage)
				}
				return
			}
			if len(d.Damage) != 1 {
				t.Fatalf("damage = %v, want one", d.Damage)
			}
			got := d.Damage[0].String()
			if !strings.HasPrefix(got, "line 12: payload.rows[0].findings is ") || !strings.Contains(got, tt.why) {
				t.Errorf("damage = %q, want line, field and %q", got, tt.why)
			}
		})
	}
	repeated := `{"rows":[{"check":"c","seam":"s","checked":6,"findings":6,"findings":0}]}`
	d := Recorded([]recording.Event{{Type: recording.TypeDisposition, Payload: json.RawMessage(repeated), Line: 3}}).Disposition
	if len(d.Damage) != 1 || d.Damage[0].String() != "line 3: payload.rows[0].findings is repeated, so which value the producer meant is unknown" {
		t.Errorf("repeated key: damage = %v", d.Damage)
	}
}

func TestRecordedOrderAndLastDisposition(t *testing.T) {
	events := []recording.Event{
		{Type: recording.TypeRunConfigured, Payload: json.RawMessage(`{}`)},
		recCtxErr(`{"kind":"a"}`, "", 2),
		recDisp(`{"posture":"observe","rows":[]}`),
		recCtxErr(`{"kind":"b","synthetic":true}`, "", 4),
		{Type: "vendor.unknown", Payload: json.RawMessage(`{"kind":"c"}`)},
		recDisp(`{"posture":"dev","rows":[]}`),
	}
	ev := Recorded(events)
	var kinds []string
	for _, f := range ev.Findings {
		kinds = append(kinds, f.Kind)
	}
	if diff := cmp.Diff([]string{"a", "b"}, kinds); diff != "" {
		t.Errorf("finding order (-want +got):\n%s", diff)
	}
	if !ev.Findings[1].Synthetic {
		t.Errorf("synthetic finding not flagged")
	}
	if ev.Disposition == nil || ev.Disposition.Posture != "dev" {
		t.Errorf("want the last disposition, got %+v", ev.Disposition)
	}
	if ev.IntegrityEvents != 4 {
		t.Errorf("IntegrityEvents = %d, want 4", ev.IntegrityEvents)
	}
	if empty := Recorded(nil); empty == nil || empty.IntegrityEvents != 0 || empty.Disposition != nil || empty.Findings != nil {
		t.Errorf("Recorded(nil) = %+v", empty)
	}
}

// FuzzRecorded feeds arbitrary payload bytes to both integrity event types:
// whatever a foreign or damaged tail holds, Recorded must not panic and must
// account for every integrity event.
func FuzzRecorded(f *testing.F) {
	seeds := []string{
		`{"kind":"dangling-reference","seam":"compose","subjects":[{"kind":"tool","id":"a"}],"witnesses":[{"subject":{"kind":"tool","id":"a"},"epoch":4}],"epoch":4,"iteration":4,"message":"m"}`,
		`{"posture":"observe","workExisted":true,"rows":[{"check":"x","seam":"wire","checked":1,"lastFiredAt":1.5e12}]}`,
		`{"rows":[1,null,{"checked":1e309}]}`,
		`{"subjects":[{"id":{"deep":[[[]]]}}],"witnesses":[null,"s",{"subject":5}]}`,
		`null`, `[]`, `"x"`, ``, `{`, `{"epoch":-9.3e18,"iteration":9.3e18}`,
		`{"\u006bind":"k","kind":"\ud800","rows":[{"check":"a","check":"b","findings":6,"findings":0}],"posture":"x","posture":1}`,
		`{"rows":[{"checked":1}]} `, `{"rows":[{"checked":1}]}}`, `{"witnesses":[{"value":  [1, 2] ,"subject":{"id":"\u00e9\xff"}}]}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s), 2.0)
	}
	f.Fuzz(func(t *testing.T, payload []byte, iter float64) {
		meta := recording.Meta{IterIndex: &iter, RuntimeStageID: "s"}
		events := []recording.Event{
			{Type: recording.TypeContextError, Payload: payload, Meta: meta},
			{Type: recording.TypeDisposition, Payload: payload, Meta: meta},
		}
		ev := Recorded(events)
		if diff := cmp.Diff(recorded(events, true), ev); diff != "" {
			t.Fatalf("the fast reading of %q differs from the full one (-full +fast):\n%s", payload, diff)
		}
		if ev == nil || ev.IntegrityEvents != 2 || len(ev.Findings) != 1 || ev.Disposition == nil {
			t.Fatalf("evidence not accounted for: %+v", ev)
		}
		d := ev.Disposition
		if d.RowsMalformed && d.Rows != nil {
			t.Fatalf("malformed rows with a rows slice")
		}
		_ = ev.Findings[0].Identity()
	})
}
