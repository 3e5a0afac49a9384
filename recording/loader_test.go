package recording

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/fpcheck/fpcheck/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// fixtureDir holds the loader's hand-made recordings.
const fixtureDir = "../testdata/recordings/loader"

// runSummary is a run as the golden files show it.
type runSummary struct {
	ID          string         `json:"id"`
	Segment     int            `json:"segment,omitempty"`
	SessionID   string         `json:"sessionId,omitempty"`
	HeadMissing bool           `json:"headMissing"`
	FirstLine   int64          `json:"firstLine"`
	Events      []string       `json:"events"`
	Snapshot    *SnapshotFacts `json:"snapshot,omitempty"`
}

type loadResult struct {
	Error string       `json:"error,omitempty"`
	Stats *Stats       `json:"stats"`
	Runs  []runSummary `json:"runs"`
}

func summarize(r *Run) runSummary {
	s := runSummary{ID: r.ID, Segment: r.Segment, SessionID: r.SessionID, HeadMissing: r.HeadMissing, FirstLine: r.FirstLine, Snapshot: r.Snapshot}
	for _, e := range r.Events {
		rot := ""
		if e.Rotated {
			rot = " (.1)"
		}
		s.Events = append(s.Events, fmt.Sprintf("line %d%s index %d %s", e.Line, rot, e.Index, e.Type))
	}
	return s
}

func loadFile(t testing.TB, path string, opts Options) loadResult {
	t.Helper()
	res := loadResult{Runs: []runSummary{}}
	st, err := Load(path, opts, func(r *Run) error {
		res.Runs = append(res.Runs, summarize(r))
		return nil
	})
	res.Stats = st
	if err != nil {
		res.Error = err.Error()
	}
	return res
}

func loadBytes(t testing.TB, name string, data []byte, opts Options) (loadResult, error) {
	t.Helper()
	res := loadResult{Runs: []runSummary{}}
	st, err := LoadReader(name, bytes.NewReader(data), opts, func(r *Run) error {
		res.Runs = append(res.Runs, summarize(r))
		return nil
	})
	res.Stats = st
	if err != nil {
		res.Error = err.Error()
	}
	return res, err
}

// checkGolden compares got (as indented JSON) with testdata/golden/name.
func checkGolden(t *testing.T, name string, got any) {
	t.Helper()
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	golden.Compare(t, filepath.Join("testdata", "golden", name), b, *update)
}

// TestFixtures loads every hand-made fixture and compares the accounting and
// the runs handed over with a golden file.
func TestFixtures(t *testing.T) {
	cases := []struct {
		file string
		opts Options
		// wantErr is a substring of the error, or "" for none.
		wantErr string
	}{
		{file: "ndjson-two-runs.jsonl"},
		{file: "ndjson-interleaved.jsonl"},
		{file: "ndjson-truncated.jsonl"},
		{file: "ndjson-malformed.jsonl"},
		{file: "ndjson-unknown-type.jsonl"},
		{file: "ndjson-wrong-meta.jsonl"},
		{file: "ndjson-consumer-scope.jsonl"},
		{file: "ndjson-head-missing.jsonl"},
		{file: "ndjson-duplicate-keys.jsonl"},
		{file: "ndjson-after-disposition.jsonl"},
		{file: "rotated/run.jsonl"},
		{file: "rotated/run.jsonl", opts: Options{NoRotated: true}},
		{file: "recording.json"},
		{file: "recording-no-events.json"},
		{file: "recording-events-null.json"},
		{file: "recording-malformed-element.json"},
		{file: "envelope.json"},
		{file: "envelope-reordered.json"},
		{file: "envelope-unknown-format.json", wantErr: `unknown envelope format "agentfootprint.recording.v2" — this build reads agentfootprint.recording.v1 only`},
		{file: "artifact.json"},
		{file: "artifact-v2.json", wantErr: "artifact format 2 is newer than this build reads (1)"},
		{file: "artifact-other-kind.json", wantErr: `an artifact of kind "text/plain"`},
		{file: "garbage.bin", wantErr: "not an agentfootprint recording: binary data"},
		{file: "not-a-recording.json", wantErr: "not an agentfootprint recording"},
		{file: "empty.jsonl"},
	}
	for _, tc := range cases {
		name := strings.ReplaceAll(tc.file, "/", "_")
		if tc.opts.NoRotated {
			name += ".no-rotated"
		}
		t.Run(name, func(t *testing.T) {
			got := loadFile(t, filepath.Join(fixtureDir, tc.file), tc.opts)
			if tc.wantErr == "" && got.Error != "" {
				t.Errorf("unexpected error: %s", got.Error)
			}
			if tc.wantErr != "" && !strings.Contains(got.Error, tc.wantErr) {
				t.Errorf("error = %q, want it to contain %q", got.Error, tc.wantErr)
			}
			if got.Error == "" {
				checkAccounting(t, got)
			}
			checkGolden(t, name+".golden.json", got)
		})
	}
}

// checkAccounting asserts the loss-accounting identities: every NDJSON line
// is blank, malformed, an event or the cut-off tail, and every event is in
// a run, an orphan or consumer-scope.
func checkAccounting(t *testing.T, got loadResult) {
	t.Helper()
	st := got.Stats
	if st.Format == FormatNDJSON {
		tail := int64(0)
		if st.TruncatedTail {
			tail = 1
		}
		if st.Lines != st.Blank+st.Malformed+st.Events+tail {
			t.Errorf("lines %d != blank %d + malformed %d + events %d + cut-off tail %d", st.Lines, st.Blank, st.Malformed, st.Events, tail)
		}
	}
	var inRuns int64
	for _, r := range got.Runs {
		inRuns += int64(len(r.Events))
	}
	if inRuns+st.Orphans+st.ConsumerScope != st.Events {
		t.Errorf("events in runs %d + orphans %d + consumer-scope %d != events %d", inRuns, st.Orphans, st.ConsumerScope, st.Events)
	}
}

