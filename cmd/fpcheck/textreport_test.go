package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/fpcheck/fpcheck/internal/golden"
	"github.com/fpcheck/fpcheck/internal/synth"
	"github.com/fpcheck/fpcheck/report"
)

// synthDeclarations arm the choice and write checks on the generated
// agent's tools.
const synthDeclarations = `tools:
  backup_status: { argumentsFrom: [fleet_report], noticeEmptyLookups: true }
  host_metrics: { argumentsFrom: [fleet_report] }
`

// writeSynth200 generates, in dir, a recording of 200 model calls (10 runs
// of 20) with findings on, and its declarations; it returns their names
// relative to dir.
func writeSynth200(t *testing.T, dir string) (rec, decl string) {
	t.Helper()
	c := synth.DefaultConfig()
	c.Runs, c.Iterations, c.ToolResultBytes = 10, 20, 512
	var b bytes.Buffer
	if _, err := synth.WriteNDJSON(&b, c); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fleet.jsonl"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fleet.yaml"), []byte(synthDeclarations), 0o644); err != nil {
		t.Fatal(err)
	}
	return "fleet.jsonl", "fleet.yaml"
}

// TestTextReportFitsOneScreen: the default text report of a 200-model-call
// recording, 50 findings in 10 runs, fits in 60 lines at width 80, and at
// 80 and 120 columns no line is wider than the width, so no terminal cuts
// a word; both are pinned as goldens.
func TestTextReportFitsOneScreen(t *testing.T) {
	golden, err := filepath.Abs("../../testdata/recordings/report/golden")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	rec, decl := writeSynth200(t, dir)
	for _, tc := range []struct {
		width, maxLines int
	}{{80, 60}, {120, 60}} {
		var out, errOut bytes.Buffer
		code := Main([]string{"analyze", "--width", strconv.Itoa(tc.width), "--declarations", decl, rec}, &IOStreams{Out: &out, ErrOut: &errOut, Getenv: testEnv})
		if code != int(ExitDefects) {
			t.Fatalf("width %d: exit %d: %s", tc.width, code, errOut.String())
		}
		lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		if len(lines) > tc.maxLines {
			t.Errorf("width %d: %d lines, want at most %d:\n%s", tc.width, len(lines), tc.maxLines, out.String())
		}
		for i, l := range lines {
			if n := utf8.RuneCountInString(l); n > tc.width {
				t.Errorf("width %d: line %d is %d columns: %q", tc.width, i+1, n, l)
			}
		}
		if !strings.Contains(out.String(), "in 10 runs") {
			t.Errorf("width %d: repeated findings are not grouped", tc.width)
		}
		if got := strings.Count(out.String(), "Bound: "); got != 1 {
			t.Errorf("width %d: the bound is said %d times, want once", tc.width, got)
		}
		compareText(t, filepath.Join(golden, "synth-200-w"+strconv.Itoa(tc.width)+".txt"), out.Bytes())
	}
}

// TestShortFormatMatchesProblemMatchers: every finding line of --format
// short is PATH:LINE: kind@seam: message, as a problem matcher's regular
// expression reads it, and the line names a real line of the file.
func TestShortFormatMatchesProblemMatchers(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	rec, decl := writeSynth200(t, dir)
	var out, errOut bytes.Buffer
	code := Main([]string{"analyze", "--format", "short", "--declarations", decl, rec}, &IOStreams{Out: &out, ErrOut: &errOut, Getenv: testEnv})
	if code != int(ExitDefects) {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	data, _ := os.ReadFile(rec)
	fileLines := bytes.Count(data, []byte("\n"))
	matcher := regexp.MustCompile(report.ShortLine)
	// The matcher a GitHub problem matcher or an editor would use.
	generic := regexp.MustCompile(`^([^:]+):(\d+): (.+)$`)
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	findings := 0
	for _, l := range lines[:len(lines)-1] {
		m := matcher.FindStringSubmatch(l)
		if m == nil || !generic.MatchString(l) {
			t.Errorf("not a file:line: message line: %q", l)
			continue
		}
		findings++
		if m[1] != rec {
			t.Errorf("path %q, want %q", m[1], rec)
		}
		if n, _ := strconv.Atoi(m[2]); n < 1 || n > fileLines {
			t.Errorf("line %s is outside the file's %d lines", m[2], fileLines)
		}
	}
	if findings != 50 {
		t.Errorf("%d finding lines, want 50", findings)
	}
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "RESULT exit 1 (defects)") || matcher.MatchString(last) {
		t.Errorf("last line %q: want the RESULT line, which no matcher takes for a finding", last)
	}
}

