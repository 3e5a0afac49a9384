package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkJSONL asserts the shape of a JSON Lines output: one JSON object per
// line, every line with its type, the summary last and only there.
func checkJSONL(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	if len(out) == 0 || out[len(out)-1] != '\n' {
		t.Fatalf("jsonl output does not end in a newline:\n%s", out)
	}
	var lines []map[string]any
	for i, line := range bytes.Split(out[:len(out)-1], []byte{'\n'}) {
		var obj map[string]any
		if err := json.Unmarshal(line, &obj); err != nil {
			t.Fatalf("jsonl line %d is not a JSON object: %v\n%s", i+1, err, line)
		}
		typ, _ := obj["type"].(string)
		last := i == bytes.Count(out, []byte{'\n'})-1
		if (typ == "summary") != last || typ == "" {
			t.Fatalf("jsonl line %d has type %q (last line: %v)", i+1, typ, last)
		}
		lines = append(lines, obj)
	}
	return lines
}

// Every run line carries what the JSON report says of that run, save the
// facts that need other inputs; every input line what it says of the input;
// and the summary its exit code.
func TestJSONLAgainstJSONReport(t *testing.T) {
	for _, gc := range goldenCases() {
		t.Run(gc.name, func(t *testing.T) {
			r := buildGolden(t, gc)
			var js, jl bytes.Buffer
			if err := RenderJSON(&js, r); err != nil {
				t.Fatal(err)
			}
			if err := RenderJSONL(&jl, r); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Inputs   []map[string]any `json:"inputs"`
				Runs     []map[string]any `json:"runs"`
				ExitCode float64          `json:"exitCode"`
			}
			if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			var runs, inputs []map[string]any
			lines := checkJSONL(t, jl.Bytes())
			for _, l := range lines {
				switch l["type"] {
				case "run":
					runs = append(runs, l)
				case "input":
					inputs = append(inputs, l)
				}
			}
			if len(runs) != len(doc.Runs) || len(inputs) != len(doc.Inputs) {
				t.Fatalf("%d run and %d input lines; the JSON report has %d runs and %d inputs", len(runs), len(inputs), len(doc.Runs), len(doc.Inputs))
			}
			// A conversation or a run split across inputs is a fact of the
			// whole report; each line knows its own input only.
			inputsOf := map[any]map[any]bool{}
			for _, run := range doc.Runs {
				if run["sessionId"] != nil {
					if inputsOf[run["sessionId"]] == nil {
						inputsOf[run["sessionId"]] = map[any]bool{}
					}
					inputsOf[run["sessionId"]][run["input"]] = true
				}
			}
			for i, want := range doc.Runs {
				got := runs[i]
				for _, k := range []string{"type", "index", "exitCode"} {
					delete(got, k)
				}
				var skip []string
				if len(want["alsoIn"].([]any)) > 0 {
					skip = append(skip, "alsoIn", "notes", "disagreeing")
				}
				if len(inputsOf[want["sessionId"]]) > 1 {
					skip = append(skip, "turn", "turns")
				}
				for _, k := range skip {
					delete(want, k)
					delete(got, k)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("run line %d differs from the JSON report's run (-json +jsonl):\n%s", i+1, diff)
				}
			}
			for i, want := range doc.Inputs {
				got := inputs[i]
				for _, k := range []string{"type", "index", "exitCode"} {
					delete(got, k)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("input line %d differs from the JSON report's input (-json +jsonl):\n%s", i+1, diff)
				}
			}
			if got := lines[len(lines)-1]["exitCode"]; got != doc.ExitCode {
				t.Errorf("summary exitCode %v, JSON report %v", got, doc.ExitCode)
			}
		})
	}
}
