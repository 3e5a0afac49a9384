package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/internal/golden"
	"github.com/fpcheck/fpcheck/recording"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/recordings/replay")

const fixtureRoot = "../testdata/recordings/replay"

// loadDeclarations reads a fixture's declarations.yaml or declarations.json;
// nil when the fixture has none.
func loadDeclarations(t *testing.T, dir string) *checks.Declarations {
	t.Helper()
	for _, name := range []string{"declarations.yaml", "declarations.json"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		d, err := checks.ParseDeclarations(name, data)
		if err != nil {
			t.Fatalf("declarations: %v", err)
		}
		return d
	}
	return nil
}

type replayedRun struct {
	Run      string    `json:"run"`
	Error    string    `json:"error,omitempty"`
	Evidence *Evidence `json:"evidence"`
}

func marshalGolden(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestReplayFixtures replays every fixture under testdata/recordings/replay
// and compares the evidence with its golden want.json.
func TestReplayFixtures(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(fixtureRoot, "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures under %s (%v)", fixtureRoot, err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			decl := loadDeclarations(t, dir)
			var got []replayedRun
			for _, run := range readRuns(t, filepath.Join(dir, "events.jsonl")) {
				ev, err := Replay(run, decl, Options{})
				rr := replayedRun{Run: run.ID, Evidence: ev}
				if err != nil {
					rr.Error = err.Error()
				}
				got = append(got, rr)
			}
			gotJSON := marshalGolden(t, got)
			checkGolden(t, filepath.Join(dir, "want.json"), gotJSON)
		})
	}
}

// TestFixtureHashes keeps the hand-made fixtures honest about the content
// hashes agentfootprint would write.
func TestFixtureHashes(t *testing.T) { checkFixtureHashes(t, fixtureRoot) }

// checkFixtureHashes checks every messages-slot record under root: its
// contentHash must be the hash of its role, position and content, as
// agentfootprint computes it.
func checkFixtureHashes(t *testing.T, root string) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(root, "*", "events.jsonl"))
	for _, path := range paths {
		for _, run := range readRuns(t, path) {
			for _, ev := range run.Events {
				var p injectedPayload
				if ev.Type != recording.TypeContextInjected || !decodeLoose(ev.Payload, &p) || p.Slot != "messages" || p.RawContent == nil || p.Position == nil {
					continue
				}
				if want := MessageHash(p.AsRole, int(*p.Position), *p.RawContent); want != p.ContentHash {
					t.Errorf("%s:%d: contentHash %s, want %s", path, ev.Line, p.ContentHash, want)
				}
			}
		}
	}
}

// checkGolden compares got with the golden file, or rewrites it under
// -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	golden.Compare(t, path, got, *update)
}

// findingsOf summarises findings as identities, for assertions that do not
// need the whole golden.
func findingsOf(ev *Evidence) []string {
	var out []string
	for _, f := range ev.Findings {
		out = append(out, f.Identity())
	}
	return out
}

func TestGanymedeSelfReference(t *testing.T) {
	dir := filepath.Join(fixtureRoot, "choice-ganymede")
	decl := loadDeclarations(t, dir)
	runs := readRuns(t, filepath.Join(dir, "events.jsonl"))
	if len(runs) != 2 {
		t.Fatalf("want the two turns of the conversation, got %d runs", len(runs))
	}
	first, err := Replay(runs[0], decl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Findings) != 0 {
		t.Errorf("turn one called backup_status with a grounded machine id; got findings %v", findingsOf(first))
	}
	second, err := Replay(runs[1], decl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Findings) != 1 {
		t.Fatalf("turn two: want exactly one finding, got %v", findingsOf(second))
	}
	f := second.Findings[0]
	if got, want := f.Identity(), "unsupported-argument @choice [tool backup_status] machine "; got != want {
		t.Errorf("identity %q, want %q", got, want)
	}
	for _, s := range []string{"4417-ganymede", "own earlier answer", "call fleet_report again"} {
		if !strings.Contains(f.Message, s) {
			t.Errorf("message %q does not say %q", f.Message, s)
		}
	}
}

