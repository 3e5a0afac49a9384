package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/fpcheck/fpcheck/report"
	"github.com/google/go-cmp/cmp"
)

// unshaped is the text shape when no text flag is given: the width is
// left for textWidth to decide.
var unshaped = report.TextOptions{Width: -1}

func TestOutputSpecs(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    []outputSpec
		wantErr string
	}{
		{name: "default", want: []outputSpec{{Format: "text", Path: "-", Text: unshaped}}},
		{name: "format", args: []string{"--format", "sarif"}, want: []outputSpec{{Format: "sarif", Path: "-", Text: unshaped}}},
		{name: "outputs keep text on stdout", args: []string{"--output", "sarif=a.sarif", "--output", "junit=j.xml"},
			want: []outputSpec{{Format: "text", Path: "-", Text: unshaped}, {Format: "sarif", Path: "a.sarif", Text: unshaped}, {Format: "junit", Path: "j.xml", Text: unshaped}}},
		{name: "output to stdout replaces format", args: []string{"--output", "junit=j.xml", "--output", "json=-"},
			want: []outputSpec{{Format: "json", Path: "-", Text: unshaped}, {Format: "junit", Path: "j.xml", Text: unshaped}}},
		{name: "format and output to stdout", args: []string{"--format", "json", "--output", "sarif=-"}, wantErr: "both write to stdout"},
		{name: "two to stdout", args: []string{"--output", "json=-", "--output", "sarif=-"}, wantErr: "already written"},
		{name: "same file", args: []string{"--output", "json=x", "--output", "sarif=./x"}, wantErr: "already written"},
		{name: "same file, once absolute", args: []string{"--output", "json=x", "--output", "sarif=" + absPath("x")}, wantErr: "already written"},
		{name: "no path", args: []string{"--output", "sarif="}, wantErr: "FORMAT=PATH"},
		{name: "html to a file", args: []string{"--output", "html=report.html"}, want: []outputSpec{{Format: "text", Path: "-", Text: unshaped}, {Format: "html", Path: "report.html", Text: unshaped}}},
		{name: "html to stdout", args: []string{"--format", "html"}, want: []outputSpec{{Format: "html", Path: "-", Text: unshaped}}},
		{name: "unknown format", args: []string{"--output", "pdf=x.pdf"}, wantErr: "format must be one of"},
		{name: "unknown stdout format", args: []string{"--format", "pdf"}, wantErr: "--format must be one of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []outputSpec
			var gotErr error
			ios := &IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}, Getenv: testEnv}
			cmd := NewCmdAnalyze(ios, &globalOptions{Color: "never"}, func(o *AnalyzeOptions) error {
				got, gotErr = o.Output.specs()
				return gotErr
			})
			cmd.SetArgs(append(tt.args, "run.jsonl"))
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				if exitCodeOf(err) != ExitUsage {
					t.Errorf("exit code %d, want 2", exitCodeOf(err))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestProgress: the counter appears only for long work and is erased;
// short work leaves stderr untouched.
func TestProgress(t *testing.T) {
	tests := []struct {
		name    string
		total   int
		elapsed time.Duration
		want    string
	}{
		{"few inputs, quick", 2, 300 * time.Millisecond, ""},
		{"few inputs, slow", 2, 1500 * time.Millisecond, "\rfpcheck: read 1 of 2 recordings…\r\x1b[K"},
		{"many inputs", 5, 0, "\rfpcheck: read 1 of 5 recordings…\r\x1b[K"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			p := &progress{w: &b, total: tt.total}
			p.tick(1, tt.elapsed)
			p.finish()
			if b.String() != tt.want {
				t.Errorf("got %q, want %q", b.String(), tt.want)
			}
		})
	}
}