func compareText(t *testing.T, path string, got []byte) {
	t.Helper()
	golden.Compare(t, path, got, *update)
}

// TestReportsCannotCommandACILog: a recording whose file name and finding
// message are written as GitHub workflow commands and as a second
// PATH:LINE: cannot, in any format, start a log line with "::", put
// "##[" anywhere, or move a short finding line to another place.
func TestReportsCannotCommandACILog(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a file name cannot hold ':' here")
	}
	data, err := os.ReadFile("../../testdata/recordings/formats/defect.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	forged := `::error file=README.md,line=1::forged ##[stop-commands]tok main.go:99: forged@here: `
	data = bytes.Replace(data, []byte(`"message":"`), []byte(`"message":"`+forged), 1)
	dir := t.TempDir()
	t.Chdir(dir)
	name := "::error file=README.md,line=1::Forged ##[error]x.jsonl"
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	matcher := regexp.MustCompile(report.ShortLine)
	for _, format := range report.Formats() {
		t.Run(format, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Main([]string{"analyze", "--format", format, "--width", "30", "."}, &IOStreams{Out: &out, ErrOut: &errOut, Getenv: testEnv})
			if code != int(ExitDefects) {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			for _, stream := range []*bytes.Buffer{&out, &errOut} {
				for l := range strings.Lines(stream.String()) {
					own := format == report.FormatGitHub && stream == &out && regexp.MustCompile(`^::(error|warning|notice) `).MatchString(l)
					if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") && !own {
						t.Errorf("a line starts as a workflow command: %q", l)
					}
					if strings.Contains(l, "##[") {
						t.Errorf("a line holds \"##[\": %q", l)
					}
				}
			}
			if format != report.FormatShort {
				return
			}
			first, _, _ := strings.Cut(out.String(), "\n")
			m := matcher.FindStringSubmatch(first)
			if m == nil || m[2] != "6" || m[3] != "dangling-reference@compose" || !strings.HasSuffix(m[1], "x.jsonl") {
				t.Errorf("the finding line reads as %q, want the file's line 6 and dangling-reference@compose: %q", m, first)
			}
		})
	}
}

// TestBaselineAndSkeletonCannotCommandACILog: baseline write and
// declarations init print what recordings name too; neither prints "##["
// or a line starting "::", and each still reads back as what it names.
func TestBaselineAndSkeletonCannotCommandACILog(t *testing.T) {
	data, err := os.ReadFile("../../testdata/recordings/formats/defect.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rec := filepath.Join(dir, "hostile.jsonl")
	if err := os.WriteFile(rec, bytes.ReplaceAll(data, []byte("screen_fire"), []byte("##[error]fire")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"baseline", "write", rec}, {"declarations", "init", rec}} {
		code, out, stderr := run(t, nil, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", args[0], code, stderr)
		}
		for l := range strings.Lines(out) {
			if strings.Contains(l, "##[") || strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") {
				t.Errorf("%s prints %q", args[0], l)
			}
		}
		path := filepath.Join(dir, args[0]+".out")
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		// The baseline accepts the defect of the name it holds; the
		// declarations name a tool a run offered (strict: no unseen name).
		readBack, want := []string{"analyze", "--baseline", path, rec}, int(ExitGreen)
		if args[0] == "declarations" {
			readBack, want = []string{"analyze", "--strict-declarations", "--declarations", path, rec}, int(ExitDefects)
		}
		if code, out, stderr := run(t, nil, readBack...); code != want {
			t.Errorf("%s read back: exit %d, want %d: %s\n%s", args[0], code, want, stderr, out)
		}
	}
}
