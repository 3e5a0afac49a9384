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
		{"diff baseline twice", []string{"diff", "--baseline", empty, "--baseline", decl, demo, demo}, `"--baseline" flag: the flag is given twice`},
		{"diff baseline empty", []string{"diff", "--baseline=", demo, demo}, `"--baseline" flag: the value is empty`},
		{"diff fail-on twice", []string{"diff", "--fail-on", "advisory", "--fail-on", "defect", demo, demo}, `"--fail-on" flag: the flag is given twice ("advisory" and "defect")`},
		{"diff fail-on empty", []string{"diff", "--fail-on", "", demo, demo}, `"--fail-on" flag: the value is empty`},
		{"diff base-declarations twice", []string{"diff", "--base-declarations", decl, "--base-declarations", empty, demo, demo}, `"--base-declarations" flag: the flag is given twice`},
		{"diff base-declarations empty", []string{"diff", "--base-declarations", "", demo, demo}, `"--base-declarations" flag: the value is empty`},
		{"merge kind twice", []string{"merge", "--kind", "dangling-reference", "--kind", "invariant-violation", demo}, `"--kind" flag: the flag is given twice`},
		{"merge kind empty twice", []string{"merge", "--kind", "", "--kind", "", demo}, `"--kind" flag: the flag is given twice ("" and "")`},
		{"merge fail-on twice", []string{"merge", "--fail-on", "drift", "--fail-on", "defect", demo}, `"--fail-on" flag: the flag is given twice`},
		{"baseline write baseline empty", []string{"baseline", "write", "--baseline", "", demo}, `"--baseline" flag: the value is empty`},
		{"baseline write baseline twice", []string{"baseline", "write", "--baseline", empty, "--baseline", decl, demo}, `"--baseline" flag: the flag is given twice`},
		{"baseline write output empty", []string{"baseline", "write", "-o", "", demo}, `"-o, --output" flag: the value is empty`},
		{"baseline write output twice", []string{"baseline", "write", "-o", "x.json", "-o", "y.json", demo}, `"-o, --output" flag: the flag is given twice`},
		{"baseline write reason twice", []string{"baseline", "write", "--reason", "a", "--reason", "b", demo}, `"--reason" flag: the flag is given twice`},
		{"explain format twice", []string{"explain", "--format", "json", "--format", "text", demo, "1"}, `"--format" flag: the flag is given twice`},
		{"explain run twice", []string{"explain", "--run", "x", "--run", "y", demo, "1"}, `"--run" flag: the flag is given twice`},
		{"explain run empty", []string{"explain", "--run=", demo, "1"}, `"--run" flag: the value is empty`},
		{"merge fail-on empty", []string{"merge", "--fail-on=", demo}, `"--fail-on" flag: the value is empty`},
		{"merge baseline twice", []string{"merge", "--baseline", empty, "--baseline", decl, demo}, `"--baseline" flag: the flag is given twice`},
		{"merge baseline empty", []string{"merge", "--baseline", "", demo}, `"--baseline" flag: the value is empty`},
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

// TestRunLimitsHelp: the help of the run limits says what each counts, as
// security.md does: events are counted, kept or not, and what a run's
// replay keeps may be in a temporary file, not in memory.
func TestRunLimitsHelp(t *testing.T) {
	tests := []struct {
		flag string
		says []string
	}{
		{"--max-events-per-run", []string{"counted as they are read whether or not the run keeps them"}},
		{"--max-run-bytes", []string{"what its replay keeps, in memory or in its temporary file", "payloads of events collected before their replay"}},
	}
	for _, cmd := range []string{"analyze", "diff", "merge", "explain"} {
		code, stdout, _ := run(t, nil, cmd, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d", cmd, code)
		}
		for _, tt := range tests {
			var help string
			for line := range strings.Lines(stdout) {
				if l := strings.TrimSpace(line); strings.HasPrefix(l, tt.flag+" ") {
					help = l
				}
			}
			if help == "" {
				t.Errorf("%s --help lists no %s", cmd, tt.flag)
				continue
			}
			for _, s := range tt.says {
				if !strings.Contains(help, s) {
					t.Errorf("%s --help: %s says %q, not %q", cmd, tt.flag, help, s)
				}
			}
			if strings.Contains(help, "hold in memory") {
				t.Errorf("%s --help: %s says %q: a run's limits count what it keeps, wherever it is", cmd, tt.flag, help)
			}
		}
	}
}
