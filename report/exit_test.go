package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

// stateRun builds a run in a given evidence state, straight from events, so
// the exit-code table reads as states rather than fixtures.
func stateRun(t *testing.T, state string) RunResult {
	t.Helper()
	ev := func(typ, payload string) recording.Event {
		return recording.Event{Type: typ, Payload: json.RawMessage(payload), Meta: recording.Meta{RunID: "run-1", RuntimeStageID: "s#1"}}
	}
	start := ev(recording.TypeRunConfigured, `{}`)
	defect := ev(recording.TypeContextError, `{"kind":"invariant-violation","seam":"wire","subjects":[{"kind":"tool","id":"ghost"}],"witnesses":[],"message":"m"}`)
	advisory := ev(recording.TypeContextError, `{"kind":"unsupported-claim","seam":"claim","predicate":"scope","advisory":true,"subjects":[{"kind":"entity","id":"e"}],"witnesses":[],"message":"m"}`)
	canary := ev(recording.TypeContextError, `{"kind":"invariant-violation","seam":"wire","synthetic":true,"subjects":[],"witnesses":[],"message":"m"}`)
	ledger := func(rows string) recording.Event {
		return ev(recording.TypeDisposition, `{"posture":"observe","workExisted":true,"rows":`+rows+`}`)
	}
	const (
		full          = `[{"check":"invariant-violation","seam":"wire","checked":2},{"check":"dangling-reference","seam":"compose","checked":1}]`
		partial       = `[{"check":"invariant-violation","seam":"wire","checked":2},{"check":"dangling-reference","seam":"compose","notApplicable":1}]`
		neverRan      = `[{"check":"invariant-violation","seam":"wire","checked":2},{"check":"dangling-reference","seam":"compose"}]`
		nothing       = `[{"check":"invariant-violation","seam":"wire","unreachable":3}]`
		fired         = `[{"check":"invariant-violation","seam":"wire","checked":2,"findings":2}]`
		claimAdvisory = `[{"check":"invariant-violation","seam":"wire","checked":2},{"check":"unsupported-claim","seam":"claim","checked":1}]`
	)
	var events []recording.Event
	switch state {
	case "no-tail":
	case "no-integrity-events":
		events = []recording.Event{start}
	case "no-disposition":
		events = []recording.Event{start, canary}
	case "no-disposition-with-defect":
		events = []recording.Event{start, defect}
	case "no-check-registered":
		events = []recording.Event{start, ledger(`[]`)}
	case "nothing-checked":
		events = []recording.Event{start, ledger(nothing)}
	case "never-ran":
		events = []recording.Event{start, ledger(neverRan)}
	case "partial":
		events = []recording.Event{start, ledger(partial)}
	case "full":
		events = []recording.Event{start, ledger(full)}
	case "defect":
		events = []recording.Event{start, defect, ledger(fired)}
	case "advisory":
		events = []recording.Event{start, advisory, ledger(claimAdvisory)}
	case "synthetic-only":
		events = []recording.Event{start, canary, ledger(full)}
	case "evidence-missing":
		events = []recording.Event{start, ledger(fired)}
	default:
		t.Fatalf("unknown state %q", state)
	}
	return RunResult{Input: state + ".jsonl", RunID: "run-" + state, Events: len(events), Recorded: replay.Recorded(events)}
}

