package recording

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Patterns are matched on slash-separated paths with path.Match, segment by
// segment, so that one pattern means the same on every OS: a pattern's
// backslashes are separators only where the OS says so (Windows), and
// escapes elsewhere. A segment "**" matches any number of segments, none
// included.

// hasMeta reports whether s holds a wildcard.
func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[") }

// splitPattern cleans a pattern given on the command line into segments.
// The shell's negated class "[!ab]" is path.Match's "[^ab]".
func splitPattern(p string) []string {
	segs := strings.Split(path.Clean(filepath.ToSlash(p)), "/")
	for i, s := range segs {
		if strings.Contains(s, "[!") && !strings.Contains(s, `\[!`) {
			segs[i] = strings.ReplaceAll(s, "[!", "[^")
		}
	}
	return segs
}

// CheckPattern refuses a pattern fpcheck cannot match, so that a typo is a
// usage error rather than a filter that never applies.
func CheckPattern(p string) error {
	if strings.TrimSpace(p) == "" {
		return errors.New("an empty pattern matches nothing")
	}
	for _, seg := range splitPattern(p) {
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("pattern %s is malformed (an unclosed [ or a trailing \\?)", quoteName(p))
		}
	}
	return nil
}

// MatchPath reports whether the slash-separated path name matches pattern.
// Both are cleaned first, so "./runs/a.jsonl" and "runs//a.jsonl" are
// "runs/a.jsonl".
func MatchPath(pattern, name string) bool {
	return matchSegments(splitPattern(pattern), strings.Split(path.Clean(filepath.ToSlash(name)), "/"))
}

func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := range name {
				if matchSegments(pat, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// GlobBase tells a glob argument from a path: arg is a glob when it holds a
// wildcard and names no existing file (a file really called "a*.jsonl" is
// read as named). base is the directory before the first wildcard segment,
// which Expand walks.
func GlobBase(arg string) (base string, ok bool) {
	if arg == "-" || !hasMeta(arg) {
		return "", false
	}
	if _, err := os.Lstat(arg); err == nil {
		return "", false
	}
	segs := splitPattern(arg)
	n := 0
	for n < len(segs) && !hasMeta(segs[n]) {
		n++
	}
	switch {
	case n == 0:
		return ".", true
	case n == 1 && segs[0] == "":
		return "/", true
	}
	return filepath.FromSlash(strings.Join(segs[:n], "/")), true
}

// Excluded is a path that is not read: one an --exclude pattern kept out
// (Pattern), or one a directory walk passed over for what it is (Why: a
// named pipe, a symbolic link to a directory or to nothing), which the
// report still says.
type Excluded struct {
	Path    string
	Pattern string
	Why     string
}

// excluder holds the --exclude patterns.
type excluder []string

// ExcludedObject is what keeps an object listed under root (an object
// store's prefix, names joined by '/') out of the inputs, as a directory
// walk keeps out a file or a directory on its way to it: the object itself
// or the nearest of its parents below root that a pattern matches (at), and
// the pattern. ok is false when no pattern matches.
func ExcludedObject(patterns []string, name, root string) (at, pattern string, ok bool) {
	x := excluder(patterns)
	base := strings.TrimSuffix(root, "/")
	if rel, under := strings.CutPrefix(name, base+"/"); under && base != "" {
		// The walk meets the parents first, outermost first.
		segs := strings.Split(rel, "/")
		for i := 1; i < len(segs); i++ {
			dir := base + "/" + strings.Join(segs[:i], "/")
			if pat, ok := x.match(dir, root); ok {
				return dir, pat, true
			}
		}
	}
	if pat, ok := x.match(name, root); ok {
		return name, pat, true
	}
	return "", "", false
}

// match returns the first pattern that excludes p, found under root (the
// directory argument or glob base; empty for a path named itself). A
// pattern without a slash matches the name of a file or directory anywhere;
// one with a slash matches the path as given, or relative to root; an
// absolute one, the absolute path.
func (x excluder) match(p, root string) (string, bool) {
	if len(x) == 0 {
		return "", false
	}
	var rel, abs string
	if root != "" {
		if r, err := filepath.Rel(root, p); err == nil {
			rel = r
		}
	}
	for _, pat := range x {
		sp := filepath.ToSlash(pat)
		switch {
		case !strings.Contains(strings.Trim(sp, "/"), "/") && !strings.HasPrefix(sp, "/"):
			if MatchPath(pat, filepath.Base(p)) {
				return pat, true
			}
		case path.IsAbs(sp) || filepath.IsAbs(pat):
			if abs == "" {
				abs, _ = filepath.Abs(p)
			}
			if MatchPath(pat, abs) {
				return pat, true
			}
		default:
			if MatchPath(pat, p) || (rel != "" && MatchPath(pat, rel)) {
				return pat, true
			}
		}
	}
	return "", false
}
