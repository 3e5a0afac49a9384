package jsonfast

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// seedLines adds a few real event lines from the reference corpus, when it
// is there, to a fuzz target's seeds.
func seedLines(f *testing.F, n int) {
	f.Helper()
	for _, l := range corpusLines(n) {
		f.Add(l)
	}
}

func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c.in))
	}
	seedLines(f, 4)
	f.Fuzz(func(t *testing.T, b []byte) {
		want := json.Valid(b)
		if got := Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v; json.Valid = %v", b, got, want)
		}
		// The same answer from a Scanner fed uneven pieces.
		n := 1
		if len(b) > 0 {
			n = int(b[0]%13) + 1
		}
		if got := scanInPieces(b, n); got != want {
			t.Fatalf("Scanner in pieces of %d on %q = %v; json.Valid = %v", n, b, got, want)
		}
	})
}

func FuzzSkip(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c.in))
	}
	seedLines(f, 2)
	f.Fuzz(func(t *testing.T, b []byte) {
		end, err := SkipValue(b, 0)
		if err != nil {
			if json.Valid(b) {
				t.Fatalf("SkipValue(%q): %v; json.Valid accepts it", b, err)
			}
			var se *SyntaxError
			var de *DepthError
			if !errors.As(err, &se) && !errors.As(err, &de) {
				t.Fatalf("SkipValue(%q): error of type %T", b, err)
			}
			return
		}
		if end < 0 || end > len(b) {
			t.Fatalf("SkipValue(%q) = %d, out of range", b, end)
		}
		if !json.Valid(b[:end]) {
			t.Fatalf("SkipValue(%q) = %d, but json.Valid refuses %q", b, end, b[:end])
		}
		if rest := skipSpace(b, end); (rest == len(b)) != json.Valid(b) {
			t.Fatalf("SkipValue(%q) = %d then only whitespace: %v; json.Valid = %v", b, end, rest == len(b), json.Valid(b))
		}
	})
}

func FuzzString(f *testing.F) {
	for _, s := range stringCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkString(t, b)
		// Every byte string, quoted by encoding/json, decodes back the
		// way encoding/json decodes it.
		q, err := json.Marshal(string(b))
		if err != nil {
			t.Fatal(err)
		}
		checkString(t, q)
	})
}

func FuzzNumber(f *testing.F) {
	for _, s := range numberCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkNumber(t, b)
	})
}

func FuzzFields(f *testing.F) {
	for _, s := range objectCases {
		f.Add([]byte(s))
	}
	seedLines(f, 4)
	f.Fuzz(func(t *testing.T, b []byte) {
		checkFields(t, b)
		checkPickerFold(t, b)
	})
}

// corpusDir is the reference corpus, next to the repository.
func corpusDir() string {
	return filepath.Join("..", "..", "..", "shared", "reference-corpus")
}

// corpusLines returns up to n lines of each events.firehose.jsonl in the
// reference corpus (all lines when n is 0), or nothing if it is absent.
func corpusLines(n int) [][]byte {
	files, _ := filepath.Glob(filepath.Join(corpusDir(), "*", "events.firehose.jsonl"))
	var out [][]byte
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		k := 0
		for len(data) > 0 && (n == 0 || k < n) {
			line := data
			if i := indexNL(data); i >= 0 {
				line, data = data[:i], data[i+1:]
			} else {
				data = nil
			}
			if len(line) > 0 {
				out = append(out, line)
				k++
			}
		}
	}
	return out
}

func indexNL(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}

// TestMutatedLines is a deterministic complement to the fuzz targets: every
// prefix of a few real event lines, and every one-byte substitution from a
// set of bytes that matter to the grammar, must get encoding/json's answer.
func TestMutatedLines(t *testing.T) {
	lines := corpusLines(1)
	if len(lines) > 3 {
		lines = lines[:3]
	}
	lines = append(lines, []byte(`{"type":"t","payload":{"a":[1,-2.5e3,true,null,"x\"\u00e9\n"],"b":{}},"meta":{"runId":"r"}}`))
	subst := []byte{'"', '\\', ',', ':', '{', '}', '[', ']', 0x01, 0xff, ' ', '0', 'e', '-', 'u'}
	check := func(b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v; json.Valid = %v", b, got, want)
		}
		checkFields(t, b)
	}
	for _, l := range lines {
		for n := 0; n <= len(l); n++ {
			check(l[:n])
		}
		m := make([]byte, len(l))
		for i := range l {
			for _, c := range subst {
				copy(m, l)
				m[i] = c
				check(m)
			}
		}
	}
}
