package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

const claimsFixtures = "../testdata/recordings/claims"

// replayedInput reads a claims fixture, replays each run with its
// declarations and hands Build the replayed evidence alone, so the
// validations reach the report the way they do from a caller that only
// keeps the evidence.
func replayedInput(t *testing.T, fixture string) InputResult {
	t.Helper()
	dir := filepath.Join(claimsFixtures, fixture)
	data, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	declData, err := os.ReadFile(filepath.Join(dir, "declarations.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	decl, err := checks.ParseDeclarations("declarations.yaml", declData)
	if err != nil {
		t.Fatal(err)
	}
	in := readTestInput(t, filepath.Join(dir, "events.jsonl"), fixture+"/events.jsonl")
	stats := &recording.Stats{UnknownTypes: map[string]int64{}, WrongTypes: map[string]int64{}}
	events := readNDJSON(data, stats)
	names := replay.NewCallNames()
	for i := range in.Runs {
		run := &recording.Run{ID: in.Runs[i].RunID, Input: in.Runs[i].Input}
		for _, e := range events {
			if e.Meta.RunID == run.ID {
				run.Events = append(run.Events, e)
			}
		}
		ev, err := replay.Replay(run, decl, replay.Options{Names: names})
		if err != nil {
			t.Fatal(err)
		}
		in.Runs[i].Replayed = ev
	}
	return in
}

// TestAnswerValidationReport renders the claims fixture's validation in
// text and JSON and compares both with goldens kept beside the fixture.
func TestAnswerValidationReport(t *testing.T) {
	r := Build([]InputResult{replayedInput(t, "claims-normalized")}, testOptions(Options{}))
	if len(r.Runs) != 1 || len(r.Runs[0].Validation) != 1 {
		t.Fatalf("want one run with one validation, got %+v", r.Runs)
	}
	var text, js bytes.Buffer
	if err := RenderText(&text, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := RenderJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Answer validation (replayed)", "answer of iteration 3 (sf-route#18, JSON): FAILED", "✗ agent:claims:status — checked-fail: contradicts-reading"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text report does not say %q", s)
		}
	}
	for _, s := range []string{`"answerValidation": [`, `"status": "failed"`, `"id": "agent:names-and-numbers"`} {
		if !strings.Contains(js.String(), s) {
			t.Errorf("JSON report does not carry %q", s)
		}
	}
	dir := filepath.Join(claimsFixtures, "claims-normalized")
	compareGolden(t, filepath.Join(dir, "report.txt"), text.Bytes())
	compareGolden(t, filepath.Join(dir, "report.json"), js.Bytes())

	// A run whose declarations ask for no validation carries no key.
	r = Build([]InputResult{replayedInput(t, "columns-lun-zero")}, testOptions(Options{}))
	js.Reset()
	if err := RenderJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(js.String(), "answerValidation") || len(r.Runs[0].Validation) != 0 {
		t.Error("a run without claims or names-and-numbers declared shows no answer validation")
	}
}

// TestFidelityReports pins the text report of each fixture where the replay
// once disagreed with the seeds: an earlier turn's ground, rows refused
// under enforce, JSON written in a string, doubt on both sides of a claim,
// and an absence behind another offender.
func TestFidelityReports(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		says    []string
	}{
		{"empty-lookup-earlier-turn", []string{"counted apart (empty-lookup: an empty answer can be true, so it marks a place to look, never a verdict)"}},
		{"empty-lookup-later-history", []string{"ADVISORIES ONLY"}},
		{"columns-enforce-refused", []string{"replay lacked input: the rows were refused under enforce", "is missing from the recording"}},
		{"columns-json-in-string", []string{"Call id call-2"}},
		{"claims-doubt-both-sides", []string{"unsupported-claim @claim      ⚠ ran 0× — 1 encounter unreachable"}},
		{"columns-absence-later", []string{"2 of the 3 offending rows carry no value"}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			r := Build([]InputResult{replayedInput(t, tc.fixture)}, testOptions(Options{}))
			var text bytes.Buffer
			if err := RenderText(&text, r, TextOptions{}); err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.says {
				if !strings.Contains(text.String(), s) {
					t.Errorf("text report does not say %q", s)
				}
			}
			compareGolden(t, filepath.Join(claimsFixtures, tc.fixture, "report.txt"), text.Bytes())
		})
	}
}
