//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFileURLPassesOverAsTheWalkDoes: a file:// directory holding a named
// pipe and a link to nothing reads as the directory given as a path does:
// each is a SKIPPED line saying what it is, none is opened (a pipe would
// wait for a writer for ever), and the exit code counts neither.
func TestFileURLPassesOverAsTheWalkDoes(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../testdata/recordings/formats/clean.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "live.jsonl"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	if err := os.Symlink("rotated-away.jsonl", filepath.Join(dir, "latest.jsonl")); err != nil {
		t.Fatal(err)
	}
	wantCode, _, wantErr := run(t, nil, "analyze", "--format", "json", dir)
	code, _, stderr := run(t, nil, "analyze", "--format", "json", "file://"+dir)
	if code != wantCode || code != int(ExitGreen) {
		t.Fatalf("exit %d from file://, %d from the path (%s)", code, wantCode, stderr)
	}
	for _, want := range []string{"live.jsonl — a named pipe", "latest.jsonl — a symbolic link"} {
		if !strings.Contains(stderr, want) || !strings.Contains(wantErr, want) {
			t.Errorf("stderr does not say %q:\nfile://: %s\npath: %s", want, stderr, wantErr)
		}
	}
}

// TestFileURLExcludesAsTheWalkDoes: --exclude keeps a path of a file://
// directory out as it keeps it out of the directory named as a path,
// before the walk meets it: an excluded link out of the directory is not
// refused, an excluded pipe is EXCLUDED, not SKIPPED.
func TestFileURLExcludesAsTheWalkDoes(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../testdata/recordings/formats/defect.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(runs, "a.jsonl"), filepath.Join(dir, "outside.jsonl")} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../outside.jsonl", filepath.Join(runs, "outlink.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(runs, "live.jsonl"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	args := []string{"analyze", "--format", "json", "--exclude", "outlink.jsonl", "--exclude", "live.jsonl"}
	wantCode, _, wantErr := run(t, nil, append(args, runs)...)
	code, _, stderr := run(t, nil, append(args, "file://"+runs)...)
	if code != wantCode || code != int(ExitDefects) {
		t.Fatalf("exit %d from file://, %d from the path (%s / %s)", code, wantCode, stderr, wantErr)
	}
	for _, want := range []string{"outlink.jsonl — matches --exclude 'outlink.jsonl'", "live.jsonl — matches --exclude 'live.jsonl'"} {
		if !strings.Contains(stderr, want) || !strings.Contains(wantErr, want) {
			t.Errorf("stderr does not say %q:\nfile://: %s\npath: %s", want, stderr, wantErr)
		}
	}
}