func TestInputErrorIsTyped(t *testing.T) {
	for _, file := range []string{"garbage.bin", "envelope-unknown-format.json", "artifact-v2.json", "does-not-exist.jsonl"} {
		_, err := Load(filepath.Join(fixtureDir, file), Options{}, nil)
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("%s: error %v is not an *InputError", file, err)
			continue
		}
		if !strings.HasSuffix(ie.Path, file) {
			t.Errorf("%s: InputError.Path = %q", file, ie.Path)
		}
	}
	_, err := Load(fixtureDir, Options{}, nil)
	if ie := (*InputError)(nil); !errors.As(err, &ie) || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("loading a directory: %v", err)
	}
}

func TestCallbackErrorAborts(t *testing.T) {
	stop := errors.New("stop here")
	calls := 0
	_, err := Load(filepath.Join(fixtureDir, "ndjson-two-runs.jsonl"), Options{}, func(*Run) error {
		calls++
		return stop
	})
	if err != stop {
		t.Errorf("err = %v, want the callback's own error", err)
	}
	if calls != 1 {
		t.Errorf("callback called %d times after failing, want 1", calls)
	}
}

func TestStdinName(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtureDir, "ndjson-two-runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := loadBytes(t, "-", data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Stats.Path != StdinName || len(got.Runs) != 2 {
		t.Errorf("path %q, %d runs; want %q, 2 runs", got.Stats.Path, len(got.Runs), StdinName)
	}
}

// TestRunsHandedOverWhileStreaming feeds a stream through a pipe and checks
// that the first run reaches the callback before the second is written:
// the loader does not wait for the end of the input, through an in-process
// pipe or an operating-system one, on one goroutine or several.
func TestRunsHandedOverWhileStreaming(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtureDir, "ndjson-two-runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	pipes := []struct {
		name string
		open func(t *testing.T) (io.Reader, io.WriteCloser)
	}{
		{"io.Pipe", func(*testing.T) (io.Reader, io.WriteCloser) { return io.Pipe() }},
		{"os.Pipe", func(t *testing.T) (io.Reader, io.WriteCloser) {
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { pr.Close() })
			return pr, pw
		}},
	}
	for _, p := range pipes {
		for _, workers := range []int{1, 2} {
			pr, pw := p.open(t)
			first := make(chan string, 1)
			done := make(chan error, 1)
			go func() {
				_, err := LoadReader("pipe", pr, Options{Workers: workers}, func(r *Run) error {
					select {
					case first <- r.ID:
					default:
					}
					return nil
				})
				done <- err
			}()
			// The sniffer reads ahead until its window fills or the input
			// ends, so pad the first run with blank lines up to the window,
			// before its last line (its ledger, which ends it): a reader
			// that held that line back for a fuller batch would wait here.
			pw.Write(bytes.Join(lines[:5], nil))
			pw.Write(bytes.Repeat([]byte("\n"), sniffWindow))
			pw.Write(lines[5])
			select {
			case id := <-first:
				if id != "run-1796025753133-1" {
					t.Errorf("%s, %d workers: first run handed over = %q", p.name, workers, id)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s, %d workers: the first run was not handed over while the writer waited", p.name, workers)
			}
			pw.Write(bytes.Join(lines[6:], nil))
			pw.Close()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestInterleavedOrder checks first-event order when a later-started run
// completes first: it waits for the earlier run.
func TestInterleavedOrder(t *testing.T) {
	var order []string
	_, err := Load(filepath.Join(fixtureDir, "ndjson-interleaved.jsonl"), Options{}, func(r *Run) error {
		order = append(order, r.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"run-1796025753133-1", "run-1796025753200-2", "run-1796025753300-3"}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestMaxEventsPerRun(t *testing.T) {
	_, err := Load(filepath.Join(fixtureDir, "ndjson-two-runs.jsonl"), Options{MaxEventsPerRun: 3}, nil)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 4 || !strings.Contains(err.Error(), `run "run-1796025753133-1" has more than 3 events`) || !strings.Contains(err.Error(), "--max-events-per-run") {
		t.Errorf("err = %v", err)
	}
}

func TestWhitespaceAndBOM(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtureDir, "ndjson-two-runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		input []byte
		check func(*testing.T, loadResult)
	}{
		{"blank lines only", []byte("\n  \n\t\n"), func(t *testing.T, r loadResult) {
			if r.Stats.Format != FormatNDJSON || r.Stats.Blank != 3 || len(r.Runs) != 0 {
				t.Errorf("got %+v", r.Stats)
			}
		}},
		{"byte-order mark", append([]byte{0xEF, 0xBB, 0xBF}, data...), func(t *testing.T, r loadResult) {
			if r.Stats.Events != 12 || len(r.Runs) != 2 || len(r.Stats.Problems) != 1 || !strings.Contains(r.Stats.Problems[0].Message, "byte-order mark") {
				t.Errorf("got %+v", r.Stats)
			}
		}},
		{"CRLF line ends", bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")), func(t *testing.T, r loadResult) {
			if r.Stats.Events != 12 || r.Stats.Malformed != 0 || len(r.Runs) != 2 {
				t.Errorf("got %+v", r.Stats)
			}
		}},
		{"first line damaged", append([]byte("\x00\x00garbage\n"), data...), func(t *testing.T, r loadResult) {
			if r.Stats.Format != FormatNDJSON || r.Stats.Malformed != 1 || r.Stats.Events != 12 {
				t.Errorf("got %+v", r.Stats)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := loadBytes(t, "input", tc.input, Options{})
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, got)
		})
	}
}