// TestNoProgressWithoutTerminal: with stderr not a terminal, loading many
// inputs writes nothing there.
func TestNoProgressWithoutTerminal(t *testing.T) {
	var out, errOut bytes.Buffer
	ios := &IOStreams{Out: &out, ErrOut: &errOut, Getenv: testEnv}
	dir := "../../testdata/recordings/formats"
	args := []string{"analyze", dir + "/clean.jsonl", dir + "/defect.jsonl", dir + "/stopped.jsonl", dir + "/advisory.jsonl", dir + "/defect-later.jsonl", dir + "/hostile-ci.jsonl"}
	if code := Main(args, ios); code != int(ExitDefects) {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr: %q", errOut.String())
	}
	if !strings.Contains(out.String(), "PER INPUT") {
		t.Errorf("no per-input summary")
	}
	// With a terminal, the results are the same, in the same order.
	var out2, err2 bytes.Buffer
	ios2 := &IOStreams{Out: &out2, ErrOut: &err2, ErrTTY: true, Getenv: testEnv}
	if code := Main(args, ios2); code != int(ExitDefects) {
		t.Fatalf("exit %d", code)
	}
	if out2.String() != out.String() {
		t.Errorf("output differs with a terminal on stderr")
	}
}

// countingWriter records each Write it is given, and fails from the
// failAt-th on when failAt is positive.
type countingWriter struct {
	writes []string
	failAt int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes = append(c.writes, string(p))
	if c.failAt > 0 && len(c.writes) >= c.failAt {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// TestRenderBuffered: a report rendered line by line reaches the stream in
// one write; what was rendered before a failure still reaches it, with the
// failure; and a failing stream is an error, not a silent loss.
func TestRenderBuffered(t *testing.T) {
	lines := func(n int, fail error) func(io.Writer, string, report.RenderOptions) error {
		return func(w io.Writer, _ string, _ report.RenderOptions) error {
			for i := range n {
				fmt.Fprintf(w, "line %d\n", i)
			}
			return fail
		}
	}
	renderFailed := errors.New("render failed")
	tests := []struct {
		name       string
		render     func(io.Writer, string, report.RenderOptions) error
		failAt     int
		wantWrites int
		wantOut    string
		wantErr    string
	}{
		{"many lines, one write", lines(3, nil), 0, 1, "line 0\nline 1\nline 2\n", ""},
		{"nothing rendered, nothing written", lines(0, nil), 0, 0, "", ""},
		{"a failed render keeps what came before", lines(2, renderFailed), 0, 1, "line 0\nline 1\n", "render failed"},
		{"a failing stream is reported", lines(2, nil), 1, 1, "line 0\nline 1\n", "disk full"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &countingWriter{failAt: tt.failAt}
			err := renderBuffered(w, report.FormatText, report.RenderOptions{}, tt.render)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.wantErr {
				t.Errorf("error %q, want %q", got, tt.wantErr)
			}
			if len(w.writes) != tt.wantWrites {
				t.Errorf("%d writes, want %d", len(w.writes), tt.wantWrites)
			}
			if got := strings.Join(w.writes, ""); got != tt.wantOut {
				t.Errorf("written %q, want %q", got, tt.wantOut)
			}
		})
	}
}

// A diff whose stdout carries a machine format says its result on stderr,
// as analyze and merge do; with the text report on stdout it does not.
func TestDiffSummaryOnStderr(t *testing.T) {
	base, head := "../../testdata/recordings/formats/clean.jsonl", "../../testdata/recordings/formats/defect.jsonl"
	want := "fpcheck diff: exit 1 (new defect or regression) — defects: 1 new, 0 resolved, 0 persisting;"
	for _, tt := range []struct {
		args []string
		says bool
	}{
		{[]string{"--format", "json"}, true},
		{[]string{"--format", "sarif"}, true},
		{[]string{"--output", "short=-"}, true},
		{nil, false},
		{[]string{"--format", "text"}, false},
	} {
		code, _, stderr := run(t, nil, append(append([]string{"diff"}, tt.args...), base, head)...)
		if code != int(ExitDefects) || strings.Contains(stderr, want) != tt.says {
			t.Errorf("diff %v: exit %d, stderr %q; want exit 1 and the summary line %v", tt.args, code, stderr, tt.says)
		}
	}
}
