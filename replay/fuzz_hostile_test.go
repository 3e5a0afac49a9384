package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// armAll declares something for every check, with the tool, map and claim
// names the fixtures use, so that fuzzed runs reach every seam armed.
const armAll = `
tools:
  backup_status:
    argumentsFrom: [fleet_report]
    noticeEmptyLookups: true
    resultColumns:
      host: string
      logical_unit_number: number
      checked_at: date
      healthy: boolean
      comment: { type: string, nullable: true }
  screen_fire: { argumentsFrom: [whats_here], noticeEmptyLookups: true }
  screen_open: { argumentsFrom: [whats_here] }
  get_weather: { argumentsFrom: [get_zone_info] }
  host_group_mappings:
    resultColumns: { logical_unit_number: number, comment: { type: string, nullable: true } }
claims:
  nav_count: { entity: screen2, field: nav }
  zone: { entity: screen2, field: zone }
  summary.total: { entity: fleet, field: total }
maps:
  - { id: skill-map, tools: [get_zone_info, get_zone_map] }
  - { id: billing, tools: [charge_card, refund] }
dials:
  checkColumnTypes: enforce
  noticeEmptyLookups: true
  noticePriorTurnEvidence: true
  namesAndNumbers: { minDigits: 2 }
posture: observe
`

const recordingsRoot = "../testdata/recordings"

func armAllDeclarations(t testing.TB) *checks.Declarations {
	t.Helper()
	d, err := checks.ParseDeclarations("arm-all.yaml", []byte(armAll))
	if err != nil {
		t.Fatalf("the arm-all declarations are refused: %v", err)
	}
	return d
}

// replaySeeds adds every NDJSON recording of the repository (up to 256 KiB).
func replaySeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	filepath.WalkDir(recordingsRoot, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return nil
		}
		if fi, err := d.Info(); err != nil || fi.Size() > 256<<10 {
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil && len(data) > 0 {
			seeds = append(seeds, data)
		}
		return nil
	})
	if len(seeds) == 0 {
		f.Fatal("no seed recordings found")
	}
	return seeds
}

// replayAll loads data as a recording and replays every run, recorded
// evidence first, then with every check armed and with nothing declared,
// checking what must hold whatever the events say, and that the run's
// fold gives what the whole run gives.
func replayAll(t *testing.T, data []byte, decl *checks.Declarations) {
	t.Helper()
	recording.LoadReader("fuzz.jsonl", bytes.NewReader(data), recording.Options{MaxNesting: 2000}, func(run *recording.Run) error {
		rec := Recorded(run.Events)
		if rec == nil {
			t.Fatal("Recorded returned nil")
		}
		for _, d := range []*checks.Declarations{decl, nil} {
			ev, err := Replay(run, d, Options{})
			if err != nil {
				var de *checks.DeclarationError
				if !errors.As(err, &de) {
					t.Fatalf("replay failed with %T: %v", err, err)
				}
				continue
			}
			checkEvidence(t, ev)
			// Reconciling the two sides must not fail either.
			Reconcile(rec, ev)
		}
		// Folded one event at a time, the run gives the same.
		for _, d := range []*checks.Declarations{decl, nil} {
			assertFoldSame(t, "fuzz", run, d, Options{}, nil, nil)
		}
		return nil
	})
}

func checkEvidence(t *testing.T, ev *Evidence) {
	t.Helper()
	if ev == nil || ev.Disposition == nil {
		t.Fatal("no evidence or no ledger from a replay that did not fail")
	}
	if len(ev.Disposition.Rows) != len(checks.Registry) {
		t.Errorf("%d ledger rows for %d registered checks", len(ev.Disposition.Rows), len(checks.Registry))
	}
	seen := map[string]bool{}
	for _, f := range ev.Findings {
		id := f.Identity()
		if seen[id] {
			t.Errorf("identity filed twice: %q", id)
		}
		seen[id] = true
	}
	if ev.IntegrityEvents != len(ev.Findings)+1 {
		t.Errorf("integrity events %d for %d findings and one ledger", ev.IntegrityEvents, len(ev.Findings))
	}
	if _, err := json.Marshal(ev); err != nil {
		t.Errorf("evidence does not marshal: %v", err)
	}
}

// FuzzReplay replays whole fuzzed recordings: whatever the bytes, the
// loader and the replay never panic, a replay that does not fail files a
// ledger row per registered check and each identity once.
func FuzzReplay(f *testing.F) {
	for _, s := range replaySeeds(f) {
		f.Add(s)
	}
	decl := armAllDeclarations(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		replayAll(t, data, decl)
	})
}

