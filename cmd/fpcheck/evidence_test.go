package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// evidenceInput is one recording the read-back test analyzes, with the
// declarations that arm the checks it exercises.
type evidenceInput struct {
	path, decl string
}

// evidenceInputs are every corpus recording (without declarations: the
// live run's findings) and every repository fixture that comes with
// declarations (the replay's findings).
func evidenceInputs(t *testing.T) []evidenceInput {
	var out []evidenceInput
	corpus := filepath.Join("..", "..", "..", "shared", "reference-corpus")
	for _, pattern := range []string{"*/events.jsonl", "*/events.firehose.jsonl", "*/recording.json", "*/envelope.json", "*/*/recording.json", "*/*/envelope.json"} {
		found, _ := filepath.Glob(filepath.Join(corpus, pattern))
		for _, p := range found {
			out = append(out, evidenceInput{path: p})
		}
	}
	if len(out) == 0 {
		t.Logf("reference corpus not found at %s: reading back the fixtures only", corpus)
	}
	out = append(out, evidenceInput{path: "../../testdata/recordings/demo/triage.jsonl", decl: "../../testdata/recordings/demo/declarations.yaml"})
	for _, root := range []string{"../../testdata/recordings/replay", "../../testdata/recordings/claims"} {
		found, _ := filepath.Glob(filepath.Join(root, "*", "events.jsonl"))
		for _, p := range found {
			in := evidenceInput{path: p}
			for _, name := range []string{"declarations.yaml", "declarations.json"} {
				if _, err := os.Stat(filepath.Join(filepath.Dir(p), name)); err == nil {
					in.decl = filepath.Join(filepath.Dir(p), name)
				}
			}
			out = append(out, in)
		}
	}
	return out
}

type evidenceReport struct {
	Runs []struct {
		RunID    string `json:"runId"`
		Findings []struct {
			Identity  string `json:"identity"`
			Source    string `json:"source"`
			Witnesses int    `json:"witnesses"`
			Explain   string `json:"explain"`
			Proof     struct {
				Witnesses []struct {
					Channel    string          `json:"channel"`
					Value      json.RawMessage `json:"value"`
					Provenance string          `json:"provenance"`
				} `json:"witnesses"`
				Positions []struct {
					What       string  `json:"what"`
					Event      string  `json:"event"`
					Path       string  `json:"path"`
					Line       *int64  `json:"line"`
					Pointer    *string `json:"pointer"`
					ToolCallID *string `json:"toolCallId"`
					Iteration  *int64  `json:"iteration"`
				} `json:"positions"`
			} `json:"proof"`
		} `json:"findings"`
	} `json:"runs"`
}

