//go:build unix

package objstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/fpcheck/fpcheck/recording"
)

// A file:// directory is walked as a directory argument is: a named pipe,
// a link to nothing and a link to itself are passed over with the walk's
// words (Object.Why), which Open repeats at once rather than wait on a
// pipe for a writer; a link out of the directory is refused, with the
// walk's error, before anything is read.
func TestFileWalksAsADirectory(t *testing.T) {
	dir := t.TempDir()
	mkfile(t, dir, "a/run.jsonl", "{}\n")
	if err := syscall.Mkfifo(filepath.Join(dir, "a", "p.jsonl"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	for link, to := range map[string]string{"dangling.jsonl": "nowhere.jsonl", "loop.jsonl": "loop.jsonl", "inside.jsonl": "a/run.jsonl"} {
		if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	found, passed, err := recording.ExpandExcluding([]string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	root := fileURL(dir)
	var want []Object
	for _, p := range found {
		want = append(want, Object{Name: fileURL(p), Root: root})
	}
	for _, e := range passed {
		want = append(want, Object{Name: fileURL(e.Path), Root: root, Why: e.Why})
	}
	if len(passed) != 3 {
		t.Fatalf("the walk passed over %v; the test expects a pipe and two links", passed)
	}
	s := New()
	got, err := s.List(context.Background(), root+"/")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("listing (-want +got):\n%s", diff)
	}
	for _, o := range got {
		err := within(t, 10*time.Second, func() error { _, err := readAll(s, o.Name, 512); return err })
		if (err != nil) != (o.Why != "") || o.Why != "" && !strings.Contains(err.Error(), o.Why+"; a directory walk passes it over, so it is not read") {
			t.Errorf("%s (%s): %v", o.Name, o.Why, err)
		}
	}

	secret := mkfile(t, t.TempDir(), "secret.txt", "SECRET-TOKEN-abcdef\n")
	if err := os.Symlink(secret, filepath.Join(dir, "evil.jsonl")); err != nil {
		t.Fatal(err)
	}
	_, _, walkErr := recording.ExpandExcluding([]string{dir}, nil)
	_, err = New().List(context.Background(), root+"/")
	ie, _ := errors.AsType[*recording.InputError](walkErr)
	oe, ok := errors.AsType[*Error](err)
	if ie == nil || !ok || oe.URL != fileURL(filepath.Join(dir, "evil.jsonl")) || oe.Err.Error() != ie.Err.Error() || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("a link out of the directory: %v (the walk: %v)", err, walkErr)
	}
}

// A file swapped for another after the listing, or for a named pipe, is
// not read: Open says it changed, at once.
func TestFileChangedAfterListing(t *testing.T) {
	dir := t.TempDir()
	mkfile(t, dir, "a.jsonl", "{}\n")
	mkfile(t, dir, "b.jsonl", "{}\n")
	s := New()
	if _, err := s.List(context.Background(), fileURL(dir)); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(a, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	if err := os.Rename(b, b+".old"); err != nil {
		t.Fatal(err)
	}
	mkfile(t, dir, "b.jsonl", "{}\n")
	for _, p := range []string{a, b} {
		err := within(t, 10*time.Second, func() error { _, err := readAll(s, fileURL(p), 0); return err })
		if err == nil || !strings.Contains(err.Error(), "changed between the listing and the open") {
			t.Errorf("%s: %v", p, err)
		}
	}
}
