package recording

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/internal/synth"
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

// TestDocumentErrorLines breaks a pretty-printed recording document (far
// larger than the read buffer, snapshot and events both spread over many
// lines) at commas all through it: in a value the walker skips, in one it
// walks member by member, in an event it captures. Each error must name
// the line the broken comma is on, counted from the document's bytes, on
// one goroutine or several, speculating or not.
func TestDocumentErrorLines(t *testing.T) {
	var rec bytes.Buffer
	if _, err := synth.WriteRecordingJSON(&rec, synth.Config{Iterations: 12, ToolResultBytes: 4096, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	var doc bytes.Buffer
	if err := json.Indent(&doc, rec.Bytes(), "", " "); err != nil {
		t.Fatal(err)
	}
	text := doc.Bytes()
	if len(text) < 3*scanBufSize {
		t.Fatalf("the document is %d bytes, want more than three read buffers", len(text))
	}
	// The commas between values: outside strings.
	var commas []int
	in, esc := false, false
	for i, c := range text {
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && c == ',':
			commas = append(commas, i)
		}
	}
	modes := []Options{
		{Workers: 1},
		{Workers: 2},
		{Workers: 2, specMinSize: 1, specChunk: 4 << 10},
	}
	dir := t.TempDir()
	const breaks = 40
	for k := range breaks {
		at := commas[(k*len(commas)+len(commas)/2)/breaks]
		broken := bytes.Clone(text)
		broken[at] = '@'
		path := filepath.Join(dir, fmt.Sprintf("doc-%d.json", k))
		if err := os.WriteFile(path, broken, 0o644); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("line %d:", bytes.Count(text[:at], []byte("\n"))+1)
		for _, opts := range modes {
			_, err := Load(path, opts, func(*Run) error { return nil })
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("comma at byte %d broken, %+v: error %v, want one at %q", at, opts, err, want)
			}
		}
	}
}
