package recording

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrNotRecording is wrapped by every error that says an input is not an
// agentfootprint recording at all (another JSON document, text, binary
// data), as against a recording that is damaged: a directory walk skips
// the first kind and reports the second.
var ErrNotRecording = errors.New("not an agentfootprint recording")

// InputError is an input fpcheck cannot read at all (exit 2). It names the
// path and, where known, the line or byte offset.
type InputError struct {
	Path string
	// Line is the 1-based line the problem is on, or 0 when unknown.
	Line int64
	// Offset is the byte offset the problem is at (for compressed input, in
	// the compressed bytes), or 0 when unknown or already in the message.
	Offset int64
	Err    error
}

// Error names the file (quoted when its name holds characters a terminal
// would act on), the line when known, and the problem.
func (e *InputError) Error() string {
	if e.Path == "" {
		return e.Err.Error()
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s: line %d: %v", safePath(e.Path), e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", safePath(e.Path), e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

func inputErrorf(path string, line int64, format string, args ...any) *InputError {
	return &InputError{Path: path, Line: line, Err: fmt.Errorf(format, args...)}
}

// humanBytes renders a byte count the way limits are written in docs and
// flags: exact binary units when the count is a round number.
func humanBytes(n int64) string {
	units := []struct {
		size int64
		name string
	}{{1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}}
	for _, u := range units {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
