// Package byterange reads the one byte range a request for an object asks
// for, as the fake object stores of fpcheck's tests answer it: "bytes=A-"
// or "bytes=A-B", the last byte cut to the object's end. Nothing here is
// linked into fpcheck itself.
package byterange

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// ErrUnsatisfiable is a range that starts past the object's end (416).
var ErrUnsatisfiable = errors.New("the range starts past the end of the object")

// Of is the first and last byte header asks of an object of size bytes.
// A malformed header is an error other than ErrUnsatisfiable (400).
func Of(header string, size int64) (first, last int64, err error) {
	spec, ok := strings.CutPrefix(header, "bytes=")
	from, to, _ := strings.Cut(spec, "-")
	first, err = strconv.ParseInt(from, 10, 64)
	if !ok || err != nil || first < 0 {
		return 0, 0, fmt.Errorf("bad range %q", header)
	}
	last = size - 1
	if to != "" {
		l, err := strconv.ParseInt(to, 10, 64)
		if err != nil || l < first {
			return 0, 0, fmt.Errorf("bad range %q", header)
		}
		last = min(l, size-1)
	}
	if first >= size {
		return 0, 0, ErrUnsatisfiable
	}
	return first, last, nil
}

// Answer is how a server answers header for an object of size bytes: the
// first and last byte to send and the status, 200 for the whole object
// when header is empty and 206 for a range, whose Content-Range it sets in
// h. A range past the end sets the Content-Range a 416 carries and returns
// ErrUnsatisfiable; a malformed one returns another error (400).
func Answer(h http.Header, header string, size int64) (first, last int64, status int, err error) {
	if header == "" {
		return 0, size - 1, http.StatusOK, nil
	}
	first, last, err = Of(header, size)
	switch {
	case errors.Is(err, ErrUnsatisfiable):
		h.Set("Content-Range", fmt.Sprintf("bytes */%d", size))
		return 0, 0, http.StatusRequestedRangeNotSatisfiable, err
	case err != nil:
		return 0, 0, http.StatusBadRequest, err
	}
	h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", first, last, size))
	return first, last, http.StatusPartialContent, nil
}
