package main

import (
	"fmt"
	"io"
	"os"
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

// refuseOverwrite fails before anything is written when a file an output
// flag names is one of the files read: a recording (however it was named:
// a directory walk finds files under names of their own), or the
// declarations. Writing the report over its own input would destroy the
// evidence it reports on.
func refuseOverwrite(outputs []written, inputs []string, declarations ...string) error {
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
	for _, d := range declarations {
		if d == "" {
			continue
		}
		if fi, err := os.Stat(d); err == nil {
			reads = append(reads, read{"the declarations file", fi})
		}
	}
	for _, o := range outputs {
		if o.path == "-" || o.path == "" {
			continue
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
