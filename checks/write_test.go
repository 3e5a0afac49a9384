package checks

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadLookupResult(t *testing.T) {
	tests := []struct {
		result        string
		judged, empty bool
	}{
		{`[]`, true, true},
		{`[{"job":"bkp-1"}]`, true, false},
		{`null`, true, true},
		{`""`, true, true},
		{`"   "`, true, true},
		{`"[]"`, true, true},
		{`" {\"records\": []} "`, true, true},
		{`{}`, true, true},
		{`{"records":[],"total":0}`, true, true},
		{`{"records":[{"id":1}],"total":1}`, true, false},
		{`{"records":[],"other":[]}`, false, false},
		{`{"records":[],"meta":{"page":1}}`, false, false},
		{`{"af_absent":true,"looked_for":{"machine":"x"}}`, true, true},
		{`{"af_semantics":true,"facts":[],"provenance":{"source":"s"}}`, true, true},
		{`{"af_semantics":true,"facts":[{"entity":"e","v":1}]}`, true, false},
		{`{"status":"ok"}`, false, false},
		{`"no backup record for 4417-ganymede"`, false, false},
		{`"not found"`, false, false},
		{`0`, false, false},
		{`not json`, false, false},
	}
	for _, tc := range tests {
		r := ReadLookupResult(json.RawMessage(tc.result))
		if r.Judged != tc.judged || r.Empty != tc.empty {
			t.Errorf("ReadLookupResult(%s) = judged %v empty %v (%s), want %v %v", tc.result, r.Judged, r.Empty, r.Shape, tc.judged, tc.empty)
		}
		if r.Judged && r.Shape == "" {
			t.Errorf("ReadLookupResult(%s): a judged result names its shape", tc.result)
		}
	}
}

