package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files and script expectations")

// TestFlagsGivenOnce: a flag that takes one value is refused (exit 2,
// named) when given twice, where only the last would count, or given
// empty, where it would read as not given: either way a declarations file
// or a baseline would be dropped without a word.
func TestFlagsGivenOnce(t *testing.T) {
	const demo = "../../testdata/recordings/demo/triage.jsonl"
	const decl = "../../testdata/recordings/demo/declarations.yaml"
	empty := filepath.Join(t.TempDir(), "empty.yaml")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		says string
	}{
		{"declarations twice", []string{"analyze", "--declarations", decl, "--declarations", empty, demo}, `"--declarations" flag: the flag is given twice`},
		{"declarations empty", []string{"analyze", "--declarations", "", demo}, `"--declarations" flag: the value is empty`},
		{"declarations empty with =", []string{"analyze", "--declarations=", demo}, `"--declarations" flag: the value is empty`},
		{"baseline empty", []string{"analyze", "--baseline", "", demo}, `"--baseline" flag: the value is empty`},
		{"write-baseline empty", []string{"analyze", "--write-baseline", "", demo}, `"--write-baseline" flag: the value is empty`},
		{"kind empty", []string{"analyze", "--kind", "", demo}, `"--kind" flag: the value is empty`},
		{"format twice", []string{"analyze", "--format", "json", "--format", "text", demo}, `"--format" flag: the flag is given twice ("json" and "text")`},
		{"fail-on twice", []string{"analyze", "--fail-on", "advisory", "--fail-on", "defect", demo}, `"--fail-on" flag: the flag is given twice`},
		{"posture empty", []string{"analyze", "--posture", "", demo}, `"--posture" flag: the value is empty`},
		{"diff declarations twice", []string{"diff", "--declarations", decl, "--declarations", empty, demo, demo}, `"--declarations" flag: the flag is given twice`},
		{"explain declarations empty", []string{"explain", "--declarations", "", demo}, `"--declarations" flag: the value is empty`},
		{"baseline write declarations twice", []string{"baseline", "write", "--declarations", decl, "--declarations", empty, demo}, `"--declarations" flag: the flag is given twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, nil, tt.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if stdout != "" {
				t.Errorf("wrote a report:\n%s", stdout)
			}
			if !strings.Contains(stderr, tt.says) {
				t.Errorf("stderr %q does not say %q", stderr, tt.says)
			}
		})
	}
}
