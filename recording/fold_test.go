package recording

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// logFold is a RunFold that copies what it is fed and logs its calls.
type logFold struct {
	run    *Run
	events []Event
	log    *[]string
	// per is what Kept grows by with each event; fail makes Add fail at
	// that event (1-based), 0 never.
	per  int64
	fail int
	// ended is where the run is put when it ends.
	ended *[]*Run
}

func (f *logFold) Add(ev *Event) error {
	c := *ev
	c.Payload = append(json.RawMessage(nil), ev.Payload...)
	f.events = append(f.events, c)
	*f.log = append(*f.log, "add "+f.run.ID)
	if f.fail > 0 && len(f.events) == f.fail {
		return errors.New("the fold refused it")
	}
	return nil
}

func (f *logFold) Kept() int64 { return f.per * int64(len(f.events)) }

func (f *logFold) End() error {
	*f.log = append(*f.log, "end "+f.run.ID)
	r := *f.run
	r.Events = f.events
	*f.ended = append(*f.ended, &r)
	return nil
}

func (f *logFold) Drop() { *f.log = append(*f.log, "drop "+f.run.ID) }

// foldOptions folds every run into a logFold.
func foldOptions(opts Options, log *[]string, ended *[]*Run, per int64, fail int) Options {
	opts.Fold = func(run *Run) (RunFold, error) {
		*log = append(*log, fmt.Sprintf("start %s (%d held)", run.ID, len(run.Events)))
		return &logFold{run: run, log: log, per: per, fail: fail, ended: ended}, nil
	}
	return opts
}

// TestFoldSeesWhatCollectingSees: a fold is fed exactly the events a
// collecting load hands over, payloads and all, although the loader reuses
// its buffers under it, for every fixture of the repository, on one and on
// several workers, with and without Release.
func TestFoldSeesWhatCollectingSees(t *testing.T) {
	var files []string
	err := filepath.WalkDir("../testdata/recordings", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".json")) {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	bySession := func(first *Event) (string, bool) { return first.Meta.SessionID, true }
	for _, path := range files {
		for _, workers := range []int{1, 3} {
			for _, release := range []func(*Event) (string, bool){nil, bySession} {
				opts := Options{Workers: workers, Release: release, batchLines: 2, batchBytes: 512}
				var want []*Run
				wantSt, wantErr := Load(path, opts, func(r *Run) error {
					want = append(want, r)
					return nil
				})
				var log []string
				var got []*Run
				var handed []string
				gotSt, gotErr := Load(path, foldOptions(opts, &log, &got, 0, 0), func(r *Run) error {
					if len(r.Events) != 0 {
						t.Errorf("%s: the callback of a folded run got %d events", path, len(r.Events))
					}
					handed = append(handed, r.ID)
					return nil
				})
				if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
					t.Errorf("%s: err %v, want %v", path, gotErr, wantErr)
				}
				if diff := cmp.Diff(wantSt, gotSt); diff != "" {
					t.Errorf("%s, %d workers: stats (-collected +folded):\n%s", path, workers, diff)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s, %d workers, release %t: runs (-collected +folded):\n%s", path, workers, release != nil, diff)
				}
				ids := make([]string, len(got))
				for i, r := range got {
					ids[i] = r.ID
				}
				if !slices.Equal(ids, handed) {
					t.Errorf("%s: callback saw %q, folds ended %q", path, handed, ids)
				}
			}
		}
	}
}

