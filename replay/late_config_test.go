package replay_test

import (
	"testing"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
	"github.com/fpcheck/fpcheck/report"
)

// TestLateRunConfiguredIsNeverGreen judges, as the report does, a run whose
// agent.run_configured comes after its first model call with a full
// ledger: with declarations the replay could not arm by, the run's
// evidence is damaged and the exit is not green; with declarations that
// change nothing it is green.
func TestLateRunConfiguredIsNeverGreen(t *testing.T) {
	for _, tt := range []struct {
		name   string
		config string
		want   int
	}{
		{"declares", `{"integrity":{"tools":{"backup_status":{"argumentsFrom":["fleet_report"],"noticeEmptyLookups":true}}}}`, report.ExitUnmeasured},
		{"declares nothing", `{"integrity":{}}`, report.ExitGreen},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := replay.LateRun(tt.config)
			n := int64(len(run.Events))
			run.Events = append(run.Events, recording.Event{Type: recording.TypeDisposition, Line: n + 1, Index: n, Meta: recording.Meta{RunID: run.ID},
				Payload: []byte(`{"posture":"observe","workExisted":true,"rows":[{"check":"invariant-violation","seam":"wire","checked":1}]}`)})
			rr := report.NewRunResult(run)
			ev, err := replay.Replay(run, nil, replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rr.Replayed = ev
			in := []report.InputResult{{Stats: &recording.Stats{Path: run.Input, Format: recording.FormatNDJSON}, Runs: []report.RunResult{rr}}}
			r := report.Build(in, report.Options{FilableKinds: checks.FilableKinds(), KnownKinds: checks.KnownKinds()})
			if got := r.ExitCode(); got != tt.want {
				t.Errorf("exit %d, want %d (lost %q)", got, tt.want, ev.Lost)
			}
		})
	}
}
