package objstore

import (
	"errors"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/fpcheck/fpcheck/recording"
)

// A file:// URL names a local directory or file, and is read as a path
// given on the command line is: a directory through the same walk
// (recording.ExpandExcluding), so that it skips what a walk skips, passes
// over named pipes, sockets and links that lead to no file or to a
// directory (Object.Why), and refuses a link that leads out of the
// directory, which would otherwise have fpcheck quote the start of a file
// it was not given. Only rotated siblings differ: an object is streamed
// on its own, so PATH.1 is an input of its own, as in a bucket.

// localFile is what the listing found at a file:// object's path, held
// against what is there when it is opened.
type localFile struct {
	path string
	info os.FileInfo // of what the path leads to
	link bool        // the path is a symbolic link
	why  string      // why it is not read, for a path the walk passed over
}

// find is what is at p now.
func find(p string) (localFile, error) {
	lfi, err := os.Lstat(p)
	if err != nil {
		return localFile{path: p}, err
	}
	fi, err := os.Stat(p)
	return localFile{path: p, info: fi, link: lfi.Mode()&fs.ModeSymlink != 0}, err
}

// same reports whether two findings are of one file, reached the same way.
func (f *localFile) same(g localFile) bool {
	return f.info != nil && g.info != nil && f.link == g.link &&
		f.info.Mode().Type() == g.info.Mode().Type() && os.SameFile(f.info, g.info)
}

// filePath is the local path a file:// URL names.
func filePath(u *url.URL) (string, error) {
	p := u.Path
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // file:///C:/dir
	}
	if u.Opaque != "" || u.Host != "" && u.Host != "localhost" || !filepath.IsAbs(filepath.FromSlash(p)) {
		msg := "a file:// URL takes an absolute path (file:///ABSOLUTE/PATH, three slashes)"
		if abs, err := filepath.Abs(filepath.FromSlash(u.Opaque + u.Host + u.Path)); err == nil {
			msg += "; for this one, that is " + fileURL(abs)
		}
		return "", errors.New(msg)
	}
	if u.RawQuery != "" {
		return "", errors.New("a file:// URL takes no query")
	}
	return filepath.Clean(filepath.FromSlash(p)), nil
}

// fileURL is the name a local path has as a file:// URL.
func fileURL(p string) string {
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return "file://" + p
}

// listFile lists a file:// URL: the file it names, or what the walk of
// the directory it names finds.
func (s *Store) listFile(arg string) ([]Object, error) {
	u, err := url.Parse(arg)
	if err == nil {
		var p string
		if p, err = filePath(u); err == nil {
			return s.walkFile(p)
		}
	}
	name, _, _ := strings.Cut(arg, "?")
	return nil, &Error{URL: name, Err: err}
}

func (s *Store) walkFile(p string) ([]Object, error) {
	found, passed, err := recording.ExpandExcluding([]string{p}, s.Exclude)
	if err != nil {
		if ie, ok := errors.AsType[*recording.InputError](err); ok && ie.Path != "" {
			return nil, &Error{URL: fileURL(ie.Path), Err: ie.Err}
		}
		return nil, &Error{URL: fileURL(p), Err: err}
	}
	root := ""
	if base, ok := recording.GlobBase(p); ok {
		root = fileURL(base)
	} else if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		root = fileURL(p)
	}
	// The walk leaves out PATH.1 beside a regular PATH, for the load of
	// PATH to read with it; a stream read on its own would leave it
	// unread.
	for i := 0; i < len(found); i++ {
		q := found[i] + ".1"
		if isRegular(found[i]) && isRegular(q) && !slices.Contains(found, q) {
			found = slices.Insert(found, i+1, q)
		}
	}
	var out []Object
	for _, f := range found {
		// A path the walk could not read is kept without its
		// information: opening it says why.
		lf, _ := find(f)
		out = append(out, s.rememberFile(f, root, lf))
	}
	for _, e := range passed {
		if e.Pattern != "" {
			out = append(out, Object{Name: fileURL(e.Path), Root: root, Pattern: e.Pattern})
			continue
		}
		out = append(out, s.rememberFile(e.Path, root, localFile{path: e.Path, why: e.Why}))
	}
	return out, nil
}

func isRegular(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func (s *Store) rememberFile(p, root string, f localFile) Object {
	name := fileURL(p)
	s.mu.Lock()
	s.objects[name] = ref{file: &f}
	s.mu.Unlock()
	return Object{Name: name, Root: root, Why: f.why}
}

// openFile opens a listed local file, if it is still the file the listing
// found: a file swapped for another, or a link repointed, after the
// listing is not read (nor is a regular file swapped for a named pipe,
// whose open would wait for a writer).
func openFile(f *localFile, first int64) (io.ReadCloser, error) {
	if f.why != "" {
		return nil, errors.New(f.why + "; a directory walk passes it over, so it is not read")
	}
	if f.info == nil {
		_, err := os.Stat(f.path)
		return nil, pathError(err, "could not be read in the directory walk")
	}
	if f.info.IsDir() {
		_, err := os.ReadDir(f.path)
		return nil, pathError(err, "is a directory the walk could not read")
	}
	changed := errors.New("changed between the listing and the open (it is now another file, or a link); it was not read")
	if now, err := find(f.path); err != nil {
		return nil, pathError(err, "")
	} else if !f.same(now) {
		return nil, changed
	}
	file, err := os.Open(f.path)
	if err != nil {
		return nil, pathError(err, "")
	}
	if fi, err := file.Stat(); err != nil || !f.same(localFile{info: fi, link: f.link}) {
		file.Close()
		return nil, changed
	}
	if first <= 0 {
		return file, nil
	}
	return struct {
		io.Reader
		io.Closer
	}{io.LimitReader(file, first), file}, nil
}

// pathError is err without the path it names (the object's URL does), or
// an error saying otherwise when err is nil.
func pathError(err error, otherwise string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	if err == nil {
		return errors.New(otherwise)
	}
	return err
}
