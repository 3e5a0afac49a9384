package checks

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ids(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Identity())
	}
	return out
}

func TestIdentifierLike(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"4417-ganymede", true},
		{"bkp-4417-ganymede-tier2", true},
		{"screen2", true},
		{"rack-a1", true},
		{"  rack-a1  ", true},
		{"2024-05-01", true},
		{"4417", true},
		{"api.example.com", true},
		{"https://example.com/x", true},
		{"snake_case", true},
		{"a:b:c", true},
		{"abc1", true},
		{"ab1", false},    // under four characters
		{" a1 ", false},   // trimmed, under four
		{"yes", false},    // a plain word
		{"latest", false}, // a plain word
		{"Oslo", false},
		{"tonight please", false}, // whitespace
		{"fc1 down", false},
		{"----", false}, // separators without a letter
		{"....", false},
		{"", false},
		{"über-straße", true}, // letters are letters in any script
		{"東京-01", true},
	}
	for _, tc := range tests {
		if got := IdentifierLike(tc.in); got != tc.want {
			t.Errorf("IdentifierLike(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestStringLeaves(t *testing.T) {
	tests := []struct {
		args string
		want []argLeaf
		err  bool
	}{
		{`{"machine":"4417-ganymede"}`, []argLeaf{{"machine", "4417-ganymede"}}, false},
		{`{"z":"1","a":{"hosts":["h1",2,"h3"],"ok":true,"n":null}}`, []argLeaf{{"z", "1"}, {"a.hosts.0", "h1"}, {"a.hosts.2", "h3"}}, false},
		{`[{"id":"x"}]`, []argLeaf{{"0.id", "x"}}, false},
		{`"bare-string"`, []argLeaf{{rootPath, "bare-string"}}, false},
		{`{}`, nil, false},
		{``, nil, false},
		{`{"a":`, nil, true},
		{`{"a":"b"} {"c":"d"}`, nil, true},
	}
	for _, tc := range tests {
		got, err := stringLeaves(json.RawMessage(tc.args))
		if (err != nil) != tc.err {
			t.Errorf("%s: err %v, want error %v", tc.args, err, tc.err)
			continue
		}
		if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(argLeaf{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.args, diff)
		}
	}
}

func TestUnsupportedArguments(t *testing.T) {
	frame := Frame{
		Iteration: 2,
		Source:    FrameFromInjected,
		System:    []string{"You triage the fleet. Escalations go to ops-desk-7."},
		Messages: []Message{
			{Role: RoleUser, Content: "What is the backup status of that machine?"},
			{Role: RoleAssistant, Content: "The nightly job BKP-4417-GANYMEDE-tier2 finished at 02:14."},
			{Role: RoleTool, Content: "FLEET: callisto-02 (online), europa-03 (online)", ToolName: "fleet_report"},
		},
	}
	gapped := frame
	gapped.Gaps = []string{"the user message at position 0 of iteration 2 carries no rawContent"}
	tests := []struct {
		name     string
		args     string
		frame    Frame
		want     []string // identities
		self     []bool
		unjudged int
		judged   int
	}{
		{"grounded in a tool result", `{"machine":"callisto-02"}`, frame, nil, nil, 0, 1},
		{"grounded case-insensitively", `{"machine":"EUROPA-03"}`, frame, nil, nil, 0, 1},
		{"grounded in the system prompt", `{"desk":"ops-desk-7"}`, frame, nil, nil, 0, 1},
		{"self-reference", `{"machine":"4417-ganymede"}`, frame, []string{"unsupported-argument @choice [tool backup_status] machine "}, []bool{true}, 0, 1},
		{"nowhere", `{"machine":"titan-09"}`, frame, []string{"unsupported-argument @choice [tool backup_status] machine "}, []bool{false}, 0, 1},
		{"two bad arguments are two findings", `{"machine":"titan-09","filter":{"hosts":["callisto-02","io-11"]}}`, frame,
			[]string{"unsupported-argument @choice [tool backup_status] machine ", "unsupported-argument @choice [tool backup_status] filter.hosts.1 "}, []bool{false, false}, 0, 3},
		{"non-strings and plain words are never checked", `{"retries":3,"verbose":true,"note":"latest","when":"tonight please","x":null}`, frame, nil, nil, 0, 0},
		{"an incomplete frame is unreachable, not a finding", `{"machine":"titan-09"}`, gapped, nil, nil, 1, 1},
		{"an incomplete frame still grounds what it holds", `{"machine":"callisto-02"}`, gapped, nil, nil, 0, 1},
		{"unreadable arguments", `{"machine":`, frame, nil, nil, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			call := ToolCall{ID: "c9", Name: "backup_status", Args: json.RawMessage(tc.args)}
			fs, unjudged, judged := unsupportedArguments(call, []string{"fleet_report"}, tc.frame, nil, 2)
			if diff := cmp.Diff(tc.want, ids(fs)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			for i, f := range fs {
				self := strings.Contains(f.Message, "own earlier answer")
				if self != tc.self[i] {
					t.Errorf("finding %d self-reference %v, want %v: %s", i, self, tc.self[i], f.Message)
				}
				if !strings.Contains(f.Message, "fleet_report") {
					t.Errorf("message must name the ground tool: %s", f.Message)
				}
				if tc.self[i] == false && !strings.Contains(f.Message, "no ground in the window holds it") {
					t.Errorf("a value found nowhere must say so: %s", f.Message)
				}
				if len(f.Witnesses) != 2 || *f.Epoch != 2 || f.Predicate == "" {
					t.Errorf("finding shape: %+v", f)
				}
			}
			if len(unjudged) != tc.unjudged || judged != tc.judged {
				t.Errorf("unjudged %v, judged %d; want %d, %d", unjudged, judged, tc.unjudged, tc.judged)
			}
		})
	}
}

func TestJudgeChoice(t *testing.T) {
	d := &Declarations{Tools: []ToolDecl{{Name: "backup_status", ArgumentsFrom: []string{"fleet_report"}}}}
	frame := Frame{Iteration: 1, Messages: []Message{{Role: RoleUser, Content: "status of callisto-02?"}}}
	view := func(calls ...ToolCall) ChoiceView {
		return ChoiceView{Call: CallView{Iteration: 1, Frame: frame}, Stage: "call-llm#5", Calls: calls}
	}
	call := func(name, args string) ToolCall { return ToolCall{ID: "c", Name: name, Args: json.RawMessage(args)} }
	tests := []struct {
		name string
		v    ChoiceView
		want Disposition
		n    int
	}{
		{"a response without tool calls", view(), NotApplicable, 0},
		{"only unarmed tools", view(call("fleet_report", `{"zone":"z-99"}`)), NotApplicable, 0},
		{"no identifier-like argument", view(call("backup_status", `{"verbose":true}`)), NotApplicable, 0},
		{"grounded", view(call("backup_status", `{"machine":"callisto-02"}`)), CheckedPass, 0},
		{"ungrounded", view(call("backup_status", `{"machine":"titan-09"}`)), CheckedFail, 1},
	}
	for _, tc := range tests {
		v := judgeChoice(tc.v, d)
		if v.Disposition != tc.want || len(v.Findings) != tc.n {
			t.Errorf("%s: %v with %d findings, want %v with %d", tc.name, v.Disposition, len(v.Findings), tc.want, tc.n)
		}
		for _, f := range v.Findings {
			if f.FiledAt != "call-llm#5" {
				t.Errorf("%s: filed at %q", tc.name, f.FiledAt)
			}
		}
	}
}

// TestChoiceBareFindingsLeaveTheLedgerAsItWas: responses that call a tool
// with the same ungrounded argument again and again are noted in two
// ledgers, one judged with its Filed (the engine's way: repeats come back
// bare) and one without; rows, findings and reasons must be the same.
func TestChoiceBareFindingsLeaveTheLedgerAsItWas(t *testing.T) {
	d := &Declarations{Tools: []ToolDecl{{Name: "backup_status", ArgumentsFrom: []string{"fleet_report"}}}}
	frame := Frame{Iteration: 1, Messages: []Message{{Role: RoleUser, Content: "status of callisto-02?"}}}
	args := []string{`{"machine":"titan-09"}`, `{"machine":"callisto-02"}`, `{"machine":"titan-09","zone":"z-7"}`, `{"zone":"z-8"}`}
	whole, bare := NewLedger(Registry, d, PostureObserve), NewLedger(Registry, d, PostureObserve)
	sawBare := false
	for i := range 12 {
		call := ToolCall{ID: fmt.Sprint("c", i), Name: "backup_status", Args: json.RawMessage(args[i%len(args)])}
		v := ChoiceView{Call: CallView{Iteration: int64(i + 1), Frame: frame}, Stage: fmt.Sprint("call-llm#", i), Calls: []ToolCall{call}}
		whole.Note(UnsupportedArgument, judgeChoice(v, d))
		v.Filed = bare.Filed
		verdict := judgeChoice(v, d)
		for _, f := range verdict.Findings {
			sawBare = sawBare || f.Message == ""
		}
		bare.Note(UnsupportedArgument, verdict)
		if diff := cmp.Diff(whole.Rows(), bare.Rows()); diff != "" {
			t.Fatalf("response %d: rows (-whole +bare):\n%s", i, diff)
		}
		if diff := cmp.Diff(whole.Findings(), bare.Findings()); diff != "" {
			t.Fatalf("response %d: findings (-whole +bare):\n%s", i, diff)
		}
		if diff := cmp.Diff(whole.Reasons(), bare.Reasons()); diff != "" {
			t.Fatalf("response %d: reasons (-whole +bare):\n%s", i, diff)
		}
	}
	if !sawBare {
		t.Fatal("no finding came back bare: the test exercises nothing")
	}
}

func TestWireMismatch(t *testing.T) {
	tests := []struct {
		name           string
		composed, wire []string
		want           []string
	}{
		{"equal", []string{"a", "b"}, []string{"b", "a", "a"}, nil},
		{"stated zero against nothing composed", []string{}, []string{}, nil},
		{"stated zero against composed tools", []string{"a", "b"}, []string{}, []string{"invariant-violation @wire [tool a + tool b]  "}},
		{"both directions, crossed first", []string{"get_weather", "get_forecast"}, []string{"get_weather", "ghost_tool"},
			[]string{"invariant-violation @wire [tool ghost_tool]  ", "invariant-violation @wire [tool get_forecast]  "}},
	}
	for _, tc := range tests {
		got := wireMismatch(tc.composed, tc.wire, 3, "composed", "wire")
		if diff := cmp.Diff(tc.want, ids(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	v := judgeWire(WireView{Call: CallView{Iteration: 1, Served: []string{"a"}}}, nil)
	if v.Disposition != Unreachable || len(v.Reasons) != 1 {
		t.Errorf("no manifest: %+v", v)
	}
	v = judgeWire(WireView{Call: CallView{Iteration: 1, Served: []string{"a"}}, ManifestStated: true, Manifest: []string{}}, nil)
	if v.Disposition != CheckedFail || len(v.Findings) != 1 {
		t.Errorf("a stated zero is compared: %+v", v)
	}
}

func TestJudgeComposeInvariant(t *testing.T) {
	d := &Declarations{Maps: []MapDecl{{ID: "billing", Tools: []string{"charge_card", "refund"}}, {ID: "audit", Tools: []string{"refund", "log"}}}}
	view := func(served []string, parked ...string) ComposeView {
		return ComposeView{Call: CallView{Iteration: 4, Served: served}, ToolsStage: "sf-tools/compose#9", Parked: parked}
	}
	tests := []struct {
		name string
		v    ComposeView
		want Disposition
		ids  []string
	}{
		{"nothing parked", view([]string{"charge_card"}), NotApplicable, nil},
		{"healthy park", view([]string{"lookup"}, "billing"), CheckedPass, nil},
		{"parked but served", view([]string{"lookup", "refund", "charge_card"}, "billing"), CheckedFail,
			// audit shares refund with the parked billing map, so it is compared too.
			[]string{"invariant-violation @compose [map billing + tool charge_card + tool refund]  ", "invariant-violation @compose [map audit + tool refund]  "}},
		{"undeclared parked map", view([]string{"x"}, "skill-map"), Unreachable, nil},
		{"served list unknown", ComposeView{Call: CallView{Iteration: 4, ServedGap: "no tools"}, Parked: []string{"billing"}}, Unreachable, nil},
		{"head missing", ComposeView{Call: CallView{Iteration: 4}, HistoryGap: "head missing"}, Unreachable, nil},
	}
	for _, tc := range tests {
		v := judgeComposeInvariant(tc.v, d)
		if v.Disposition != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, v.Disposition, tc.want)
		}
		if diff := cmp.Diff(tc.ids, ids(v.Findings)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
		if v.Disposition == Unreachable && len(v.Reasons) == 0 {
			t.Errorf("%s: unreachable without a reason", tc.name)
		}
	}
}

func TestJudgeDangling(t *testing.T) {
	d := &Declarations{Tools: []ToolDecl{{Name: "screen_fire", ArgumentsFrom: []string{"whats_here", "floor_map"}}}}
	tool := func(name, id string) Message {
		return Message{Role: RoleTool, ToolName: name, ToolCallID: id, Content: "r"}
	}
	evicted := func(cands ...Message) Eviction { return Eviction{Hash: "h", Iteration: 3, Candidates: cands} }
	view := func(served []string, present []Message, evs ...Eviction) ComposeView {
		return ComposeView{Call: CallView{Iteration: 4, Stage: "call-llm#9", Served: served, Frame: Frame{Messages: present}}, Evictions: EvictionViewOf(evs...)}
	}
	both := []string{"whats_here", "floor_map", "screen_fire"}
	tests := []struct {
		name string
		v    ComposeView
		want Disposition
		ids  []string
	}{
		{"no grounded tool offered", view([]string{"whats_here"}, nil, evicted(tool("whats_here", "h1"))), NotApplicable, nil},
		{"nothing dropped", view(both, nil), NotApplicable, nil},
		{"only assistant text dropped", view(both, nil, evicted(Message{Role: RoleAssistant})), NotApplicable, nil},
		{"dropped and not re-fetched", view(both, nil, evicted(tool("whats_here", "h1"))), CheckedFail,
			[]string{"dangling-reference @compose [tool screen_fire + tool whats_here]  "}},
		{"every missing ground is listed", view(both, nil, evicted(tool("whats_here", "h1")), evicted(tool("floor_map", "m1"))), CheckedFail,
			[]string{"dangling-reference @compose [tool floor_map + tool screen_fire + tool whats_here]  "}},
		{"re-fetched", view(both, []Message{tool("whats_here", "h2")}, evicted(tool("whats_here", "h1"))), CheckedPass, nil},
		{"another tool's result dropped", view(both, nil, evicted(tool("other", "o1"))), CheckedPass, nil},
		{"ambiguous call, certain tool", view(both, nil, evicted(tool("whats_here", "h1"), tool("whats_here", "h5"))), CheckedFail,
			[]string{"dangling-reference @compose [tool screen_fire + tool whats_here]  "}},
		{"ambiguous between tools", view(both, nil, evicted(tool("whats_here", "h1"), tool("other", "o1"))), Unreachable, nil},
		{"ambiguity that cannot matter", view(both, []Message{tool("whats_here", "h2"), tool("floor_map", "m2")}, evicted(tool("whats_here", "h1"), tool("other", "o1"))), CheckedPass, nil},
		{"unjoinable eviction", view(both, nil, evicted()), Unreachable, nil},
		{"a present result with no tool name", view(both, []Message{tool("", "x9")}, evicted(tool("whats_here", "h1"))), Unreachable, nil},
		{"served list unknown", ComposeView{Call: CallView{Iteration: 4, ServedGap: "no tools"}}, Unreachable, nil},
	}
	for _, tc := range tests {
		v := judgeDangling(tc.v, d)
		if v.Disposition != tc.want {
			t.Errorf("%s: %v (%v), want %v", tc.name, v.Disposition, v.Reasons, tc.want)
		}
		if diff := cmp.Diff(tc.ids, ids(v.Findings)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
		if v.Disposition == Unreachable && len(v.Reasons) == 0 {
			t.Errorf("%s: unreachable without a reason", tc.name)
		}
	}
}

func TestUnsupportedClaims(t *testing.T) {
	decl := []ClaimDecl{{AnswerField: "nav_count", Entity: "screen2", Field: "nav"}}
	row := func(v string, call string) ClaimRow {
		return ClaimRow{Entity: "screen2", Field: "nav", Value: json.RawMessage(v), ToolName: "whats_here", ToolCallID: call, Iteration: 1, MeasuredAt: "2026-08-20T00:00:00Z"}
	}
	tests := []struct {
		name     string
		rows     []ClaimRow
		answer   string
		want     Disposition
		findings int
		advisory bool
	}{
		{"agrees", []ClaimRow{row(`2`, "c1")}, `{"nav_count":2}`, CheckedPass, 0, false},
		{"agrees as 2.0", []ClaimRow{row(`2`, "c1")}, `{"nav_count":2.0}`, CheckedPass, 0, false},
		{"contradicts", []ClaimRow{row(`2`, "c1")}, `{"nav_count":5}`, CheckedFail, 1, false},
		{"claims a superseded value", []ClaimRow{row(`5`, "c1"), row(`2`, "c2")}, `{"nav_count":5}`, CheckedFail, 1, false},
		{"numeric string", []ClaimRow{row(`2`, "c1")}, `{"nav_count":" 2 "}`, CheckedPass, 0, false},
		{"hex string cannot be compared safely", []ClaimRow{row(`2`, "c1")}, `{"nav_count":"0x2"}`, Unreachable, 0, false},
		{"a number against a settled decimal string compares by value", []ClaimRow{row(`"2.0"`, "c1")}, `{"nav_count":2}`, CheckedPass, 0, false},
		{"a number against a settled string that differs", []ClaimRow{row(`"3"`, "c1")}, `{"nav_count":2}`, CheckedFail, 1, false},
		{"a unit against a bare number", []ClaimRow{row(`"2 MW"`, "c1")}, `{"nav_count":2}`, Unreachable, 0, false},
		{"Unknown in another case is doubt", []ClaimRow{row(`2`, "c1")}, `{"nav_count":" UNKNOWN "}`, CheckedPass, 1, true},
		{"a settled null propagates", []ClaimRow{row(`null`, "c1")}, `{"nav_count":2}`, Unreachable, 0, false},
		{"a list against a scalar", []ClaimRow{row(`[2]`, "c1")}, `{"nav_count":2}`, Unreachable, 0, false},
		{"doubt is an advisory", []ClaimRow{row(`2`, "c1")}, `{"nav_count":null}`, CheckedPass, 1, true},
		{"unknown is doubt", []ClaimRow{row(`2`, "c1")}, `{"nav_count":"unknown"}`, CheckedPass, 1, true},
		{"null on both sides is not a comparison", []ClaimRow{row(`null`, "c1")}, `{"nav_count":null}`, Unreachable, 0, false},
		{"unknown on both sides", []ClaimRow{row(`"Unknown"`, "c1")}, `{"nav_count":"unknown"}`, Unreachable, 0, false},
		{"a null answer against an unknown claim", []ClaimRow{row(`{"kind":"unknown","reason":"offline"}`, "c1")}, `{"nav_count":null}`, Unreachable, 0, false},
		{"an unknown claim against a null reading", []ClaimRow{row(`null`, "c1")}, `{"nav_count":{"kind":"unknown"}}`, Unreachable, 0, false},
		{"a known claim of null on both sides", []ClaimRow{row(`{"kind":"known","value":null}`, "c1")}, `{"nav_count":{"kind":"known","value":null}}`, Unreachable, 0, false},
		{"known wrapper", []ClaimRow{row(`{"kind":"known","value":2,"evidence":[]}`, "c1")}, `{"nav_count":2}`, CheckedPass, 0, false},
		{"settled unknown", []ClaimRow{row(`{"kind":"unknown","reason":"offline"}`, "c1")}, `{"nav_count":2}`, Unreachable, 0, false},
		{"nothing settled", nil, `{"nav_count":2}`, Unreachable, 0, false},
		{"field absent", []ClaimRow{row(`2`, "c1")}, `{"other":1}`, NotApplicable, 0, false},
		{"objects compare with keys sorted", []ClaimRow{row(`{"a":1,"b":[1,2]}`, "c1")}, `{"nav_count":{"b":[1,2],"a":1}}`, CheckedPass, 0, false},
		{"not a JSON object", []ClaimRow{row(`2`, "c1")}, `nav_count is 2`, Unreachable, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vs := unsupportedClaimsOf(decl, tc.rows, json.RawMessage(tc.answer), 2)
			if len(vs) != 1 {
				t.Fatalf("want one verdict per claim, got %d", len(vs))
			}
			v := vs[0]
			if v.Disposition != tc.want || len(v.Findings) != tc.findings {
				t.Fatalf("%v with %d findings, want %v with %d", v.Disposition, len(v.Findings), tc.want, tc.findings)
			}
			for _, f := range v.Findings {
				if f.Advisory != tc.advisory || f.Identity() != "unsupported-claim @claim [entity screen2] nav " {
					t.Errorf("finding %+v", f)
				}
			}
		})
	}
	vs := unsupportedClaimsOf(decl, []ClaimRow{row(`5`, "c1"), row(`2`, "c2")}, json.RawMessage(`{"nav_count":5}`), 2)
	w := vs[0].Findings[0].Witnesses
	if len(w) != 3 || w[2].Stratum != StratumQuoted || w[2].Epoch != nil || string(w[0].Value) != "2" || string(w[1].Value) != "5" {
		t.Errorf("witnesses: settled, claimed, then quoted history; got %+v", w)
	}
	if got := w[0].Provenance; got != "whats_here (call c2, iteration 1), measured_at 2026-08-20T00:00:00Z" {
		t.Errorf("provenance %q", got)
	}
}

func TestClaimRowsOf(t *testing.T) {
	sem := `{"af_semantics":true,"facts":[{"entity":"screen2","nav":2,"zone":"B"}],"series":[{"entity":"rack","metric":"temp","value":41,"t":"t1"},{"entity":"rack","metric":"temp","value":49}],"provenance":{"measured_at":"m0"}}`
	got := ClaimRowsOf(json.RawMessage(sem), "whats_here", "c1", 1)
	var short []string
	for _, r := range got {
		short = append(short, r.Entity+"."+r.Field+"="+string(r.Value)+"@"+r.MeasuredAt)
	}
	want := []string{"screen2.nav=2@m0", "screen2.zone=\"B\"@m0", "rack.temp=41@t1", "rack.temp=49@m0"}
	if diff := cmp.Diff(want, short); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if ClaimRowsOf(json.RawMessage(`"not an envelope"`), "t", "c", 1) != nil {
		t.Error("a non-object envelope settles nothing")
	}
}

func TestNumbers(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{{2, "2"}, {0.5, "0.5"}, {1e21, "1e+21"}, {1e-7, "1e-7"}, {123456789, "123456789"}, {-0.0, "0"}} {
		if got := jsNumber(tc.f); got != tc.want {
			t.Errorf("jsNumber(%v) = %s, want %s", tc.f, got, tc.want)
		}
	}
}
