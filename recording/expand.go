package recording

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Expand turns CLI arguments (files, directories, "-") into the ordered
// list of inputs to Load.
//
// A file argument is an input as given, whatever its name. "-" is standard
// input and may be given once. A directory is walked recursively in
// lexical order; inside it a file is an input unless:
//
//   - its name starts with "." (hidden; hidden directories are not entered);
//   - its name ends in .tmp (an envelope being written), .txt, .md, .yaml
//     or .yml (notes, reference outputs, declarations);
//   - its name starts with "scenario." or "variants." (corpus descriptions);
//   - its name ends in .1 and the same name without .1 exists beside it
//     (the older half of a rotated pair, which Load reads with its sibling);
//   - it is not a regular file (a symbolic link to a regular file counts as
//     one; symbolic links to directories are not followed). Such a path is
//     returned among the excluded ones with what it is (Excluded.Why), so
//     that a link that leads nowhere is said, not silently missing.
//
// What a walk finds is read like a named file; the report then skips one
// that is not a recording at all (ErrNotRecording), which a named file never
// is.
//
// A symbolic link to a file outside the directory being walked is an error:
// a directory from elsewhere must not make fpcheck read (and quote) files
// it was not given.
//
// A path that does not exist, a directory with no input in it, and "-"
// given twice are errors (*InputError). An input named twice is kept once,
// at its first place.
//
// An argument holding a wildcard that names no existing file is a glob
// (GlobBase, MatchPath): the directory before its first wildcard is walked
// as above, keeping the files whose path matches; a glob that matches no
// file is an error naming it.
func Expand(args []string) ([]string, error) {
	paths, _, err := ExpandExcluding(args, nil)
	return paths, err
}

// ExpandExcluding is Expand with --exclude patterns: a file or directory a
// pattern matches is not read (a directory is not entered) and is returned
// in excluded, in the order met, followed by what the walk passed over for
// what it is (Excluded.Why). Every pattern must pass CheckPattern. A
// directory, or a glob, whose every file is excluded is no error; the
// caller, which sees all arguments, refuses when nothing is left.
func ExpandExcluding(args []string, exclude []string) (paths []string, excluded []Excluded, err error) {
	for _, p := range exclude {
		if err := CheckPattern(p); err != nil {
			return nil, nil, &InputError{Path: "--exclude", Err: err}
		}
	}
	x := excluder(exclude)
	w := &walker{x: x}
	out, err := w.expand(args)
	if err != nil {
		return nil, nil, err
	}
	return out, append(w.excluded, w.passed...), nil
}

// walker carries the exclusions through one expansion.
type walker struct {
	x        excluder
	excluded []Excluded
	seenEx   map[string]bool
	// passed are the paths a walk passed over for what they are; apart
	// from excluded, which alone can excuse a directory without input.
	passed []Excluded
}

// passOver notes a path a walk does not read for what it is.
func (w *walker) passOver(p, why string) {
	w.passed = append(w.passed, Excluded{Path: p, Why: why})
}

// fileKind names what a path that is not a regular file or a directory is.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// exclude reports whether p, found under root, is excluded, and notes it
// once if so.
func (w *walker) exclude(p, root string) bool {
	pat, ok := w.x.match(p, root)
	if !ok {
		return false
	}
	if w.seenEx == nil {
		w.seenEx = map[string]bool{}
	}
	if key := filepath.Clean(p); !w.seenEx[key] {
		w.seenEx[key] = true
		w.excluded = append(w.excluded, Excluded{Path: p, Pattern: pat})
	}
	return true
}

func (w *walker) expand(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, &InputError{Path: "", Err: errors.New("no input given (name a file, a directory, or - for standard input)")}
	}
	var out []string
	seen := map[string]bool{}
	// Files already kept, by size: a file named three ways (a.jsonl,
	// ./sub/../a.jsonl, a link to it) is one input, read once.
	bySize := map[int64][]os.FileInfo{}
	add := func(p string) {
		key := p
		if p != "-" {
			key = filepath.Clean(p)
		}
		if seen[key] {
			return
		}
		seen[key] = true
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			for _, prev := range bySize[fi.Size()] {
				if os.SameFile(prev, fi) {
					return
				}
			}
			bySize[fi.Size()] = append(bySize[fi.Size()], fi)
		}
		out = append(out, p)
	}
	for _, arg := range args {
		if arg == "-" {
			if seen["-"] {
				return nil, &InputError{Path: "-", Err: errors.New("standard input can be read only once")}
			}
			add("-")
			continue
		}
		if base, ok := GlobBase(arg); ok {
			if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
				return nil, &InputError{Path: arg, Err: fmt.Errorf("this pattern matches nothing: %s is not a directory", quoteName(base))}
			}
			before := len(w.excluded)
			found, err := w.walkInputs(base, arg)
			if err != nil {
				return nil, err
			}
			if len(found) == 0 && len(w.excluded) == before {
				return nil, &InputError{Path: arg, Err: errors.New("this pattern matches no recording file (hidden, .tmp, .txt, .md, .yaml, .yml, scenario.* and variants.* files are never matched; quote the pattern so that fpcheck, not the shell, expands it)")}
			}
			for _, p := range found {
				add(p)
			}
			continue
		}
		fi, err := os.Stat(arg)
		if err != nil {
			return nil, &InputError{Path: arg, Err: unwrapPathError(err)}
		}
		if !fi.IsDir() {
			if !w.exclude(arg, "") {
				add(arg)
			}
			continue
		}
		before := len(w.excluded)
		found, err := w.walkInputs(arg, "")
		if err != nil {
			return nil, err
		}
		if len(found) == 0 && len(w.excluded) > before {
			continue
		}
		if len(found) == 0 {
			return nil, &InputError{Path: arg, Err: errors.New("no recording files in this directory (hidden, .tmp, .txt, .md, .yaml, .yml, scenario.* and variants.* files are skipped)")}
		}
		for _, p := range found {
			add(p)
		}
	}
	return out, nil
}

