package recording

import (
	"errors"
	"io/fs"
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
			// link.jsonl names b.jsonl, which is read once.
			want: p("a.json", "b.jsonl", "orphan.jsonl.1", "run.jsonl.zst", "sub/y.jsonl", "sub/z.jsonl"),
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

// TestExpandOneFileManyNames: a file named several ways (cleaned or not,
// through a link, through a directory walk) is one input, kept at its
// first place; copies with the same bytes are different files and stay.
func TestExpandOneFileManyNames(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	data := []byte(`{"type":"agentfootprint.agent.turn_start","payload":{},"meta":{"runId":"r"}}` + "\n")
	os.WriteFile(a, data, 0o644)
	os.WriteFile(filepath.Join(dir, "copy.jsonl"), data, 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	args := []string{a, filepath.Join(dir, "sub", "..", "a.jsonl"), dir}
	if err := os.Symlink(a, filepath.Join(dir, "link.jsonl")); err == nil {
		args = append(args, filepath.Join(dir, "link.jsonl"))
	}
	got, err := Expand(args)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{a, filepath.Join(dir, "copy.jsonl")}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Expand = %q, want %q", got, want)
	}
}

// TestWalkSurvivesAnUnreadableDirectory: a subdirectory the walk cannot
// read becomes one input that fails with the walk's error; the files
// beside it are still inputs.
func TestWalkSurvivesAnUnreadableDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte("{}\n"), 0o644)
	locked := filepath.Join(dir, "locked")
	os.Mkdir(locked, 0o755)
	os.WriteFile(filepath.Join(dir, "z.jsonl"), []byte(`{"type":"agentfootprint.agent.turn_start","payload":{},"meta":{"runId":"r"}}`+"\n"), 0o644)
	defer func(w func(string, fs.WalkDirFunc) error) { walkDir = w }(walkDir)
	walkDir = func(root string, fn fs.WalkDirFunc) error {
		return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if p == locked && err == nil {
				// What WalkDir does when reading a directory fails: a
				// second call for the directory with the error.
				if err := fn(p, d, nil); err != nil {
					return err
				}
				return fn(p, d, &fs.PathError{Op: "open", Path: p, Err: fs.ErrPermission})
			}
			return fn(p, d, err)
		})
	}
	got, err := Expand([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a.jsonl"), locked, filepath.Join(dir, "z.jsonl")}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("Expand = %q, want %q", got, want)
	}
	_, lerr := Load(locked, Options{}, nil)
	var ie *InputError
	if !errors.As(lerr, &ie) || ie.Path != locked || !strings.Contains(lerr.Error(), "permission denied") {
		t.Errorf("Load(locked) = %v", lerr)
	}
	if _, err := Load(filepath.Join(dir, "z.jsonl"), Options{}, nil); err != nil {
		t.Errorf("the file beside it: %v", err)
	}
}

// TestWalkedFileSwappedForALink: a file the walk saw as a regular file,
// replaced by a link to a file outside before it is opened, is not read.
func TestWalkedFileSwappedForALink(t *testing.T) {
	secretDir, dir := t.TempDir(), t.TempDir()
	secret := filepath.Join(secretDir, "id_key")
	os.WriteFile(secret, []byte("-----BEGIN PRIVATE KEY-----\n"), 0o600)
	p := filepath.Join(dir, "run.jsonl")
	os.WriteFile(p, []byte(`{"type":"agentfootprint.agent.turn_start","payload":{},"meta":{"runId":"r"}}`+"\n"), 0o644)
	inside := filepath.Join(dir, "inside.jsonl")
	os.WriteFile(filepath.Join(dir, "other.jsonl"), []byte("{}\n"), 0o644)
	if err := os.Symlink(filepath.Join(dir, "other.jsonl"), inside); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if _, err := Expand([]string{dir}); err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	os.Symlink(secret, p)
	os.Remove(inside)
	os.Symlink(secret, inside)
	for _, path := range []string{p, inside} {
		st, err := Load(path, Options{}, nil)
		if err == nil {
			t.Fatalf("%s: a swapped link was followed", path)
		}
		for _, pr := range st.Problems {
			if strings.Contains(pr.Message, "PRIVATE") {
				t.Errorf("the linked file was quoted: %q", pr.Message)
			}
		}
		if strings.Contains(err.Error(), "PRIVATE") {
			t.Errorf("the linked file was quoted: %v", err)
		}
	}
}

// TestWalkSaysWhatItPassesOver checks that a walk returns, beside the
// inputs, what it did not read for what it is, each with its reason, and
// that such paths alone still leave a directory without input.
func TestWalkSaysWhatItPassesOver(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"latest.jsonl": "rotated-away.jsonl", // leads nowhere
		"loop.jsonl":   "loop.jsonl",         // leads to itself
		"subdir":       "sub",                // a directory
		".hidden":      "nowhere",            // hidden: not said
		"note.txt":     "nowhere",            // skipped by name: not said
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	paths, passed, err := ExpandExcluding([]string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{filepath.Join(dir, "a.jsonl")}, paths); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	want := []Excluded{
		{Path: filepath.Join(dir, "latest.jsonl"), Why: "a symbolic link that leads to no file (no such file or directory)"},
		{Path: filepath.Join(dir, "loop.jsonl"), Why: "a symbolic link that leads to no file (too many levels of symbolic links)"},
		{Path: filepath.Join(dir, "subdir"), Why: "a symbolic link to a directory (a walk does not follow those)"},
	}
	if diff := cmp.Diff(want, passed); diff != "" {
		t.Errorf("passed over (-want +got):\n%s", diff)
	}
	// A --exclude pattern wins over the reason a path would be passed over.
	_, ex, err := ExpandExcluding([]string{dir}, []string{"latest.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex) != 3 || ex[0] != (Excluded{Path: filepath.Join(dir, "latest.jsonl"), Pattern: "latest.jsonl"}) {
		t.Errorf("with --exclude: %+v", ex)
	}
	// Paths passed over are no input: a directory of nothing else has none.
	only := t.TempDir()
	if err := os.Symlink("nowhere.jsonl", filepath.Join(only, "latest.jsonl")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ExpandExcluding([]string{only}, nil); err == nil || !strings.Contains(err.Error(), "no recording files in this directory") {
		t.Errorf("a directory of a dangling link: err = %v", err)
	}
}
