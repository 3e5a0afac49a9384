package checks

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const designExample = `tools:
  backup_status: { argumentsFrom: [fleet_report], noticeEmptyLookups: true }
  host_group_mappings:
    resultColumns:
      logical_unit_number: number          # number | string | boolean | date
      comment: { type: string, nullable: true }
claims:                                    # answer field -> settled fact
  nav_count: { entity: screen2, field: nav }
maps:
  - { id: billing, tools: [charge_card, refund] }
dials:
  checkColumnTypes: warn                   # off | warn | enforce
  noticeEmptyLookups: true
  noticePriorTurnEvidence: true
  namesAndNumbers: { minDigits: 4 }
posture: observe                           # observe | dev
`

const designExampleJSON = `{
	"tools": {
		"backup_status": {"argumentsFrom": ["fleet_report"], "noticeEmptyLookups": true},
		"host_group_mappings": {"resultColumns": {"logical_unit_number": "number", "comment": {"type": "string", "nullable": true}}}
	},
	"claims": {"nav_count": {"entity": "screen2", "field": "nav"}},
	"maps": [{"id": "billing", "tools": ["charge_card", "refund"]}],
	"dials": {"checkColumnTypes": "warn", "noticeEmptyLookups": true, "noticePriorTurnEvidence": true, "namesAndNumbers": {"minDigits": 4}},
	"posture": "observe"
}`

func boolPtr(b bool) *bool { return &b }
func intPtr(n int) *int    { return &n }

func designDeclarations(source string) *Declarations {
	return &Declarations{
		Source: source,
		Tools: []ToolDecl{
			{Name: "backup_status", ArgumentsFrom: []string{"fleet_report"}, NoticeEmptyLookups: boolPtr(true)},
			{Name: "host_group_mappings", ResultColumns: []ColumnDecl{
				{Name: "logical_unit_number", Type: "number"},
				{Name: "comment", Type: "string", Nullable: true},
			}},
		},
		Claims: []ClaimDecl{{AnswerField: "nav_count", Entity: "screen2", Field: "nav"}},
		Maps:   []MapDecl{{ID: "billing", Tools: []string{"charge_card", "refund"}}},
		Dials: Dials{
			CheckColumnTypes:        "warn",
			NoticeEmptyLookups:      boolPtr(true),
			NoticePriorTurnEvidence: boolPtr(true),
			NamesAndNumbers:         &NamesAndNumbers{MinDigits: intPtr(4)},
		},
		Posture: "observe",
	}
}

