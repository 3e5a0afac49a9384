package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// jsonlCorpus writes the corpus's JSON report and its JSON Lines streamed
// to stdout, and returns both.
func jsonlCorpus(t *testing.T) (doc string, lines []string, code int) {
	t.Helper()
	corpus := corpusPath(t)
	jsonCode, js, _ := run(t, nil, "analyze", "--format", "json", corpus)
	code, out, stderr := run(t, nil, "analyze", "--format", "jsonl", corpus)
	if code != jsonCode {
		t.Fatalf("jsonl exit %d, json exit %d (%s)", code, jsonCode, stderr)
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return js, lines, code
}

// The done-when of JSON Lines: the corpus's lines, checked one by one
// against the JSON report of the same invocation; streamed, written to a
// file and merged from shards, they are the same bytes.
func TestJSONLAgainstTheJSONReport(t *testing.T) {
	js, lines, code := jsonlCorpus(t)
	var doc struct {
		Runs []struct {
			Input, RunID, Verdict string
			Defects, Advisories   int
			Findings              []struct{ Identity string }
			Copies                []struct{ Input, Verdict string }
		} `json:"runs"`
		Inputs   []struct{ Path string }
		ExitCode int
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	type key struct{ input, run string }
	want := map[key]int{}
	// A copy of a run judged in another input has its own line, judged
	// alone, as its input alone gives it; the JSON report names it
	// under the run it counts once.
	copies := map[key]string{}
	for i, r := range doc.Runs {
		want[key{r.Input, r.RunID}] = i
		for _, c := range r.Copies {
			copies[key{c.Input, r.RunID}] = c.Verdict
		}
	}
	runs, inputs, copyLines, copiesLines := 0, 0, 0, 0
	for n, line := range lines {
		var l struct {
			Type, Input, RunID, Verdict, Path string
			Defects, Advisories, ExitCode     int
			Findings                          []struct{ Identity string }
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		switch l.Type {
		case "run":
			if v, ok := copies[key{l.Input, l.RunID}]; ok {
				if l.Verdict != v {
					t.Errorf("line %d: copy %s of %s judged %s; the JSON report says %s", n+1, l.RunID, l.Input, l.Verdict, v)
				}
				copyLines++
				continue
			}
			i, ok := want[key{l.Input, l.RunID}]
			if !ok {
				t.Fatalf("line %d: run %s of %s is not in the JSON report", n+1, l.RunID, l.Input)
			}
			r := doc.Runs[i]
			if l.Verdict != r.Verdict || l.Defects != r.Defects || l.Advisories != r.Advisories || len(l.Findings) != len(r.Findings) {
				t.Errorf("line %d (run %s of %s): verdict %s, %d defects, %d advisories, %d findings; the JSON report says %s, %d, %d, %d",
					n+1, l.RunID, l.Input, l.Verdict, l.Defects, l.Advisories, len(l.Findings), r.Verdict, r.Defects, r.Advisories, len(r.Findings))
			}
			for j := range min(len(l.Findings), len(r.Findings)) {
				if l.Findings[j].Identity != r.Findings[j].Identity {
					t.Errorf("line %d: finding %d is %q, the JSON report's %q", n+1, j, l.Findings[j].Identity, r.Findings[j].Identity)
				}
			}
			runs++
		case "input":
			if l.Path != doc.Inputs[inputs].Path {
				t.Errorf("line %d: input %s, the JSON report's input %d is %s", n+1, l.Path, inputs, doc.Inputs[inputs].Path)
			}
			inputs++
		case "copies":
			copiesLines++
		case "summary":
			if n != len(lines)-1 || l.ExitCode != doc.ExitCode || l.ExitCode != code {
				t.Errorf("summary on line %d of %d with exit code %d; the report's is %d, the process's %d", n+1, len(lines), l.ExitCode, doc.ExitCode, code)
			}
		default:
			t.Errorf("line %d has type %q", n+1, l.Type)
		}
	}
	if runs != len(doc.Runs) || inputs != len(doc.Inputs) || copyLines != len(copies) {
		t.Errorf("%d run lines (and %d of copies) and %d input lines; the JSON report has %d runs (and %d copies) and %d inputs",
			runs, copyLines, inputs, len(doc.Runs), len(copies), len(doc.Inputs))
	}
	if len(copies) > 0 && copiesLines == 0 {
		t.Errorf("the corpus holds copies of runs and no copies line names them")
	}

	corpus := corpusPath(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "all.jsonl")
	run(t, nil, "analyze", "--output", "jsonl="+file, corpus)
	written, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	streamed := strings.Join(lines, "\n") + "\n"
	if string(written) != streamed {
		t.Errorf("--output jsonl=FILE differs from the lines streamed to stdout")
	}
	_, merged, _ := run(t, nil, append([]string{"merge", "--format", "jsonl"}, analyzeShards(t, dir, 3, corpus)...)...)
	if merged != streamed {
		t.Errorf("merged shards' jsonl differs from one invocation's")
	}
}

// The JSON Lines load into DuckDB as a table, one row per line (the query
// docs/json-schema.md shows). DuckDB is not a Debian package: the test
// runs where it is installed.
func TestJSONLLoadsIntoDuckDB(t *testing.T) {
	duck, err := exec.LookPath("duckdb")
	if err != nil {
		t.Skip("duckdb is not installed")
	}
	_, lines, _ := jsonlCorpus(t)
	file := filepath.Join(t.TempDir(), "fpcheck.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := strings.Count(strings.Join(lines, "\n"), `{"type":"run"`)
	query := "SELECT count(*) FROM read_json_auto('" + file + "', format = 'newline_delimited') WHERE type = 'run';"
	out, err := exec.Command(duck, "-csv", "-noheader", "-c", query).CombinedOutput()
	if err != nil {
		t.Fatalf("duckdb: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != itoa(runs) {
		t.Errorf("duckdb counts %s run rows, the file holds %d", got, runs)
	}
}