// TestFoldOrder: a stream's run starts its fold at its first event, unless
// it is ordered behind an earlier run of its group still being read: then
// its events are held and fed when that run has gone; a document's runs
// start when they are handed over, whole.
func TestFoldOrder(t *testing.T) {
	bySession := func(first *Event) (string, bool) { return first.Meta.SessionID, true }
	tests := []struct {
		name    string
		stream  string
		release func(*Event) (string, bool)
		want    []string
	}{
		{
			name:    "a run of another group starts at once",
			stream:  releaseLine("agent.run_configured", "a", "s") + releaseRun("b", "t") + releaseLine("integrity.disposition", "a", "s"),
			release: bySession,
			want: []string{"start a (0 held)", "add a", "start b (0 held)", "add b", "add b", "add b", "end b",
				"add a", "end a"},
		},
		{
			name: "an ordered run waits for the one before it",
			stream: releaseLine("agent.run_configured", "a", "s") + releaseLine("agent.run_configured", "b", "s") +
				releaseLine("agent.turn_start", "b", "s") + releaseLine("integrity.disposition", "a", "s") +
				releaseLine("integrity.disposition", "b", "s"),
			release: bySession,
			want: []string{"start a (0 held)", "add a", "add a", "end a", "start b (2 held)", "add b", "add b",
				"add b", "end b"},
		},
		{
			name: "a waiting run that ended goes with the run it waited for",
			stream: releaseLine("agent.run_configured", "a", "s") + releaseRun("b", "s") +
				releaseLine("integrity.disposition", "a", "s"),
			release: bySession,
			want: []string{"start a (0 held)", "add a", "add a", "end a", "start b (3 held)", "add b", "add b",
				"add b", "end b"},
		},
		{
			name:    "without Release runs end in first-event order",
			stream:  releaseLine("agent.run_configured", "a", "s") + releaseRun("b", "s") + releaseLine("integrity.disposition", "a", "s"),
			release: nil,
			want: []string{"start a (0 held)", "add a", "start b (0 held)", "add b", "add b", "add b", "add a",
				"end a", "end b"},
		},
	}
	for _, tc := range tests {
		for _, workers := range []int{1, 3} {
			var log []string
			var ended []*Run
			if _, err := LoadReader("s.jsonl", strings.NewReader(tc.stream), foldOptions(Options{Workers: workers, Release: tc.release}, &log, &ended, 0, 0), nil); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if diff := cmp.Diff(tc.want, log); diff != "" {
				t.Errorf("%s, %d workers (-want +got):\n%s", tc.name, workers, diff)
			}
		}
	}

	var log []string
	var ended []*Run
	if _, err := Load(filepath.Join(fixtureDir, "recording.json"), foldOptions(Options{}, &log, &ended, 0, 0), nil); err != nil {
		t.Fatal(err)
	}
	if len(ended) == 0 || !strings.HasPrefix(log[0], "start ") || strings.HasSuffix(log[0], " (0 held)") {
		t.Errorf("a document's run should start whole: %q", log)
	}
}

// TestFoldKeptLimit: a folded run whose fold keeps more than MaxRunBytes
// stops there, named with its line and the flag; its fold is dropped, never
// ended, and the runs around it are judged.
func TestFoldKeptLimit(t *testing.T) {
	stream := releaseRun("a", "s") + releaseLine("agent.run_configured", "big", "s") + strings.Repeat(releaseLine("agent.turn_start", "big", "s"), 4) +
		releaseLine("integrity.disposition", "big", "s") + releaseRun("c", "s")
	var log []string
	var ended []*Run
	st, err := LoadReader("s.jsonl", strings.NewReader(stream), foldOptions(Options{MaxRunBytes: 250, Release: func(*Event) (string, bool) { return "", false }}, &log, &ended, 60, 0), nil)
	if _, ok := errors.AsType[*RunStop](err); !ok || !strings.Contains(err.Error(), `s.jsonl: line 8: run "big" keeps more than 250 bytes (limit set by --max-run-bytes)`) {
		t.Errorf("err = %v, want the run's stop", err)
	}
	var ids []string
	for _, r := range ended {
		ids = append(ids, r.ID)
	}
	if want := []string{"a", "c"}; !slices.Equal(ids, want) {
		t.Errorf("ended %q, want %q", ids, want)
	}
	if !slices.Contains(log, "drop big") || slices.Contains(log, "end big") {
		t.Errorf("the stopped run's fold should be dropped, never ended: %q", log)
	}
	if st.Events != 12 || len(st.StoppedRuns) != 1 {
		t.Errorf("events %d, stopped %+v", st.Events, st.StoppedRuns)
	}
}

