package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/fpcheck/fpcheck/recording"
)

// readRuns is a test-only stand-in for the loader: it decodes an NDJSON
// event stream and splits it into runs by meta.runId, in order of first
// appearance, skipping consumer-scope events.
func readRuns(t testing.TB, path string) []*recording.Run {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := decodeRuns(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

func decodeRuns(path string, data []byte) ([]*recording.Run, error) {
	byID := map[string]*recording.Run{}
	var runs []*recording.Run
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<20), 1<<26)
	line := int64(0)
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var raw struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
			Meta    struct {
				RunID          string `json:"runId"`
				SessionID      string `json:"sessionId"`
				RuntimeStageID string `json:"runtimeStageId"`
			} `json:"meta"`
		}
		if err := json.Unmarshal(b, &raw); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		if raw.Meta.RunID == recording.ConsumerScope {
			continue
		}
		r := byID[raw.Meta.RunID]
		if r == nil {
			r = &recording.Run{Input: path, ID: raw.Meta.RunID, SessionID: raw.Meta.SessionID, FirstLine: line}
			byID[raw.Meta.RunID] = r
			runs = append(runs, r)
		}
		r.Events = append(r.Events, recording.Event{
			Type:    raw.Type,
			Payload: raw.Payload,
			Meta:    recording.Meta{RunID: raw.Meta.RunID, SessionID: raw.Meta.SessionID, RuntimeStageID: raw.Meta.RuntimeStageID},
			Line:    line,
			Index:   int64(len(r.Events)),
		})
	}
	for _, r := range runs {
		if len(r.Events) > 0 && r.Events[0].Type != recording.TypeRunConfigured && r.Events[0].Type != recording.TypeTurnStart {
			r.HeadMissing = true
		}
	}
	return runs, sc.Err()
}
