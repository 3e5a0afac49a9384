package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnvelopeRunFactsExit: an envelope whose run facts cannot be read
// (a count that is no count, a complete that is no boolean, a fact stated
// twice with different values) is never a green, in any format: what the
// producer said about the run's losses is unknown, so the run is
// unmeasured (exit 3) unless damage is allowed.
func TestEnvelopeRunFactsExit(t *testing.T) {
	sound, err := os.ReadFile("../../testdata/recordings/loader/envelope.json")
	if err != nil {
		t.Fatal(err)
	}
	const dropped, complete = `"droppedEvents": 0`, `"complete": true`
	for _, want := range []string{dropped, complete} {
		if !strings.Contains(string(sound), want) {
			t.Fatalf("the fixture no longer holds %s", want)
		}
	}
	dir := t.TempDir()
	cases := []struct {
		name, from, to string
		code           int
		want           string
	}{
		{"sound", "", "", 0, ""},
		{"droppedEvents 1e300", dropped, `"droppedEvents": 1e300`, 3, "run.droppedEvents is 1e300, not a count (a whole number from 0 to 9007199254740991): it is beyond what a producer can count exactly"},
		{"droppedEvents 3.7", dropped, `"droppedEvents": 3.7`, 3, "it is a fraction"},
		{"droppedEvents -5", dropped, `"droppedEvents": -5`, 3, "it is negative"},
		{"droppedEvents as a string", dropped, `"droppedEvents": "5"`, 3, `run.droppedEvents is "5", not a count`},
		{"complete as a string", complete, `"complete": "false"`, 3, `run.complete is "false", not true or false`},
		{"complete twice", complete, `"complete": false, "complete": true`, 3, "run.complete is stated more than once with different values (false, then true)"},
		{"droppedEvents twice", dropped, `"droppedEvents": 7, "droppedEvents": 0`, 3, "run.droppedEvents is stated more than once with different values (7, then 0)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
			if err := os.WriteFile(path, []byte(strings.Replace(string(sound), tc.from, tc.to, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, format := range []string{"text", "json", "sarif", "junit", "markdown", "github"} {
				code, stdout, stderr := run(t, nil, "analyze", "--format", format, path)
				if code != tc.code {
					t.Errorf("%s: exit %d, want %d\n%s%s", format, code, tc.code, head(stdout), stderr)
				}
				// Every format says why; the text format is checked word
				// for word (the others escape quotes their own way).
				want := tc.want
				if format != "text" && want != "" {
					want = "a statement of the producer about what the run lost cannot be read"
				}
				if want != "" && !strings.Contains(stdout, want) {
					t.Errorf("%s: no %q in\n%s", format, want, head(stdout))
				}
			}
			if tc.code != 0 {
				if code, _, _ := run(t, nil, "analyze", "--allow-damaged", path); code != 0 {
					t.Errorf("--allow-damaged: exit %d, want 0", code)
				}
			}
		})
	}
}
