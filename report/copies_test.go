package report

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

const copiesDir = "../testdata/recordings/copies"

// readCopies reads fixtures of testdata/recordings/copies, as named.
func readCopies(t *testing.T, names ...string) []InputResult {
	t.Helper()
	var in []InputResult
	for i, n := range names {
		r := readTestInput(t, filepath.Join(copiesDir, n), n)
		r.Index = i
		in = append(in, r)
	}
	return in
}

func TestCopies(t *testing.T) {
	tests := []struct {
		name   string
		inputs []string
		tweak  func(in []InputResult)
		// runs are the inputs of the runs judged, in report order;
		// copies the inputs folded into the first of them.
		runs, copies []string
		conflicts    bool
		exit         int
	}{
		{name: "the stream and the recording JSON are one run", inputs: []string{"run.jsonl", "run.json"},
			runs: []string{"run.jsonl"}, copies: []string{"run.json"}, exit: ExitDefects},
		{name: "a cut-off copy is judged on the whole one", inputs: []string{"cut.jsonl", "run.jsonl"},
			runs: []string{"run.jsonl"}, copies: []string{"cut.jsonl"}, exit: ExitDefects},
		{name: "the copy carrying one finding more is judged", inputs: []string{"run.jsonl", "superset.jsonl"},
			runs: []string{"superset.jsonl"}, copies: []string{"run.jsonl"}, exit: ExitDefects},
		{name: "a greener claimant hides nothing", inputs: []string{"greener.jsonl", "run.jsonl"},
			runs: []string{"greener.jsonl", "run.jsonl"}, conflicts: true, exit: ExitDefects},
		{name: "a rotated pair stays split", inputs: []string{"run.jsonl", "run.jsonl"},
			tweak: func(in []InputResult) {
				in[0] = halfOf(t, "a.jsonl", 0, 4)
				in[1] = halfOf(t, "b.jsonl", 4, 9)
				in[1].Index = 1
			},
			runs: []string{"a.jsonl", "b.jsonl"}, exit: ExitDefects},
		{name: "a damaged copy the judged one covers", inputs: []string{"cut.jsonl", "run.jsonl"},
			tweak: func(in []InputResult) {
				in[0].Stats.Malformed = 1
				in[0].Stats.Losses = []recording.Loss{{Kind: "malformed", RunID: in[0].Runs[0].RunID, Count: 1, Lines: []int64{3}}}
			},
			runs: []string{"run.jsonl"}, copies: []string{"cut.jsonl"}, exit: ExitDefects},
		{name: "a damaged copy that lost more than the other holds", inputs: []string{"run.jsonl", "run.json"},
			tweak: func(in []InputResult) {
				in[1].Stats.Malformed = 3
				in[1].Stats.Losses = []recording.Loss{{Kind: "malformed", RunID: in[1].Runs[0].RunID, Count: 3, Lines: []int64{3, 4, 5}}}
			},
			runs: []string{"run.jsonl", "run.json"}, conflicts: true, exit: ExitDefects},
		{name: "a finding only the copy's replay filed keeps it apart", inputs: []string{"run.jsonl", "cut.jsonl"},
			tweak: func(in []InputResult) {
				rr := &in[1].Runs[0]
				ev := *rr.Recorded
				ev.Findings = append(ev.Findings, checks.Finding{Kind: checks.KindUnsupportedArgument, Seam: checks.SeamChoice,
					Subjects: []checks.Subject{{Kind: "tool", ID: "get_weather"}}, Message: "replayed only"})
				rr.Replayed = &ev
			},
			runs: []string{"run.jsonl", "cut.jsonl"}, conflicts: true, exit: ExitDefects},
		{name: "a report saved before prints never folds", inputs: []string{"run.jsonl", "run.json"},
			tweak: func(in []InputResult) { in[1].Runs[0].Print = nil },
			runs:  []string{"run.jsonl", "run.json"}, exit: ExitDefects},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := readCopies(t, tt.inputs...)
			if tt.tweak != nil {
				tt.tweak(in)
			}
			r := Build(in, testOptions(Options{}))
			var runs []string
			conflicts := false
			for _, run := range r.Runs {
				runs = append(runs, run.Input)
				conflicts = conflicts || len(run.Conflicts) > 0
			}
			if strings.Join(runs, " ") != strings.Join(tt.runs, " ") {
				t.Errorf("runs judged in %v, want %v", runs, tt.runs)
			}
			var copies []string
			for _, c := range r.Runs[0].Copies {
				copies = append(copies, c.Input)
				if len(c.Differences) == 0 {
					t.Errorf("copy %s states no difference", c.Input)
				}
			}
			if strings.Join(copies, " ") != strings.Join(tt.copies, " ") {
				t.Errorf("copies %v, want %v", copies, tt.copies)
			}
			if conflicts != tt.conflicts {
				t.Errorf("conflicts = %v, want %v", conflicts, tt.conflicts)
			}
			if got := r.ExitCode(); got != tt.exit {
				t.Errorf("exit %d, want %d", got, tt.exit)
			}
			if s := r.Summarize(); s.Runs != len(tt.runs) || s.Copies != len(tt.copies) {
				t.Errorf("summary counts %d runs and %d copies, want %d and %d", s.Runs, s.Copies, len(tt.runs), len(tt.copies))
			}
			per := 0
			for _, s := range r.InputSummaries() {
				per += s.Runs
			}
			if per != len(tt.inputs) {
				t.Errorf("the per-input lines count %d runs, want one per input (%d)", per, len(tt.inputs))
			}
		})
	}
}

