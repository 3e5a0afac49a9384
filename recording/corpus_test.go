package recording

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// corpusDir is the reference corpus of real agentfootprint 9.62.0
// recordings, beside the repository.
const corpusDir = "../../shared/reference-corpus"

func corpusFiles(t *testing.T) []string {
	t.Helper()
	if _, err := os.Stat(corpusDir); err != nil {
		t.Skipf("reference corpus not found at %s", corpusDir)
	}
	var files []string
	for _, pattern := range []string{
		"*/events.jsonl", "*/events.firehose.jsonl",
		"*/recording.json", "*/recording.recordRun.json",
		"*/envelope.json", "*/envelope.recordRun.json",
		"multi-turn/turn-*/recording.json", "multi-turn/turn-*/envelope.json",
	} {
		m, err := filepath.Glob(filepath.Join(corpusDir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatal("no corpus files matched")
	}
	return files
}

type rawMeta struct {
	Meta struct {
		RunID string `json:"runId"`
	} `json:"meta"`
}

// expectedFromFile counts a corpus file's events and distinct runIds with
// plain encoding/json, independently of the loader.
func expectedFromFile(t *testing.T, path string) (events int, runIDs []string, hasEvents bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raws []json.RawMessage
	hasEvents = true
	if filepath.Ext(path) == ".jsonl" {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			if len(bytes.TrimSpace(sc.Bytes())) > 0 {
				raws = append(raws, append(json.RawMessage(nil), sc.Bytes()...))
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	} else {
		var doc struct {
			Events    *[]json.RawMessage `json:"events"`
			Recording *struct {
				Events *[]json.RawMessage `json:"events"`
			} `json:"recording"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		switch {
		case doc.Recording != nil && doc.Recording.Events != nil:
			raws = *doc.Recording.Events
		case doc.Events != nil:
			raws = *doc.Events
		default:
			hasEvents = false
		}
	}
	seen := map[string]bool{}
	for _, raw := range raws {
		var m rawMeta
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		if m.Meta.RunID != ConsumerScope && !seen[m.Meta.RunID] {
			seen[m.Meta.RunID] = true
			runIDs = append(runIDs, m.Meta.RunID)
		}
	}
	return len(raws), runIDs, hasEvents
}

// TestCorpus loads every recording of the reference corpus and checks the
// event count and runs against the file's own content.
func TestCorpus(t *testing.T) {
	for _, path := range corpusFiles(t) {
		rel, _ := filepath.Rel(corpusDir, path)
		t.Run(rel, func(t *testing.T) {
			wantEvents, wantIDs, wantHasEvents := expectedFromFile(t, path)
			var gotIDs []string
			var total int
			st, err := Load(path, Options{}, func(r *Run) error {
				gotIDs = append(gotIDs, r.ID)
				total += len(r.Events)
				if r.HeadMissing {
					t.Errorf("run %s: head missing", r.ID)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if st.Events != int64(wantEvents) || total != wantEvents {
				t.Errorf("events: stats %d, in runs %d; the file has %d", st.Events, total, wantEvents)
			}
			if diff := cmp.Diff(wantIDs, gotIDs); diff != "" {
				t.Errorf("runs (-file +loaded):\n%s", diff)
			}
			if st.HasEvents != wantHasEvents {
				t.Errorf("hasEvents = %v, want %v", st.HasEvents, wantHasEvents)
			}
			if st.Malformed != 0 || st.TruncatedTail || st.Orphans != 0 || len(st.UnknownTypes) != 0 || len(st.WrongTypes) != 0 || len(st.Problems) != 0 {
				t.Errorf("a clean corpus file reported losses: %+v", st)
			}
			wantFormat := map[string]Format{".jsonl": FormatNDJSON, ".json": FormatRecording}[filepath.Ext(path)]
			if slices.Contains([]string{"envelope.json", "envelope.recordRun.json"}, filepath.Base(path)) {
				wantFormat = FormatEnvelope
				if st.Complete == nil || !*st.Complete || st.DroppedEvents == nil || *st.DroppedEvents != 0 {
					t.Errorf("envelope facts: complete %v, droppedEvents %v", st.Complete, st.DroppedEvents)
				}
			}
			if st.Format != wantFormat {
				t.Errorf("format = %q, want %q", st.Format, wantFormat)
			}
		})
	}
}

func TestCorpusNoTail(t *testing.T) {
	path := filepath.Join(corpusDir, "no-tail", "recording.json")
	if _, err := os.Stat(path); err != nil {
		t.Skip("reference corpus not found")
	}
	runs := 0
	st, err := Load(path, Options{}, func(*Run) error { runs++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if st.HasEvents || runs != 0 || st.Format != FormatRecording {
		t.Errorf("no-tail: hasEvents %v, %d runs, format %q; want false, 0, recording", st.HasEvents, runs, st.Format)
	}
}

// TestCorpusSnapshotFacts checks parkedToolNames against a plain decode of
// the whole snapshot.
func TestCorpusSnapshotFacts(t *testing.T) {
	for _, scenario := range []string{"parked-but-served", "clean-armed", "dangling-reference"} {
		for _, file := range []string{"recording.json", "envelope.json"} {
			path := filepath.Join(corpusDir, scenario, file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Skip("reference corpus not found")
			}
			want, stated := parkedFromWholeDocument(t, data)
			var last *Run
			if _, err := Load(path, Options{}, func(r *Run) error { last = r; return nil }); err != nil {
				t.Fatal(err)
			}
			if last == nil || last.Snapshot == nil {
				t.Fatalf("%s/%s: the last run carries no snapshot facts", scenario, file)
			}
			if diff := cmp.Diff(want, last.Snapshot.ParkedToolNames); diff != "" || last.Snapshot.ParkedStated != stated {
				t.Errorf("%s/%s: parked (-want +got):\n%s stated %v", scenario, file, diff, last.Snapshot.ParkedStated)
			}
		}
	}
}

func parkedFromWholeDocument(t *testing.T, data []byte) ([]string, bool) {
	t.Helper()
	type snapshot struct {
		SharedState struct {
			Parked *[]string `json:"parkedToolNames"`
		} `json:"sharedState"`
		CommitLog []struct {
			Overwrite map[string]json.RawMessage `json:"overwrite"`
		} `json:"commitLog"`
	}
	var doc struct {
		Snapshot  *snapshot `json:"snapshot"`
		Recording *struct {
			Snapshot *snapshot `json:"snapshot"`
		} `json:"recording"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Snapshot
	if s == nil {
		s = doc.Recording.Snapshot
	}
	var out []string
	stated := false
	seen := map[string]bool{}
	addAll := func(names []string) {
		stated = true
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	if s.SharedState.Parked != nil {
		addAll(*s.SharedState.Parked)
	}
	for _, c := range s.CommitLog {
		var names []string
		if raw, ok := c.Overwrite["parkedToolNames"]; ok && json.Unmarshal(raw, &names) == nil {
			addAll(names)
		}
	}
	return out, stated
}
