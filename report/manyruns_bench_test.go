package report

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/internal/hostile"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

// manyRuns is an input of n one-event runs, each replayed with every check
// armed, as the CLI hands it to Build.
func manyRuns(tb testing.TB, n int, decl *checks.Declarations) InputResult {
	tb.Helper()
	var runs []RunResult
	st, err := recording.LoadReader("many.jsonl", manyRunsStream(tb, n), recording.Options{}, func(run *recording.Run) error {
		prep, err := replay.Prepare(run, decl, replay.Options{Posture: "observe"})
		if err != nil {
			return err
		}
		rr := NewRunResult(run)
		rr.Tools, rr.ToolsRead = RelevantTools(replay.ToolsSeen(run), decl), true
		if rr.Replayed, err = prep.Run(); err != nil {
			return err
		}
		runs = append(runs, rr)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return InputResult{Stats: st, Runs: runs}
}

// manyRunsStream is a stream of n one-event runs.
func manyRunsStream(tb testing.TB, n int) *bytes.Buffer {
	tb.Helper()
	var buf bytes.Buffer
	if _, err := hostile.ManyRuns(&buf, n); err != nil {
		tb.Fatal(err)
	}
	return &buf
}

// liveHeap is the heap still reachable once collected.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkManyRunsReport builds and renders the report of many one-event
// runs, every check armed, at two sizes. B/run is what the built report
// holds for each run beside the runs' results, which the caller holds
// anyway: a report of a million runs is a million times it. runs/s that
// stays level from the smaller size to the larger is a report linear in
// its runs.
func BenchmarkManyRunsReport(b *testing.B) {
	text := hostile.ArmAll(hostile.Tools)
	decl, err := checks.ParseDeclarations("armed.yaml", []byte(text))
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Declared: decl, DeclaredNames: checks.PlaceToolNames(decl.ToolNames(), []byte(text))}
	for _, n := range []int{10_000, 40_000} {
		inputs := []InputResult{manyRuns(b, n, decl)}
		b.Run(fmt.Sprintf("runs=%d", n), func(b *testing.B) {
			var held uint64
			for b.Loop() {
				b.StopTimer()
				before := liveHeap()
				b.StartTimer()
				rep := Build(inputs, opts)
				b.StopTimer()
				held = liveHeap() - before
				b.StartTimer()
				if err := RenderText(io.Discard, rep, TextOptions{Width: 80}); err != nil {
					b.Fatal(err)
				}
				runtime.KeepAlive(rep)
			}
			b.ReportMetric(float64(held)/float64(n), "B/run")
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "runs/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}
