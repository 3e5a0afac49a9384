package jsonfast

import (
	"bytes"
	"errors"
	"unicode/utf8"
)

var (
	errNotObject = errors.New("not a JSON object")
	errNotArray  = errors.New("not a JSON array")
)

// memberIter walks the members of one object held in memory, validating
// as it goes; only the object's own level is parsed here, values are
// skipped whole.
type memberIter struct {
	b     []byte
	i     int
	max   int // nesting allowed inside a member value
	first bool
	// inner walks an object nested in a larger input: the walk ends at
	// its closing brace, whatever follows.
	inner bool
	buf   []byte // decoded key, when the key needs decoding
}

// open starts the walk of the object in b (surrounding whitespace allowed).
func (it *memberIter) open(b []byte) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errNotObject
	}
	*it = memberIter{b: b, i: i + 1, max: MaxDepth - 1, first: true, buf: it.buf}
	return nil
}

// next returns the next member. more is false after the closing brace, when
// the rest of the input has been checked to be whitespace.
func (it *memberIter) next() (key []byte, escaped bool, val []byte, more bool, err error) {
	key, escaped, i, more, err := it.nextKey()
	if err != nil || !more {
		return nil, false, nil, more, err
	}
	end, err := skipValue(it.b, i, it.max)
	if err != nil {
		return nil, false, nil, false, err
	}
	it.i = end
	return key, escaped, it.b[i:end], true, nil
}

// nextKey reads the next member up to its value, which starts at it.b[i];
// the caller validates the value and sets it.i just after it.
func (it *memberIter) nextKey() (key []byte, escaped bool, i int, more bool, err error) {
	b := it.b
	i = skipSpace(b, it.i)
	if i >= len(b) {
		return nil, false, 0, false, &SyntaxError{Offset: int64(i), Msg: "unexpected end of JSON input"}
	}
	if it.first {
		it.first = false
		if b[i] == '}' {
			return nil, false, 0, false, it.end(i + 1)
		}
	} else {
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return nil, false, 0, false, it.end(i + 1)
		default:
			return nil, false, 0, false, &SyntaxError{Offset: int64(i), Msg: "invalid character " + quoteByte(b[i]) + " after object key:value pair"}
		}
	}
	if i >= len(b) || b[i] != '"' {
		return nil, false, 0, false, syntaxAt(b, i, "looking for beginning of object key string")
	}
	j, r := scanStr(b, i+1)
	if r&strClosed == 0 {
		if r&strBad != 0 {
			return nil, false, 0, false, syntaxAt(b, j, badStringWhat(r))
		}
		return nil, false, 0, false, &SyntaxError{Offset: int64(len(b)), Msg: "unexpected end of JSON input"}
	}
	key = b[i+1 : j-1]
	if r&strEscaped != 0 || hasHigh(key) && !utf8.Valid(key) {
		it.buf = appendUnquoted(it.buf[:0], key)
		key, escaped = it.buf, true
	}
	i = skipSpace(b, j)
	if i >= len(b) || b[i] != ':' {
		return nil, false, 0, false, syntaxAt(b, i, "after object key")
	}
	return key, escaped, skipSpace(b, i+1), true, nil
}

// end checks that only whitespace follows the closing brace at i-1 (of a
// top-level object).
func (it *memberIter) end(i int) error {
	it.i = i
	if it.inner {
		return nil
	}
	if k := skipSpace(it.b, i); k != len(it.b) {
		return syntaxAt(it.b, k, "after top-level value")
	}
	return nil
}

// InnerMembers validates the object that starts at b[i] (after optional
// whitespace), a value nested in a larger input, and calls fn for each of
// its members with the key decoded (the slice is only valid during the
// call) and the value's raw bytes; maxDepth bounds the nesting of the object
// itself and everything in it. It returns the index just after the closing
// brace. A reader that needs a few members of a value it must validate
// anyway gets them in the same pass.
func InnerMembers(b []byte, i, maxDepth int, fn func(key, val []byte)) (end int, err error) {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return i, errNotObject
	}
	if maxDepth < 1 {
		return i, &DepthError{Offset: int64(i), Limit: maxDepth}
	}
	it := memberIter{b: b, i: i + 1, max: maxDepth - 1, first: true, inner: true}
	for {
		k, _, v, more, err := it.next()
		if err != nil {
			return it.i, err
		}
		if !more {
			return it.i, nil
		}
		fn(k, v)
	}
}

