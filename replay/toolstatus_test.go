package replay

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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

// TestContentWithheldIsNoAnswer: an llm_end whose content is withheld
// leaves its iteration's answer unrecorded: the claim the model's words
// would have been judged on is unreachable, never judged as an empty
// answer.
func TestContentWithheldIsNoAnswer(t *testing.T) {
	dir := filepath.Join(claimsRoot, "claims-normalized")
	data, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	decl := loadDeclarations(t, dir)
	var lines [][]byte
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var ev map[string]any
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatal(err)
		}
		p, _ := ev["payload"].(map[string]any)
		switch ev["type"] {
		case "agentfootprint.agent.turn_end":
			delete(p, "finalContent")
		case "agentfootprint.stream.llm_end":
			p["content"] = ""
			p["contentWithheld"] = true
		}
		b, _ := json.Marshal(ev)
		lines = append(lines, b)
	}
	runs, err := decodeRuns("events.jsonl", bytes.Join(lines, []byte("\n")))
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range runs {
		ev, err := Replay(run, decl, Options{Names: NewCallNames()})
		if err != nil {
			t.Fatal(err)
		}
		if len(ev.Findings) != 0 {
			t.Errorf("%s: %d findings on withheld words", run.ID, len(ev.Findings))
		}
		row, _ := ev.Disposition.Row("unsupported-claim", "claim")
		if row.Unreachable == 0 || row.Checked != 0 {
			t.Errorf("%s: claim row %+v, want unreachable", run.ID, row)
		}
		if why := ev.Unreachable["unsupported-claim@claim"]; len(why) == 0 || !strings.Contains(why[0], "is not recorded") {
			t.Errorf("%s: unreachable because %q, want the answer not recorded", run.ID, why)
		}
	}
}