func TestChoiceNowhereAndGrounded(t *testing.T) {
	dir := filepath.Join(fixtureRoot, "choice-nowhere")
	ev, err := Replay(readRuns(t, filepath.Join(dir, "events.jsonl"))[0], loadDeclarations(t, dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"unsupported-argument @choice [tool backup_status] machine ",
		"unsupported-argument @choice [tool backup_status] filter.hosts.1 ",
	}
	if diff := cmp.Diff(want, findingsOf(ev)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	for _, f := range ev.Findings {
		if !strings.Contains(f.Message, "no ground in the window holds it") {
			t.Errorf("a value found nowhere must say no ground holds it: %q", f.Message)
		}
	}
}

func TestWireManifestFixture(t *testing.T) {
	dir := filepath.Join(fixtureRoot, "wire-manifest")
	ev, err := Replay(readRuns(t, filepath.Join(dir, "events.jsonl"))[0], nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"invariant-violation @wire [tool ghost_tool]  ",
		"invariant-violation @wire [tool get_forecast]  ",
		"invariant-violation @wire [tool get_weather]  ",
	}
	if diff := cmp.Diff(want, findingsOf(ev)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	row, _ := ev.Disposition.Row(checks.KindInvariantViolation, checks.SeamWire)
	if row.Checked != 3 || row.Findings != 2 || row.Unreachable != 2 {
		t.Errorf("wire row %+v, want checked 3, findings 2, unreachable 2", row)
	}
}

func TestDevPostureCanaries(t *testing.T) {
	run := &recording.Run{ID: "r"}
	dead := *checks.WireInvariant
	dead.Canary = func() []checks.Finding { return nil }
	reg := []*checks.Check{&dead}
	_, err := ReplayWith(reg, run, nil, Options{Posture: checks.PostureDev})
	var cd *checks.CheckerDeadError
	if !errors.As(err, &cd) || cd.Kind != checks.KindInvariantViolation || cd.Seam != checks.SeamWire {
		t.Fatalf("want a checker-dead error for the wire check, got %v", err)
	}
	if _, err := ReplayWith(reg, run, nil, Options{}); err != nil {
		t.Errorf("observe posture runs no canary, got %v", err)
	}
	if _, err := Replay(run, nil, Options{Posture: "prod"}); err == nil {
		t.Error("an unknown posture must be refused")
	}
}

func TestDeclarationsFromRecordingRefused(t *testing.T) {
	payload := `{"agentId":"agent","integrity":{"tools":{"t":{"argumentsFrom":["t"]}}}}`
	run := &recording.Run{ID: "r", Input: "in.jsonl", Events: []recording.Event{{Type: recording.TypeRunConfigured, Payload: json.RawMessage(payload), Line: 1}}}
	_, err := Replay(run, nil, Options{})
	var de *checks.DeclarationError
	if !errors.As(err, &de) || de.Tool != "t" {
		t.Fatalf("want a declaration error about tool t, got %v", err)
	}
}

func TestFNV1a(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", "811c9dc5"},
		// Values agentfootprint wrote in the reference corpus.
		{"assistant:1:", "62db47c8"},
		{"assistant:2:", "6cd918ef"},
		{"user:0:Go through every screen on the floor and find the hottest rack.", "445d50fd"},
		// No zero padding: a hash can be seven characters long.
		{"tool:5:fired rack-b4: temperature 49C", "64f3314"},
		// UTF-16 code units, not UTF-8 bytes.
		{"é", "6c0b6c44"},
		{"😀", "cb31c4b8"},
	}
	for _, tc := range tests {
		if got := FNV1a(tc.in); got != tc.want {
			t.Errorf("FNV1a(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if got := MessageHash("tool", 3, "fired screen2: temperature 49C"); got != "729df910" {
		t.Errorf("MessageHash = %s, want 729df910", got)
	}
}

// TestCloneCallShares: the checks of one call share its frame and tools
// offered, never copied per check, and what one check appends to its view
// is never seen by another or by the call.
func TestCloneCallShares(t *testing.T) {
	call := checks.CallView{Served: []string{"a", "b"}, Frame: checks.Frame{
		System: []string{"sys"}, Messages: []checks.Message{{Role: checks.RoleUser, Content: "q"}}, Gaps: []string{"gap"}}}
	call.Served = append(call.Served[:2:2], "c")[:2] // room to append in place
	mine, theirs := cloneCall(call), cloneCall(call)
	if &mine.Frame.Messages[0] != &call.Frame.Messages[0] || &mine.Served[0] != &call.Served[0] {
		t.Error("a check's view copies the call's frame or tools")
	}
	mine.Served = append(mine.Served, "x")
	mine.Frame.System = append(mine.Frame.System, "x")
	mine.Frame.Messages = append(mine.Frame.Messages, checks.Message{Role: "x"})
	mine.Frame.Gaps = append(mine.Frame.Gaps, "x")
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"served", theirs.Served, []string{"a", "b"}},
		{"served, past the call's length", call.Served[:3], []string{"a", "b", "c"}},
		{"system", theirs.Frame.System, []string{"sys"}},
		{"gaps", theirs.Frame.Gaps, []string{"gap"}},
	}
	for _, tt := range tests {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s: %q after another check appended, want %q", tt.name, tt.got, tt.want)
		}
	}
	if len(theirs.Frame.Messages) != 1 || len(call.Frame.Messages[:cap(call.Frame.Messages)]) != 1 {
		t.Errorf("messages: another check's append reached this view")
	}
	if v := cloneCall(checks.CallView{Frame: checks.Frame{Messages: []checks.Message{}}}); v.Frame.Messages != nil {
		t.Error("a frame of no messages is not handed over as none")
	}
}

// TestGroundingSharedPerAnswer: the grounding index of an answer is built
// once, when first asked, and every reader of the answer gets that one.
func TestGroundingSharedPerAnswer(t *testing.T) {
	frame := checks.Frame{Source: checks.FrameFromInjected, Messages: []checks.Message{{Role: checks.RoleTool, Content: `{"host":"host-0042"}`}}}
	view := checks.ClaimView{Frame: frame, UserPrompt: "q", Grounding: sharedGrounding(frame, "q")}
	first := view.Index()
	if first == nil || view.Index() != first {
		t.Fatal("a second reader of the answer got another index")
	}
	if _, ok := first.Lookup("host-0042"); !ok {
		t.Error("the shared index does not hold the frame's values")
	}
	if unshared := (checks.ClaimView{Frame: frame, UserPrompt: "q"}); unshared.Index() == unshared.Index() {
		t.Error("a view without a shared index shares one")
	}
}