// syntaxAt is a SyntaxError at b[i], or at the end of b.
func syntaxAt(b []byte, i int, what string) error {
	if i >= len(b) {
		return &SyntaxError{Offset: int64(len(b)), Msg: "unexpected end of JSON input"}
	}
	return &SyntaxError{Offset: int64(i), Msg: "invalid character " + quoteByte(b[i]) + " " + what}
}

// Members calls fn for each member of the object in obj (surrounding
// whitespace allowed), in order, with the key decoded (escaped reports that
// it needed decoding; the slice is only valid during the call) and the raw,
// validated bytes of the value. fn returns false to stop early. An error
// means obj is not one valid JSON object; fn may have been called for the
// members before the fault, so a caller that must not act on a malformed
// object collects what it needs and acts after a nil error.
func Members(obj []byte, fn func(key []byte, escaped bool, val []byte) bool) error {
	return MemberOffsets(obj, func(key []byte, escaped bool, start, end int) bool {
		return fn(key, escaped, obj[start:end])
	})
}

// MemberOffsets is Members with each value given by its offsets in obj,
// for a caller that keeps the bytes between the values too.
func MemberOffsets(obj []byte, fn func(key []byte, escaped bool, start, end int) bool) error {
	var it memberIter
	if err := it.open(obj); err != nil {
		return err
	}
	for {
		k, esc, v, more, err := it.next()
		if err != nil || !more {
			return err
		}
		// next leaves it.i just after the value.
		if !fn(k, esc, it.i-len(v), it.i) {
			return nil
		}
	}
}

// Elements calls fn for each element of the array in arr (surrounding
// whitespace allowed) with its index and raw, validated bytes; fn returns
// false to stop early. Errors are as for Members.
func Elements(arr []byte, fn func(i int, val []byte) bool) error {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return errNotArray
	}
	i = skipSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return endOfTop(arr, i+1)
	}
	for n := 0; ; n++ {
		i = skipSpace(arr, i)
		end, err := skipValue(arr, i, MaxDepth-1)
		if err != nil {
			return err
		}
		if !fn(n, arr[i:end]) {
			return nil
		}
		i = skipSpace(arr, end)
		if i >= len(arr) {
			return &SyntaxError{Offset: int64(i), Msg: "unexpected end of JSON input"}
		}
		switch arr[i] {
		case ',':
			i++
		case ']':
			return endOfTop(arr, i+1)
		default:
			return syntaxAt(arr, i, "after array element")
		}
	}
}

func endOfTop(b []byte, i int) error {
	if k := skipSpace(b, i); k != len(b) {
		return syntaxAt(b, k, "after top-level value")
	}
	return nil
}

// Fields picks the members named names out of the object in obj: out[i]
// receives the raw value of the last member whose key is exactly names[i]
// (nil when there is none), as decoding into a map keeps the last of
// repeated keys. dup reports that some name occurred more than once. out
// must be at least as long as names. On error out holds nothing useful.
func Fields(obj []byte, names []string, out [][]byte) (dup bool, err error) {
	p := Picker{Names: names}
	return p.pick(obj, out, nil, nil)
}

// Picker picks several members out of objects of one shape, with the
// matching rules of decoding into a struct when asked to.
type Picker struct {
	// Names are the keys to pick, in the order of the out slice.
	Names []string
	// Fold matches a key the way encoding/json matches struct fields: a
	// name equal to the key, else the first name equal under Unicode case
	// folding (bytes.EqualFold), so "Type" and "TYPE" fill "type".
	Fold bool
	// SkipNull, when non-nil, has one entry per name: true makes a null
	// value leave out[i] as an earlier member set it, as encoding/json
	// leaves a string, number, bool or struct field on null (a pointer,
	// slice, map or interface field is reset by null instead).
	SkipNull []bool
}

