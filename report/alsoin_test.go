package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

// TestSharedRunIDIsLinear: a run id carried by many inputs names a few of
// the others on each run and counts the rest, so the report grows linearly
// with the inputs (4,000 such inputs once gave 1.5 GB of JSON).
func TestSharedRunIDIsLinear(t *testing.T) {
	tests := []struct {
		inputs   int
		wantList int
		wantMore int
	}{
		{1, 0, 0},
		{2, 1, 0},
		{4, 3, 0},
		{5, 3, 1},
		{4000, 3, 3996},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.inputs), func(t *testing.T) {
			var in []InputResult
			for i := range tt.inputs {
				path := fmt.Sprintf("part-%04d.jsonl", i)
				run := RunResult{Input: path, RunID: "run-shared", Events: 1, FirstLine: 1, Recorded: replay.Recorded(nil)}
				// A second segment of the same id in the same input is
				// one input, not two.
				in = append(in, InputResult{Stats: &recording.Stats{Path: path, Format: recording.FormatNDJSON}, Runs: []RunResult{run, run}})
			}
			r := Build(in, Options{})
			for _, run := range r.Runs {
				if len(run.AlsoIn) != tt.wantList || run.AlsoInMore != tt.wantMore {
					t.Fatalf("%s: alsoIn %v (+%d), want %d listed and %d more", run.Input, run.AlsoIn, run.AlsoInMore, tt.wantList, tt.wantMore)
				}
				for _, other := range run.AlsoIn {
					if other == run.Input {
						t.Fatalf("%s names itself in alsoIn", run.Input)
					}
				}
			}
			if tt.wantMore > 0 {
				note := strings.Join(r.Runs[0].Notes, "\n")
				if want := fmt.Sprintf("also appear in part-0001.jsonl, part-0002.jsonl, part-0003.jsonl and %d more input", tt.wantMore); !strings.Contains(note, want) {
					t.Errorf("notes lack %q:\n%s", want, note)
				}
			}
			var out bytes.Buffer
			if err := RenderJSON(&out, r); err != nil {
				t.Fatal(err)
			}
			if perRun := out.Len() / len(r.Runs); perRun > 8<<10 {
				t.Errorf("%d bytes of JSON per run: the report is not linear in the inputs", perRun)
			}
		})
	}
}