func TestExitCodeTable(t *testing.T) {
	type want struct{ defect, advisory, drift, allow int }
	tests := []struct {
		state    string
		coverage Coverage
		verdict  Verdict
		want     want
	}{
		{"no-tail", CoverageNoTail, VerdictUnmeasured, want{3, 3, 3, 0}},
		{"no-integrity-events", CoverageNoIntegrityEvents, VerdictUnmeasured, want{3, 3, 3, 0}},
		{"no-disposition", CoverageNoDisposition, VerdictUnmeasured, want{3, 3, 3, 0}},
		{"no-disposition-with-defect", CoverageNoDisposition, VerdictDefects, want{1, 1, 1, 1}},
		{"no-check-registered", CoverageNoCheckRegistered, VerdictUnmeasured, want{3, 3, 3, 0}},
		{"nothing-checked", CoverageNothingChecked, VerdictUnmeasured, want{3, 3, 3, 0}},
		{"never-ran", CoveragePartial, VerdictUnmeasured, want{3, 3, 3, 0}},
		{"partial", CoveragePartial, VerdictGreen, want{0, 0, 0, 0}},
		{"full", CoverageFull, VerdictGreen, want{0, 0, 0, 0}},
		{"defect", CoverageFull, VerdictDefects, want{1, 1, 1, 1}},
		{"advisory", CoverageFull, VerdictGreen, want{0, 1, 1, 0}},
		{"synthetic-only", CoverageFull, VerdictGreen, want{0, 0, 0, 0}},
		{"evidence-missing", CoverageFull, VerdictDefects, want{1, 1, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.state, func(t *testing.T) {
			run := stateRun(t, tt.state)
			in := []InputResult{{Stats: &recording.Stats{Path: run.Input, Format: recording.FormatNDJSON}, Runs: []RunResult{run}}}
			for i, c := range []struct {
				opts Options
				want int
			}{
				{Options{}, tt.want.defect},
				{Options{FailOn: FailOnDefect}, tt.want.defect},
				{Options{FailOn: FailOnAdvisory}, tt.want.advisory},
				{Options{FailOn: FailOnDrift}, tt.want.drift},
				{Options{AllowUnmeasured: true}, tt.want.allow},
				// A filter changes what is shown, never the code.
				{Options{Kind: checks.KindDanglingReference, Limit: 1}, tt.want.defect},
			} {
				r := Build(in, testOptions(c.opts))
				if got := r.ExitCode(); got != c.want {
					t.Errorf("%+v: ExitCode() = %d, want %d", c.opts, got, c.want)
				}
				if i == 0 {
					if got := r.Runs[0].Recorded.Coverage; got != tt.coverage {
						t.Errorf("coverage = %s, want %s", got, tt.coverage)
					}
					if got := r.Runs[0].Verdict; got != tt.verdict {
						t.Errorf("verdict = %s, want %s", got, tt.verdict)
					}
				}
			}
		})
	}
}

func TestExitCodeInputsAndPrecedence(t *testing.T) {
	readable := func(runs ...RunResult) InputResult {
		return InputResult{Stats: &recording.Stats{Path: "in.jsonl", Format: recording.FormatNDJSON}, Runs: runs}
	}
	unreadable := InputResult{Path: "bad.jsonl", Err: errors.New("zstd: corrupt input")}
	tests := []struct {
		name   string
		inputs []InputResult
		opts   Options
		want   int
	}{
		{"no input at all", nil, Options{}, ExitUnmeasured},
		{"no input at all, allowed", nil, Options{AllowUnmeasured: true}, ExitGreen},
		{"input with zero runs", []InputResult{readable()}, Options{}, ExitUnmeasured},
		{"input with zero runs, allowed", []InputResult{readable()}, Options{AllowUnmeasured: true}, ExitGreen},
		{"unreadable", []InputResult{unreadable}, Options{}, ExitUnreadable},
		{"unreadable beats defects", []InputResult{readable(stateRun(t, "defect")), unreadable}, Options{}, ExitUnreadable},
		{"unreadable is not allowed away", []InputResult{unreadable}, Options{AllowUnmeasured: true}, ExitUnreadable},
		{"defects beat unmeasured", []InputResult{readable(stateRun(t, "nothing-checked"), stateRun(t, "defect"))}, Options{}, ExitDefects},
		{"defects beat unmeasured across inputs", []InputResult{readable(stateRun(t, "defect")), readable()}, Options{}, ExitDefects},
		{"unmeasured beats green", []InputResult{readable(stateRun(t, "full"), stateRun(t, "no-check-registered"))}, Options{}, ExitUnmeasured},
		{"unmeasured allowed", []InputResult{readable(stateRun(t, "full"), stateRun(t, "no-check-registered"))}, Options{AllowUnmeasured: true}, ExitGreen},
		{"all green", []InputResult{readable(stateRun(t, "full"), stateRun(t, "partial"))}, Options{}, ExitGreen},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Build(tt.inputs, testOptions(tt.opts)).ExitCode(); got != tt.want {
				t.Errorf("ExitCode() = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestExitCodeWithReplay: a replay that measured the run makes an
// unrecorded ledger measured; drift fails only at the drift level.
func TestExitCodeWithReplay(t *testing.T) {
	run := stateRun(t, "no-integrity-events")
	run.Replayed = &replay.Evidence{Disposition: &replay.Disposition{Posture: "observe", WorkExisted: true,
		Rows: []checks.Row{{Check: checks.KindInvariantViolation, Seam: checks.SeamWire, Checked: 3}}}}
	in := []InputResult{{Stats: &recording.Stats{Path: "r.jsonl"}, Runs: []RunResult{run}}}
	if got := Build(in, testOptions(Options{})).ExitCode(); got != ExitGreen {
		t.Errorf("measured by the replay: ExitCode() = %d, want 0", got)
	}

	drifted := stateRun(t, "advisory")
	recorded := drifted.Recorded.Findings[0]
	drifted.Replayed = &replay.Evidence{Disposition: &replay.Disposition{Posture: "observe", WorkExisted: true,
		Rows: []checks.Row{{Check: checks.KindUnsupportedClaim, Seam: checks.SeamClaim, Checked: 1}}}}
	in = []InputResult{{Stats: &recording.Stats{Path: "r.jsonl"}, Runs: []RunResult{drifted}}}
	for _, c := range []struct {
		failOn string
		want   int
	}{{FailOnDefect, ExitGreen}, {FailOnDrift, ExitDefects}} {
		r := Build(in, testOptions(Options{FailOn: c.failOn}))
		if r.Runs[0].Drift != 1 {
			t.Fatalf("drift = %d, want 1 (%s recorded only: %q)", r.Runs[0].Drift, recorded.Identity(), r.Runs[0].Findings[0].Why)
		}
		if got := r.ExitCode(); got != c.want {
			t.Errorf("fail on %s: ExitCode() = %d, want %d", c.failOn, got, c.want)
		}
	}
}

func TestValidateOptions(t *testing.T) {
	tests := []struct {
		opts    Options
		wantErr string
	}{
		{Options{}, ""},
		{Options{Kind: checks.KindDanglingReference, FailOn: FailOnDrift, Limit: 3}, ""},
		{Options{Kind: checks.KindDuplicateExecution}, "no check in this build can file it"},
		{Options{Kind: checks.KindUnsupportedArgument}, "silence about it is not evidence"},
		{Options{Kind: "not-a-kind"}, "Kinds this build can file: invariant-violation, dangling-reference, unsupported-claim."},
		{Options{Kind: "\x1b[2J"}, `kind '\x1b[2J'`},
		{Options{FailOn: "warning"}, "not a gate level"},
		{Options{Limit: -1}, "negative"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%+v", tt.opts), func(t *testing.T) {
			err := ValidateOptions(testOptions(tt.opts))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			var ue *UsageError
			if !errors.As(err, &ue) || !strings.Contains(ue.Msg, tt.wantErr) {
				t.Fatalf("error %v, want a UsageError containing %q", err, tt.wantErr)
			}
		})
	}
	if _, err := RendererFor("xml", TextOptions{}); err == nil {
		t.Errorf("RendererFor(xml) should be a usage error: no such format")
	}
	for _, f := range Formats() {
		if _, err := RendererFor(f, TextOptions{}); err != nil {
			t.Errorf("RendererFor(%s): %v", f, err)
		}
	}
}

// TestExitCodeDamage: damaged evidence is unmeasured unless a defect is
// proven; a loss naming another run leaves a run alone; a loss naming a run
// of which nothing was read makes the input unmeasured; the allowances.
func TestExitCodeDamage(t *testing.T) {
	withLoss := func(rr RunResult, losses ...recording.Loss) InputResult {
		losses = slices.Clone(losses)
		for i := range losses {
			// "run-1" stands for the run's own id.
			if losses[i].RunID == "run-1" {
				losses[i].RunID = rr.RunID
			}
		}
		st := &recording.Stats{Path: "in.jsonl", Format: recording.FormatNDJSON, Losses: losses}
		for _, l := range losses {
			if l.Kind == "malformed" {
				st.Malformed += l.Count
			}
		}
		return InputResult{Stats: st, Runs: []RunResult{rr}}
	}
	mine := recording.Loss{Kind: "malformed", RunID: "run-1", Count: 1, Lines: []int64{3}}
	nobodys := recording.Loss{Kind: "malformed", Count: 1, Lines: []int64{3}}
	other := recording.Loss{Kind: "malformed", RunID: "run-2", Count: 1, Lines: []int64{3}}
	cut := recording.Loss{Kind: "cut off", RunID: "run-1", Count: 1, Lines: []int64{9}}
	unread := recording.Loss{Kind: "unread", RunID: "run-1", Count: 1, Lines: []int64{330}}
	dropped, incomplete := int64(4), false
	producer := func(in InputResult) InputResult {
		in.Stats.DroppedEvents, in.Stats.Complete = &dropped, &incomplete
		return in
	}
	unusable := func(in InputResult) InputResult {
		in.Stats.Unusable = []recording.Unusable{{Field: "run.droppedEvents", Line: 7, Problem: "is 1e300, not a count"}}
		return in
	}
	counted := InputResult{Stats: &recording.Stats{Path: "in.jsonl", Format: recording.FormatNDJSON, Malformed: 2}, Runs: []RunResult{stateRun(t, "full")}}
	ledger := stateRun(t, "full")
	ledger.Damage = []Damage{{Cause: DamageLedgerCount, Detail: "checked is negative"}}
	tests := []struct {
		name     string
		in       InputResult
		opts     Options
		want     int
		damaged  bool
		damageOf []DamageCause
	}{
		{"clean", withLoss(stateRun(t, "full")), Options{}, ExitGreen, false, nil},
		{"a line naming the run", withLoss(stateRun(t, "full"), mine), Options{}, ExitUnmeasured, true, []DamageCause{DamageMalformed}},
		{"a line naming no run", withLoss(stateRun(t, "full"), nobodys), Options{}, ExitUnmeasured, true, []DamageCause{DamageMalformed}},
		{"malformed counted but not located", counted, Options{}, ExitUnmeasured, true, []DamageCause{DamageMalformed}},
		{"a cut-off tail", withLoss(stateRun(t, "full"), cut), Options{}, ExitUnmeasured, true, []DamageCause{DamageCutOff}},
		{"reading stopped in the run", withLoss(stateRun(t, "full"), unread), Options{}, ExitUnmeasured, true, []DamageCause{DamageUnread}},
		{"the producer's statements", producer(withLoss(stateRun(t, "full"))), Options{}, ExitUnmeasured, true, []DamageCause{DamageDropped, DamageIncomplete}},
		{"a producer's statement that cannot be read", unusable(withLoss(stateRun(t, "full"))), Options{}, ExitUnmeasured, true, []DamageCause{DamageUnusable}},
		{"a producer's statement that cannot be read, allowed", unusable(withLoss(stateRun(t, "full"))), Options{AllowDamaged: true}, ExitGreen, true, []DamageCause{DamageUnusable}},
		{"an unusable ledger count", withLoss(ledger), Options{}, ExitUnmeasured, true, []DamageCause{DamageLedgerCount}},
		{"a line naming a run never read", withLoss(stateRun(t, "full"), other), Options{}, ExitUnmeasured, false, nil},
		{"a run never read, allowed", withLoss(stateRun(t, "full"), other), Options{AllowDamaged: true}, ExitGreen, false, nil},
		{"damage allowed", withLoss(stateRun(t, "full"), mine, nobodys), Options{AllowDamaged: true}, ExitGreen, true, []DamageCause{DamageMalformed, DamageMalformed}},
		{"damage allowed as unmeasured", withLoss(stateRun(t, "full"), mine), Options{AllowUnmeasured: true}, ExitGreen, true, []DamageCause{DamageMalformed}},
		{"a defect outranks damage", withLoss(stateRun(t, "defect"), mine), Options{}, ExitDefects, true, []DamageCause{DamageMalformed}},
		{"damage on an unmeasured run is not allowed away alone", withLoss(stateRun(t, "nothing-checked"), mine), Options{AllowDamaged: true}, ExitUnmeasured, true, []DamageCause{DamageMalformed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Build([]InputResult{tt.in}, testOptions(tt.opts))
			if got := r.ExitCode(); got != tt.want {
				t.Errorf("ExitCode() = %d, want %d", got, tt.want)
			}
			run := &r.Runs[0]
			if run.Damaged() != tt.damaged {
				t.Errorf("Damaged() = %v, want %v", run.Damaged(), tt.damaged)
			}
			var causes []DamageCause
			for _, d := range run.Damage {
				causes = append(causes, d.Cause)
			}
			if !slices.Equal(causes, tt.damageOf) {
				t.Errorf("damage causes = %v, want %v", causes, tt.damageOf)
			}
			if run.Damaged() && run.Verdict == VerdictGreen {
				t.Errorf("a damaged run is green")
			}
			if s := r.InputSummaries(); s[0].ExitCode != tt.want {
				t.Errorf("InputSummaries()[0].ExitCode = %d, want %d", s[0].ExitCode, tt.want)
			}
		})
	}
}

// TestStoppedInputAccounting: an input that stopped part-way states what
// it read without saying nothing was skipped, and a run it cut short
// carries the stop as damage, located, with nothing counted as lost.
func TestStoppedInputAccounting(t *testing.T) {
	rr := stateRun(t, "full")
	st := &recording.Stats{Path: "in.jsonl", Format: recording.FormatNDJSON, Lines: 329, Events: 329, HasEvents: true,
		Losses: []recording.Loss{{Kind: "unread", RunID: rr.RunID, Count: 1, Lines: []int64{330}}}}
	r := Build([]InputResult{{Stats: st, Runs: []RunResult{rr}, Err: errors.New("in.jsonl: the gzip stream ends early (truncated)")}}, testOptions(Options{}))
	notes := strings.Join(r.Inputs[0].Notes, "\n")
	if strings.Contains(notes, "nothing was skipped") || !strings.Contains(notes, "Read 329 lines as 329 events.") {
		t.Errorf("notes:\n%s", notes)
	}
	want := Damage{Cause: DamageUnread, Lines: []int64{330}, Charged: true}
	if d := r.Runs[0].Damage; len(d) != 1 || !reflect.DeepEqual(d[0], want) {
		t.Fatalf("damage %+v, want %+v", d, want)
	}
	if got, want := damagePhrase(r.Runs[0].Damage[0]), "the input could not be read past line 330, before this run was read whole"; got != want {
		t.Errorf("damagePhrase = %q, want %q", got, want)
	}
}

// TestExitMeaningNamesTheCause: exit 2 is labelled by what set it, in the
// one label every format and the stderr line give; a typo'd declared tool
// under --strict-declarations is not an unreadable input.
func TestExitMeaningNamesTheCause(t *testing.T) {
	unreadable := Input{Path: "a.jsonl", Error: "a.jsonl: line 3: not valid JSON"}
	stopped := Input{Path: "b.jsonl", RunCount: 1, StoppedRuns: []recording.StoppedRun{{RunID: "r", Line: 9, Message: "b.jsonl: line 9: run \"r\" has more than 8 events (limit set by --max-events-per-run)"}}}
	strict := &DeclarationsReport{Source: "d.yaml", Strict: true, Unseen: []UnseenTool{{NamedTool: checks.NamedTool{Name: "backup_statu", Field: "tools", Line: 2}}}}
	tests := []struct {
		name   string
		inputs []Input
		decl   *DeclarationsReport
		want   string
	}{
		{"unreadable", []Input{unreadable}, nil, "unreadable input"},
		{"stopped", []Input{stopped}, nil, "run stopped at a limit"},
		{"strict declarations", []Input{{Path: "c.jsonl"}}, strict, "--strict-declarations: a declared tool in no run"},
		{"all three", []Input{unreadable, stopped}, strict, "unreadable input, run stopped at a limit, --strict-declarations: a declared tool in no run"},
		{"unseen, not strict", []Input{unreadable}, &DeclarationsReport{Source: "d.yaml", Unseen: strict.Unseen}, "unreadable input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Report{Inputs: tt.inputs, Declarations: tt.decl}
			s := r.Summarize()
			if s.ExitCode != ExitUnreadable {
				t.Fatalf("exit %d, want 2", s.ExitCode)
			}
			if got := s.exitMeaning(); got != tt.want {
				t.Errorf("exitMeaning() = %q, want %q", got, tt.want)
			}
			want := "(" + tt.want + ")"
			for _, l := range r.StderrLines(false) {
				if strings.HasPrefix(l, "fpcheck: exit 2") && !strings.Contains(l, want) {
					t.Errorf("stderr %q lacks %q", l, want)
				}
			}
		})
	}
}
