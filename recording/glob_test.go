package recording

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMatchPath(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"*.jsonl", "a.jsonl", true},
		{"*.jsonl", "runs/a.jsonl", false}, // * never crosses a slash
		{"runs/*.jsonl", "runs/a.jsonl", true},
		{"runs/*.jsonl", "runs/x/a.jsonl", false},
		{"runs/**/*.jsonl", "runs/a.jsonl", true}, // ** matches no segment
		{"runs/**/*.jsonl", "runs/x/a.jsonl", true},
		{"runs/**/*.jsonl", "runs/x/y/z/a.jsonl", true},
		{"runs/**/*.jsonl", "other/x/a.jsonl", false},
		{"runs/**/*.jsonl", "runs/x/a.json", false},
		{"**/*.jsonl", "a.jsonl", true},
		{"**/*.jsonl", "deep/er/a.jsonl", true},
		{"runs/**", "runs", true},
		{"runs/**", "runs/x/y", true},
		{"runs/**/**/old", "runs/a/old", true},
		{"runs/**/old/*", "runs/old/a", true},
		{"runs/**/old/*", "runs/a/b/old", false},
		{"./runs/*.jsonl", "runs//a.jsonl", true}, // both are cleaned
		{"runs/?.jsonl", "runs/a.jsonl", true},
		{"runs/?.jsonl", "runs/ab.jsonl", false},
		{"runs/[ab].jsonl", "runs/b.jsonl", true},
		{"runs/[!ab].jsonl", "runs/b.jsonl", false},
		{"runs/[!ab].jsonl", "runs/c.jsonl", true},
		{"runs/[^ab].jsonl", "runs/c.jsonl", true},
		{"/abs/**/a.jsonl", "/abs/x/a.jsonl", true},
		{"/abs/**/a.jsonl", "abs/x/a.jsonl", false},
		{"a**b", "axxb", true}, // ** inside a segment is *
		{"a**b", "ax/xb", false},
	}
	for _, tc := range cases {
		t.Run(tc.pattern+" "+tc.name, func(t *testing.T) {
			if got := MatchPath(tc.pattern, tc.name); got != tc.want {
				t.Errorf("MatchPath(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
			}
		})
	}
}

func TestCheckPattern(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		ok      bool
	}{
		{"runs/**/*.jsonl", true},
		{"[ab]", true},
		{"", false},
		{"  ", false},
		{"runs/[ab", false},
		{"x/[", false},
	} {
		if err := CheckPattern(tc.pattern); (err == nil) != tc.ok {
			t.Errorf("CheckPattern(%q) = %v, want ok=%v", tc.pattern, err, tc.ok)
		}
	}
}

func TestGlobBase(t *testing.T) {
	dir := t.TempDir()
	literal := filepath.Join(dir, "a*.jsonl")
	if err := os.WriteFile(literal, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		arg, base string
		ok        bool
	}{
		{"runs/**/*.jsonl", filepath.FromSlash("runs"), true},
		{"runs/x/*.jsonl", filepath.FromSlash("runs/x"), true},
		{"*.jsonl", ".", true},
		{"**/*.jsonl", ".", true},
		{"/*.jsonl", "/", true},
		{"./runs/*", "runs", true},
		{"runs/a.jsonl", "", false},
		{"-", "", false},
		{literal, "", false}, // a file really named so is read as named
	} {
		base, ok := GlobBase(tc.arg)
		if base != tc.base || ok != tc.ok {
			t.Errorf("GlobBase(%q) = %q, %v; want %q, %v", tc.arg, base, ok, tc.base, tc.ok)
		}
	}
}

func TestExpandGlobsAndExcludes(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{
		"runs/a.jsonl", "runs/x/b.jsonl", "runs/x/y/c.jsonl", "runs/x/y/c.json",
		"runs/old/d.jsonl", "runs/x/old/e.jsonl", "runs/notes.txt", "runs/.hidden/f.jsonl",
		"runs/x/g.jsonl.bak",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	ex := func(pairs ...string) []Excluded {
		var out []Excluded
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, Excluded{Path: filepath.FromSlash(pairs[i]), Pattern: pairs[i+1]})
		}
		return out
	}
	slash := func(ps []string) []string {
		for i := range ps {
			ps[i] = filepath.ToSlash(ps[i])
		}
		return ps
	}
	cases := []struct {
		name         string
		args, excl   []string
		want         []string
		wantExcluded []Excluded
		wantErr      string
	}{
		{
			name: "a glob with ** walks its base and keeps the matches",
			args: []string{"runs/**/*.jsonl"},
			want: []string{"runs/a.jsonl", "runs/old/d.jsonl", "runs/x/b.jsonl", "runs/x/old/e.jsonl", "runs/x/y/c.jsonl"},
		},
		{
			name: "a glob without ** stays in one directory",
			args: []string{"runs/x/*"},
			want: []string{"runs/x/b.jsonl", "runs/x/g.jsonl.bak"},
		},
		{
			name:         "a name pattern prunes directories anywhere, said once each",
			args:         []string{"runs"},
			excl:         []string{"old", "*.bak"},
			want:         []string{"runs/a.jsonl", "runs/x/b.jsonl", "runs/x/y/c.json", "runs/x/y/c.jsonl"},
			wantExcluded: ex("runs/old", "old", "runs/x/g.jsonl.bak", "*.bak", "runs/x/old", "old"),
		},
		{
			name:         "a path pattern matches relative to the directory argument",
			args:         []string{"runs"},
			excl:         []string{"x/**"},
			want:         []string{"runs/a.jsonl", "runs/old/d.jsonl"},
			wantExcluded: ex("runs/x", "x/**"),
		},
		{
			name:         "a path pattern matches the path as given",
			args:         []string{"runs/**/*.jsonl"},
			excl:         []string{"runs/x/y/*"},
			want:         []string{"runs/a.jsonl", "runs/old/d.jsonl", "runs/x/b.jsonl", "runs/x/old/e.jsonl"},
			wantExcluded: ex("runs/x/y/c.jsonl", "runs/x/y/*"),
		},
		{
			name:         "a file named itself is excluded too",
			args:         []string{"runs/a.jsonl", "runs/x/b.jsonl"},
			excl:         []string{"runs/a.*"},
			want:         []string{"runs/x/b.jsonl"},
			wantExcluded: ex("runs/a.jsonl", "runs/a.*"),
		},
		{
			name:         "a directory wholly excluded is no error here",
			args:         []string{"runs/old"},
			excl:         []string{"*.jsonl"},
			wantExcluded: ex("runs/old/d.jsonl", "*.jsonl"),
		},
		{name: "a glob that matches nothing", args: []string{"runs/**/*.zst"}, wantErr: "runs/**/*.zst: this pattern matches no recording file"},
		{name: "hidden files are never matched", args: []string{"runs/.hidden/*"}, want: []string{"runs/.hidden/f.jsonl"}},
		{name: "a glob under no directory", args: []string{"nope/*.jsonl"}, wantErr: `nope/*.jsonl: this pattern matches nothing: "nope" is not a directory`},
		{name: "a malformed exclude", args: []string{"runs"}, excl: []string{"[x"}, wantErr: "malformed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, excluded, err := ExpandExcluding(tc.args, tc.excl)
			if tc.wantErr != "" {
				var ie *InputError
				if !errors.As(err, &ie) || !strings.Contains(filepath.ToSlash(err.Error()), tc.wantErr) {
					t.Errorf("err = %v, want an *InputError containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, slash(got)); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantExcluded, excluded); diff != "" {
				t.Errorf("excluded (-want +got):\n%s", diff)
			}
		})
	}
}
