//go:build unix

package recording

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWalkSaysANamedPipe checks that a named pipe a walk finds is said,
// not read (a read would wait for a writer) and not silently dropped.
func TestWalkSaysANamedPipe(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(dir, "live.jsonl")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	link := filepath.Join(dir, "to-pipe.jsonl")
	if err := os.Symlink("live.jsonl", link); err != nil {
		t.Fatal(err)
	}
	_, passed, err := ExpandExcluding([]string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Excluded{{Path: pipe, Why: "a named pipe"}, {Path: link, Why: "a symbolic link to a named pipe"}}
	if diff := cmp.Diff(want, passed); diff != "" {
		t.Errorf("passed over (-want +got):\n%s", diff)
	}
}