// halfOf reads events [from, to) of run.jsonl as an input of its own.
func halfOf(t *testing.T, name string, from, to int) InputResult {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(copiesDir, "run.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	st := &recording.Stats{Path: name, Compression: "none", UnknownTypes: map[string]int64{}, WrongTypes: map[string]int64{}, HasEvents: true}
	evs := readNDJSON(data, st)[from:to]
	return InputResult{Stats: st, Runs: splitRuns(evs, name)}
}

// pairOverlap is the copy rule's first condition read pair by pair: the
// prints share their first event, their last event or an integrity event.
func pairOverlap(a, b *RunPrint) bool {
	if a.Head != "" && (a.Head == b.Head || a.Head == b.Tail) || a.Tail != "" && (a.Tail == b.Tail || a.Tail == b.Head) {
		return true
	}
	for _, x := range a.Integrity {
		if slices.Contains(b.Integrity, x) {
			return true
		}
	}
	return false
}

// TestPrintIndexOverlapping: the index names the runs a pairwise scan of
// the runs taken would compare, in the same order and as many.
func TestPrintIndexOverlapping(t *testing.T) {
	hash := func(i int) string { return strconv.Itoa(i % 7) }
	print := func(i int) *RunPrint {
		p := &RunPrint{Head: "h" + hash(i*3), Tail: "h" + hash(i*5+1)}
		if i%4 == 0 {
			p.Head = ""
		}
		if i%6 == 0 {
			p.Tail = p.Head
		}
		for j := range i % 5 {
			p.Integrity = append(p.Integrity, "i"+hash(i+j*2))
		}
		if i%9 == 0 {
			p.Integrity = append(p.Integrity, "")
		}
		return p
	}
	tests := []struct {
		name  string
		runs  int
		input func(run int) int
	}{
		{"each run its own input", 40, func(run int) int { return run }},
		{"inputs of several runs", 60, func(run int) int { return run % 5 }},
		{"one input", 30, func(int) int { return 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newPrintIndex()
			var taken []int
			for m := range tt.runs {
				pm := print(m)
				eligible := func(p int) bool { return tt.input(p) != tt.input(m) }
				var want []int
				for _, p := range taken {
					if eligible(p) && pairOverlap(pm, print(p)) && len(want) < copyCandidates {
						want = append(want, p)
					}
				}
				got := x.overlapping(pm, eligible)
				if !slices.Equal(got, want) {
					t.Fatalf("run %d: index gives %v, the pairwise scan %v", m, got, want)
				}
				if m%3 != 0 {
					x.add(m, pm)
					taken = append(taken, m)
				}
			}
		})
	}
}

// TestPrintEnds: a print's head and tail are the hashes of the run's first
// and last events, one event or many.
func TestPrintEnds(t *testing.T) {
	ev := func(i int) recording.Event {
		return recording.Event{Type: recording.TypeRunConfigured, Line: int64(i + 1), Index: int64(i),
			Meta: recording.Meta{RunID: "run-1", RuntimeStageID: "stage#" + strconv.Itoa(i)}}
	}
	for _, n := range []int{1, 2, 3} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			r := newPrintReader()
			evs := make([]recording.Event, n)
			for i := range evs {
				evs[i] = ev(i)
				r.add(&evs[i])
			}
			p := r.result()
			if want := eventHash(&evs[0], false); p.Head != want {
				t.Errorf("head %s, want %s", p.Head, want)
			}
			if want := eventHash(&evs[n-1], false); p.Tail != want {
				t.Errorf("tail %s, want %s", p.Tail, want)
			}
		})
	}
}
