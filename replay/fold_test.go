package replay

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// foldRun folds run the way a streaming loader hands it over: the header
// alone (the whole run for a document, whose snapshot is known only at its
// end), then each event through Add, its payload in a buffer scribbled
// over with 0xff as soon as Add returns, so that anything the fold kept
// without copying reads as garbage.
func foldRun(run *recording.Run, decl *checks.Declarations, opts Options) (*FoldResult, error) {
	header := *run
	if run.Snapshot == nil {
		header.Events = nil
	}
	f, err := NewFold(&header, decl, opts)
	if err != nil {
		return nil, err
	}
	var buf []byte
	for i := range run.Events {
		ev := run.Events[i]
		if ev.Payload != nil {
			buf = append(buf[:0], ev.Payload...)
			ev.Payload = buf
		}
		err := f.Add(&ev)
		for j := range buf {
			buf[j] = 0xff
		}
		if err != nil {
			return nil, err
		}
	}
	return f.End()
}

// foldOutcome is what a run's fold, or the whole-run path, gave.
type foldOutcome struct {
	Result *FoldResult
	Err    string
}

func outcomeOf(r *FoldResult, err error) foldOutcome {
	o := foldOutcome{Result: r}
	if err != nil {
		o.Err = err.Error()
	}
	return o
}

// wholeRun is what the whole-run path gives: Replay, Recorded and
// ToolsSeen over the run's events.
func wholeRun(run *recording.Run, decl *checks.Declarations, opts Options) foldOutcome {
	ev, err := Replay(run, decl, opts)
	if ev == nil && err != nil {
		return outcomeOf(nil, err)
	}
	return outcomeOf(&FoldResult{Replayed: ev, Recorded: Recorded(run.Events), Tools: ToolsSeen(run)}, err)
}

// assertFoldSame requires the fold of run (each payload scribbled over
// after Add) to give what the whole-run path gives; whole and folded are
// the books of the two paths, nil for none.
func assertFoldSame(t *testing.T, where string, run *recording.Run, decl *checks.Declarations, opts Options, whole, folded *CallNames) {
	t.Helper()
	wo, fo := opts, opts
	wo.Names, fo.Names = whole, folded
	wo.Ledgers = nil
	want := wholeRun(run, decl, wo)
	got := outcomeOf(foldRun(run, decl, fo))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s run %s: the fold differs from the whole run (-whole +fold):\n%s", where, run.ID, diff)
	}
}

// TestFoldMatchesWholeRun holds the fold, fed one event at a time from
// buffers that are overwritten as soon as each event is folded, to the
// whole-run path over every fixture and corpus recording and a generated
// stream, under every declaration variant, the runs of an input sharing a
// book of call names and, on the fold's side, a table of ledgers.
func TestFoldMatchesWholeRun(t *testing.T) {
	forEachEquivalenceCase(t, func(name string, _ []byte, runs []*recording.Run, v declVariant, decl *checks.Declarations, opts Options) {
		whole, folded := NewCallNames(), NewCallNames()
		shared := NewLedgers()
		for _, run := range runs {
			assertFoldSame(t, name+" ("+v.name+")", run, decl, opts, whole, folded)
			fo := opts
			fo.Ledgers = shared
			assertFoldSame(t, name+" ("+v.name+", ledgers shared)", run, decl, fo, nil, nil)
		}
	})
	// The shared small numbers (ptrInt) are only ever read.
	for i, v := range smallInts {
		if v != int64(i) {
			t.Fatalf("smallInts[%d] = %d: a shared iteration was written through", i, v)
		}
	}
}

// lateRun is a run whose agent.run_configured comes after its first model
// call, carrying config.
func lateRun(config string) *recording.Run {
	run := &recording.Run{Input: "late.jsonl", ID: "run-late", FirstLine: 1}
	add := func(typ, payload string) {
		n := int64(len(run.Events))
		run.Events = append(run.Events, recording.Event{Type: typ, Payload: []byte(payload), Line: n + 1, Index: n,
			Meta: recording.Meta{RunID: "run-late", RuntimeStageID: fmt.Sprintf("stage#%d", n)}})
	}
	add(recording.TypeTurnStart, `{"userPrompt":"Is host-01 backed up?"}`)
	add(recording.TypeLLMStart, `{"iteration":1,"provider":"mock","tools":[{"name":"fleet_report"},{"name":"backup_status"}],"toolsCount":2}`)
	add(recording.TypeRunConfigured, config)
	add(recording.TypeLLMEnd, `{"iteration":1,"content":"","wireManifest":{"tools":["fleet_report","backup_status"]}}`)
	add(recording.TypeToolStart, `{"toolName":"backup_status","toolCallId":"c-1","args":{"machine":"host-01"}}`)
	add(recording.TypeToolEnd, `{"toolCallId":"c-1","result":[]}`)
	return run
}

