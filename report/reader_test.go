package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

// This file is a deliberately small, test-only recording reader, so that the
// report's tests do not depend on the recording package's loader. It reads
// NDJSON streams, recording JSON documents and v1 envelopes (uncompressed),
// splits events into runs by meta.runId and keeps a rough loss account.

type rawEvent struct {
	Type    json.RawMessage `json:"type"`
	Payload json.RawMessage `json:"payload"`
	Meta    json.RawMessage `json:"meta"`
}

// readTestInput loads one input file and returns what Build expects.
func readTestInput(t testing.TB, path, display string) InputResult {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return InputResult{Path: display, Err: err}
	}
	stats := &recording.Stats{Path: display, Compression: "none", UnknownTypes: map[string]int64{}, WrongTypes: map[string]int64{}, HasEvents: true}
	var events []recording.Event
	trimmed := bytes.TrimSpace(data)
	switch {
	case len(trimmed) == 0:
		stats.Format = recording.FormatEmpty
	case isDocument(trimmed):
		events = readDocument(t, data, stats)
	default:
		events = readNDJSON(data, stats)
	}
	return InputResult{Stats: stats, Runs: splitRuns(events, display)}
}

// isDocument tells a whole-file JSON document from an NDJSON stream.
func isDocument(data []byte) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	_, snap := probe["snapshot"]
	_, evs := probe["events"]
	_, format := probe["format"]
	return snap || evs || format
}

func readDocument(t testing.TB, data []byte, stats *recording.Stats) []recording.Event {
	t.Helper()
	stats.Lines = int64(bytes.Count(data, []byte("\n")))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		stats.Lines++
	}
	var doc struct {
		Format    json.RawMessage    `json:"format"`
		Events    *[]json.RawMessage `json:"events"`
		Recording *struct {
			Events *[]json.RawMessage `json:"events"`
		} `json:"recording"`
		Run *struct {
			DroppedEvents *int64 `json:"droppedEvents"`
			Complete      *bool  `json:"complete"`
		} `json:"run"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", stats.Path, err)
	}
	items := doc.Events
	stats.Format = recording.FormatRecording
	if doc.Recording != nil {
		stats.Format = recording.FormatEnvelope
		items = doc.Recording.Events
		if doc.Run != nil {
			stats.DroppedEvents, stats.Complete = doc.Run.DroppedEvents, doc.Run.Complete
		}
	}
	if items == nil {
		stats.HasEvents = false
		return nil
	}
	var events []recording.Event
	for i, raw := range *items {
		e, ok := decodeEvent(raw, stats, 0)
		if !ok {
			stats.Malformed++
			stats.Problems = append(stats.Problems, recording.Problem{Message: fmt.Sprintf("events[%d] is not an event object", i)})
			continue
		}
		e.Index = int64(i)
		events = append(events, e)
	}
	return events
}

func readNDJSON(data []byte, stats *recording.Stats) []recording.Event {
	stats.Format = recording.FormatNDJSON
	var events []recording.Event
	lines := strings.SplitAfter(string(data), "\n")
	for i, line := range lines {
		if line == "" {
			continue
		}
		stats.Lines++
		n := int64(i + 1)
		if strings.TrimSpace(line) == "" {
			stats.Blank++
			continue
		}
		e, ok := decodeEvent(json.RawMessage(line), stats, n)
		if !ok {
			if !strings.HasSuffix(line, "\n") {
				stats.TruncatedTail = true
				continue
			}
			stats.Malformed++
			stats.Problems = append(stats.Problems, recording.Problem{Line: n, Message: "not an event object"})
			continue
		}
		e.Index = int64(len(events))
		events = append(events, e)
	}
	return events
}

func decodeEvent(raw json.RawMessage, stats *recording.Stats, line int64) (recording.Event, bool) {
	var re rawEvent
	if json.Unmarshal(raw, &re) != nil || re.Type == nil {
		return recording.Event{}, false
	}
	var typ string
	if json.Unmarshal(re.Type, &typ) != nil {
		return recording.Event{}, false
	}
	stats.Events++
	if !strings.HasPrefix(typ, "agentfootprint.") {
		stats.UnknownTypes[typ]++
	}
	e := recording.Event{Type: typ, Payload: re.Payload, Line: line}
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(re.Meta, &meta)
	str := func(k string) string {
		var s string
		_ = json.Unmarshal(meta[k], &s)
		return s
	}
	e.Meta.RuntimeStageID = str("runtimeStageId")
	e.Meta.RunID = str("runId")
	e.Meta.SessionID = str("sessionId")
	if v, ok := meta["iterIndex"]; ok {
		var f float64
		if json.Unmarshal(v, &f) == nil {
			e.Meta.IterIndex = &f
		}
	}
	return e, true
}

// splitRuns groups events by meta.runId in first-appearance order, leaving
// out consumer-scope events, and reads each run's recorded evidence.
func splitRuns(events []recording.Event, display string) []RunResult {
	var order []string
	byRun := map[string][]recording.Event{}
	for _, e := range events {
		if e.Meta.RunID == recording.ConsumerScope {
			continue
		}
		if _, ok := byRun[e.Meta.RunID]; !ok {
			order = append(order, e.Meta.RunID)
		}
		byRun[e.Meta.RunID] = append(byRun[e.Meta.RunID], e)
	}
	var runs []RunResult
	for _, id := range order {
		evs := byRun[id]
		first := evs[0]
		firstLine := first.Line
		if firstLine == 0 {
			firstLine = first.Index + 1
		}
		runs = append(runs, RunResult{
			Input:       display,
			RunID:       id,
			SessionID:   first.Meta.SessionID,
			PromptKey:   PromptKey(&recording.Run{Events: evs}),
			Events:      len(evs),
			HeadMissing: first.Type != recording.TypeRunConfigured && first.Type != recording.TypeTurnStart,
			FirstLine:   firstLine,
			Recorded:    replay.Recorded(evs),
			Print:       printOf(evs),
		})
	}
	return runs
}