func TestKeyArguments(t *testing.T) {
	served := []ServedResult{
		{Tool: "", CallID: "old", Text: "carried over: 9001-io"},
		{Tool: "fleet_report", CallID: "c1", Text: "FLEET: 4417-Ganymede (online), europa-03 (online)"},
		{Tool: "other", CallID: "c2", Text: "callisto-02"},
	}
	keys, err := KeyArguments(json.RawMessage(`{"machine":"4417-ganymede","count":3,"note":"yes","hosts":["callisto-02","9001-io"]}`), []string{"fleet_report"}, served)
	if err != nil {
		t.Fatal(err)
	}
	type short struct {
		Path, Value, By string
		Unnamed         bool
	}
	var got []short
	for _, k := range keys {
		s := short{Path: k.Path, Value: k.Value, Unnamed: k.InUnnamedResult}
		if k.ProducedBy != nil {
			s.By = k.ProducedBy.Tool + "/" + k.ProducedBy.CallID
		}
		got = append(got, s)
	}
	want := []short{
		{Path: "machine", Value: "4417-ganymede", By: "fleet_report/c1"},
		{Path: "hosts.0", Value: "callisto-02"},
		{Path: "hosts.1", Value: "9001-io", Unnamed: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func lookupView(result string, keys ...KeyArgument) WriteView {
	return WriteView{Iteration: 2, Stage: "tool-calls#9", Call: ToolCall{ID: "c2", Name: "backup_status"}, CallRecorded: true,
		Result: json.RawMessage(result), Tool: &ToolDecl{Name: "backup_status", ArgumentsFrom: []string{"fleet_report"}},
		Keys: keys, GroundsServed: []string{"fleet_report"}}
}

func TestEmptyLookup(t *testing.T) {
	produced := KeyArgument{Path: "machine", Value: "4417-ganymede", ProducedBy: &ServedResult{Tool: "fleet_report", CallID: "c1"}}
	supplied := KeyArgument{Path: "machine", Value: "9001-io"}
	unnamed := KeyArgument{Path: "machine", Value: "9001-io", InUnnamedResult: true}
	tests := []struct {
		name     string
		view     WriteView
		want     Disposition
		findings int
	}{
		{"run-produced id, empty rowset", lookupView(`[]`, produced), CheckedFail, 1},
		{"user-supplied id, empty rowset", lookupView(`[]`, supplied), CheckedPass, 0},
		{"run-produced id, rows found", lookupView(`[{"job":"bkp-4417"}]`, produced), CheckedPass, 0},
		{"prose is never judged", lookupView(`"no backup record for 4417-ganymede"`, produced), NotApplicable, 0},
		{"a failed call", func() WriteView { v := lookupView(`[]`, produced); v.Error = true; return v }(), NotApplicable, 0},
		{"no result recorded", func() WriteView { v := lookupView(`[]`, produced); v.Result = nil; return v }(), Unreachable, 0},
		{"no ground served anything", func() WriteView { v := lookupView(`[]`, produced); v.GroundsServed = nil; return v }(), Unreachable, 0},
		{"only in unnamed results", lookupView(`[]`, unnamed), Unreachable, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := emptyLookupOf(tc.view)
			if v.Disposition != tc.want || len(v.Findings) != tc.findings {
				t.Fatalf("%v with %d findings (%v), want %v with %d", v.Disposition, len(v.Findings), v.Reasons, tc.want, tc.findings)
			}
			for _, f := range v.Findings {
				if !f.Advisory || f.Identity() != "empty-lookup @write [tool backup_status + tool fleet_report] machine " {
					t.Errorf("finding %s advisory %v", f.Identity(), f.Advisory)
				}
				for _, s := range []string{"4417-ganymede", "fleet_report", "a list with no items", EmptyLookupCeiling, "Call id c2"} {
					if !strings.Contains(f.Message, s) {
						t.Errorf("message %q does not say %q", f.Message, s)
					}
				}
			}
		})
	}
	d := &Declarations{Tools: []ToolDecl{{Name: "backup_status", ArgumentsFrom: []string{"fleet_report"}}}, Dials: Dials{NoticeEmptyLookups: boolPtr(true)}}
	if !EmptyLookup.Armed(d) || !d.EmptyLookupsOn(&d.Tools[0]) {
		t.Error("the global dial arms every argumentsFrom tool")
	}
	d.Tools[0].NoticeEmptyLookups = boolPtr(false)
	if EmptyLookup.Armed(d) {
		t.Error("a tool's own false wins over the dial")
	}
	d = &Declarations{Tools: []ToolDecl{{Name: "backup_status", NoticeEmptyLookups: boolPtr(true)}}}
	if EmptyLookup.Armed(d) {
		t.Error("noticeEmptyLookups without argumentsFrom arms nothing")
	}
}

func columnsView(result string, cols ...ColumnDecl) WriteView {
	return WriteView{Iteration: 1, Stage: "tool-calls#7", Call: ToolCall{ID: "call-1", Name: "host_group_mappings"}, CallRecorded: true,
		Result: json.RawMessage(result), Tool: &ToolDecl{Name: "host_group_mappings", ResultColumns: cols}}
}

func TestColumnTypes(t *testing.T) {
	lun := ColumnDecl{Name: "logical_unit_number", Type: "number"}
	group := ColumnDecl{Name: "host_group", Type: "string"}
	warn := &Declarations{Dials: Dials{CheckColumnTypes: ColumnsWarn}}
	tests := []struct {
		name              string
		view              WriteView
		mismatch, missing []string // identities' predicates
		says              []string
		notApplicable     bool
	}{
		{"LUN 0 stored as an empty string", columnsView(`[{"logical_unit_number":"","host_group":"vdi-a"},{"logical_unit_number":3,"host_group":"vdi-a"}]`, lun, group),
			[]string{"logical_unit_number"}, nil, []string{"'host_group_mappings' declares column 'logical_unit_number' as number, and 1 of 2 rows hold something else; the first is \"\" (string).", ColumnTypeCeiling, "Call id call-1", "Nothing was blocked"}, false},
		{"LUN 0 as a number passes", columnsView(`[{"logical_unit_number":0,"host_group":"vdi-a"}]`, lun, group), nil, nil, nil, false},
		{"quoted numbers", columnsView(`[{"logical_unit_number":"1240","host_group":"a"},{"logical_unit_number":"77","host_group":"a"}]`, lun),
			[]string{"logical_unit_number"}, nil, []string{"2 of 2 rows", `"1240" (string)`}, false},
		{"8 MiB shown as 0.0 GB is a number: not caught", columnsView(`[{"disk":"d1","size_gb":0.0}]`, ColumnDecl{Name: "size_gb", Type: "number"}), nil, nil, nil, false},
		{"null without nullable names the fix", columnsView(`[{"comment":null}]`, ColumnDecl{Name: "comment", Type: "string"}),
			[]string{"comment"}, nil, []string{"null (null)", "nullable: true"}, false},
		{"a missing key in some rows", columnsView(`[{"comment":"x"},{"other":1}]`, ColumnDecl{Name: "comment", Type: "string"}),
			[]string{"comment"}, nil, []string{"no such key (missing)", "nullable: true"}, false},
		{"nullable allows nothing", columnsView(`[{"comment":null},{"other":1},{"comment":"x"}]`, ColumnDecl{Name: "comment", Type: "string", Nullable: true}), nil, nil, nil, false},
		{"a column in no row is missing even when nullable", columnsView(`[{"host_group":"a"}]`, ColumnDecl{Name: "comment", Type: "string", Nullable: true}, group),
			nil, []string{"comment"}, []string{"none of the 1 row it returned carries it", ColumnTypeCeiling}, false},
		{"both kinds at once, about different columns", columnsView(`[{"logical_unit_number":"","host_group":"a"}]`, lun, ColumnDecl{Name: "array", Type: "string"}),
			[]string{"logical_unit_number"}, []string{"array"}, nil, false},
		{"unlisted columns are never judged", columnsView(`[{"logical_unit_number":1,"extra":"x"}]`, lun), nil, nil, nil, false},
		{"dates", columnsView(`[{"d":"2024-05-01"},{"d":"2024-05-01T08:30:00Z"},{"d":"2024-02-30"},{"d":1714550400}]`, ColumnDecl{Name: "d", Type: "date"}),
			[]string{"d"}, nil, []string{"2 of 4 rows", `"2024-02-30" (string)`}, false},
		{"booleans", columnsView(`[{"ok":true},{"ok":"true"}]`, ColumnDecl{Name: "ok", Type: "boolean"}), []string{"ok"}, nil, nil, false},
		{"a string holding an array is not judged", columnsView(`"[{\"logical_unit_number\":\"\"}]"`, lun), nil, nil, nil, true},
		{"an absence after another offender still names the fix", columnsView(`[{"n":"x"},{"n":null},{"other":1}]`, ColumnDecl{Name: "n", Type: "number"}),
			[]string{"n"}, nil, []string{`the first is "x" (string)`, "2 of the 3 offending rows carry no value", "nullable: true"}, false},
		{"one absence among offenders", columnsView(`[{"n":"x"},{"n":null}]`, ColumnDecl{Name: "n", Type: "number"}),
			[]string{"n"}, nil, []string{"1 of the 2 offending rows carries no value", "nullable: true"}, false},
		{"only absences", columnsView(`[{"n":null},{"other":1}]`, ColumnDecl{Name: "n", Type: "number"}),
			[]string{"n"}, nil, []string{"All 2 offending rows carry no value", "nullable: true"}, false},
		{"zero rows are not judged", columnsView(`[]`, lun), nil, nil, nil, true},
		{"a wrapper object is not judged", columnsView(`{"rows":[{"logical_unit_number":""}]}`, lun), nil, nil, nil, true},
		{"a list of strings is not judged", columnsView(`["a","b"]`, lun), nil, nil, nil, true},
		{"prose is not judged", columnsView(`"3 mappings"`, lun), nil, nil, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, check := range []*Check{ColumnTypeMismatch, MissingColumn} {
				v := check.OnWrite(tc.view, warn)
				want := tc.mismatch
				if check == MissingColumn {
					want = tc.missing
				}
				var got []string
				for _, f := range v.Findings {
					got = append(got, f.Predicate)
					if f.Kind != check.Kind || f.Advisory || f.FiledAt != "tool-calls#7" || f.Subjects[0] != toolSubject("host_group_mappings") {
						t.Errorf("%s finding %+v", check.Kind, f)
					}
					for _, s := range tc.says {
						if !strings.Contains(f.Message, s) {
							t.Errorf("%s message %q does not say %q", check.Kind, f.Message, s)
						}
					}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s predicates (-want +got):\n%s", check.Kind, diff)
				}
				switch {
				case tc.notApplicable && v.Disposition != NotApplicable:
					t.Errorf("%s: %v, want not-applicable", check.Kind, v.Disposition)
				case !tc.notApplicable && len(want) > 0 && v.Disposition != CheckedFail:
					t.Errorf("%s: %v, want checked-fail", check.Kind, v.Disposition)
				case !tc.notApplicable && len(want) == 0 && v.Disposition != CheckedPass:
					t.Errorf("%s: %v, want checked-pass", check.Kind, v.Disposition)
				}
			}
		})
	}
	enforce := &Declarations{Dials: Dials{CheckColumnTypes: ColumnsEnforce}}
	v := ColumnTypeMismatch.OnWrite(columnsView(`[{"logical_unit_number":""},{"logical_unit_number":""}]`, lun, ColumnDecl{Name: "array", Type: "string"}), enforce)
	msg := v.Findings[0].Message
	refusal := "Result refused: host_group_mappings returned rows that disagree with the columns it declares: 'logical_unit_number' is declared number and 2 of 2 rows hold string (first: \"\"); 'array' is declared string and is in no row. Fix the tool so each column holds what it declares, or change the declaration. No data was returned."
	if want := refusal + " " + ColumnTypeCeiling + " Call id call-1."; msg != want {
		t.Errorf("under enforce the message is the refusal itself:\n got %q\nwant %q", msg, want)
	}
	for _, v := range []Verdict{MissingColumn.OnWrite(columnsView(`[{"logical_unit_number":""}]`, lun, ColumnDecl{Name: "array", Type: "string"}), enforce)} {
		if len(v.Findings) != 1 || !strings.HasPrefix(v.Findings[0].Message, "Result refused: ") {
			t.Errorf("missing-column under enforce: %+v", v.Findings)
		}
	}
	// A result the library refused under enforce holds no rows: the
	// encounter is unreachable, for both checks, under either dial.
	refused := columnsView(`"Result rejected: host_group_mappings returned rows that disagree with the columns it declares \u2014 'logical_unit_number' is declared number and 2 of 2 rows hold string (first: \"\"). Fix the tool so the column holds what it declares, or change the declaration. No data was returned."`, lun)
	for _, d := range []*Declarations{warn, enforce} {
		for _, check := range []*Check{ColumnTypeMismatch, MissingColumn} {
			v := check.OnWrite(refused, d)
			if v.Disposition != Unreachable || len(v.Findings) != 0 || len(v.Reasons) != 1 || !strings.HasPrefix(v.Reasons[0], "the rows were refused under enforce") {
				t.Errorf("%s under %s: a refused result gave %+v", check.Kind, d.Dials.CheckColumnTypes, v)
			}
		}
	}
	for _, notRefusal := range []string{`"Result rejected: other_tool returned rows that disagree with the columns it declares"`, `"Result rejected: host_group_mappings is too large"`, `["Result rejected: host_group_mappings returned rows that disagree with the columns it declares"]`} {
		if ColumnRefusal("host_group_mappings", json.RawMessage(notRefusal)) {
			t.Errorf("%s read as a refusal of host_group_mappings", notRefusal)
		}
	}
	if v := ColumnTypeMismatch.OnWrite(columnsView(`[]`, lun), warn); v.None || v.Disposition != NotApplicable {
		t.Errorf("an empty result is a not-applicable row, got %+v", v)
	}
	other := columnsView(`[{"x":""}]`)
	other.Tool = &ToolDecl{Name: "host_group_mappings"}
	if v := ColumnTypeMismatch.OnWrite(other, warn); !v.None {
		t.Error("a tool without resultColumns is no encounter")
	}
	for _, dial := range []string{"", ColumnsOff} {
		d := &Declarations{Tools: []ToolDecl{{Name: "t", ResultColumns: []ColumnDecl{lun}}}, Dials: Dials{CheckColumnTypes: dial}}
		if ColumnTypeMismatch.Armed(d) || MissingColumn.Armed(d) {
			t.Errorf("dial %q must leave the column checks unarmed", dial)
		}
	}
	if ColumnTypeMismatch.Armed(warn) {
		t.Error("the dial without a declaration arms nothing")
	}
}

func TestIsISODate(t *testing.T) {
	for s, want := range map[string]bool{
		"2024-05-01": true, "2024-05-01T08:30": true, "2024-05-01T08:30:00.123Z": true, "2024-05-01 08:30:00+02:00": true,
		"2024-02-29": true, "2023-02-29": false, "2024-13-01": false, "2024-05-01T24:00": false, "01/05/2024": false,
		"2024": false, "2024-05-01T08:30:00Zjunk": false, "": false,
	} {
		if got := IsISODate(s); got != want {
			t.Errorf("IsISODate(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestEmptyLookupReadsTheCallersReading: a result read by the caller
// (WriteView.Lookup) is judged as the check reads it itself, whatever its
// shape, and the keys of a result that is not an empty lookup are never
// read.
func TestEmptyLookupReadsTheCallersReading(t *testing.T) {
	ground := &ServedResult{Tool: "fleet_report", CallID: "f1", Text: "host-0001 online"}
	base := WriteView{Iteration: 2, Call: ToolCall{ID: "c1", Name: "backup_status"}, CallRecorded: true,
		Tool: &ToolDecl{Name: "backup_status", ArgumentsFrom: []string{"fleet_report"}}, GroundsServed: []string{"fleet_report"}}
	keys := []KeyArgument{{Path: "machine", Value: "host-0001", ProducedBy: ground}}
	for _, result := range []string{`[]`, `{"items":[]}`, `"[]"`, `null`, `""`, `[1]`, `{"host":"x"}`, `"prose"`, `42`, `"{\"rows\":[]}"`} {
		for _, errored := range []bool{false, true} {
			v := base
			v.Result, v.Error, v.Keys = json.RawMessage(result), errored, keys
			want := emptyLookupOf(v)
			r := ReadLookupResult(v.Result)
			v.Lookup = &r
			if diff := cmp.Diff(want, emptyLookupOf(v)); diff != "" {
				t.Errorf("%s (error %v): verdict with the caller's reading (-own +caller's):\n%s", result, errored, diff)
			}
			if !r.Judged || !r.Empty || errored {
				v.Keys, v.KeysProblem = nil, "keys read where they decide nothing"
				if diff := cmp.Diff(want, emptyLookupOf(v)); diff != "" {
					t.Errorf("%s (error %v): keys of a result that is no empty lookup were read (-want +got):\n%s", result, errored, diff)
				}
			}
		}
	}
}