// LateRun is lateRun, for the tests outside the package.
var LateRun = lateRun

// TestLateRunConfigured: a run_configured read after the fold armed is
// stated in the evidence's Lost (which makes the run's evidence damaged,
// never green) when its declarations would have changed the replay, on
// both paths; one that declares nothing new is not; one that cannot be
// honoured is refused wherever it stands.
func TestLateRunConfigured(t *testing.T) {
	declaring := `{"integrity":{"tools":{"backup_status":{"argumentsFrom":["fleet_report"],"noticeEmptyLookups":true}}}}`
	file := mustDeclare(t, "tools:\n  backup_status: { argumentsFrom: [fleet_report], noticeEmptyLookups: true }\n")
	tests := []struct {
		name   string
		config string
		decl   *checks.Declarations
		stated bool
	}{
		{"declares", declaring, nil, true},
		{"declares nothing", `{"integrity":{}}`, nil, false},
		{"declares what the file does", declaring, file, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := lateRun(tt.config)
			ev, err := Replay(run, tt.decl, Options{})
			if err != nil {
				t.Fatal(err)
			}
			stated := false
			for _, l := range ev.Lost {
				if strings.Contains(l, "agent.run_configured (line 3) comes after its first model or tool event") {
					stated = true
				}
			}
			if stated != tt.stated {
				t.Errorf("late run_configured stated: %v, want %v (lost %q)", stated, tt.stated, ev.Lost)
			}
			assertFoldSame(t, tt.name, run, tt.decl, Options{}, nil, nil)
		})
	}
	t.Run("refused", func(t *testing.T) {
		run := lateRun(`{"integrity":{"posture":"loud"}}`)
		_, werr := Replay(run, nil, Options{})
		_, ferr := foldRun(run, nil, Options{})
		if werr == nil || ferr == nil || werr.Error() != ferr.Error() || !strings.Contains(ferr.Error(), "late.jsonl line 3") {
			t.Errorf("a refused late run_configured: whole %v, fold %v", werr, ferr)
		}
	})
}