// TestEvidencePositionsReadBack analyzes every corpus recording and every
// fixture with declarations, and reads each evidence position of each
// finding back from the file: the line (or the JSON pointer) must hold an
// event of the type the position names, of the call and the iteration it
// names. Every finding must list its witnesses and at least one position.
func TestEvidencePositionsReadBack(t *testing.T) {
	findings, positions := 0, 0
	for _, in := range evidenceInputs(t) {
		args := []string{"analyze", "--format", "json"}
		if in.decl != "" {
			args = append(args, "--declarations", in.decl)
		}
		args = append(args, in.path)
		var out, errOut bytes.Buffer
		code := Main(args, &IOStreams{Out: &out, ErrOut: &errOut, Getenv: testEnv})
		if code > 3 {
			t.Fatalf("%s: exit %d: %s", in.path, code, errOut.String())
		}
		var rep evidenceReport
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("%s: the JSON report does not parse: %v", in.path, err)
		}
		files := map[string]*eventFile{}
		explained := map[string]bool{}
		for _, run := range rep.Runs {
			for _, f := range run.Findings {
				findings++
				name := in.path + " run " + run.RunID + " finding " + f.Identity
				if len(f.Proof.Witnesses) < f.Witnesses {
					t.Errorf("%s: %d witnesses counted, %d listed", name, f.Witnesses, len(f.Proof.Witnesses))
				}
				if len(f.Proof.Positions) == 0 {
					t.Errorf("%s: no evidence position", name)
				}
				if !strings.HasPrefix(f.Explain, "fpcheck explain ") {
					t.Errorf("%s: explain command %q", name, f.Explain)
				}
				if key := run.RunID + "\x00" + f.Identity; !explained[key] {
					explained[key] = true
					assertExplains(t, name, in, run.RunID, f.Identity, code)
				}
				for _, p := range f.Proof.Positions {
					positions++
					ef := files[p.Path]
					if ef == nil {
						ef = readEventFile(t, p.Path)
						files[p.Path] = ef
					}
					var ev map[string]json.RawMessage
					switch {
					case p.Pointer != nil:
						ev = ef.pointer(t, *p.Pointer)
						// A document's line is where the event's object
						// opens.
						if p.Line != nil && (*p.Line < 1 || *p.Line > int64(len(ef.lines)) || !bytes.HasSuffix(bytes.TrimSpace(ef.lines[*p.Line-1]), []byte("{"))) {
							t.Errorf("%s: %s: line %d of %s does not open an event", name, p.What, *p.Line, p.Path)
						}
					case p.Line != nil:
						ev = ef.line(t, *p.Line)
					default:
						t.Errorf("%s: position %s has neither a line nor a pointer", name, p.What)
						continue
					}
					where := p.Path + " " + positionName(p.Line, p.Pointer)
					var typ string
					json.Unmarshal(ev["type"], &typ)
					if typ != p.Event {
						t.Errorf("%s: %s at %s holds %q, not %q", name, p.What, where, typ, p.Event)
						continue
					}
					var payload struct {
						ToolCallID *string  `json:"toolCallId"`
						Iteration  *float64 `json:"iteration"`
					}
					json.Unmarshal(ev["payload"], &payload)
					if p.ToolCallID != nil && (strings.HasSuffix(p.Event, ".tool_start") || strings.HasSuffix(p.Event, ".tool_end")) &&
						(payload.ToolCallID == nil || *payload.ToolCallID != *p.ToolCallID) {
						t.Errorf("%s: %s at %s is not call %s", name, p.What, where, *p.ToolCallID)
					}
					if p.Iteration != nil && strings.HasSuffix(p.Event, ".llm_start") && payload.Iteration != nil && int64(*payload.Iteration) != *p.Iteration {
						t.Errorf("%s: %s at %s is iteration %v, not %d", name, p.What, where, *payload.Iteration, *p.Iteration)
					}
				}
			}
		}
	}
	if findings == 0 || positions == 0 {
		t.Fatalf("read back %d positions of %d findings: nothing was exercised", positions, findings)
	}
	t.Logf("read back %d positions of %d findings", positions, findings)
}

// assertExplains runs explain on one finding, by identity, in both
// formats: it must show the finding and exit as analyze did.
func assertExplains(t *testing.T, name string, in evidenceInput, runID, identity string, code int) {
	t.Helper()
	for _, format := range []string{"text", "json"} {
		args := []string{"explain", "--format", format, "--run", runID}
		if in.decl != "" {
			args = append(args, "--declarations", in.decl)
		}
		args = append(args, in.path, identity)
		var out, errOut bytes.Buffer
		got := Main(args, &IOStreams{Out: &out, ErrOut: &errOut, Getenv: testEnv})
		if got != code {
			t.Errorf("%s: explain --format %s exits %d, analyze %d: %s", name, format, got, code, errOut.String())
			continue
		}
		if format == "json" {
			var x struct {
				Finding struct {
					Identity string `json:"identity"`
				} `json:"finding"`
			}
			if err := json.Unmarshal(out.Bytes(), &x); err != nil || x.Finding.Identity != identity {
				t.Errorf("%s: explain --format json: %v, identity %q", name, err, x.Finding.Identity)
			}
		} else if !strings.Contains(out.String(), "WITNESSES") {
			t.Errorf("%s: explain shows no witnesses:\n%s", name, out.String())
		}
	}
}

func positionName(line *int64, pointer *string) string {
	if pointer != nil {
		return *pointer
	}
	return "line " + strconv.FormatInt(*line, 10)
}

// eventFile is a recording read whole, for looking positions up.
type eventFile struct {
	lines [][]byte
	doc   any
}

