package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocumentRunPositions analyses a pretty-printed recording: a run is
// placed by its position in the events array, as the JSON report's
// firstLine documents, in the text report and in the JSON alike, never by
// the line its first event happens to start on.
func TestDocumentRunPositions(t *testing.T) {
	compact, err := os.ReadFile("../../testdata/recordings/newer/redacted/recording.json")
	if err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	json.Indent(&pretty, compact, "", " ")
	path := filepath.Join(t.TempDir(), "pretty.json")
	if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, _ := run(t, nil, "analyze", "--color=never", "--ledger", path)
	for _, want := range []string{"50 events from event #1 ·", "37 events from event #51 ·"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, head(out))
		}
	}
	_, out, _ = run(t, nil, "analyze", "--format", "json", path)
	var rep struct {
		Runs []struct{ FirstLine int64 }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 2 || rep.Runs[0].FirstLine != 1 || rep.Runs[1].FirstLine != 51 {
		t.Errorf("JSON runs %+v, want firstLine 1 and 51", rep.Runs)
	}
}