// TestHeldEventsAreKept: until a run's fold arms, the events it holds are
// counted in Kept, payload and all, and an event the replay never reads
// is not held; arming lets them go.
func TestHeldEventsAreKept(t *testing.T) {
	f, err := NewFold(&recording.Run{Input: "held.jsonl", ID: "run-held"}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	payload := `{"slot":"messages","contentHash":"h","rawContent":"` + strings.Repeat("x", 4096) + `","source":"user","position":0}`
	base := f.Kept()
	const n = 64
	for i := range n {
		if err := f.Add(&recording.Event{Type: recording.TypeContextInjected, Payload: []byte(payload), Line: int64(i + 1), Index: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	held := f.Kept() - base
	if held < n*int64(len(payload)) {
		t.Errorf("%d events of %d bytes held, Kept grew by %d", n, len(payload), held)
	}
	before := f.Kept()
	for i := range n {
		if err := f.Add(&recording.Event{Type: recording.TypeToken, Payload: []byte(payload), Line: int64(n + i + 1), Index: int64(n + i)}); err != nil {
			t.Fatal(err)
		}
	}
	if f.Kept() != before {
		t.Errorf("events no replay reads were held: Kept %d, was %d", f.Kept(), before)
	}
	if err := f.Add(&recording.Event{Type: recording.TypeLLMStart, Payload: []byte(`{"iteration":1}`), Line: 2*n + 1, Index: 2 * n}); err != nil {
		t.Fatal(err)
	}
	if f.heldBytes != 0 || len(f.held) != 0 {
		t.Errorf("armed, the fold still holds %d events (%d bytes)", len(f.held), f.heldBytes)
	}
	if _, err := f.End(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.End(); err == nil {
		t.Error("a second End did not fail")
	}
}

// TestSlotRecordsAreKept: the messages-slot records gathered for a coming
// request are counted in Kept until its llm_start takes them: those with
// rawContent by their content, those without it by at most the few the
// frame names, however many there are.
func TestSlotRecordsAreKept(t *testing.T) {
	const n = 4096
	content := strings.Repeat("x", 256)
	// The frame is read only by armed checks.
	decl := mustDeclare(t, "tools:\n  backup_status: { argumentsFrom: [fleet_report] }\n")
	tests := []struct {
		name    string
		payload string
		// the bytes the n records keep
		atLeast, atMost int64
	}{
		{"with rawContent", `{"slot":"messages","source":"user","rawContent":"` + content + `"}`, n * int64(len(content)), 1 << 30},
		{"without rawContent", `{"slot":"messages","source":"user","contentHash":"h"}`, 1, listedUnknown * (entryCost + 16)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := NewFold(&recording.Run{Input: "slot.jsonl", ID: "run-slot"}, decl, Options{})
			if err != nil {
				t.Fatal(err)
			}
			line := int64(0)
			add := func(typ, payload string) {
				t.Helper()
				line++
				if err := f.Add(&recording.Event{Type: typ, Payload: []byte(payload), Line: line, Index: line - 1}); err != nil {
					t.Fatal(err)
				}
			}
			add(recording.TypeLLMStart, `{"iteration":1}`)
			base := f.Kept()
			for range n {
				add(recording.TypeContextInjected, tt.payload)
			}
			slot := f.e.slotKept
			if slot < tt.atLeast || slot > tt.atMost {
				t.Errorf("%d records keep %d bytes, want %d to %d", n, slot, tt.atLeast, tt.atMost)
			}
			if grew := f.Kept() - base; grew < slot {
				t.Errorf("Kept grew by %d, less than the %d bytes of the records", grew, slot)
			}
			before := f.Kept()
			add(recording.TypeLLMStart, `{"iteration":2}`)
			if f.e.slotKept != 0 || f.Kept() > before-slot+4*entryCost {
				t.Errorf("after the request that took them: Kept %d (%d of it slot records), was %d with the records", f.Kept(), f.e.slotKept, before)
			}
			if _, err := f.End(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestDroppedFoldLeavesNoFile: a fold let go without its end removes the
// file its texts went to.
func TestDroppedFoldLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	decl := mustDeclare(t, "tools:\n  backup_status: { argumentsFrom: [fleet_report], noticeEmptyLookups: true }\n")
	f, err := NewFold(&recording.Run{Input: "drop.jsonl", ID: "run-drop"}, decl, Options{KeepInMemory: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i, ev := range []recording.Event{
		{Type: recording.TypeLLMStart, Payload: []byte(`{"iteration":1}`)},
		{Type: recording.TypeToolStart, Payload: []byte(`{"toolName":"fleet_report","toolCallId":"c-1","args":{}}`)},
		{Type: recording.TypeToolEnd, Payload: []byte(`{"toolCallId":"c-1","result":"host-01 ` + strings.Repeat("x", 1024) + `"}`)},
	} {
		ev.Line, ev.Index = int64(i+1), int64(i)
		if err := f.Add(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if f.store.file == nil {
		t.Fatal("no text went to the file: the case tests nothing")
	}
	f.Drop()
	if f.store.file != nil {
		t.Error("the file is still open after Drop")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("Drop left %d files behind", len(left))
	}
}

// BenchmarkFoldKept folds n tool_end events of distinct 32 KiB results,
// each after its tool_start, and reports the bytes the run keeps per event
// (kept-B/event): with nothing declared the results are not kept, only
// where each call and result stands; with argumentsFrom declared for the
// tool every result is, once.
func BenchmarkFoldKept(b *testing.B) {
	const n, size = 2048, 32 << 10
	filler := strings.Repeat("abcdefghij klmnopqrst uvwxyz0123 ", size/33+1)[:size]
	for _, bc := range []struct{ name, yaml string }{
		{"unarmed", ""},
		{"arguments-from", "tools:\n  backup_status: { argumentsFrom: [fleet_report], noticeEmptyLookups: true }\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var decl *checks.Declarations
			if bc.yaml != "" {
				d, err := checks.ParseDeclarations("bench.yaml", []byte(bc.yaml))
				if err != nil {
					b.Fatal(err)
				}
				decl = d
			}
			var kept int64
			for b.Loop() {
				f, err := NewFold(&recording.Run{Input: "kept.jsonl", ID: "run-kept"}, decl, Options{})
				if err != nil {
					b.Fatal(err)
				}
				var line int64
				add := func(typ, payload string) {
					line++
					if err := f.Add(&recording.Event{Type: typ, Payload: []byte(payload), Line: line, Index: line - 1,
						Meta: recording.Meta{RunID: "run-kept", RuntimeStageID: "s"}}); err != nil {
						b.Fatal(err)
					}
				}
				add(recording.TypeRunConfigured, `{}`)
				add(recording.TypeLLMStart, `{"iteration":1,"tools":[{"name":"fleet_report"}],"toolsCount":1}`)
				for i := range n {
					id := fmt.Sprintf("c-%d", i)
					add(recording.TypeToolStart, `{"toolName":"fleet_report","toolCallId":"`+id+`","args":{}}`)
					add(recording.TypeToolEnd, `{"toolCallId":"`+id+`","result":"`+fmt.Sprintf("%06d ", i)+filler+`"}`)
				}
				kept = f.Kept()
				if _, err := f.End(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(kept)/float64(2*n), "kept-B/event")
		})
	}
}
