package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExplainMarksLongValues: a witness value longer than a value is
// quoted is still looked for and marked, in explain and in the HTML
// report; only how it is quoted is clipped, and no sentence ends in an
// empty list of values.
func TestExplainMarksLongValues(t *testing.T) {
	const fixture = "../../testdata/recordings/replay/choice-ganymede"
	data, err := os.ReadFile(filepath.Join(fixture, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	decl := filepath.Join(fixture, "declarations.yaml")
	for _, n := range []int{180, 190, 5000} {
		value := "4417-ganymede" + strings.Repeat("x", n)
		path := filepath.Join(t.TempDir(), "long.jsonl")
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(data), "4417-ganymede", value)), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, stderr := run(t, nil, "explain", "--width", "0", "--declarations", decl, path, "--run", "run-ganymede-2", "1")
		if code != 1 {
			t.Fatalf("%d characters: exit %d, want 1; stderr %q", len(value), code, stderr)
		}
		for _, want := range []string{
			`(?m)^  looking for "4417-ganymedexxx`,
			`(?m)^  assistant \[1\] ◀ holds "4417-ganymedexxx[^"]*": the model's own earlier answer$`,
			`bkp-»4417-ganymedexxx`,
			`(?m)— does not hold "4417-ganymedexxx`,
		} {
			if !regexp.MustCompile(want).MatchString(out) {
				t.Errorf("%d characters: explain lacks %s:\n%s", len(value), want, out)
			}
		}
		if regexp.MustCompile(`(?m)(does not hold|holds|looking for) ?$`).MatchString(out) || len(out) > 20000 {
			t.Errorf("%d characters: explain ends a sentence with no value, or quotes the value whole (%d bytes):\n%.3000s", len(value), len(out), out)
		}
		_, page, _ := run(t, nil, "analyze", "--format", "html", "--declarations", decl, path)
		if !strings.Contains(page, "<mark>4417-ganymedexxx") || !strings.Contains(page, "◀ holds &#34;4417-ganymedexxx") {
			t.Errorf("%d characters: the HTML report does not mark the value", len(value))
		}
	}
}

// TestExplainCommandForAnUnprintableRunID: the explain command a report
// prints for a run whose id holds a control character works as printed,
// and explain's error for an id typed as the terminal showed it tells the
// two apart.
func TestExplainCommandForAnUnprintableRunID(t *testing.T) {
	const fixture = "../../testdata/recordings/replay/choice-ganymede"
	data, err := os.ReadFile(filepath.Join(fixture, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	decl := filepath.Join(fixture, "declarations.yaml")
	path := filepath.Join(t.TempDir(), "esc.jsonl")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(data), "run-ganymede-2", `run-\u001b-2`)), 0o644); err != nil {
		t.Fatal(err)
	}
	commands := map[string]string{}
	for _, format := range []string{"text", "short", "markdown"} {
		_, out, _ := run(t, nil, "analyze", "--width", "0", "--format", format, "--declarations", decl, path)
		m := regexp.MustCompile(`fpcheck explain [^\]\x60\n]*`).FindString(out)
		if m == "" {
			t.Fatalf("--format %s prints no explain command:\n%s", format, out)
		}
		commands[format] = m
	}
	if commands["text"] != commands["short"] || commands["text"] != commands["markdown"] {
		t.Errorf("the formats print different explain commands: %q", commands)
	}
	cmd := commands["text"]
	if strings.Contains(cmd, "--run") {
		t.Errorf("the command names the run by an id a terminal cannot show: %s", cmd)
	}
	// The words are plain, as a shell would split them.
	code, out, stderr := run(t, nil, strings.Fields(cmd)[1:]...)
	if code != 1 || !strings.Contains(out, `fpcheck explain · finding 1 of run run-\x1b-2`) {
		t.Errorf("%s: exit %d, stderr %q:\n%s", cmd, code, stderr, out)
	}
	// The id typed as the terminal showed it is another id, and the error
	// says so in words a shell takes.
	code, _, stderr = run(t, nil, "explain", "--declarations", decl, path, "--run", `run-\x1b-2`, "1")
	if code != 2 || !strings.Contains(stderr, `no run 'run-\x1b-2' in this recording; its runs: run-ganymede-1, $'run-\x1b-2'`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := run(t, nil, "explain", "--declarations", decl, path, "--run", "run-\x1b-2", "1"); code != 1 {
		t.Errorf("the real id: exit %d, stderr %q", code, stderr)
	}
}