func TestParseDeclarations(t *testing.T) {
	tests := []struct {
		name, source, in string
		want             *Declarations
	}{
		{"design example in YAML", "d.yaml", designExample, designDeclarations("d.yaml")},
		{"the same in JSON, tab-indented", "d.json", designExampleJSON, designDeclarations("d.json")},
		{"empty input declares nothing", "e.yaml", "", &Declarations{Source: "e.yaml"}},
		{"a null document declares nothing", "n.yaml", "~\n", &Declarations{Source: "n.yaml"}},
		{"a tool that says nothing", "t.yaml", "tools:\n  lookup: {}\n  other:\n", &Declarations{Source: "t.yaml", Tools: []ToolDecl{{Name: "lookup"}, {Name: "other"}}}},
		{"source order is kept and repeats dropped", "o.yaml", "tools:\n  zeta: {argumentsFrom: [b, a, b]}\n  alpha: {argumentsFrom: [c]}\n",
			&Declarations{Source: "o.yaml", Tools: []ToolDecl{{Name: "zeta", ArgumentsFrom: []string{"b", "a"}}, {Name: "alpha", ArgumentsFrom: []string{"c"}}}}},
		{"aliases are followed", "a.yaml", "tools:\n  x: {argumentsFrom: &g [ground]}\n  y: {argumentsFrom: *g}\n",
			&Declarations{Source: "a.yaml", Tools: []ToolDecl{{Name: "x", ArgumentsFrom: []string{"ground"}}, {Name: "y", ArgumentsFrom: []string{"ground"}}}}},
		{"dev posture", "p.yaml", "posture: dev\n", &Declarations{Source: "p.yaml", Posture: "dev"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDeclarations(tc.source, []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseDeclarationsRefusals(t *testing.T) {
	tests := []struct {
		name, in    string
		tool, field string
		line        int
		says        []string
	}{
		{"argumentsFrom empty", "tools:\n  backup_status: { argumentsFrom: [] }\n", "backup_status", "argumentsFrom", 2, []string{"names nothing", "list at least one tool"}},
		{"argumentsFrom null", "tools:\n  backup_status:\n    argumentsFrom:\n", "backup_status", "argumentsFrom", 3, []string{"names nothing"}},
		{"argumentsFrom blank entry", "tools:\n  backup_status: { argumentsFrom: [fleet_report, ''] }\n", "backup_status", "argumentsFrom", 2, []string{"blank entry at position 2"}},
		{"argumentsFrom nested list", "tools:\n  backup_status: { argumentsFrom: [[fleet_report]] }\n", "backup_status", "argumentsFrom", 2, []string{"has a list at position 1, not a tool name", "not [[a, b]]"}},
		{"argumentsFrom mapping entry", "tools:\n  backup_status:\n    argumentsFrom:\n      - fleet_report\n      - { name: x }\n", "backup_status", "argumentsFrom", 5, []string{"has a mapping at position 2, not a tool name"}},
		{"map tools nested list", "maps:\n  - { id: b, tools: [a, [c]] }\n", "", "maps.tools", 2, []string{"has a list at position 2"}},
		{"argumentsFrom names itself", "tools:\n  backup_status: { argumentsFrom: [backup_status] }\n", "backup_status", "argumentsFrom", 2, []string{"names the tool itself"}},
		{"argumentsFrom not a list", "tools:\n  backup_status: { argumentsFrom: fleet_report }\n", "backup_status", "argumentsFrom", 2, []string{"must be a list"}},
		{"unknown tool key", "tools:\n  backup_status: { argumentFrom: [x] }\n", "backup_status", "argumentFrom", 2, []string{`unknown key "argumentFrom"`, "docs/declarations.md"}},
		{"column type unknown", "tools:\n  hosts:\n    resultColumns:\n      lun: integer\n", "hosts", "resultColumns.lun", 4, []string{`type "integer"`, "number, string, boolean or date"}},
		{"column without type", "tools:\n  hosts:\n    resultColumns:\n      comment: { nullable: true }\n", "hosts", "resultColumns.comment.type", 4, []string{"declares no type"}},
		{"no columns", "tools:\n  hosts: { resultColumns: {} }\n", "hosts", "resultColumns", 2, []string{"names no column"}},
		{"bool not a bool", "tools:\n  t: { noticeEmptyLookups: yes }\n", "t", "noticeEmptyLookups", 2, []string{"true or false"}},
		{"claim blank entity", "claims:\n  nav_count: { entity: '', field: nav }\n", "", "claims.nav_count.entity", 2, []string{"blank entity"}},
		{"claim missing field", "claims:\n  nav_count: { entity: screen2 }\n", "", "claims.nav_count.field", 2, []string{"blank field"}},
		{"claim unknown key", "claims:\n  nav_count: { entity: s, field: f, unit: x }\n", "", "claims.nav_count.unit", 2, []string{`unknown key "unit"`}},
		{"map without id", "maps:\n  - { tools: [a] }\n", "", "maps.id", 2, []string{"map #1 has no id"}},
		{"map without tools", "maps:\n  - { id: billing }\n", "", "maps.tools", 2, []string{`map "billing" lists no tools`}},
		{"map with empty tools", "maps:\n  - { id: billing, tools: [] }\n", "", "maps.tools", 2, []string{"names nothing"}},
		{"map declared twice", "maps:\n  - { id: b, tools: [a] }\n  - { id: b, tools: [c] }\n", "", "maps.id", 3, []string{"declared twice"}},
		{"maps not a list", "maps: { id: b }\n", "", "maps", 1, []string{"must be a list"}},
		{"dial value unknown", "dials:\n  checkColumnTypes: loud\n", "", "dials.checkColumnTypes", 2, []string{`"loud"`, "off, warn or enforce"}},
		{"dial unknown", "dials:\n  strict: true\n", "", "dials.strict", 2, []string{`unknown key "strict"`}},
		{"minDigits not positive", "dials:\n  namesAndNumbers: { minDigits: 0 }\n", "", "dials.namesAndNumbers.minDigits", 2, []string{"at least 1"}},
		{"posture unknown", "posture: prod\n", "", "posture", 1, []string{`"prod"`, "observe or dev"}},
		{"unknown top-level key", "tool:\n  x: {}\n", "", "tool", 1, []string{`unknown key "tool"`}},
		{"duplicate key", "tools:\n  a: {}\n  a: {}\n", "", "tools.a", 3, []string{"twice"}},
		{"not a mapping", "- a\n- b\n", "", "", 1, []string{"must be a mapping"}},
		{"syntax error without a line", "tools: {a: [}\n", "", "", 0, []string{"neither valid YAML nor valid JSON"}},
		{"syntax error with a line", "a:\n  b: c\n d: e\n", "", "", 2, []string{"neither valid YAML nor valid JSON"}},
		{"a tab-indented key", "tools:\n\tscreen_fire:\n    argumentsFrom: [a]\n", "", "", 2, []string{"indented with a tab", "spaces only", "cannot start any token"}},
		{"a tab-indented list item", "tools:\n  t:\n    argumentsFrom:\n  \t- a\n", "", "", 4, []string{"indented with a tab"}},
		{"a tab-indented first line", "\t- x\n", "", "", 1, []string{"indented with a tab"}},
		{"a second document", "tools:\n  a: {}\n---\nposture: dev\n", "", "", 4, []string{"second YAML document", "merge the two"}},
		{"a third document after a comment", "posture: observe\n---\n# nothing\n---\ntools:\n  a: {}\n", "", "", 5, []string{"second YAML document"}},
		{"a third document after a null one", "posture: observe\n--- ~\n---\ntools:\n  a: {}\n", "", "", 4, []string{"second YAML document"}},
		{"a document after end markers", "tools:\n  a: {}\n...\n---\n...\n---\n---\nposture: dev\n", "", "", 8, []string{"second YAML document"}},
		{"alias amplification", aliasBomb(), "", "", 2, []string{"more than 1000000 entries", "alias"}},
		{"JSON with a long key, refused by line", "{\n  \"tools\": {\n    \"" + strings.Repeat("t", 2000) + "\": {\"argumentFrom\": [\"x\"]}\n  }\n}\n", strings.Repeat("t", 2000), "argumentFrom", 3, []string{`unknown key "argumentFrom"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDeclarations("decl.yaml", []byte(tc.in))
			var de *DeclarationError
			if !errors.As(err, &de) {
				t.Fatalf("want a *DeclarationError, got %v", err)
			}
			if de.Tool != tc.tool || de.Field != tc.field || de.Line != tc.line {
				t.Errorf("tool %q field %q line %d, want %q %q %d", de.Tool, de.Field, de.Line, tc.tool, tc.field, tc.line)
			}
			for _, s := range tc.says {
				if !strings.Contains(de.Error(), s) {
					t.Errorf("%q does not say %q", de.Error(), s)
				}
			}
			if !strings.HasPrefix(de.Error(), "decl.yaml:") {
				t.Errorf("%q does not name the file", de.Error())
			}
			if strings.Count(strings.TrimSuffix(de.Message, "."), ". ") > 0 {
				t.Errorf("%q is more than one sentence", de.Message)
			}
		})
	}
}

// aliasBomb is some 40 KB of YAML whose aliases expand to two million
// names: a thousand tools each ground on one list of 2,000 names.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("tools:\n  t0: {argumentsFrom: &grounds [" + strings.ReplaceAll(manyNames(2000), "t", "g") + "]}\n")
	for i := 1; i < 1000; i++ {
		fmt.Fprintf(&b, "  t%d: {argumentsFrom: *grounds}\n", i)
	}
	return b.String()
}

// TestParseDeclarationsAcceptsJSONAndYAMLEdges: what the YAML parser alone
// refused or ignored.
func TestParseDeclarationsAcceptsJSONAndYAMLEdges(t *testing.T) {
	long := strings.Repeat("very_long_tool_name_", 60) // 1,200 characters
	tests := []struct {
		name, in string
		tools    []string
	}{
		{"JSON key longer than 1,024 characters", `{"tools": {"` + long + `": {"argumentsFrom": ["fleet_report"]}}}`, []string{long}},
		{"an empty second document", "tools:\n  a: {}\n---\n", []string{"a"}},
		{"a document end marker", "tools:\n  a: {}\n...\n", []string{"a"}},
		{"empty documents to the end", "tools:\n  a: {}\n---\n# nothing\n--- ~\n---\n...\n", []string{"a"}},
		{"many distinct names", "tools:\n  a: {argumentsFrom: [" + manyNames(50000) + "]}\n", []string{"a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseDeclarations("decl", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range d.Tools {
				names = append(names, tool.Name)
			}
			if strings.Join(names, ",") != strings.Join(tc.tools, ",") {
				t.Errorf("tools %q, want %q", names, tc.tools)
			}
		})
	}
}

func manyNames(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("t%d", i)
	}
	return strings.Join(names, ", ")
}

func TestFromRecording(t *testing.T) {
	tests := []struct {
		name, payload string
		want          *Declarations
		wantErr       bool
	}{
		{"agentfootprint 9.62.0 declares nothing", `{"agentId":"agent","llm":{"provider":"mock"},"reactMode":"dynamic","memories":[]}`, nil, false},
		{"integrity in the payload", `{"agentId":"agent","integrity":{"tools":{"s":{"argumentsFrom":["w"]}}}}`,
			&Declarations{Source: RecordingDeclarationsSource, Tools: []ToolDecl{{Name: "s", ArgumentsFrom: []string{"w"}}}}, false},
		{"the integrity object itself", `{"maps":[{"id":"m","tools":["t"]}]}`,
			&Declarations{Source: RecordingDeclarationsSource, Maps: []MapDecl{{ID: "m", Tools: []string{"t"}}}}, false},
		{"integrity null", `{"agentId":"a","integrity":null}`, nil, false},
		{"not an object", `"text"`, nil, false},
		{"integrity not an object", `{"agentId":"a","integrity":[1]}`, nil, true},
		{"integrity refused", `{"integrity":{"posture":"loud"}}`, nil, true},
		{"integrity repeated, the last kept", `{"integrity":{"posture":"loud"},"integrity":{"posture":"dev"}}`,
			&Declarations{Source: RecordingDeclarationsSource, Posture: "dev"}, false},
		{"an escaped key", `{"agentId":"a","\u0069ntegrity":{"posture":"dev"}}`,
			&Declarations{Source: RecordingDeclarationsSource, Posture: "dev"}, false},
		{"a manifest key escaped", `{"\u0061gentId":"a","maps":[{"id":"m","tools":["t"]}]}`, nil, false},
		{"null", `null`, nil, false},
		{"not JSON", `{"integrity":`, nil, false},
		{"empty object", `{}`, &Declarations{Source: RecordingDeclarationsSource}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FromRecording(json.RawMessage(tc.payload))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				var de *DeclarationError
				if !errors.As(err, &de) {
					t.Errorf("want a *DeclarationError, got %T", err)
				}
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	rec := &Declarations{
		Source: "recording",
		Tools: []ToolDecl{
			{Name: "a", ArgumentsFrom: []string{"ground_rec"}, NoticeEmptyLookups: boolPtr(true)},
			{Name: "only_rec", ArgumentsFrom: []string{"g"}},
		},
		Claims:  []ClaimDecl{{AnswerField: "n", Entity: "rec", Field: "f"}, {AnswerField: "m", Entity: "e", Field: "f"}},
		Maps:    []MapDecl{{ID: "billing", Tools: []string{"x"}}, {ID: "rec_map", Tools: []string{"y"}}},
		Dials:   Dials{CheckColumnTypes: "enforce", NoticePriorTurnEvidence: boolPtr(true), NamesAndNumbers: &NamesAndNumbers{MinDigits: intPtr(3)}},
		Posture: "dev",
	}
	file := &Declarations{
		Source: "file.yaml",
		Tools: []ToolDecl{
			{Name: "b", ResultColumns: []ColumnDecl{{Name: "c", Type: "date"}}},
			{Name: "a", NoticeEmptyLookups: boolPtr(false)},
		},
		Claims: []ClaimDecl{{AnswerField: "n", Entity: "file", Field: "f"}},
		Maps:   []MapDecl{{ID: "billing", Tools: []string{"z"}}},
		Dials:  Dials{CheckColumnTypes: "off", NamesAndNumbers: &NamesAndNumbers{}},
	}
	want := &Declarations{
		Source: "file.yaml over recording",
		Tools: []ToolDecl{
			{Name: "b", ResultColumns: []ColumnDecl{{Name: "c", Type: "date"}}},
			{Name: "a", ArgumentsFrom: []string{"ground_rec"}, NoticeEmptyLookups: boolPtr(false)},
			{Name: "only_rec", ArgumentsFrom: []string{"g"}},
		},
		Claims:  []ClaimDecl{{AnswerField: "n", Entity: "file", Field: "f"}, {AnswerField: "m", Entity: "e", Field: "f"}},
		Maps:    []MapDecl{{ID: "billing", Tools: []string{"z"}}, {ID: "rec_map", Tools: []string{"y"}}},
		Dials:   Dials{CheckColumnTypes: "off", NoticePriorTurnEvidence: boolPtr(true), NamesAndNumbers: &NamesAndNumbers{MinDigits: intPtr(3)}},
		Posture: "dev",
	}
	got := Merge(rec, file)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if d := Merge(nil, nil); d == nil || d.Source != "no declarations" || len(d.Tools) != 0 {
		t.Errorf("Merge(nil, nil) = %+v", d)
	}
	if d := Merge(rec, nil); !cmp.Equal(d.Tools, rec.Tools) || d.Posture != "dev" {
		t.Errorf("the recording alone must come through whole: %+v", d)
	}
	// Merging must not alias the inputs.
	got.Tools[1].ArgumentsFrom[0] = "changed"
	if rec.Tools[0].ArgumentsFrom[0] != "ground_rec" {
		t.Error("Merge aliased the recording's slices")
	}
}

func TestDeclarationLookups(t *testing.T) {
	var none *Declarations
	if none.Tool("x") != nil || none.GroundsOf("x") != nil || none.AnyArgumentsFrom() || none.Map("m") != nil || none.EffectivePosture() != PostureObserve {
		t.Error("a nil declaration set must declare nothing")
	}
	d := designDeclarations("d")
	if g := d.GroundsOf("backup_status"); !cmp.Equal(g, []string{"fleet_report"}) {
		t.Errorf("GroundsOf = %v", g)
	}
	if !d.AnyArgumentsFrom() || d.Map("billing") == nil || d.Map("other") != nil {
		t.Error("lookups disagree with the declarations")
	}
}

func FuzzParseDeclarations(f *testing.F) {
	for _, s := range []string{designExample, designExampleJSON, "", "tools: {a: {argumentsFrom: [a]}}", "maps: [{id: x}]", "posture: dev", "x: &a [*a]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDeclarations("fuzz", data)
		if err != nil {
			var de *DeclarationError
			if !errors.As(err, &de) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		for _, tool := range d.Tools {
			if contains(tool.ArgumentsFrom, tool.Name) {
				t.Fatalf("accepted a tool grounding itself: %+v", tool)
			}
		}
	})
}

// TestMergeDocExample holds docs/declarations.md's merge example to the code.
func TestMergeDocExample(t *testing.T) {
	rec, err := FromRecording(json.RawMessage(`{"integrity": {
  "tools": {"screen_fire": {"argumentsFrom": ["whats_here"], "noticeEmptyLookups": true}},
  "claims": {"nav_count": {"entity": "screen2", "field": "nav"}},
  "maps": [{"id": "skill-map", "tools": ["get_zone_info"]}],
  "posture": "dev"
}}`))
	if err != nil {
		t.Fatal(err)
	}
	file, err := ParseDeclarations("file.yaml", []byte(`tools:
  screen_fire: { noticeEmptyLookups: false }
  backup_status: { argumentsFrom: [fleet_report] }
maps:
  - { id: skill-map, tools: [get_zone_info, get_zone_map] }
`))
	if err != nil {
		t.Fatal(err)
	}
	want, err := ParseDeclarations("file.yaml over "+RecordingDeclarationsSource, []byte(`tools:
  screen_fire: { argumentsFrom: [whats_here], noticeEmptyLookups: false }
  backup_status: { argumentsFrom: [fleet_report] }
claims:
  nav_count: { entity: screen2, field: nav }
maps:
  - { id: skill-map, tools: [get_zone_info, get_zone_map] }
posture: dev
`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, Merge(rec, file)); diff != "" {
		t.Errorf("(-doc +Merge):\n%s", diff)
	}
}

// BenchmarkFromRecording reads the declarations of an agentfootprint
// run_configured payload that declares none, as every run of a stream of
// many runs is read.
func BenchmarkFromRecording(b *testing.B) {
	payload := json.RawMessage(`{"agentId":"agent","llm":{"provider":"mock","model":"mock"},"reactMode":"dynamic","memories":[],"window":"sliding-window","skillGraph":{}}`)
	b.ReportAllocs()
	for b.Loop() {
		if d, err := FromRecording(payload); d != nil || err != nil {
			b.Fatal(d, err)
		}
	}
}
