package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// maxSmallFile bounds what fpcheck reads of a declarations or baseline
// file. Real ones are a few kilobytes; without a bound, naming /dev/zero
// or a recording by mistake reads until memory runs out.
const maxSmallFile = 16 << 20

// readSmallFile reads a file of the user's own (declarations, a baseline)
// of at most maxSmallFile bytes. what names the file in the message.
func readSmallFile(path, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a file", strconv.Quote(path))
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSmallFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxSmallFile {
		return nil, fmt.Errorf("%s is longer than %d MiB, which no %s is; name the right file", strconv.Quote(path), maxSmallFile>>20, what)
	}
	return data, nil
}

// written is a file a command is about to write, and the flag as given
// that names it.
type written struct{ flag, path string }

// readFile is a file a command reads besides the recordings, and what it
// is, for a message.
type readFile struct{ what, path string }

// refuseOverwrite is guardOutputs for a command whose only other files
// read are declarations.
func refuseOverwrite(outputs []written, inputs []string, declarations ...string) error {
	others := make([]readFile, len(declarations))
	for i, d := range declarations {
		others[i] = readFile{"the declarations file", d}
	}
	return guardOutputs(outputs, inputs, others...)
}

// refuseOverBaseline is guardOutputs for a report's outputs and the
// baseline the command reads: a report written over it would lose the
// acceptances the next run needs.
func refuseOverBaseline(specs []outputSpec, baseline string) error {
	return guardOutputs(outputsOf(specs), nil, readFile{"the baseline", baseline})
}

// guardOutputs fails before anything is written when a file an output
// flag names is one of the files read: a recording (however it was named:
// a directory walk finds files under names of their own), the declarations
// or a baseline. Writing the report over its own input would destroy the
// evidence it reports on, and over the baseline read, the acceptances the
// next run needs. Two outputs naming one file, however each spells it, are
// refused too: only the last written would be there.
func guardOutputs(outputs []written, inputs []string, others ...readFile) error {
	type read struct {
		what string
		fi   os.FileInfo
	}
	var reads []read
	for _, in := range inputs {
		if in == "-" {
			continue
		}
		if fi, err := os.Stat(in); err == nil {
			reads = append(reads, read{"the recording " + strconv.Quote(in), fi})
		}
	}
	for _, r := range others {
		if r.path == "" {
			continue
		}
		if fi, err := os.Stat(r.path); err == nil {
			reads = append(reads, read{r.what, fi})
		}
	}
	for i, o := range outputs {
		if o.path == "-" || o.path == "" {
			continue
		}
		for _, before := range outputs[:i] {
			if before.path != "-" && samePlace(before.path, o.path) {
				return flagErrorf("%s and %s name one file, and only the last written would be there; write them to two files", before.flag, o.flag)
			}
		}
		ofi, err := os.Stat(o.path)
		if err != nil {
			continue // not there yet: it is no input
		}
		for _, r := range reads {
			if os.SameFile(ofi, r.fi) {
				return flagErrorf("%s would overwrite %s it reads; write the output somewhere else", o.flag, r.what)
			}
		}
	}
	return nil
}

// samePlace reports whether two paths to write name one file: the same
// path once made absolute, one file that exists under both (a link, a
// hard link), or, for files not there yet, one name in one directory
// however the directory is named. "-" is stdout, and only itself.
func samePlace(a, b string) bool {
	if a == "-" || b == "-" {
		return a == b
	}
	if absPath(a) == absPath(b) {
		return true
	}
	fa, erra := os.Stat(a)
	fb, errb := os.Stat(b)
	if erra == nil && errb == nil {
		return os.SameFile(fa, fb)
	}
	if erra == nil || errb == nil || filepath.Base(a) != filepath.Base(b) {
		return false
	}
	da, erra := os.Stat(filepath.Dir(a))
	db, errb := os.Stat(filepath.Dir(b))
	return erra == nil && errb == nil && os.SameFile(da, db)
}

// absPath is path made absolute, or cleaned when it cannot be.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// outputsOf lists the files an output flag set writes.
func outputsOf(specs []outputSpec) []written {
	var out []written
	for _, s := range specs {
		if s.Path != "-" {
			out = append(out, written{"--output " + s.Format + "=" + safeName(s.Path), s.Path})
		}
	}
	return out
}

// entryPaths are the files the entries read.
func entryPaths(entries []entry) []string {
	paths := make([]string, len(entries))
	for i, e := range entries {
		paths[i] = e.path
	}
	return paths
}

// safeName quotes a path for a message when it holds anything unusual.
func safeName(p string) string {
	if q := strconv.Quote(p); q[1:len(q)-1] != p || strings.ContainsAny(p, " \t") {
		return q
	}
	return p
}