func readEventFile(t *testing.T, path string) *eventFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("position names %s: %v", path, err)
	}
	ef := &eventFile{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		ef.lines = append(ef.lines, append([]byte(nil), sc.Bytes()...))
	}
	_ = json.Unmarshal(data, &ef.doc)
	return ef
}

func (ef *eventFile) line(t *testing.T, n int64) map[string]json.RawMessage {
	if n < 1 || n > int64(len(ef.lines)) {
		t.Errorf("line %d is outside the file (%d lines)", n, len(ef.lines))
		return nil
	}
	var ev map[string]json.RawMessage
	if err := json.Unmarshal(ef.lines[n-1], &ev); err != nil {
		t.Errorf("line %d is not an event: %v", n, err)
	}
	return ev
}

// pointer resolves a JSON pointer (RFC 6901) in the document.
func (ef *eventFile) pointer(t *testing.T, ptr string) map[string]json.RawMessage {
	cur := ef.doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v := cur.(type) {
		case map[string]any:
			cur = v[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				t.Errorf("pointer %s: index %s is outside the array", ptr, tok)
				return nil
			}
			cur = v[i]
		default:
			t.Errorf("pointer %s does not resolve", ptr)
			return nil
		}
	}
	b, _ := json.Marshal(cur)
	var ev map[string]json.RawMessage
	json.Unmarshal(b, &ev)
	return ev
}

// TestExplainCommandForStandardInput checks that the explain command a
// report prints for a run read from standard input names the recording by
// explain's placeholder: explain reads its input again, which standard
// input cannot give twice, and "<stdin>" is no file.
func TestExplainCommandForStandardInput(t *testing.T) {
	data, err := os.ReadFile("../../testdata/recordings/formats/defect.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	const want = "fpcheck explain RECORDING --run run-1796025700000-1 1"
	for _, format := range []string{"text", "short", "json", "markdown"} {
		code, stdout, _ := run(t, bytes.NewReader(data), "analyze", "--color=never", "--format", format, "-")
		if code != 1 {
			t.Errorf("%s: exit %d, want 1", format, code)
		}
		if !strings.Contains(stdout, want) {
			t.Errorf("%s: no %q in\n%s", format, want, stdout)
		}
		if strings.Contains(stdout, "explain '<stdin>'") || strings.Contains(stdout, "explain <stdin>") {
			t.Errorf("%s: an explain command names standard input:\n%s", format, stdout)
		}
	}
}

// TestJSONReportTheSameBesideHTML: the HTML report asks the replay for
// where each encounter happened; the JSON report written beside it is the
// one written alone, and a saved report that carries such places (an
// earlier build wrote them, or a hand) has them let go when read back,
// since nothing holds them against the ledger they would be drawn beside.
func TestJSONReportTheSameBesideHTML(t *testing.T) {
	dir := t.TempDir()
	rec := "../../testdata/recordings/formats/defect.jsonl"
	_, alone, _ := run(t, nil, "analyze", "--format", "json", rec)
	_, beside, _ := run(t, nil, "analyze", "--format", "json", "--output", "html="+filepath.Join(dir, "r.html"), rec)
	if alone != beside {
		t.Fatalf("the JSON report differs when an HTML report is written beside it")
	}
	ev := strings.Index(alone, `"evidence":`)
	at := strings.Index(alone[ev:], `"replayed": {`)
	if ev < 0 || at < 0 {
		t.Fatal("no replayed evidence in the saved report")
	}
	at += ev + len(`"replayed": {`)
	forged := alone[:at] + `"Encounters": [{"Check": "forged-check", "Seam": "compose", "Placed": true, "Iteration": 7, "Disposition": 1, "Count": 99}],` + alone[at:]
	saved := filepath.Join(dir, "forged.json")
	if err := os.WriteFile(saved, []byte(forged), 0o644); err != nil {
		t.Fatal(err)
	}
	code, page, errOut := run(t, nil, "merge", "--format", "html", saved)
	if code != int(ExitDefects) {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	if strings.Contains(page, "forged-check") {
		t.Errorf("the merged page draws encounters the saved report made up")
	}
}
