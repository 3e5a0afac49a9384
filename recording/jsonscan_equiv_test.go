package recording

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chunkReader hands its data over in pieces of at most n bytes, so that a
// streaming scanner meets every kind of cut between two reads.
type chunkReader struct {
	data []byte
	n    int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n, len(r.data))
	copy(p, r.data[:k])
	r.data = r.data[k:]
	return k, nil
}

// skipOutcome describes everything a skipValue call leaves behind: the
// error with its offset and line, and the scanner's position, line count
// and depth.
func skipOutcome(s *scanner, depth int) string {
	s.depth = depth
	err := s.skipValue()
	var se *syntaxError
	var de *depthError
	var desc string
	switch {
	case err == nil:
		desc = "ok"
	case errors.As(err, &se):
		desc = fmt.Sprintf("syntax %q at %d line %d", se.Msg, se.Offset, se.Line)
	case errors.As(err, &de):
		desc = fmt.Sprintf("depth %d at %d line %d", de.Limit, de.Offset, de.Line)
	default:
		desc = fmt.Sprintf("%T %v", err, err)
	}
	if err != nil && s.r != nil {
		// After a failure a stream is not read on, so only a slice
		// scanner's position (which the sniffer looks at) matters.
		return fmt.Sprintf("%s; depth %d", desc, s.depth)
	}
	return fmt.Sprintf("%s; offset %d, lines %d, depth %d", desc, s.offset(), s.lines, s.depth)
}

// compareSkip runs the legacy and the jsonfast skipValue over data, as a
// slice and as a stream read in pieces of several sizes, and reports any
// difference.
func compareSkip(t *testing.T, data []byte, maxDepth, depth int) {
	t.Helper()
	chunks := []int{0, 1, 2, 3, 7, 64, 1 << 20}
	switch {
	case len(data) > 256<<10:
		chunks = []int{0, 4093} // small reads of big inputs are slow, not more telling
	case len(data) > 4096:
		chunks = []int{0, 7, 4093, 1 << 20}
	}
	compareSkipChunks(t, data, maxDepth, depth, chunks)
}

func compareSkipChunks(t *testing.T, data []byte, maxDepth, depth int, chunks []int) {
	t.Helper()
	run := func(legacy bool, chunk int) string {
		var s *scanner
		if chunk == 0 {
			s = newSliceScanner(data, maxDepth)
		} else {
			s = newScanner(&chunkReader{data: data, n: chunk}, maxDepth)
		}
		s.legacy = legacy
		return skipOutcome(s, depth)
	}
	for _, chunk := range chunks {
		old, got := run(true, chunk), run(false, chunk)
		if old != got {
			t.Fatalf("chunk %d, max depth %d, depth %d, input %q:\n legacy  %s\n jsonfast %s", chunk, maxDepth, depth, data, old, got)
		}
	}
}

