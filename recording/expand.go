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
//     one; symbolic links to directories are not followed).
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
func Expand(args []string) ([]string, error) {
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
		fi, err := os.Stat(arg)
		if err != nil {
			return nil, &InputError{Path: arg, Err: unwrapPathError(err)}
		}
		if !fi.IsDir() {
			add(arg)
			continue
		}
		found, err := walkInputs(arg)
		if err != nil {
			return nil, err
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

func walkInputs(root string) ([]string, error) {
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
			return nil
		}
		if skippedName(name) {
			return nil
		}
		if !d.Type().IsRegular() {
			if d.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			fi, err := os.Stat(p)
			if err != nil || !fi.Mode().IsRegular() {
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
