package byterange

import (
	"errors"
	"net/http"
	"testing"
)

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		header      string
		size        int64
		first, last int64
		bad, past   bool
	}{
		{"bytes=0-", 10, 0, 9, false, false},
		{"bytes=0-3", 10, 0, 3, false, false},
		{"bytes=4-100", 10, 4, 9, false, false},
		{"bytes=9-9", 10, 9, 9, false, false},
		{"bytes=10-", 10, 0, 0, false, true},
		{"bytes=0-", 0, 0, 0, false, true},
		{"bytes=5-4", 10, 0, 0, true, false},
		{"bytes=-5", 10, 0, 0, true, false},
		{"items=0-1", 10, 0, 0, true, false},
		{"bytes=a-", 10, 0, 0, true, false},
		{"bytes=0-b", 10, 0, 0, true, false},
	} {
		first, last, err := Of(tc.header, tc.size)
		switch {
		case tc.past:
			if !errors.Is(err, ErrUnsatisfiable) {
				t.Errorf("%s of %d: %v, want unsatisfiable", tc.header, tc.size, err)
			}
		case tc.bad:
			if err == nil || errors.Is(err, ErrUnsatisfiable) {
				t.Errorf("%s of %d: %v, want malformed", tc.header, tc.size, err)
			}
		case err != nil || first != tc.first || last != tc.last:
			t.Errorf("%s of %d: %d-%d, %v; want %d-%d", tc.header, tc.size, first, last, err, tc.first, tc.last)
		}
	}
}

func TestAnswer(t *testing.T) {
	for _, tc := range []struct {
		header, contentRange string
		status               int
		first, last          int64
	}{
		{"", "", 200, 0, 9},
		{"bytes=2-", "bytes 2-9/10", 206, 2, 9},
		{"bytes=10-", "bytes */10", 416, 0, 0},
		{"bytes=x", "", 400, 0, 0},
	} {
		h := http.Header{}
		first, last, status, err := Answer(h, tc.header, 10)
		if status != tc.status || h.Get("Content-Range") != tc.contentRange || (err == nil) != (status < 300) ||
			(err == nil && (first != tc.first || last != tc.last)) {
			t.Errorf("%q: %d-%d, %d, %q, %v", tc.header, first, last, status, h.Get("Content-Range"), err)
		}
	}
}
