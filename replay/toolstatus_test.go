package replay

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestToolEndStatusNotAnswer: a tool_end whose status (or notExecuted)
// says the tool did not answer is not judged as the tool's result: the
// run that files an empty-lookup advisory on the empty result files none
// when the same call was denied or never ran, and still files it when the
// status is success.
func TestToolEndStatusNotAnswer(t *testing.T) {
	dir := filepath.Join(claimsRoot, "empty-lookup-run-produced")
	data, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	decl := loadDeclarations(t, dir)
	marker := []byte(`"type":"agentfootprint.stream.tool_end","payload":{`)
	if bytes.Count(data, marker) == 0 {
		t.Fatal("fixture has no tool_end")
	}
	for _, tc := range []struct {
		field string
		want  int
	}{
		{``, 1},
		{`"status":"success",`, 1},
		{`"status":"invalid",`, 1},
		{`"status":"denied",`, 0},
		{`"status":"failure",`, 0},
		{`"status":"pending",`, 0},
		{`"status":"absent",`, 0},
		{`"notExecuted":true,`, 0},
	} {
		t.Run(tc.field, func(t *testing.T) {
			changed := bytes.ReplaceAll(data, marker, append(append([]byte(nil), marker...), tc.field...))
			runs, err := decodeRuns("events.jsonl", changed)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, run := range runs {
				ev, err := Replay(run, decl, Options{Names: NewCallNames()})
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range ev.Findings {
					if f.Kind == "empty-lookup" {
						n++
					}
				}
			}
			if n != tc.want {
				t.Fatalf("%d empty-lookup findings, want %d", n, tc.want)
			}
		})
	}
}