// Pick fills out as Fields does, with p's matching rules. When counts is
// non-nil (as long as Names) counts[i] receives the number of members that
// matched Names[i], null values included; dup reports that some count is
// above one.
func (p *Picker) Pick(obj []byte, out [][]byte, counts []int) (dup bool, err error) {
	return p.pick(obj, out, counts, nil)
}

// ValueHook validates a picked member's value itself: the value of the
// member matching Names[n] starts at obj[i], and may nest maxDepth levels.
// It returns the index just after the value; handled false leaves the
// value to the Picker. out holds the members picked so far, so a hook can
// read a member that came earlier.
type ValueHook func(n int, obj []byte, i, maxDepth int, out [][]byte) (end int, handled bool, err error)

// PickHook is Pick with hook called at every picked member, so a caller can
// read inside a value in the pass that validates it.
func (p *Picker) PickHook(obj []byte, out [][]byte, counts []int, hook ValueHook) (dup bool, err error) {
	return p.pick(obj, out, counts, hook)
}

func (p *Picker) pick(obj []byte, out [][]byte, counts []int, hook ValueHook) (dup bool, err error) {
	names := p.Names
	out = out[:len(names)]
	for i := range out {
		out[i] = nil
	}
	if counts != nil {
		counts = counts[:len(names)]
		for i := range counts {
			counts[i] = 0
		}
	}
	if counts == nil && len(names) > 64 {
		counts = make([]int, len(names))
	}
	var seen uint64 // names seen, for dup when counts is nil
	var it memberIter
	if err := it.open(obj); err != nil {
		return false, err
	}
	for {
		k, _, i, more, err := it.nextKey()
		if err != nil {
			return false, err
		}
		if !more {
			return dup, nil
		}
		n := p.Match(k)
		end, handled := 0, false
		if n >= 0 && hook != nil {
			if end, handled, err = hook(n, obj, i, it.max, out); err != nil {
				return false, err
			}
		}
		if !handled {
			if end, err = skipValue(obj, i, it.max); err != nil {
				return false, err
			}
		}
		it.i = end
		if n < 0 {
			continue
		}
		v := obj[i:end]
		switch {
		case counts != nil:
			counts[n]++
			dup = dup || counts[n] > 1
		default:
			dup = dup || seen&(1<<n) != 0
			seen |= 1 << n
		}
		if p.SkipNull != nil && p.SkipNull[n] && isNullToken(v) {
			continue
		}
		out[n] = v
	}
}

// Match returns the index of the name a decoded key matches, or -1.
func (p *Picker) Match(key []byte) int {
	for i, n := range p.Names {
		if string(key) == n {
			return i
		}
	}
	if !p.Fold {
		return -1
	}
	nonASCII := hasHigh(key)
	for i, n := range p.Names {
		// Case folding keeps the length of ASCII text; only non-ASCII
		// text (the Kelvin sign, the long s) can fold to another length.
		if (len(n) == len(key) || nonASCII || hasHighString(n)) && bytes.EqualFold(key, []byte(n)) {
			return i
		}
	}
	return -1
}

func hasHighString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

func isNullToken(v []byte) bool { return len(v) == 4 && string(v) == "null" }

// FoldsToAny reports whether key, a decoded member key, could match one of
// names under encoding/json's case-insensitive field matching without
// being spelled exactly as it. Non-ASCII keys are assumed to (a few runes,
// such as the Kelvin sign, fold to ASCII letters).
func FoldsToAny(key []byte, names []string) bool {
	for _, c := range key {
		if c >= 0x80 {
			return true
		}
	}
	for _, n := range names {
		if len(n) == len(key) && string(key) != n && bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}

// CollectMember keeps val as out[i] when key, a decoded member key, is
// names[i] (the last of a repeated key wins, as decoding into a struct
// keeps it), and reports whether names still read unambiguously from the
// object: false when key repeats one of them, or could match one only the
// way encoding/json matches struct fields (see FoldsToAny).
func CollectMember(key, val []byte, names []string, out [][]byte) bool {
	for i, n := range names {
		if string(key) == n {
			repeat := out[i] != nil
			out[i] = val
			return !repeat
		}
	}
	return !FoldsToAny(key, names)
}