// TestFoldErrorStopsInput: a fold's own error stops the input unchanged,
// as a callback's does.
func TestFoldErrorStopsInput(t *testing.T) {
	stream := releaseRun("a", "s") + releaseRun("b", "s")
	var log []string
	var ended []*Run
	_, err := LoadReader("s.jsonl", strings.NewReader(stream), foldOptions(Options{}, &log, &ended, 0, 2), nil)
	if err == nil || err.Error() != "the fold refused it" {
		t.Fatalf("err = %v, want the fold's own error", err)
	}
}

// TestLateOnlyAmongManyRuns: a run starts late only when more than
// LateInFlight runs are in flight, counting itself; one that waits is late
// whatever is in flight.
func TestLateOnlyAmongManyRuns(t *testing.T) {
	stream := releaseLine("agent.run_configured", "a", "s") + releaseLine("agent.run_configured", "b", "t") +
		releaseLine("integrity.disposition", "a", "s") + releaseLine("agent.run_configured", "c", "t") +
		releaseLine("integrity.disposition", "b", "t") + releaseLine("integrity.disposition", "c", "t")
	var log []string
	var ended []*Run
	late := func(first *Event) bool { return first.Type == TypeRunConfigured }
	opts := foldOptions(Options{Release: func(first *Event) (string, bool) { return first.Meta.SessionID, true }, StartLate: late, LateFoldBytes: 1 << 20, LateInFlight: 1}, &log, &ended, 0, 0)
	if _, err := LoadReader("s.jsonl", strings.NewReader(stream), opts, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"start a (0 held)", "add a", "add a", "end a", "start b (2 held)", "add b", "add b", "end b", "start c (2 held)", "add c", "add c", "end c"}
	if diff := cmp.Diff(want, log); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// bookFold is a logFold whose tool_end events ask the book.
type bookFold struct{ *logFold }

func (f bookFold) AsksBook(ev *Event) bool { return ev.Type == TypeToolEnd }

// TestLateFolds: a late run (Options.StartLate; here every run that may
// be, whatever else is in flight) starts its fold once it
// has collected LateFoldBytes, or when it is handed over; one that waits
// for an earlier run of its group is then fed every event up to the first
// that asks the book, collects that one and the rest, and is fed them once
// the earlier run is handed over; a run that is not late starts as before.
func TestLateFolds(t *testing.T) {
	bySession := func(first *Event) (string, bool) { return first.Meta.SessionID, true }
	tests := []struct {
		name      string
		stream    string
		threshold int64
		want      []string
	}{
		{
			name: "a waiting run folds up to the event that asks the book",
			stream: releaseLine("agent.run_configured", "a", "s") + releaseLine("agent.run_configured", "b", "s") +
				releaseLine("agent.turn_start", "b", "s") + releaseLine("stream.tool_end", "b", "s") +
				releaseLine("agent.turn_start", "b", "s") + releaseLine("integrity.disposition", "a", "s") +
				releaseLine("integrity.disposition", "b", "s"),
			threshold: 1,
			want: []string{"start a (1 held)", "add a", "start b (1 held)", "add b", "add b", "add a", "end a",
				"add b", "add b", "add b", "end b"},
		},
		{
			name: "below the threshold runs are folded when handed over",
			stream: releaseLine("agent.run_configured", "a", "s") + releaseLine("agent.run_configured", "b", "s") +
				releaseLine("agent.turn_start", "b", "s") + releaseLine("integrity.disposition", "a", "s") +
				releaseLine("integrity.disposition", "b", "s"),
			threshold: 1 << 20,
			want: []string{"start a (2 held)", "add a", "add a", "end a", "start b (3 held)", "add b", "add b",
				"add b", "end b"},
		},
		{
			name: "a later run of the group may start its fold first",
			stream: releaseLine("agent.run_configured", "a", "s") + releaseLine("agent.run_configured", "b", "s") +
				releaseLine("agent.run_configured", "c", "s") + releaseLine("agent.turn_start", "c", "s") +
				releaseLine("agent.turn_start", "c", "s") + releaseLine("integrity.disposition", "a", "s") +
				releaseLine("integrity.disposition", "b", "s") + releaseLine("integrity.disposition", "c", "s"),
			threshold: 2*eventRecord + 8,
			want: []string{"start c (3 held)", "add c", "add c", "add c", "start a (2 held)", "add a", "add a", "end a",
				"start b (2 held)", "add b", "add b", "end b", "add c", "end c"},
		},
		{
			name: "a run that does not start with its run_configured waits",
			stream: releaseLine("agent.run_configured", "a", "s") + releaseLine("agent.turn_start", "b", "s") +
				releaseLine("agent.run_configured", "b", "s") + releaseLine("integrity.disposition", "a", "s") +
				releaseLine("integrity.disposition", "b", "s"),
			threshold: 1,
			want: []string{"start a (1 held)", "add a", "add a", "end a", "start b (2 held)", "add b", "add b",
				"add b", "end b"},
		},
	}
	for _, tc := range tests {
		for _, workers := range []int{1, 3} {
			var log []string
			var ended []*Run
			late := func(first *Event) bool { return first.Type == TypeRunConfigured }
			opts := Options{Workers: workers, Release: bySession, StartLate: late, LateFoldBytes: tc.threshold, LateInFlight: -1}
			opts.Fold = func(run *Run) (RunFold, error) {
				log = append(log, fmt.Sprintf("start %s (%d held)", run.ID, len(run.Events)))
				return bookFold{&logFold{run: run, log: &log, ended: &ended}}, nil
			}
			if _, err := LoadReader("s.jsonl", strings.NewReader(tc.stream), opts, nil); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if diff := cmp.Diff(tc.want, log); diff != "" {
				t.Errorf("%s, %d workers (-want +got):\n%s", tc.name, workers, diff)
			}
			var seen []string
			for _, r := range ended {
				for _, ev := range r.Events {
					seen = append(seen, r.ID+" "+ev.Type)
				}
			}
			var want []string
			for _, line := range strings.SplitAfter(strings.TrimSpace(tc.stream), "\n") {
				var ev struct {
					Type string
					Meta struct{ RunID string }
				}
				if err := json.Unmarshal([]byte(line), &ev); err != nil {
					t.Fatal(err)
				}
				want = append(want, ev.Meta.RunID+" "+ev.Type)
			}
			slices.SortStableFunc(want, func(x, y string) int { return strings.Compare(x[:1], y[:1]) })
			if diff := cmp.Diff(want, seen); diff != "" {
				t.Errorf("%s, %d workers: each fold should see its run's events in order (-want +got):\n%s", tc.name, workers, diff)
			}
		}
	}
}

// TestMaxRunsInFlight: the runs held at once (started, not handed over)
// are capped: a run that ends and goes never counts, one that ended but
// waits for an earlier run of its group does, and the run past the cap
// stops the input at its first line, naming the limit.
func TestMaxRunsInFlight(t *testing.T) {
	var unfinishedAhead strings.Builder
	unfinishedAhead.WriteString(releaseLine("agent.run_configured", "u", "s"))
	for i := range 5 {
		unfinishedAhead.WriteString(releaseRun(fmt.Sprintf("r%d", i), "s"))
	}
	tests := []struct {
		name    string
		release func(*Event) (string, bool)
		err     string
	}{
		{name: "runs that end go at once", release: func(*Event) (string, bool) { return "", false }},
		{name: "ended runs that wait are held", release: func(*Event) (string, bool) { return "", true },
			err: `s.jsonl: line 8: run "r2" starts while 3 runs are in flight, the most one input may hold at once (limit set by --max-runs-in-flight)`},
	}
	for _, tc := range tests {
		var runs []string
		_, err := LoadReader("s.jsonl", strings.NewReader(unfinishedAhead.String()), Options{Release: tc.release, MaxRunsInFlight: 3}, func(r *Run) error {
			runs = append(runs, r.ID)
			return nil
		})
		switch {
		case tc.err == "" && (err != nil || len(runs) != 6):
			t.Errorf("%s: err %v, runs %q; want all six runs", tc.name, err, runs)
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("%s: err %v, want %s", tc.name, err, tc.err)
		}
	}
}