// eventTypes are the types a fuzzed event may take: every type the replay
// reads, plus an unknown one.
var eventTypes = []string{
	recording.TypeRunConfigured, recording.TypeTurnStart, recording.TypeTurnEnd, recording.TypeIterationStart,
	recording.TypeIterationEnd, recording.TypeRouteDecided, recording.TypeContextError, recording.TypeDisposition,
	recording.TypeLLMStart, recording.TypeLLMEnd, recording.TypeToolStart, recording.TypeToolEnd,
	recording.TypeContextInjected, recording.TypeSlotComposed, recording.TypeContextEvicted, recording.TypeContextEval,
	recording.TypeMapParked, recording.TypeMapEngaged, recording.TypeGraphDeclared, recording.TypeSkillActivated,
	recording.TypeSemantics, "agentfootprint.vendor.unknown",
}

// FuzzReplayEvent puts one fuzzed event (a chosen type, a fuzzed payload)
// at a fuzzed position of a well-formed run, so the state machine meets a
// hostile event in the middle of an otherwise plausible sequence, which
// mutating whole files rarely produces.
func FuzzReplayEvent(f *testing.F) {
	seeds := replaySeeds(f)
	decl := armAllDeclarations(f)
	payloads := []string{
		`{"iteration":1,"provider":"mock","model":"mock","tools":[{"name":"backup_status"},{"name":"fleet_report"}]}`,
		`{"iteration":1,"content":"{\"nav_count\":5}","wireManifest":{"toolNames":["backup_status","ghost"]}}`,
		`{"toolName":"backup_status","toolCallId":"c1","args":{"host":"h-042"}}`,
		`{"toolCallId":"c1","result":[{"host":"h","logical_unit_number":"","checked_at":"x","healthy":"yes"}]}`,
		`{"contentHash":"0","slot":"messages","rawContent":"h-042","asRole":"tool","sourceId":"c0","position":3}`,
		`{"slot":"messages","contentHash":"0","reason":"window"}`,
		`{"iterIndex":1,"history":[{"role":"tool","content":"h-042","toolCallId":"c0","toolName":"fleet_report"},{"role":"assistant","toolCalls":[{"id":"c1","name":"backup_status"}]}]}`,
		`{"mapId":"skill-map","iteration":1}`,
		`{"toolName":"whats_here","toolCallId":"c0","iteration":1,"semantics":{"af_semantics":true,"facts":[{"entity":"screen2","field":"nav","value":2}]}}`,
		`{"integrity":{"tools":{"x":{"argumentsFrom":["x"]}}}}`,
		`{"iteration":1e308,"tools":[{"name":null}],"history":"x","args":[],"result":{"rows":null}}`,
	}
	for i, p := range payloads {
		f.Add(uint8(i), uint16(i*3), uint8(i*5), []byte(p))
	}
	f.Fuzz(func(t *testing.T, which uint8, pos uint16, typ uint8, payload []byte) {
		replayAll(t, withFuzzedEvent(t, seeds[int(which)%len(seeds)], pos, typ, payload), decl)
	})
}

// withFuzzedEvent is seed with one more line: an event of a chosen type
// with a fuzzed payload, put before line pos (modulo the lines, one past
// the last meaning the end) and joined to the run of the seed's first
// line when it names one.
func withFuzzedEvent(t *testing.T, seed []byte, pos uint16, typ uint8, payload []byte) []byte {
	t.Helper()
	lines := bytes.SplitAfter(seed, []byte("\n"))
	runID := "run-fuzz"
	var first struct {
		Meta struct {
			RunID string `json:"runId"`
		} `json:"meta"`
	}
	if json.Unmarshal(lines[0], &first) == nil && first.Meta.RunID != "" {
		runID = first.Meta.RunID
	}
	ev, err := json.Marshal(map[string]any{
		"type":    eventTypes[int(typ)%len(eventTypes)],
		"payload": json.RawMessage(payloadOrString(payload)),
		"meta":    map[string]any{"runId": runID, "runtimeStageId": "fuzz#1", "wallClockMs": 1796025700000},
	})
	if err != nil {
		t.Fatal(err)
	}
	at := int(pos) % (len(lines) + 1)
	var data []byte
	for i, l := range lines {
		if i == at {
			data = append(append(data, ev...), '\n')
		}
		data = append(data, l...)
	}
	if at == len(lines) {
		data = append(append(data, '\n'), ev...)
	}
	return data
}

// payloadOrString keeps a fuzzed payload that is valid JSON and otherwise
// carries its bytes as a JSON string, so every input yields one event line.
func payloadOrString(p []byte) []byte {
	if json.Valid(p) {
		return p
	}
	b, _ := json.Marshal(string(p))
	return b
}

// TestArmAllDeclarationsArmEveryCheck keeps the fuzz declarations honest:
// replaying a fixture with them, no registered check is left unarmed for
// want of a declaration.
func TestArmAllDeclarationsArmEveryCheck(t *testing.T) {
	decl := armAllDeclarations(t)
	for _, c := range checks.Registry {
		if c.Armed != nil && !c.Armed(decl) {
			t.Errorf("%s is not armed by the fuzz declarations", c.Key())
		}
	}
}
