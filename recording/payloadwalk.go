package recording

import (
	"bytes"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
)

// The payload checks walk payloads that were validated with their event a
// moment before, and only need the members of the top object (and of the
// objects in one array): the values in between are skipped without being
// validated a second time. Skipping a string is a search for its closing
// quote (bytes.IndexByte), which is what makes this cheaper than another
// validating pass over payloads that are mostly long strings: a tool
// result, a conversation window copied into iteration_end.history.
//
// The walkers never index past their input, so bytes that are not valid
// JSON after all give wrong answers, not a panic.

// skipString returns the index just after the closing quote of the string
// whose body starts at b[i], or len(b).
func skipString(b []byte, i int) int {
	for i < len(b) {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		q := i + j
		// The quote closes the string unless an odd run of backslashes
		// escapes it; the run cannot reach back past the string's start.
		n := 0
		for q-1-n >= i && b[q-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
	return len(b)
}

// skipValid returns the index just after the value starting at b[i] (no
// whitespace before it).
func skipValid(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = skipString(b, i+1)
			if depth == 0 {
				return i
			}
		case '{', '[':
			depth++
			i++
		case '}', ']':
			depth--
			i++
			if depth <= 0 {
				return i
			}
		default:
			if depth == 0 {
				// A number or literal: it ends at the first byte that
				// cannot continue it.
				for i < len(b) && !isValueEnd(b[i]) {
					i++
				}
				return i
			}
			i++
		}
	}
	return len(b)
}

func isValueEnd(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

func skipWS(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// eachValidMember calls fn for each member of the validated object obj,
// with the key as it is written (escaped reports a backslash in it) and
// the value's bytes.
func eachValidMember(obj []byte, fn func(key []byte, escaped bool, val []byte)) {
	i := skipWS(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i++
	for {
		i = skipWS(obj, i)
		if i < len(obj) && obj[i] == ',' {
			i = skipWS(obj, i+1)
		}
		if i >= len(obj) || obj[i] != '"' {
			return // '}' or the end
		}
		end := skipString(obj, i+1)
		if end-1 <= i {
			return
		}
		key := obj[i+1 : end-1]
		i = skipWS(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		i = skipWS(obj, i+1)
		vend := skipValid(obj, i)
		fn(key, bytes.IndexByte(key, '\\') >= 0, obj[i:vend])
		i = vend
	}
}

// eachValidElement calls fn for each element of the validated array arr.
func eachValidElement(arr []byte, fn func(val []byte)) {
	i := skipWS(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	i++
	for {
		i = skipWS(arr, i)
		if i < len(arr) && arr[i] == ',' {
			i = skipWS(arr, i+1)
		}
		if i >= len(arr) || arr[i] == ']' {
			return
		}
		end := skipValid(arr, i)
		if end <= i {
			return
		}
		fn(arr[i:end])
		i = end
	}
}

// validFields is jsonfast.Fields over a validated object: out[i] gets the
// value of the last member named names[i] (keys compared decoded), or nil.
func validFields(obj []byte, names []string, out [][]byte) {
	clear(out)
	eachValidMember(obj, func(key []byte, escaped bool, val []byte) {
		if escaped {
			// Only a key with an escape can differ from its decoding in a
			// way that matters: raw invalid UTF-8 matches no name either way.
			k, err := jsonfast.String(append(append([]byte{'"'}, key...), '"'))
			if err != nil {
				return
			}
			key = []byte(k)
		}
		for i, n := range names {
			if string(key) == n {
				out[i] = val
				return
			}
		}
	})
}
