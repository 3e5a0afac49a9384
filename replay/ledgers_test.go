package replay

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// oneEventRun is a run of one agent.run_configured event, as a stream of
// many tiny runs holds a million of.
func oneEventRun(i int) *recording.Run {
	id := "run-" + strconv.Itoa(i)
	return &recording.Run{Input: "many.jsonl", ID: id, FirstLine: int64(i + 1), Events: []recording.Event{{
		Type: recording.TypeRunConfigured, Payload: []byte(`{"agentId":"agent","llm":{"provider":"mock","model":"mock"},"reactMode":"dynamic"}`), Line: int64(i + 1),
		Meta: recording.Meta{RunID: id, RuntimeStageID: "run-configured#0"},
	}}}
}

// TestLedgersShared: runs that end with the same ledger hold one copy of
// it (the same disposition and reasons), and runs whose evidence holds
// nothing else one copy of the evidence on each side; a run whose ledger
// differs holds its own, and what each run's evidence says is what it says
// unshared.
func TestLedgersShared(t *testing.T) {
	decl, err := checks.ParseDeclarations("armed.yaml", []byte("tools:\n  lookup:\n    argumentsFrom: [search]\n    noticeEmptyLookups: true\n    resultColumns: { id: string }\ndials:\n  noticeEmptyLookups: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		decl *checks.Declarations
	}{{"nothing declared", nil}, {"armed", decl}} {
		t.Run(tt.name, func(t *testing.T) {
			shared := NewLedgers()
			var first, firstRecorded *Evidence
			for i := range 3 {
				run := oneEventRun(i)
				got, err := foldRun(run, tt.decl, Options{Ledgers: shared})
				if err != nil {
					t.Fatal(err)
				}
				want, err := foldRun(run, tt.decl, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("run %d: shared ledgers change the evidence (-alone +shared):\n%s", i, diff)
				}
				if first == nil {
					first, firstRecorded = got.Replayed, got.Recorded
					continue
				}
				if got.Replayed != first || got.Recorded != firstRecorded {
					t.Errorf("run %d holds evidence of its own, the same as run 0's", i)
				}
				if got.Replayed.Disposition != first.Disposition {
					t.Errorf("run %d holds a disposition of its own, the same as run 0's", i)
				}
				if len(first.Unreachable) > 0 && !sameMap(got.Replayed.Unreachable, first.Unreachable) {
					t.Errorf("run %d holds reasons of its own, the same as run 0's", i)
				}
			}
			other, err := foldRun(lateRun(`{"agentId":"agent"}`), tt.decl, Options{Ledgers: shared})
			if err != nil {
				t.Fatal(err)
			}
			if other.Replayed.Disposition == first.Disposition {
				t.Error("a run with another ledger was handed the one-event runs' disposition")
			}
		})
	}
}

// sameMap is true when a and b are one map.
func sameMap(a, b map[string][]string) bool {
	for k := range a {
		a[k+"\x00probe"] = nil
		_, ok := b[k+"\x00probe"]
		delete(a, k+"\x00probe")
		return ok
	}
	return false
}

// BenchmarkEvidenceHeld folds many one-event runs, every check armed, and
// keeps each run's evidence as a report does until it is written: B/run
// is what the kept evidence holds per run, with the runs' ledgers held
// once each (shared) and one per run (alone).
func BenchmarkEvidenceHeld(b *testing.B) {
	decl, err := checks.ParseDeclarations("armed.yaml", []byte("tools:\n  lookup:\n    argumentsFrom: [search]\n    noticeEmptyLookups: true\n    resultColumns: { id: string }\ndials:\n  noticeEmptyLookups: true\n"))
	if err != nil {
		b.Fatal(err)
	}
	const n = 20_000
	runs := make([]*recording.Run, n)
	for i := range runs {
		runs[i] = oneEventRun(i)
	}
	for _, shared := range []bool{false, true} {
		name := "alone"
		if shared {
			name = "shared"
		}
		b.Run(name, func(b *testing.B) {
			var held uint64
			for b.Loop() {
				opts := Options{}
				if shared {
					opts.Ledgers = NewLedgers()
				}
				kept := make([]*FoldResult, 0, n)
				b.StopTimer()
				before := liveHeap()
				b.StartTimer()
				for _, run := range runs {
					res, err := foldRun(run, decl, opts)
					if err != nil {
						b.Fatal(err)
					}
					kept = append(kept, res)
				}
				b.StopTimer()
				held = liveHeap() - before
				runtime.KeepAlive(kept)
				b.StartTimer()
			}
			b.ReportMetric(float64(held)/n, "B/run")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// liveHeap is the heap still reachable once collected.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestLedgersShareFindingTexts: the texts of findings that runs file
// again are held once, what each finding says is unchanged, and past the
// table's bound texts are left as they are.
func TestLedgersShareFindingTexts(t *testing.T) {
	finding := func(msg string) checks.Finding {
		// Every call makes strings of its own, as reading each run does.
		c := strings.Clone
		return checks.Finding{
			Kind: c("dangling-reference"), Seam: c("compose"), Message: c(msg),
			Subjects:  []checks.Subject{{Kind: c("tool"), ID: c("screen_fire")}},
			Witnesses: []checks.Witness{{Predicate: c("argument-ground"), Value: []byte(`"` + msg + `"`), Provenance: c("window ledger")}},
			Evidence:  []checks.Position{{What: c("finding"), Event: c("agentfootprint.context_error"), Line: 3}},
		}
	}
	l := NewLedgers()
	a := &Evidence{Findings: []checks.Finding{finding("results of 'whats_here' evicted")}}
	b := &Evidence{Findings: []checks.Finding{finding("results of 'whats_here' evicted")}}
	want := finding("results of 'whats_here' evicted")
	l.share(a)
	l.share(b)
	for _, ev := range []*Evidence{a, b} {
		if diff := cmp.Diff(want, ev.Findings[0]); diff != "" {
			t.Errorf("a shared finding says something else (-want +got):\n%s", diff)
		}
	}
	fa, fb := a.Findings[0], b.Findings[0]
	same := func(x, y string) bool { return unsafe.StringData(x) == unsafe.StringData(y) }
	for _, p := range [][2]string{{fa.Kind, fb.Kind}, {fa.Message, fb.Message}, {fa.Subjects[0].ID, fb.Subjects[0].ID},
		{fa.Witnesses[0].Provenance, fb.Witnesses[0].Provenance}, {fa.Evidence[0].Event, fb.Evidence[0].Event}} {
		if !same(p[0], p[1]) {
			t.Errorf("%q is held twice", p[0])
		}
	}
	if &fa.Witnesses[0].Value[0] != &fb.Witnesses[0].Value[0] {
		t.Error("a witness's value is held twice")
	}
	l.textBytes = maxSharedText
	c := &Evidence{Findings: []checks.Finding{finding("a text never filed before")}}
	d := &Evidence{Findings: []checks.Finding{finding("a text never filed before")}}
	l.share(c)
	l.share(d)
	if same(c.Findings[0].Message, d.Findings[0].Message) || c.Findings[0].Message != d.Findings[0].Message {
		t.Error("past its bound the table should hold no more texts, and change none")
	}
	if !same(c.Findings[0].Kind, fa.Kind) {
		t.Error("past its bound the table should still hand out what it holds")
	}
}