// TestExplainCommandForARunIDTheLogGuardChanges: a run id holding "##["
// is one the CI log guard writes otherwise, so the printed explain
// command names the finding by its fingerprint and runs as printed.
func TestExplainCommandForARunIDTheLogGuardChanges(t *testing.T) {
	const fixture = "../../testdata/recordings/replay/choice-ganymede"
	data, err := os.ReadFile(filepath.Join(fixture, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	decl := filepath.Join(fixture, "declarations.yaml")
	path := filepath.Join(t.TempDir(), "hashes.jsonl")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(data), "run-ganymede-2", "##[warning]r")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, _ := run(t, nil, "analyze", "--width", "0", "--declarations", decl, path)
	cmd := regexp.MustCompile(`fpcheck explain [^\n]*`).FindString(out)
	if cmd == "" || strings.Contains(cmd, "--run") {
		t.Fatalf("explain command %q, want one naming the finding by its fingerprint:\n%s", cmd, out)
	}
	if code, out, stderr := run(t, nil, strings.Fields(cmd)[1:]...); code != 1 || !strings.Contains(out, "fpcheck explain · finding 1 of run") {
		t.Errorf("%s: exit %d, stderr %q:\n%s", cmd, code, stderr, out)
	}
}

// TestExplainOfAnInputReadPartly: a run analyze judges from an input
// unreadable past a point is one explain shows, with the error said and
// analyze's exit code, so the command the report prints works.
func TestExplainOfAnInputReadPartly(t *testing.T) {
	data, err := os.ReadFile("../../testdata/recordings/copies/run.json")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	path := filepath.Join(t.TempDir(), "cut.json")
	if err := os.WriteFile(path, []byte(strings.Join(lines[:200], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	wantCode, out, _ := run(t, nil, "analyze", "--width", "0", path)
	cmd := regexp.MustCompile(`fpcheck explain [^\n]*`).FindString(out)
	if cmd == "" {
		t.Fatalf("no explain command printed:\n%s", out)
	}
	code, out, stderr := run(t, nil, strings.Fields(cmd)[1:]...)
	if code != wantCode || !strings.Contains(out, "fpcheck explain · finding 1 of run") || !strings.Contains(stderr, "the runs read before it are explained") {
		t.Errorf("%s: exit %d (analyze %d), stderr %q:\n%s", cmd, code, wantCode, stderr, out)
	}
}

// TestExplainJSONCallPositions: a call's positions in explain's JSON name
// the call and its iteration, as the finding's own positions do.
func TestExplainJSONCallPositions(t *testing.T) {
	const fixture = "../../testdata/recordings/newer/live-columns-enforce"
	_, out, stderr := run(t, nil, "explain", "--format", "json", "--declarations", filepath.Join(fixture, "declarations.yaml"), filepath.Join(fixture, "events.jsonl"), "--run", "run-columns-enforce", "1")
	type position struct {
		ToolCallID *string `json:"toolCallId"`
		Iteration  *int64  `json:"iteration"`
	}
	var x struct {
		Calls []struct{ At, ResultAt *position }
	}
	if err := json.Unmarshal([]byte(out), &x); err != nil || len(x.Calls) == 0 {
		t.Fatalf("explain JSON: %v (%s)\n%s", err, stderr, out)
	}
	for _, pos := range []*position{x.Calls[0].At, x.Calls[0].ResultAt} {
		if pos == nil || pos.ToolCallID == nil || *pos.ToolCallID != "call-7" || pos.Iteration == nil || *pos.Iteration != 1 {
			t.Errorf("call position %+v, want call-7 at iteration 1", pos)
		}
	}
}
