package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPartlyReadInputNeverAllPassing: an input that fails the job for what
// it lost apart from its runs (read past a point, a run stopped at a limit,
// a run lost whole) has an errored JUnit testcase beside the testcases of
// the runs read before the loss, and every format says the same of what was
// judged.
func TestPartlyReadInputNeverAllPassing(t *testing.T) {
	clean, err := os.ReadFile("../../testdata/recordings/formats/clean.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(clean), "\n")
	short := strings.ReplaceAll(strings.Join(lines[:4], ""), "run-1796025700000-1", "run-short")
	tests := []struct {
		name  string
		file  string
		data  []byte
		flags []string
		exit  int
		// testcase is the errored testcase's name; judged says what the
		// formats say was judged of an unreadable input.
		testcase, judged string
	}{
		{name: "line over the limit", file: "long.jsonl", data: append(append([]byte{}, clean...), strings.Repeat("x", 2000)+"\n"...),
			flags: []string{"--max-line-bytes", "1024"}, exit: 2,
			testcase: "read", judged: "The 1 run read before it is judged; nothing after it is."},
		{name: "run stopped at a limit", file: "stopped.jsonl", data: []byte(short + string(clean)),
			flags: []string{"--max-events-per-run", "5"}, exit: 2, testcase: "limit"},
		{name: "run lost whole", file: "lost.jsonl", data: append(append([]byte{}, clean...), `{"type":"x","meta":{"runId":"run-lost"},"payload":{BROKEN}`+"\n"...),
			exit: 3, testcase: "lost-runs"},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			args := append(append([]string{"analyze", "--format", "junit"}, tt.flags...), path)
			code, stdout, stderr := run(t, nil, args...)
			if code != tt.exit {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.exit, stderr)
			}
			if !regexp.MustCompile(`<testsuites [^>]*errors="[1-9]`).MatchString(stdout) {
				t.Errorf("exit %d, and the JUnit root counts no error:\n%s", code, stdout)
			}
			if !regexp.MustCompile(`<testcase name="` + tt.testcase + `" [^>]*>\s*<error `).MatchString(stdout) {
				t.Errorf("no errored %q testcase:\n%s", tt.testcase, stdout)
			}
			if !strings.Contains(stdout, `<property name="runId"`) {
				t.Errorf("the run read beside the loss has no suite:\n%s", stdout)
			}
			if tt.judged == "" {
				return
			}
			for _, format := range []string{"text", "json", "sarif", "junit", "markdown", "github", "html"} {
				args := append(append([]string{"analyze", "--format", format, "--width", "1000"}, tt.flags...), path)
				_, out, _ := run(t, nil, args...)
				if !strings.Contains(out, tt.judged) || strings.Contains(out, "Nothing from") {
					t.Errorf("--format %s does not say %q alone of what was judged:\n%s", format, tt.judged, head(out))
				}
			}
		})
	}
}
