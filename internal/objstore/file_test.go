package objstore

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A file:// URL without an absolute path is refused, showing the URL it
// would be; one with a query too (a local directory has no parameters).
func TestFileURLRefused(t *testing.T) {
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ arg, want string }{
		{"file://in2.jsonl", "a file:// URL takes an absolute path (file:///ABSOLUTE/PATH, three slashes); for this one, that is " + fileURL(filepath.Join(cwd, "in2.jsonl"))},
		{"file://./day/", "a file:// URL takes an absolute path (file:///ABSOLUTE/PATH, three slashes); for this one, that is " + fileURL(filepath.Join(cwd, "day"))},
		{fileURL(t.TempDir()) + "?create_dir=true", "a file:// URL takes no query"},
	} {
		_, err := New().List(context.Background(), tc.arg)
		oe, ok := errors.AsType[*Error](err)
		if !ok || oe.Err.Error() != tc.want || strings.Contains(oe.URL, "?") {
			t.Errorf("%s: got %v, want …%s", tc.arg, err, tc.want)
		}
	}
}

// mkfile writes a file under dir, making its directory.
func mkfile(t *testing.T, dir, rel, data string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readAll opens a listed object and reads it.
func readAll(s *Store, name string, first int64) (string, error) {
	rc, err := s.Open(context.Background(), name, first)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	return string(b), err
}

// A file:// directory lists what the directory walk finds, in its order,
// and a file:// file is that file; each reads as the file, the first
// bytes alone when asked. A rotated sibling, which the walk leaves to be
// read with its stream, is an input of its own: an object is streamed
// alone.
func TestFileList(t *testing.T) {
	dir := t.TempDir()
	for _, rel := range []string{"b.jsonl", "a/z.jsonl", "a.b.jsonl", "run.jsonl", "run.jsonl.1", ".hidden/x.jsonl", "notes.md", "scenario.yaml", "old.jsonl.1"} {
		mkfile(t, dir, rel, rel+"\n")
	}
	s := New()
	got, err := s.List(context.Background(), fileURL(dir)+"/")
	if err != nil {
		t.Fatal(err)
	}
	root := fileURL(dir)
	var want []Object
	for _, rel := range []string{"a/z.jsonl", "a.b.jsonl", "b.jsonl", "old.jsonl.1", "run.jsonl", "run.jsonl.1"} {
		want = append(want, Object{Name: root + "/" + rel, Root: root})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("listing (-want +got):\n%s", diff)
	}
	for _, o := range got {
		rel := strings.TrimPrefix(o.Name, root+"/")
		if data, err := readAll(s, o.Name, 0); err != nil || data != rel+"\n" {
			t.Errorf("%s reads %q, %v", o.Name, data, err)
		}
	}
	if data, err := readAll(s, root+"/b.jsonl", 3); err != nil || data != "b.j" {
		t.Errorf("the first 3 bytes: %q, %v", data, err)
	}
	one := fileURL(filepath.Join(dir, "notes.md"))
	if got, err := s.List(context.Background(), one); err != nil || len(got) != 1 || got[0] != (Object{Name: one}) {
		t.Errorf("a file named itself: %v, %v", got, err)
	}
	if _, err := New().List(context.Background(), fileURL(filepath.Join(dir, ".hidden"))+"/nothing/"); err == nil || !strings.Contains(err.Error(), "no such file or directory") && !strings.Contains(err.Error(), "cannot find") {
		t.Errorf("a directory that is not there: %v", err)
	}
}
