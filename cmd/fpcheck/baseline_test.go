package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/report"
)

// An advisory and a defect of one identity are two findings to the gate:
// a diff counts an advisory that became a defect as a new defect, and a
// baseline written for the advisory does not accept the defect.
func TestAdvisoryThatBecameDefectFails(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../testdata/recordings/formats/advisory.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	adv, now := filepath.Join(dir, "adv.jsonl"), filepath.Join(dir, "now.jsonl")
	defect := strings.ReplaceAll(string(data), `"advisory":true`, `"advisory":false`)
	if defect == string(data) {
		t.Fatal("the fixture files no advisory")
	}
	for p, s := range map[string]string{adv: string(data), now: defect} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bl := filepath.Join(dir, "bl.json")
	if code, _, stderr := run(t, nil, "baseline", "write", adv, "-o", bl); code != 0 {
		t.Fatalf("baseline write: exit %d: %s", code, stderr)
	}
	for _, tt := range []struct {
		args []string
		exit ExitCode
		want string
	}{
		{[]string{"diff", adv, now}, ExitDefects, "defects: 1 new, 0 resolved, 0 persisting; advisories: 0 new, 1 resolved, 0 persisting"},
		{[]string{"diff", "--fail-on", "advisory", adv, now}, ExitDefects, "defects: 1 new"},
		{[]string{"diff", now, adv}, ExitGreen, "defects: 0 new, 1 resolved, 0 persisting; advisories: 1 new, 0 resolved, 0 persisting"},
		{[]string{"diff", "--fail-on", "advisory", now, adv}, ExitDefects, "advisories: 1 new"},
		{[]string{"analyze", "--baseline", bl, now}, ExitDefects, "1 stale entry"},
		{[]string{"analyze", "--baseline", bl, adv}, ExitGreen, "1 finding accepted"},
		{[]string{"diff", "--baseline", bl, adv, now}, ExitDefects, "defects: 1 new"},
	} {
		code, stdout, stderr := run(t, nil, tt.args...)
		if code != int(tt.exit) || !strings.Contains(stdout, tt.want) {
			t.Errorf("%v: exit %d, want %d and %q in:\n%s%s", tt.args[:len(tt.args)-2], code, tt.exit, tt.want, head(stdout), stderr)
		}
	}
}

// baseline write -o never writes over a recording or the declarations it
// reads; over the previous baseline it may, as a refresh does.
func TestBaselineWriteRefusesOverwritingItsInputs(t *testing.T) {
	dir := t.TempDir()
	rec, decls, prev := filepath.Join(dir, "d.jsonl"), filepath.Join(dir, "d.yaml"), filepath.Join(dir, "bl.json")
	data, err := os.ReadFile("../../testdata/recordings/formats/defect.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for p, s := range map[string]string{rec: string(data), decls: "posture: observe\n"} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"the recording", []string{"-o", rec, rec}, "would overwrite the recording"},
		{"the recording in a directory", []string{"-o", rec, dir}, "would overwrite the recording"},
		{"the declarations", []string{"--declarations", decls, "-o", decls, rec}, "would overwrite the declarations file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(t, nil, append([]string{"baseline", "write"}, tt.args...)...)
			if code != int(ExitUsage) || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tt.want)
			}
			for p, s := range map[string]string{rec: string(data), decls: "posture: observe\n"} {
				if got, _ := os.ReadFile(p); string(got) != s {
					t.Errorf("%s was written over", filepath.Base(p))
				}
			}
		})
	}
	if code, _, stderr := run(t, nil, "baseline", "write", "-o", prev, rec); code != 0 {
		t.Fatalf("baseline write: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, nil, "baseline", "write", "--baseline", prev, "-o", prev, rec); code != 0 {
		t.Errorf("refreshing a baseline over itself: exit %d: %s", code, stderr)
	}
}

// TestBaselineHelpShowsTheVersionRead: the file format baseline --help
// shows is the version this build reads.
func TestBaselineHelpShowsTheVersionRead(t *testing.T) {
	_, out, _ := run(t, nil, "baseline", "--help")
	if want := fmt.Sprintf(`{"version": %d, "entries": [`, report.BaselineVersion); !strings.Contains(out, want) {
		t.Errorf("baseline --help does not show %s:\n%s", want, out)
	}
}
