package report

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/internal/golden"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/recordings/report/golden")

const fixtureDir = "../testdata/recordings/report"

var (
	testFilable = []string{checks.KindInvariantViolation, checks.KindDanglingReference, checks.KindUnsupportedClaim}
	testKnown   = []string{checks.KindInvariantViolation, checks.KindUnsupportedArgument, checks.KindDanglingReference, checks.KindDuplicateExecution, checks.KindUnsupportedClaim}
)

func testOptions(o Options) Options {
	o.FilableKinds, o.KnownKinds = testFilable, testKnown
	return o
}

type goldenCase struct {
	name   string
	inputs []string
	opts   Options
	text   TextOptions
	// tweak edits what was read before Build, for facts a hand-written
	// NDJSON file cannot carry (envelope statements, read errors, replay).
	tweak func(t *testing.T, in []InputResult)
	// textOnly skips the JSON golden (styling variants of a text case).
	textOnly bool
	exit     int
}

func goldenCases() []goldenCase {
	return []goldenCase{
		{name: "full", inputs: []string{"full.jsonl"}, exit: ExitGreen},
		{name: "partial", inputs: []string{"partial.jsonl"}, exit: ExitGreen},
		{name: "partial-never-ran", inputs: []string{"partial-never-ran.jsonl"}, exit: ExitUnmeasured},
		{name: "nothing-checked", inputs: []string{"nothing-checked.jsonl"}, exit: ExitUnmeasured},
		{name: "no-check-registered", inputs: []string{"no-check-registered.jsonl"}, exit: ExitUnmeasured},
		{name: "no-disposition", inputs: []string{"no-disposition.jsonl"}, exit: ExitDefects},
		{name: "no-integrity-events", inputs: []string{"no-integrity-events.jsonl"}, exit: ExitUnmeasured},
		{name: "no-tail-empty-input", inputs: []string{"empty.jsonl"}, exit: ExitUnmeasured},
		{name: "no-tail-no-events-key", inputs: []string{"no-events.json"}, exit: ExitUnmeasured},
		{name: "no-tail-run", inputs: []string{"empty.jsonl"}, exit: ExitUnmeasured,
			tweak: func(t *testing.T, in []InputResult) {
				in[0].Runs = append(in[0].Runs, RunResult{Input: "empty.jsonl", RunID: "run-1796025700000-1", Recorded: replay.Recorded(nil)})
			}},
		{name: "evidence-missing", inputs: []string{"evidence-missing.jsonl"}, exit: ExitDefects},
		{name: "advisory", inputs: []string{"advisory.jsonl"}, exit: ExitDefects},
		{name: "advisory-fail-on-advisory", inputs: []string{"advisory.jsonl"}, opts: Options{FailOn: FailOnAdvisory}, exit: ExitDefects},
		{name: "synthetic", inputs: []string{"synthetic.jsonl"}, exit: ExitDefects},
		{name: "reconciliation", inputs: []string{"reconciliation.jsonl"}, exit: ExitDefects},
		// One finding filed three times is listed once with its count, and
		// the ledger still reconciles against the four finding events.
		{name: "repeated", inputs: []string{"repeated.jsonl"}, exit: ExitDefects},
		{name: "interleaved", inputs: []string{"interleaved.jsonl"}, exit: ExitDefects},
		{name: "sessions", inputs: []string{"sessions.jsonl"}, exit: ExitDefects},
		{name: "hostile", inputs: []string{"hostile.jsonl"}, exit: ExitDefects,
			tweak: func(t *testing.T, in []InputResult) {
				in[0].Stats.Path = "hostile\x1b]0;title\x07.jsonl"
				in[0].Stats.Malformed = 1
				in[0].Stats.Problems = append(in[0].Stats.Problems, recording.Problem{Line: 9, Message: "bad byte \x1b[2J\r\u202e here"})
				for i := range in[0].Runs {
					in[0].Runs[i].Input = in[0].Stats.Path
				}
			}},
		{name: "kind-filter", inputs: []string{"mixed.jsonl"}, opts: Options{Kind: checks.KindDanglingReference}, exit: ExitDefects},
		{name: "kind-filter-none", inputs: []string{"reconciliation.jsonl"}, opts: Options{Kind: checks.KindUnsupportedClaim}, exit: ExitDefects},
		{name: "limit", inputs: []string{"mixed.jsonl"}, opts: Options{Limit: 1}, exit: ExitDefects},
		{name: "loss", inputs: []string{"loss.jsonl"}, exit: ExitUnmeasured,
			tweak: func(t *testing.T, in []InputResult) {
				dropped, complete := int64(3), false
				in[0].Stats.DroppedEvents, in[0].Stats.Complete = &dropped, &complete
				in[0].Stats.WrongTypes["meta.runId"] = 2
			}},
		{name: "multi-input", inputs: []string{"full.jsonl", "missing.jsonl", "empty.jsonl"}, exit: ExitUnreadable},
		{name: "damaged", inputs: []string{"full.jsonl", "interleaved.jsonl"}, exit: ExitDefects, tweak: addDamage},
		{name: "damaged-full", inputs: []string{"full.jsonl"}, exit: ExitUnmeasured, tweak: addDamage},
		{name: "damaged-allowed", inputs: []string{"full.jsonl"}, opts: Options{AllowDamaged: true}, exit: ExitGreen, tweak: addDamage},
		{name: "allow-unmeasured", inputs: []string{"full.jsonl", "nothing-checked.jsonl"}, opts: Options{AllowUnmeasured: true}, exit: ExitGreen},
		{name: "replayed", inputs: []string{"mixed.jsonl"}, exit: ExitDefects, tweak: addReplay},
		{name: "replayed-fail-on-drift", inputs: []string{"mixed.jsonl"}, opts: Options{FailOn: FailOnDrift}, exit: ExitDefects, tweak: addReplay},
		{name: "color", inputs: []string{"mixed.jsonl", "partial.jsonl", "nothing-checked.jsonl"}, text: TextOptions{Color: true}, textOnly: true, exit: ExitDefects},
		{name: "width", inputs: []string{"mixed.jsonl"}, text: TextOptions{Width: 72}, textOnly: true, exit: ExitDefects},
	}
}

