package recording

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestLineReaderBufferBounded holds the line buffer to the longest line
// accepted: a line over --max-line-bytes is refused before its buffer
// grows past max+1 bytes, so a line refused unread costs no more memory
// than the limit, and a line accepted costs no more than itself.
func TestLineReaderBufferBounded(t *testing.T) {
	const max = 1000
	tests := []struct {
		name    string
		in      string
		wantLen int // the line's length, newline included; 0 when refused
	}{
		{"far over the limit", strings.Repeat("x", 50*max) + "\n", 0},
		{"far over the limit, no newline", strings.Repeat("x", 50*max), 0},
		{"one byte over", strings.Repeat("x", max+1) + "\n", 0},
		{"one byte over, no newline", strings.Repeat("x", max+1), 0},
		{"just past a doubling", strings.Repeat("x", 513) + "\n", 514},
		{"at the limit", strings.Repeat("x", max) + "\n", max + 1},
		{"at the limit, no newline", strings.Repeat("x", max), max},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// bufio's smallest buffer, so that every line longer than
			// 16 bytes is assembled in lr.long.
			lr := &lineReader{br: bufio.NewReaderSize(strings.NewReader(tc.in), 16), max: max}
			line, _, err := lr.next()
			if c := cap(lr.long); c > max+1 {
				t.Errorf("the line buffer grew to %d bytes, past the longest line accepted (%d)", c, max+1)
			}
			var tl *errLineTooLong
			switch {
			case tc.wantLen == 0 && !errors.As(err, &tl):
				t.Fatalf("next() = %d bytes, %v; want the line refused as too long", len(line), err)
			case tc.wantLen > 0 && (err != nil || len(line) != tc.wantLen):
				t.Fatalf("next() = %d bytes, %v; want %d bytes", len(line), err, tc.wantLen)
			}
			if tc.wantLen > 0 {
				if _, _, err := lr.next(); err != io.EOF {
					t.Errorf("after the one line, next() = %v, want io.EOF", err)
				}
			}
		})
	}
}

// TestGrowCapped doubles a buffer along the halves of the bound, so that
// it reaches the bound from half of it and never passes it.
func TestGrowCapped(t *testing.T) {
	tests := []struct {
		name          string
		cap, len, n   int
		most          int64
		wantCapAtMost int64
		wantCap       int // exact, when not 0
	}{
		{"room left", 10, 4, 6, 100, 10, 10},
		{"doubles without a bound", 16, 16, 1, 0, 32, 32},
		{"onto the halves of the bound", 200, 200, 1, 1000, 1000, 500},
		{"up to the next half", 300, 300, 1, 1000, 1000, 1000},
		{"the last step is the bound", 500, 500, 1, 1000, 1000, 1000},
		{"just under the bound goes to it", 900, 900, 10, 1000, 1000, 1000},
		{"an odd bound", 16, 16, 1, 1001, 1001, 62},
		{"more than the bound when asked", 10, 10, 2000, 1000, 2010, 2010},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := make([]byte, tc.len, tc.cap)
			g := growCapped(b, tc.n, tc.most)
			if len(g) != tc.len || cap(g)-len(g) < tc.n {
				t.Fatalf("growCapped = len %d cap %d; want len %d and room for %d", len(g), cap(g), tc.len, tc.n)
			}
			if int64(cap(g)) > tc.wantCapAtMost || tc.wantCap != 0 && cap(g) != tc.wantCap {
				t.Errorf("growCapped grew to %d bytes; want %d (at most %d)", cap(g), tc.wantCap, tc.wantCapAtMost)
			}
		})
	}
}

// TestCaptureBufferBounded holds a document value's capture buffer to
// its limit, as TestLineReaderBufferBounded holds a line's.
func TestCaptureBufferBounded(t *testing.T) {
	const limit = 1000
	for _, n := range []int{limit, limit - 2, 600, 513, 100} {
		value := `"` + strings.Repeat("x", n-2) + `"`
		// A small buffer, so that the value spans reads and is gathered.
		s := &scanner{r: strings.NewReader(value + "]"), buf: make([]byte, 16), maxDepth: 100}
		raw, err := s.captureValue(limit)
		if err != nil || string(raw) != value {
			t.Fatalf("%d bytes: captureValue = %d bytes, %v; want the value", n, len(raw), err)
		}
		if c := s.capSpare; cap(c) > limit {
			t.Errorf("%d bytes: the capture buffer grew to %d bytes, past the limit (%d)", n, cap(c), limit)
		}
	}
	s := &scanner{r: strings.NewReader(`"` + strings.Repeat("x", 50*limit) + `"]`), buf: make([]byte, 16), maxDepth: 100}
	var ce *captureError
	if _, err := s.captureValue(limit); !errors.As(err, &ce) {
		t.Errorf("a value over the limit: captureValue = %v, want a captureError", err)
	}
}