var skipCases = []string{
	``, ` `, "\n\n", `1`, `-`, `-0`, `01`, `1.`, `1.5e`, `1.5e+`, `1e5x`, `[1x`, `[1.x`, `[1-`, `[1`, `[1,`, `[1,]`,
	`[`, `[]`, `[ ]`, `{`, `{}`, `{ }`, `{"a"`, `{"a":`, `{"a":1`, `{"a":1,`, `{"a":1,}`, `{"a" 1}`, `{,}`, `{"a":}`,
	`"abc`, `"a\`, `"a\u`, `"a\u1`, `"a\u12`, `"a\u123`, `"a\u1234"`, `"a\u12G4"`, `"a\uG"`, `"a\x"`, "\"a\\\n\"", "\"a\n\"",
	"\"\\\\\x01\"", `"\\\x"`, `t`, `tr`, `tru`, `true`, `trux`, `tx`, `f`, `fals`, `falsy`, `n`, `nu`, `nul`, `nulx`, `nux`,
	`nxll`, `[tr`, `[nul`, `[nul]`, `{"a":nul`, `[true x]`, `[truex]`, `x`, "\x01", `]`, `}`, `[}`, `{]`, `{"a":1]`,
	`[1}`, "[\n1,\n2\n,\n]", "{\n\"a\"\n:\n1\n,\n\"b\"\n}", "{\n\"a\"\n:\n[\n\"x\\u00e9\",\n{\"b\":null}\n]\n}",
	`[[[[[[[[[[]]]]]]]]]]`, `[[[[[[[[[[[`, `{"a":{"b":{"c":{"d":[1,2,{"e":"f"}]}}}}`, "\"caf\xc3\xa9 \xff\"",
	`[1,2,3] trailing`, `"x" "y"`, `1 2`, `-x`, `--1`, `1e`, `1E-`, `0.0e0`, `[0.]`, `{"\u00":1}`, `{"a\"b":1}`,
}

func TestSkipValueMatchesLegacy(t *testing.T) {
	for _, c := range skipCases {
		for _, lim := range []struct{ max, depth int }{{10000, 0}, {3, 0}, {3, 2}, {3, 3}, {1, 1}, {100000, 99999}} {
			compareSkip(t, []byte(c), lim.max, lim.depth)
		}
	}
	// Every fixture and corpus document, whole and cut short.
	var files []string
	for _, dir := range []string{recordingsDir, corpusDir} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.Contains(d.Name(), ".json") {
				files = append(files, p)
			}
			return nil
		})
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > 4<<20 {
			continue
		}
		compareSkip(t, data, 100000, 0)
		compareSkip(t, data, 20, 0)
		cuts := []int{len(data) / 3, len(data) / 2, len(data) - 2}
		if len(data) > 256<<10 {
			cuts = cuts[1:2]
		}
		for _, cut := range cuts {
			if cut > 0 {
				compareSkip(t, data[:cut], 100000, 0)
			}
		}
		// A flipped byte somewhere in the middle.
		if len(data) > 10 {
			bad := bytes.Clone(data)
			bad[len(bad)/2] = '}'
			compareSkip(t, bad, 100000, 0)
		}
	}
}

// FuzzSkipValueLegacy holds the jsonfast skipValue to the byte walker's
// answers: the same error text, offset and line, and the same position.
func FuzzSkipValueLegacy(f *testing.F) {
	for _, c := range skipCases {
		f.Add([]byte(c), uint8(10), uint8(0), uint8(1))
	}
	filepath.WalkDir(recordingsDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".json" {
			if fi, err := d.Info(); err == nil && fi.Size() <= maxSeedBytes {
				if data, err := os.ReadFile(p); err == nil {
					f.Add(data, uint8(30), uint8(0), uint8(7))
				}
			}
		}
		return nil
	})
	f.Fuzz(func(t *testing.T, data []byte, max, depth, chunk uint8) {
		m := int(max%40) + 1
		compareSkipChunks(t, data, m, int(depth)%(m+1), []int{0, int(chunk%16) + 1})
	})
}

// FuzzReadStringBody holds readStringBody's in-buffer shortcut to the
// decoding stringDecoder it skips.
func FuzzReadStringBody(f *testing.F) {
	for _, s := range []string{`abc"`, `a\"b"`, "a\x01b\"", `caf` + "\xc3\xa9\xff" + `"`, `\u00e9"`, `abc`, `"`, `0123456789"`} {
		f.Add([]byte(s), uint8(4))
	}
	f.Fuzz(func(t *testing.T, body []byte, max uint8) {
		m := int(max%20) + 1
		got, gerr := newSliceScanner(body, 10).readStringBody(m)
		want, werr := io.ReadAll(&stringDecoder{s: newSliceScanner(body, 10)})
		if len(want) > m {
			want = want[:m]
		}
		if (gerr == nil) != (werr == nil) || gerr == nil && got != string(want) {
			t.Errorf("%q: readStringBody gives %q, %v; stringDecoder %q, %v", body, got, gerr, want, werr)
		}
	})
}