// walkInputs walks root; with a glob, it keeps only the files whose path
// matches it.
func (w *walker) walkInputs(root, glob string) ([]string, error) {
	var found []string
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, &InputError{Path: root, Err: unwrapPathError(err)}
	}
	err = walkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return &InputError{Path: p, Err: unwrapPathError(err)}
			}
			// One unreadable subdirectory or file must not cost the
			// rest of the walk: it becomes an input of its own that
			// fails to load with this error, and the others are read.
			found = append(found, p)
			noteWalked(p, walkedFile{err: unwrapPathError(err)})
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			if p != root && w.exclude(p, root) {
				return filepath.SkipDir
			}
			return nil
		}
		if skippedName(name) {
			return nil
		}
		if glob != "" && !MatchPath(glob, p) {
			return nil
		}
		if w.exclude(p, root) {
			return nil
		}
		if !d.Type().IsRegular() {
			if d.Type()&fs.ModeSymlink == 0 {
				w.passOver(p, fileKind(d.Type()))
				return nil
			}
			fi, err := os.Stat(p)
			switch {
			case err != nil:
				w.passOver(p, "a symbolic link that leads to no file ("+unwrapPathError(err).Error()+")")
				return nil
			case fi.IsDir():
				w.passOver(p, "a symbolic link to a directory (a walk does not follow those)")
				return nil
			case !fi.Mode().IsRegular():
				w.passOver(p, "a symbolic link to "+fileKind(fi.Mode()))
				return nil
			}
			if !linkStaysInside(p, realRoot) {
				return &InputError{Path: p, Err: errors.New(symlinkOutside)}
			}
		}
		walked := walkedFile{root: realRoot, link: !d.Type().IsRegular()}
		if strings.HasSuffix(name, ".1") {
			if fi, err := os.Stat(strings.TrimSuffix(p, ".1")); err == nil && fi.Mode().IsRegular() {
				return nil
			}
		}
		found = append(found, p)
		noteWalked(p, walked)
		return nil
	})
	if err != nil {
		var ie *InputError
		if errors.As(err, &ie) {
			return nil, ie
		}
		return nil, &InputError{Path: root, Err: fmt.Errorf("walking the directory: %w", err)}
	}
	return found, nil
}

// walkDir is filepath.WalkDir; tests replace it to make a subdirectory
// unreadable, which a test running as root cannot do otherwise.
var walkDir = filepath.WalkDir

// walkedFile is what a directory walk found at a path, for the open that
// comes later: by then the directory, which someone else may control, can
// have changed.
type walkedFile struct {
	root string // the walked directory, resolved
	link bool   // a symbolic link to a file inside root
	err  error  // the walk could not read it
}

// walkedFiles holds what each walk found, by path. Expand fills it and
// Load consults it, so a file named on the command line (never walked)
// is opened as given.
var walkedFiles = struct {
	sync.Mutex
	m map[string]walkedFile
}{m: map[string]walkedFile{}}

func noteWalked(p string, w walkedFile) {
	walkedFiles.Lock()
	walkedFiles.m[p] = w
	walkedFiles.Unlock()
}

// recheckWalked checks a walked file again once it is open as f. A regular
// file swapped for a symbolic link after the walk, or a link repointed
// outside the directory, is refused: the walk's promise not to follow
// links out of the directory holds at the open, not only at the walk.
func recheckWalked(p string, f *os.File) error {
	walkedFiles.Lock()
	w, ok := walkedFiles.m[p]
	walkedFiles.Unlock()
	if !ok {
		return nil
	}
	if w.err != nil {
		return w.err
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !w.link {
		lfi, err := os.Lstat(p)
		if err != nil || lfi.Mode()&fs.ModeSymlink != 0 || !os.SameFile(fi, lfi) {
			return errors.New("changed between the directory walk and the open (it is now a symbolic link or another file); it was not read")
		}
		return nil
	}
	target, err := filepath.EvalSymlinks(p)
	if err != nil || !linkStaysInside(p, w.root) {
		return errors.New(symlinkOutside)
	}
	if tfi, err := os.Stat(target); err != nil || !os.SameFile(fi, tfi) {
		return errors.New(symlinkOutside)
	}
	return nil
}

// walkError is the error a walk met reading p, if it met one.
func walkError(p string) error {
	walkedFiles.Lock()
	defer walkedFiles.Unlock()
	return walkedFiles.m[p].err
}

// symlinkOutside refuses a link that leads out of the tree being walked. A
// recording directory may come from a stranger (a bug report, a pull
// request's artifacts), and fpcheck quotes the start of what it cannot
// read; a link to a key or a credentials file elsewhere would put a piece
// of it in the report.
const symlinkOutside = "is a symbolic link to a file outside the directory being read; fpcheck does not follow such links in a directory walk (name the file itself to read it)"

// linkStaysInside reports whether the symbolic link p resolves to a file
// inside realRoot (itself resolved).
func linkStaysInside(p, realRoot string) bool {
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(realRoot, target)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// skippedName is the directory-walk skip rule by file name.
func skippedName(name string) bool {
	lower := strings.ToLower(name)
	if strings.HasPrefix(name, ".") {
		return true
	}
	for _, ext := range []string{".tmp", ".txt", ".md", ".yaml", ".yml"} {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return strings.HasPrefix(lower, "scenario.") || strings.HasPrefix(lower, "variants.")
}
