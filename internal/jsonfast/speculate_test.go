package jsonfast

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// scanWithChunks scans b as Scan would, piece by piece, but takes the
// summary of each chunk between consecutive safe points (spaced about
// every bytes apart) when Apply accepts it. It returns what the Scanner
// answered and how many chunks it took over.
func scanWithChunks(b []byte, every, maxDepth int) (done bool, end int64, err error, applied int) {
	var s Scanner
	s.Reset(maxDepth)
	var points []int
	for p := SafePoint(b, every); p >= 0; p = SafePoint(b, p+every) {
		points = append(points, p)
	}
	pos := 0
	for k, sp := range points {
		if sp < pos {
			continue
		}
		n, d, e := s.Scan(b[pos:sp])
		if e != nil || d {
			return d, s.Offset(), e, applied
		}
		pos += n
		if k+1 >= len(points) {
			break
		}
		next := points[k+1]
		if sum, ok := Speculate(b[sp:], next-sp); ok && s.Apply(&sum) {
			pos = next
			applied++
		}
	}
	_, d, e := s.Scan(b[pos:])
	if e == nil && !d {
		e = s.End()
		d = e == nil
	}
	return d, s.Offset(), e, applied
}

func scanPlain(b []byte, maxDepth int) (bool, int64, error) {
	var s Scanner
	s.Reset(maxDepth)
	_, d, e := s.Scan(b)
	if e == nil && !d {
		e = s.End()
		d = e == nil
	}
	return d, s.Offset(), e
}

func compareChunked(t *testing.T, name string, b []byte, every, maxDepth int) int {
	t.Helper()
	wd, wo, we := scanPlain(b, maxDepth)
	gd, goff, ge, applied := scanWithChunks(b, every, maxDepth)
	if wd != gd || wo != goff || fmt.Sprint(we) != fmt.Sprint(ge) {
		t.Fatalf("%s (chunks every %d, depth %d): chunked scan gave done=%v offset=%d err=%v; plain gave done=%v offset=%d err=%v",
			name, every, maxDepth, gd, goff, ge, wd, wo, we)
	}
	return applied
}

// TestSpeculatedChunksScanAsPlain holds scanning with speculated chunks to
// plain scanning on recordings, on damaged copies of them, and on nested
// shapes built to trip the assumptions.
func TestSpeculatedChunksScanAsPlain(t *testing.T) {
	_, rec := benchData()
	// Indented as a format C envelope is: its chunks start at a brace
	// before a line break.
	var indented bytes.Buffer
	if err := json.Indent(&indented, rec, "", "  "); err != nil {
		t.Fatal(err)
	}
	for _, doc := range []struct {
		name string
		b    []byte
	}{{"recording", rec}, {"indented recording", indented.Bytes()}} {
		applied := 0
		for _, every := range []int{1, 17, 300, 4096, 65536} {
			applied += compareChunked(t, doc.name, doc.b, every, 0)
		}
		if applied == 0 {
			t.Fatalf("%s: no chunk was ever taken over", doc.name)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 600; k++ {
		src := rec
		if k%2 == 1 {
			src = indented.Bytes()
		}
		b := bytes.Clone(src[:min(len(src), 1<<16)])
		for m := rng.IntN(3); m >= 0; m-- {
			i := rng.IntN(len(b))
			switch rng.IntN(4) {
			case 0:
				b[i] = "{}[],:\"\\ a0\x01"[rng.IntN(12)]
			case 1:
				b = append(b[:i], b[i+1:]...)
			case 2:
				b = append(b[:i], append([]byte{"{}[],:\"\\"[rng.IntN(8)]}, b[i:]...)...)
			case 3:
				b = b[:i]
			}
		}
		compareChunked(t, fmt.Sprintf("damaged %d", k), b, 1+rng.IntN(2000), 0)
	}
	shapes := []string{
		`[{"a":1},{"b":[{"c":2},{"d":{"e":[]}}]},{"f":"}"}]`,
		`{"x":[{"a":1},{"b":2}],"y":{"z":[{"q":"{\"r\":1}"}]}}`,
		`[{"a":[{"b":[{"c":1}]}]},{"a":{"b":{"c":1}}}]`,
		`{"a":{"b":1},"c":[{"d":1}, {"e":"x"}],"f":{"g":{"h":[{"i":1}]}}}`,
		`[{"a":1}],{"b":2}`,
		`{"a":[{"b":1}}`,
		`[{"a":1}}`,
		`{"a":{"b":1}]`,
		`[{"a":1},"s":{"b":2}]`,
		`{"a":{"b":1},{"c":2}}`,
		"{\n  \"a\": {\n    \"b\": [\n      {\n        \"c\": \"{\\n\"\n      }\n    ]\n  }\n}",
		"{\r\n \"a\":{\t\"b\":1},\r\n \"c\":[{\n}]}",
		// A raw line break after a brace inside a string: not JSON.
		"[{\n\"a\":1},{\"b\":\"x{\ny\"},{\n\"c\":2}]",
		"{\"a\":\"{\n\",\"b\":{\n\"c\":1}}",
	}
	for _, sh := range shapes {
		for every := 1; every < len(sh); every++ {
			for _, depth := range []int{0, 2, 3, 4} {
				compareChunked(t, sh, []byte(sh), every, depth)
			}
		}
	}
}

func FuzzSpeculatedChunks(f *testing.F) {
	f.Add([]byte(`[{"a":1},{"b":[{"c":2},{"d":{"e":[]}}]},{"f":"}"}]`), 3)
	f.Add([]byte(`{"x":[{"a":1},{"b":2}],"y":{"z":[{"q":"{\"r\":1}"}]}}`), 5)
	f.Add([]byte("{\n  \"a\": [\n    {\n      \"b\": \"{\\n\"\n    }\n  ]\n}"), 4)
	f.Fuzz(func(t *testing.T, b []byte, every int) {
		if every <= 0 || every > 1<<16 {
			every = 1
		}
		for _, depth := range []int{0, 3} {
			compareChunked(t, "fuzz", b, every, depth)
		}
	})
}
