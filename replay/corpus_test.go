package replay

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// corpusDir is the reference corpus, read in place; tests skip when it is
// not checked out next to the repository.
func corpusDir(t *testing.T, scenario string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "reference-corpus", scenario)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("reference corpus not available: %v", err)
	}
	return dir
}

func mustDeclare(t *testing.T, yaml string) *checks.Declarations {
	t.Helper()
	d, err := checks.ParseDeclarations("test declarations", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// readRecordingJSON reads the events array of a recording document
// ({snapshot, events, structure}) as one run.
func readRecordingJSON(t *testing.T, path string) *recording.Run {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Events []struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
			Meta    struct {
				RunID          string `json:"runId"`
				RuntimeStageID string `json:"runtimeStageId"`
			} `json:"meta"`
		} `json:"events"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	run := &recording.Run{Input: path}
	for i, e := range doc.Events {
		run.ID = e.Meta.RunID
		run.Events = append(run.Events, recording.Event{Type: e.Type, Payload: e.Payload, Index: int64(i),
			Meta: recording.Meta{RunID: e.Meta.RunID, RuntimeStageID: e.Meta.RuntimeStageID}})
	}
	return run
}

// skillMapTools derives what the corpus's one map ("skill-map") owns the
// way its scenarios describe it: the union of the tools the skill graph's
// skills unlocked (context.evaluated routing[].tools for skill nodes).
func skillMapTools(t *testing.T, run *recording.Run) []string {
	t.Helper()
	skills := map[string]bool{}
	var tools []string
	for _, ev := range run.Events {
		switch ev.Type {
		case recording.TypeGraphDeclared:
			var p struct {
				Nodes []struct{ ID, Kind string } `json:"nodes"`
			}
			if err := json.Unmarshal(ev.Payload, &p); err != nil {
				t.Fatal(err)
			}
			for _, n := range p.Nodes {
				if n.Kind == "skill" {
					skills[n.ID] = true
				}
			}
		case recording.TypeContextEval:
			var p struct {
				Routing []struct {
					InjectionID string   `json:"injectionId"`
					Tools       []string `json:"tools"`
				} `json:"routing"`
			}
			if err := json.Unmarshal(ev.Payload, &p); err != nil {
				t.Fatal(err)
			}
			for _, r := range p.Routing {
				if !skills[r.InjectionID] {
					continue
				}
				for _, tool := range r.Tools {
					if !containsString(tools, tool) {
						tools = append(tools, tool)
					}
				}
			}
		}
	}
	if len(tools) == 0 {
		t.Fatal("the skill graph unlocked no tools")
	}
	return tools
}

// TestCorpusReplay replays the reference corpus and holds the replay to
// what the live run recorded, check by check, wherever the recording
// carries the check's input.
func TestCorpusReplay(t *testing.T) {
	tests := []struct {
		scenario string
		decl     string
		// mapFromGraph adds the skill-map ownership derived from the
		// recording's skill graph to the declarations.
		mapFromGraph bool
		// sameRows are the checks whose replayed row must equal the
		// recorded one.
		sameRows []string
		// recordedOnly maps a recorded finding's identity to the prefix of
		// the reason the replay gives for not re-deriving it.
		recordedOnly map[string]string
		// wantReplayedKinds are the kinds the replay may file beyond what
		// was recorded: checks agentfootprint 9.62.0 does not have.
		newKinds   []string
		noFindings bool
	}{
		{
			scenario: "dangling-reference",
			decl:     "tools: {screen_fire: {argumentsFrom: [whats_here]}}",
			sameRows: []string{"invariant-violation@compose", "dangling-reference@compose", "unsupported-claim@claim"},
			newKinds: []string{checks.KindUnsupportedArgument},
		},
		{
			scenario:     "clean-armed",
			decl:         "tools: {screen_fire: {argumentsFrom: [whats_here]}}\nclaims: {nav_count: {entity: screen2, field: nav}}",
			mapFromGraph: true,
			sameRows:     []string{"invariant-violation@compose", "dangling-reference@compose", "unsupported-claim@claim"},
			noFindings:   true,
		},
		{
			scenario:   "clean-no-checks-armed",
			sameRows:   []string{"invariant-violation@compose", "dangling-reference@compose", "unsupported-claim@claim"},
			noFindings: true,
		},
		{
			scenario:     "parked-but-served",
			mapFromGraph: true,
			sameRows:     []string{"invariant-violation@compose", "dangling-reference@compose", "unsupported-claim@claim"},
			noFindings:   true,
		},
		{
			scenario: "unsupported-claim",
			decl:     "claims: {nav_count: {entity: screen2, field: nav}}",
			sameRows: []string{"invariant-violation@compose", "dangling-reference@compose", "unsupported-claim@claim"},
		},
		{
			scenario: "wire-manifest-mismatch",
			sameRows: []string{"invariant-violation@compose", "dangling-reference@compose", "unsupported-claim@claim"},
			recordedOnly: map[string]string{
				"invariant-violation @wire [tool ghost_tool]  ":   "replay lacked input: " + checks.NoManifestReason,
				"invariant-violation @wire [tool get_forecast]  ": "replay lacked input: " + checks.NoManifestReason,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.scenario, func(t *testing.T) {
			dir := corpusDir(t, tc.scenario)
			runs := readRuns(t, filepath.Join(dir, "events.jsonl"))
			if len(runs) != 1 {
				t.Fatalf("want one run, got %d", len(runs))
			}
			run := runs[0]
			decl := mustDeclare(t, tc.decl)
			if tc.mapFromGraph {
				decl.Maps = append(decl.Maps, checks.MapDecl{ID: "skill-map", Tools: skillMapTools(t, run)})
			}
			replayed, err := Replay(run, decl, Options{})
			if err != nil {
				t.Fatal(err)
			}
			recorded := Recorded(run.Events)
			assertCorpusReplay(t, recorded, replayed, tc.sameRows, tc.recordedOnly, tc.newKinds)
			if tc.noFindings && len(replayed.Findings) > 0 {
				t.Errorf("want no replayed findings, got %v", findingsOf(replayed))
			}
			// The wire manifest is recorded nowhere: every call is
			// unreachable, never a pass.
			wire, _ := replayed.Disposition.Row(checks.KindInvariantViolation, checks.SeamWire)
			rec, _ := recorded.Disposition.Row(checks.KindInvariantViolation, checks.SeamWire)
			if wire.Checked != 0 || wire.Unreachable != rec.Checked+rec.Unreachable {
				t.Errorf("wire row %+v: want every one of the %d completed calls unreachable", wire, rec.Checked+rec.Unreachable)
			}
		})
	}
}

func assertCorpusReplay(t *testing.T, recorded, replayed *Evidence, sameRows []string, recordedOnly map[string]string, newKinds []string) {
	t.Helper()
	for _, key := range sameRows {
		kind, seam, _ := strings.Cut(key, "@")
		want, ok := recorded.Disposition.Row(kind, seam)
		if !ok {
			t.Fatalf("the recording has no %s row", key)
		}
		got, ok := replayed.Disposition.Row(kind, seam)
		if !ok {
			t.Fatalf("the replay has no %s row", key)
		}
		want.LastFiredAt = nil
		if got != want {
			t.Errorf("%s row: replayed %+v, recorded %+v", key, got, want)
		}
	}
	for _, m := range Reconcile(recorded, replayed) {
		id := m.Finding.Identity()
		switch m.Source {
		case SourceBoth:
			if _, ok := recordedOnly[id]; ok {
				t.Errorf("%q: replay re-derived a finding it has no input for", id)
			}
		case SourceRecorded:
			prefix, ok := recordedOnly[id]
			if !ok {
				t.Errorf("recorded finding %q was not replayed (%s)", id, m.Why)
			} else if !strings.HasPrefix(m.Why, prefix) {
				t.Errorf("%q: reason %q, want it to start %q", id, m.Why, prefix)
			}
		case SourceReplayed:
			if !containsString(newKinds, m.Finding.Kind) {
				t.Errorf("replay filed %q, which the live run did not (%s)", id, m.Why)
			}
		}
	}
}

// TestCorpusDanglingReference pins the one recorded dangling finding: same
// identity, epoch, stage, and the row's cadence of one note per model call.
func TestCorpusDanglingReference(t *testing.T) {
	dir := corpusDir(t, "dangling-reference")
	decl := mustDeclare(t, "tools: {screen_fire: {argumentsFrom: [whats_here]}}")
	for _, run := range []*recording.Run{
		readRuns(t, filepath.Join(dir, "events.jsonl"))[0],
		readRecordingJSON(t, filepath.Join(dir, "recording.json")),
	} {
		ev, err := Replay(run, decl, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got *checks.Finding
		for i := range ev.Findings {
			if ev.Findings[i].Kind == checks.KindDanglingReference {
				if got != nil {
					t.Fatalf("%s: more than one dangling finding", run.Input)
				}
				got = &ev.Findings[i]
			}
		}
		if got == nil {
			t.Fatalf("%s: no dangling finding", run.Input)
		}
		if id := got.Identity(); id != "dangling-reference @compose [tool screen_fire + tool whats_here]  " {
			t.Errorf("%s: identity %q", run.Input, id)
		}
		if *got.Epoch != 4 || got.FiledAt != "call-llm#88" {
			t.Errorf("%s: epoch %d filed at %s, want 4 at call-llm#88", run.Input, *got.Epoch, got.FiledAt)
		}
		row, _ := ev.Disposition.Row(checks.KindDanglingReference, checks.SeamCompose)
		if row.Checked != 6 || row.Findings != 6 || row.NotApplicable != 3 || row.Unreachable != 0 {
			t.Errorf("%s: dangling row %+v, want checked 6, findings 6, notApplicable 3", run.Input, row)
		}
	}
}

// TestCorpusMultiTurn replays each turn of the multi-turn recording on its
// own: every turn is a run with its own ledger, and a turn whose window
// evicted the previous turn's messages cannot name them.
func TestCorpusMultiTurn(t *testing.T) {
	dir := corpusDir(t, "multi-turn")
	decl := mustDeclare(t, "tools: {screen_fire: {argumentsFrom: [whats_here]}}\nclaims: {nav_count: {entity: screen2, field: nav}}")
	runs := readRuns(t, filepath.Join(dir, "events.jsonl"))
	if len(runs) != 3 {
		t.Fatalf("want three turns, got %d runs", len(runs))
	}
	wire := "replay lacked input: " + checks.NoManifestReason
	tests := []struct {
		sameRows     []string
		recordedOnly map[string]string
	}{
		{
			sameRows:     []string{"invariant-violation@compose", "dangling-reference@compose", "unsupported-claim@claim"},
			recordedOnly: map[string]string{"invariant-violation @wire [tool ghost_tool]  ": wire},
		},
		{
			sameRows:     []string{"invariant-violation@compose", "unsupported-claim@claim"},
			recordedOnly: map[string]string{"invariant-violation @wire [tool ghost_tool]  ": wire},
		},
		{
			sameRows: []string{"invariant-violation@compose", "unsupported-claim@claim"},
			recordedOnly: map[string]string{
				"invariant-violation @wire [tool ghost_tool]  ":                      wire,
				"dangling-reference @compose [tool screen_fire + tool whats_here]  ": "replay lacked input: context.evicted ",
			},
		},
	}
	for i, tc := range tests {
		replayed, err := Replay(runs[i], decl, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Run(runs[i].ID, func(t *testing.T) {
			assertCorpusReplay(t, Recorded(runs[i].Events), replayed, tc.sameRows, tc.recordedOnly, []string{checks.KindUnsupportedArgument})
		})
	}
}

// TestCorpusSnapshotOwnership arms the compose invariant from a recording
// document's snapshot when no declaration names the map: parked-but-served
// then replays exactly as the live run counted it.
func TestCorpusSnapshotOwnership(t *testing.T) {
	dir := corpusDir(t, "parked-but-served")
	run := readRecordingJSON(t, filepath.Join(dir, "recording.json"))
	run.Snapshot = &recording.SnapshotFacts{ParkedToolNames: []string{"get_zone_info"}, ParkedStated: true}
	replayed, err := Replay(run, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	assertCorpusReplay(t, Recorded(run.Events), replayed, []string{"invariant-violation@compose"}, nil, nil)

	// Without the snapshot nothing says what the map owns: unarmed.
	run.Snapshot = nil
	replayed, err = Replay(run, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	row, _ := replayed.Disposition.Row(checks.KindInvariantViolation, checks.SeamCompose)
	if row != (checks.Row{Check: checks.KindInvariantViolation, Seam: checks.SeamCompose, NotApplicable: 1}) {
		t.Errorf("compose row %+v, want one not-applicable", row)
	}
}

func BenchmarkReplayDanglingReference(b *testing.B) {
	dir := filepath.Join("..", "..", "shared", "reference-corpus", "dangling-reference")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("reference corpus not available: %v", err)
	}
	run := readRuns(b, filepath.Join(dir, "events.jsonl"))[0]
	decl, err := checks.ParseDeclarations("bench", []byte("tools: {screen_fire: {argumentsFrom: [whats_here]}}"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Replay(run, decl, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
