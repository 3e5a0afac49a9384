package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/report"
)

// TestShortNamesWhatStoppedAnInput: --format short, made for problem
// matchers, says which file hit a limit, where, and which flag set it, as
// every other format does; before, it printed only the RESULT line.
func TestShortNamesWhatStoppedAnInput(t *testing.T) {
	const clean = "../../testdata/recordings/formats/clean.jsonl"
	data, err := os.ReadFile(clean)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	packed := filepath.Join(t.TempDir(), "clean.jsonl.gz")
	if err := os.WriteFile(packed, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	matcher := regexp.MustCompile(report.ShortLine)
	tests := []struct {
		name  string
		args  []string
		path  string
		line  string
		kind  string
		flags string
	}{
		{"events per run", []string{"--max-events-per-run", "7", clean}, clean, "8", "stopped@run", "--max-events-per-run"},
		{"line bytes", []string{"--max-line-bytes", "100", clean}, clean, "1", "unreadable@input", "--max-line-bytes"},
		{"line bytes past a run", []string{"--max-line-bytes", "500", clean}, clean, "8", "unreadable@input", "--max-line-bytes"},
		{"decompressed bytes", []string{"--max-decompressed-bytes", "100", packed}, packed, "1", "unreadable@input", "--max-decompressed-bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, _ := run(t, nil, append([]string{"analyze", "--format", "short"}, tt.args...)...)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			var found bool
			for _, l := range strings.Split(stdout, "\n") {
				m := matcher.FindStringSubmatch(l)
				if m == nil || m[3] != tt.kind {
					continue
				}
				found = true
				if m[1] != tt.path || m[2] != tt.line || !strings.Contains(m[4], tt.flags) {
					t.Errorf("line %q: want %s:%s naming %s", l, tt.path, tt.line, tt.flags)
				}
			}
			if !found {
				t.Errorf("no %s line:\n%s", tt.kind, stdout)
			}
		})
	}
}