// addDamage gives full.jsonl a malformed line naming its run and one naming
// a run of which nothing else was read, and interleaved.jsonl a malformed
// line naming no run and a ledger count past replay found unusable.
func addDamage(t *testing.T, in []InputResult) {
	in[0].Stats.Malformed = 3
	in[0].Stats.Losses = []recording.Loss{
		{Kind: "malformed", RunID: in[0].Runs[0].RunID, Count: 2, Lines: []int64{4, 6}},
		{Kind: "malformed", RunID: "run-1796025799999-9", Count: 1, Lines: []int64{9}},
	}
	if len(in) < 2 {
		return
	}
	in[1].Stats.Malformed = 1
	in[1].Stats.Losses = []recording.Loss{{Kind: "malformed", Count: 1, Lines: []int64{3}}}
	in[1].Runs[0].Damage = []Damage{{Cause: DamageLedgerCount, Detail: "invariant-violation @wire checked -1"}}
}

// addReplay gives the first run replayed evidence that agrees on the wire
// finding, drifts on the dangling one, lacks input for the claim and files a
// finding of its own.
func addReplay(t *testing.T, in []InputResult) {
	run := &in[0].Runs[0]
	var wire checks.Finding
	for _, f := range run.Recorded.Findings {
		if f.Kind == checks.KindInvariantViolation {
			wire = f
		}
	}
	wire.Line, wire.FiledAt = 0, "call-llm#18"
	extra := checks.Finding{Kind: checks.KindDanglingReference, Seam: checks.SeamCompose,
		Subjects: []checks.Subject{{Kind: "tool", ID: "screen_open"}, {Kind: "tool", ID: "whats_here"}},
		Message:  "'screen_open' is offered while the results grounding its arguments (whats_here) have left the window.",
		FiledAt:  "call-llm#30", Witnesses: []checks.Witness{{Subject: checks.Subject{Kind: "tool", ID: "screen_open"}, Predicate: "argument-ground"}}, WitnessesRecorded: true}
	run.Replayed = &replay.Evidence{
		Findings: []checks.Finding{wire, extra},
		Disposition: &replay.Disposition{Posture: "observe", WorkExisted: true, Rows: []checks.Row{
			{Check: checks.KindInvariantViolation, Seam: checks.SeamWire, Unreachable: 4},
			{Check: checks.KindInvariantViolation, Seam: checks.SeamCompose, NotApplicable: 1},
			{Check: checks.KindDanglingReference, Seam: checks.SeamCompose, Checked: 2, Findings: 2, NotApplicable: 3},
			{Check: checks.KindUnsupportedClaim, Seam: checks.SeamClaim, Unreachable: 2},
		}},
		Unreachable: map[string][]string{replay.CheckKey(checks.KindUnsupportedClaim, checks.SeamClaim): {"no claims contract declared"}},
	}
}

func buildGolden(t *testing.T, gc goldenCase) *Report {
	t.Helper()
	return Build(goldenInputs(t, gc), testOptions(gc.opts))
}

// goldenInputs reads a golden case's inputs, tweaked.
func goldenInputs(t *testing.T, gc goldenCase) []InputResult {
	t.Helper()
	var inputs []InputResult
	for _, name := range gc.inputs {
		in := readTestInput(t, filepath.Join(fixtureDir, name), name)
		if errors.Is(in.Err, os.ErrNotExist) {
			in.Err = errors.New("open " + name + ": no such file or directory")
		}
		inputs = append(inputs, in)
	}
	if gc.tweak != nil {
		gc.tweak(t, inputs)
	}
	return inputs
}

func TestGolden(t *testing.T) {
	for _, gc := range goldenCases() {
		t.Run(gc.name, func(t *testing.T) {
			r := buildGolden(t, gc)
			if got := r.ExitCode(); got != gc.exit {
				t.Errorf("ExitCode() = %d, want %d", got, gc.exit)
			}
			var text bytes.Buffer
			if err := RenderText(&text, r, gc.text); err != nil {
				t.Fatal(err)
			}
			if !gc.text.Color && bytes.ContainsAny(text.Bytes(), "\x1b\r\x07\x08") {
				t.Errorf("plain text output carries control characters")
			}
			compareGolden(t, filepath.Join(fixtureDir, "golden", gc.name+".txt"), text.Bytes())
			if gc.textOnly {
				return
			}
			var js bytes.Buffer
			if err := RenderJSON(&js, r); err != nil {
				t.Fatal(err)
			}
			compareGolden(t, filepath.Join(fixtureDir, "golden", gc.name+".json"), js.Bytes())
		})
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	golden.Compare(t, path, got, *update)
}

// TestRenderDeterministic renders every golden case twice: same model, same
// bytes.
func TestRenderDeterministic(t *testing.T) {
	for _, gc := range goldenCases() {
		r := buildGolden(t, gc)
		var a, b, c, d bytes.Buffer
		_ = RenderText(&a, r, gc.text)
		_ = RenderText(&b, buildGolden(t, gc), gc.text)
		_ = RenderJSON(&c, r)
		_ = RenderJSON(&d, buildGolden(t, gc))
		if !bytes.Equal(a.Bytes(), b.Bytes()) || !bytes.Equal(c.Bytes(), d.Bytes()) {
			t.Errorf("%s: output not deterministic", gc.name)
		}
	}
}
