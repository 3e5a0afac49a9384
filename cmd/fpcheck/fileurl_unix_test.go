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
