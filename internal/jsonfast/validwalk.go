package jsonfast

import "bytes"

// The walkers below read JSON that was validated before (by Valid, or with
// the line it is part of), for readers that need a few members of a value
// they already know to be valid: the values in between are skipped without
// being validated a second time. Skipping a string is a search for its
// closing quote (bytes.IndexByte), which is what makes this cheaper than
// another validating pass over values that are mostly long strings: a
// tool result, a conversation window copied into iteration_end.history.
//
// The walkers never index past their input, so bytes that are not valid
// JSON after all give wrong answers, not a panic.

// skipValidString returns the index just after the closing quote of the string
// whose body starts at b[i], or len(b).
func skipValidString(b []byte, i int) int {
	if end, ok := ValidStringEnd(b, i); ok {
		return end
	}
	return len(b)
}

// ValidStringEnd returns the index just after the closing quote of the
// string whose body starts at b[i] in text known to be valid JSON (the
// escapes are not checked); ok is false when no quote closes it.
func ValidStringEnd(b []byte, i int) (end int, ok bool) {
	for i < len(b) {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b), false
		}
		q := i + j
		// The quote closes the string unless an odd run of backslashes
		// escapes it; the run cannot reach back past the string's start.
		n := 0
		for q-1-n >= i && b[q-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return q + 1, true
		}
		i = q + 1
	}
	return len(b), false
}

// skipValidValue returns the index just after the value starting at b[i] (no
// whitespace before it).
func skipValidValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = skipValidString(b, i+1)
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
				for i < len(b) && !isValidValueEnd(b[i]) {
					i++
				}
				return i
			}
			i++
		}
	}
	return len(b)
}

func isValidValueEnd(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// openValid returns the index just after the opening bracket c of the
// validated container b, or -1 when b is not one.
func openValid(b []byte, c byte) int {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != c {
		return -1
	}
	return i + 1
}

// nextValidItem returns where the member or element after i starts: past
// whitespace and the comma that parts it from the one before.
func nextValidItem(b []byte, i int) int {
	i = skipSpace(b, i)
	if i < len(b) && b[i] == ',' {
		i = skipSpace(b, i+1)
	}
	return i
}

// ValidMembers calls fn for each member of the validated object obj,
// with the key and the value's bytes. A key with an escape is decoded
// (escaped reports it; the slice is fn's only during the call), one that
// cannot be is skipped with its member; any other key is passed as it is
// written, which matches the same names its decoding would (invalid
// UTF-8 matches none either way).
func ValidMembers(obj []byte, fn func(key []byte, escaped bool, val []byte)) {
	ValidObject(obj, 0, fn)
}

// ValidObject calls fn for each member of the object that starts at b[i]
// (after whitespace) in the validated text b, as ValidMembers does, and
// returns the index just after its closing brace, or -1 when no object
// starts there. A reader of an array's objects reads each in one walk,
// where finding its end first walked it twice.
func ValidObject(b []byte, i int, fn func(key []byte, escaped bool, val []byte)) int {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return -1
	}
	i++
	for {
		i = nextValidItem(b, i)
		if i >= len(b) {
			return -1
		}
		if b[i] != '"' {
			if b[i] == '}' {
				return i + 1
			}
			return -1
		}
		end := skipValidString(b, i+1)
		if end-1 <= i {
			return -1
		}
		tok := b[i:end] // the key with its quotes
		key := tok[1 : len(tok)-1]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		i = skipSpace(b, i+1)
		vend := skipValidValue(b, i)
		escaped := bytes.IndexByte(key, '\\') >= 0
		if escaped {
			k, err := String(tok)
			if err != nil {
				i = vend
				continue
			}
			key = []byte(k)
		}
		fn(key, escaped, b[i:vend])
		i = vend
	}
}

// ValidElements calls fn for each element of the validated array arr.
func ValidElements(arr []byte, fn func(val []byte)) {
	ValidEach(arr, func(i int) int {
		end := skipValidValue(arr, i)
		if end > i {
			fn(arr[i:end])
		}
		return end
	})
}

// ValidEach calls fn with the index at which each element of the
// validated array arr starts; fn returns the index just after that
// element, or one at or before its start to stop.
func ValidEach(arr []byte, fn func(i int) int) {
	i := openValid(arr, '[')
	if i < 0 {
		return
	}
	for {
		i = nextValidItem(arr, i)
		if i >= len(arr) || arr[i] == ']' {
			return
		}
		end := fn(i)
		if end <= i {
			return
		}
		i = end
	}
}
