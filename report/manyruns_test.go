package report

import (
	"bytes"
	"testing"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/internal/hostile"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

// foldedManyRuns is manyRuns read as the CLI reads a stream: each run
// folded as its events are read, the runs' ledgers shared.
func foldedManyRuns(tb testing.TB, n int, decl *checks.Declarations) InputResult {
	tb.Helper()
	var slots []*RunResult
	ledgers := replay.NewLedgers()
	opts := recording.Options{Fold: func(run *recording.Run) (recording.RunFold, error) {
		f, err := replay.NewFold(run, decl, replay.Options{Posture: "observe", Ledgers: ledgers})
		if err != nil {
			return nil, err
		}
		return &manyRunsFold{fold: f, reader: NewRunReader(run, true), done: func(rr *RunResult) {
			rr.Tools, rr.ToolsRead = RelevantTools(rr.Tools, decl), true
			for len(slots) <= run.Seq {
				slots = append(slots, nil)
			}
			slots[run.Seq] = rr
		}}, nil
	}}
	st, err := recording.LoadReader("many.jsonl", manyRunsStream(tb, n), opts, nil)
	if err != nil {
		tb.Fatal(err)
	}
	runs := make([]RunResult, 0, len(slots))
	for _, rr := range slots {
		runs = append(runs, *rr)
	}
	return InputResult{Stats: st, Runs: runs}
}

type manyRunsFold struct {
	fold   *replay.Fold
	reader *RunReader
	done   func(*RunResult)
}

func (f *manyRunsFold) Add(ev *recording.Event) error {
	f.reader.Add(ev)
	return f.fold.Add(ev)
}

func (f *manyRunsFold) Kept() int64 { return f.fold.Kept() }
func (f *manyRunsFold) Drop()       { f.fold.Drop() }

func (f *manyRunsFold) End() error {
	res, err := f.fold.End()
	if err != nil {
		return err
	}
	rr := f.reader.Result(res.Recorded)
	rr.Replayed, rr.Tools = res.Replayed, res.Tools
	f.done(&rr)
	return nil
}

// TestManyRunsShared: a stream of one-event runs, every check armed, folded
// with its runs' ledgers, evidence and sides shared, gives in every format
// the same bytes as the whole-run path, which shares none of the runs'
// evidence.
func TestManyRunsShared(t *testing.T) {
	text := hostile.ArmAll(hostile.Tools)
	decl, err := checks.ParseDeclarations("armed.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	opts := testOptions(Options{Declared: decl, DeclaredNames: checks.PlaceToolNames(decl.ToolNames(), []byte(text))})
	const n = 300
	whole := Build([]InputResult{manyRuns(t, n, decl)}, opts)
	folded := Build([]InputResult{foldedManyRuns(t, n, decl)}, opts)
	if len(folded.Runs) != n {
		t.Fatalf("%d runs, want %d", len(folded.Runs), n)
	}
	if folded.Runs[0].Recorded != folded.Runs[n-1].Recorded || folded.Runs[0].Replayed != folded.Runs[n-1].Replayed {
		t.Error("the runs' sides are not shared")
	}
	for _, format := range Formats() {
		r, err := NewRenderer(format, RenderOptions{Text: TextOptions{Width: 80}})
		if err != nil {
			t.Fatal(err)
		}
		var want, got bytes.Buffer
		if err := r.Render(&want, whole); err != nil {
			t.Fatal(err)
		}
		if err := r.Render(&got, folded); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want.Bytes(), got.Bytes()) {
			t.Errorf("--format %s: the folded runs' report differs from the whole runs' (%d bytes, want %d)", format, got.Len(), want.Len())
		}
	}
}
