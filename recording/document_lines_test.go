package recording

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// linesDocument is a pretty-printed recording document of 3,000 events,
// far larger than the loader's read buffer, so that what the loader reads
// ahead of its walker shows if it leaks into the line count. It returns
// the text and the line on which each element ends.
func linesDocument(t *testing.T) ([]byte, []int64) {
	t.Helper()
	type event struct {
		Type    string         `json:"type"`
		Payload map[string]any `json:"payload"`
		Meta    map[string]any `json:"meta"`
	}
	var events []event
	for i := range 3000 {
		events = append(events, event{
			Type:    "agentfootprint.agent.turn_start",
			Payload: map[string]any{"turnIndex": 0, "userPrompt": strings.Repeat("p", 200)},
			Meta:    map[string]any{"runId": "run-a", "wallClockMs": 1000 + i, "runOffsetMs": i, "runtimeStageId": "seed#0", "subflowPath": []string{}, "compositionPath": []string{"Agent:agent"}},
		})
	}
	doc, err := json.MarshalIndent(map[string]any{"events": events}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	// Elements are indented by four spaces, their members by six.
	var ends []int64
	for i, line := range bytes.Split(doc, []byte("\n")) {
		if l := string(line); l == "    }," || l == "    }" {
			ends = append(ends, int64(i+1))
		}
	}
	if len(ends) != len(events) {
		t.Fatalf("found %d element ends, want %d", len(ends), len(events))
	}
	return doc, ends
}

// TestDocumentLinesWhereReadingStopped: a document read to its end counts
// all its lines; one that stopped counts the lines up to where it
// stopped, whatever the reader had read ahead, on one goroutine or
// several.
func TestDocumentLinesWhereReadingStopped(t *testing.T) {
	doc, ends := linesDocument(t)
	total := int64(bytes.Count(doc, []byte("\n")) + 1)
	broken := bytes.Split(bytes.Clone(doc), []byte("\n"))
	const badLine = 20001
	broken[badLine-1] = append(broken[badLine-1], " @@@"...)
	half := doc[:len(doc)/2]
	tests := []struct {
		name      string
		data      []byte
		maxEvents int
		wantLines int64
		wantErr   string
	}{
		{"read to the end", doc, 0, total, ""},
		{"malformed", bytes.Join(broken, []byte("\n")), 0, badLine, fmt.Sprintf("line %d: malformed JSON", badLine)},
		{"cut short", half, 0, int64(bytes.Count(half, []byte("\n")) + 1), "the input ends inside"},
		// The 101st event is past the run's limit: the run is let go
		// there, and the document is read on to its end.
		{"a run stopped at an event", doc, 100, total, fmt.Sprintf("line %d: events[100]: run \"run-a\" has more than 100 events", ends[99]+1)},
	}
	modes := []Options{
		{Workers: 1},
		{Workers: 2},
		{Workers: 3, batchLines: 7, batchBytes: 2 << 10},
		{Workers: 2, specMinSize: 1, specChunk: 4 << 10},
	}
	for _, tt := range tests {
		// A file, so that the speculating validator runs where asked to.
		path := filepath.Join(t.TempDir(), "doc.json")
		if err := os.WriteFile(path, tt.data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, opts := range modes {
			opts.MaxEventsPerRun = tt.maxEvents
			st, err := Load(path, opts, func(*Run) error { return nil })
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("%s, workers %d: %v", tt.name, opts.Workers, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("%s, workers %d: error %v, want one with %q", tt.name, opts.Workers, err, tt.wantErr)
			}
			if st == nil || st.Lines != tt.wantLines {
				t.Errorf("%s, %+v: Stats = %+v, want %d lines", tt.name, opts, st, tt.wantLines)
			}
		}
	}
}
