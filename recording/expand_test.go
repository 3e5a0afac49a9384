package recording

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExpand(t *testing.T) {
	dir := t.TempDir()
	write := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, name := range []string{
		"b.jsonl", "a.json", "a.json.1", "orphan.jsonl.1", "run.jsonl.zst",
		".hidden.jsonl", ".git/config.json", "x.tmp", "notes.txt", "README.md", "decl.yaml", "ci.YML",
		"scenario.md", "variants.json", "sub/z.jsonl", "sub/y.jsonl", "sub/y.jsonl.1",
	} {
		write(name)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	p := func(names ...string) []string {
		var out []string
		for _, n := range names {
			if n == "-" {
				out = append(out, n)
				continue
			}
			out = append(out, filepath.Join(dir, n))
		}
		return out
	}
	cases := []struct {
		name    string
		args    []string
		want    []string
		wantErr string
	}{
		{
			name: "directory walk, sorted, skip rules",
			args: p(""),
			want: p("a.json", "b.jsonl", "link.jsonl", "orphan.jsonl.1", "run.jsonl.zst", "sub/y.jsonl", "sub/z.jsonl"),
		},
		{
			name: "explicit files are kept whatever their name, duplicates once",
			args: p("notes.txt", "a.json.1", "-", "notes.txt"),
			want: p("notes.txt", "a.json.1", "-"),
		},
		{name: "missing path", args: p("nope.jsonl"), wantErr: "nope.jsonl: no such file or directory"},
		{name: "stdin twice", args: []string{"-", "-"}, wantErr: "standard input can be read only once"},
		{name: "directory without inputs", args: p("empty"), wantErr: "no recording files in this directory"},
		{name: "nothing", args: nil, wantErr: "no input given"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Expand(tc.args)
			if tc.wantErr != "" {
				var ie *InputError
				if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("err = %v, want an *InputError containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestExpandFixtures walks the loader's own fixture directory: the rotated
// half, hidden and scratch files are not separate inputs.
func TestExpandFixtures(t *testing.T) {
	got, err := Expand([]string{fixtureDir})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range got {
		base := filepath.Base(p)
		if strings.HasSuffix(base, ".1") || strings.HasPrefix(base, ".") || strings.HasSuffix(base, ".tmp") || strings.HasSuffix(base, ".md") {
			t.Errorf("%s should have been skipped", p)
		}
	}
	if !contains(got, filepath.Join(fixtureDir, "rotated", "run.jsonl")) {
		t.Errorf("rotated/run.jsonl missing from %v", got)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
