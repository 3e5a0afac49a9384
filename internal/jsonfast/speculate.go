package jsonfast

import (
	"bytes"
	"errors"
	"math/bits"
)

// Speculative scanning lets a second goroutine validate a later part of a
// large JSON text while the first is still on an earlier part. A chunk
// must start where a value starts; the speculating Scanner reads it
// without knowing the containers it is nested in, notes what it needs to
// assume about them (their kinds, told by a closing bracket or by what
// follows a comma) and how deep it went, and the Scanner that reaches the
// chunk's start checks those assumptions against what it knows before it
// takes the chunk's effect instead of reading the bytes. When anything
// does not fit (an error in the chunk, an assumption that fails, a chunk
// that ends the value being scanned) the chunk is read as usual, so the
// answer, error and offset included, is always that of reading every
// byte.

// speculateFloor is the number of unknown containers a speculating
// Scanner starts inside: a chunk may close at most that many.
const speculateFloor = 1 << 12

// errSpeculation stops a speculation that cannot go on without knowing
// what precedes its chunk.
var errSpeculation = errors.New("speculation needs what precedes the chunk")

// speculation is the bookkeeping of a speculating Scanner.
type speculation struct {
	look    []byte // the chunk and what follows it, for a look past a comma
	lowest  int    // the fewest containers open at any point
	highest int    // the most
	// known and kinds describe the containers opened before the chunk
	// (levels below speculateFloor) that the chunk closed or named: bit
	// speculateFloor-1-level.
	known, kinds []uint64
}

// kindAt is the kind of the unknown container at level, where the byte at
// look[i] follows one of its values: a closing bracket tells it, and after
// a comma a key (a string and a colon) tells an object from an array.
func (sp *speculation) kindAt(level, i int) (obj, ok bool) {
	k := speculateFloor - 1 - level
	if k < len(sp.known)*64 && sp.known[k>>6]>>(k&63)&1 != 0 {
		return sp.kinds[k>>6]>>(k&63)&1 != 0, true
	}
	b := sp.look
	switch b[i] {
	case '}':
		obj = true
	case ']':
	case ',':
		j := skipSpace(b, i+1)
		if j >= len(b) {
			return false, false
		}
		if b[j] == '"' {
			e, r := scanStr(b, j+1)
			if r&strClosed == 0 {
				return false, false
			}
			e = skipSpace(b, e)
			if e >= len(b) {
				return false, false
			}
			obj = b[e] == ':'
		}
	default:
		return false, true // a syntax error follows; the kind does not matter
	}
	for len(sp.known) <= k>>6 {
		sp.known, sp.kinds = append(sp.known, 0), append(sp.kinds, 0)
	}
	sp.known[k>>6] |= 1 << (k & 63)
	if obj {
		sp.kinds[k>>6] |= 1 << (k & 63)
	}
	return obj, true
}

func (s *Scanner) failSpeculation(i int) error {
	s.st = stFailed
	s.err = &SyntaxError{Offset: s.off + int64(i), Msg: errSpeculation.Error()}
	return s.err
}

// ChunkSummary is what scanning one chunk of a JSON text did, for a
// Scanner to take over with Apply.
type ChunkSummary struct {
	n               int
	lowest, highest int
	depth           int
	st              uint8
	known, kinds    []uint64 // as in speculation
	open            []uint64 // kinds of the containers open at the end, from level lowest up
}

// Len is the number of bytes the chunk spans.
func (c *ChunkSummary) Len() int { return c.n }

// SafePoint returns the index of the first value start at or after from
// that cannot be inside a string of valid JSON, or -1: an opening brace
// followed by a quote and a letter or underscore, or by a raw line break or
// tab. Inside a string that quote would end the string, and a letter cannot
// follow a string; a raw line break or tab cannot be inside a string at
// all. (The second kind is what an indented document has.)
func SafePoint(b []byte, from int) int {
	for i := max(from, 0); i+2 < len(b); i++ {
		j := bytes.IndexByte(b[i:len(b)-2], '{')
		if j < 0 {
			return -1
		}
		i += j
		if c := b[i+1]; c == '\n' || c == '\r' || c == '\t' {
			return i
		}
		if b[i+1] == '"' {
			if c := b[i+2] | 0x20; 'a' <= c && c <= 'z' || b[i+2] == '_' {
				return i
			}
		}
	}
	return -1
}

// Speculate scans the chunk b[:end], where b[0] starts a value, as a part
// of a larger JSON text whose earlier part it does not see; b[end:] may
// only be looked at, to tell the kind of a container from what follows a
// comma. b[end] must start a value too (a SafePoint). ok is false when the
// chunk cannot be summarized: it holds an error, or needs more than it
// can see.
func Speculate(b []byte, end int) (sum ChunkSummary, ok bool) {
	if end <= 0 || end >= len(b) {
		return ChunkSummary{}, false
	}
	sp := &speculation{look: b, lowest: speculateFloor, highest: speculateFloor}
	s := Scanner{max: speculateFloor + MaxDepth, depth: speculateFloor, st: stValue, spec: sp}
	i, done, err := s.scan(b[:end], 0, false)
	if err != nil || done || i != end || s.st != stValue && s.st != stElemOrEnd {
		return ChunkSummary{}, false
	}
	sum = ChunkSummary{n: end, lowest: sp.lowest, highest: sp.highest, depth: s.depth, st: s.st, known: sp.known, kinds: sp.kinds}
	for l := sp.lowest; l < s.depth; l++ {
		k := l - sp.lowest
		for len(sum.open) <= k>>6 {
			sum.open = append(sum.open, 0)
		}
		if s.isObject(l) {
			sum.open[k>>6] |= 1 << (k & 63)
		}
	}
	return sum, true
}

// Apply takes the effect of the chunk c, which starts at the next byte s
// would read, as scanning its bytes would, and reports whether it could.
// It cannot when s is not where a value starts, when the chunk ends the
// value s scans, when it would nest deeper than s allows, or when what it
// assumed of the containers around it is not what s knows; s is then
// unchanged and the chunk must be scanned.
func (s *Scanner) Apply(c *ChunkSummary) bool {
	if s.spec != nil || s.st != stValue && s.st != stElemOrEnd || c.n == 0 {
		return false
	}
	limit := s.max
	if limit <= 0 {
		limit = MaxDepth
	}
	shift := s.depth - speculateFloor
	if shift+c.lowest < 1 || shift+c.highest > limit {
		return false
	}
	for w, set := range c.known {
		for set != 0 {
			b := bits.TrailingZeros64(set)
			set &= set - 1
			k := w*64 + b
			level := shift + speculateFloor - 1 - k
			if level < 0 || s.isObject(level) != (c.kinds[w]>>b&1 != 0) {
				return false
			}
		}
	}
	for l := c.lowest; l < c.depth; l++ {
		k := l - c.lowest
		s.setKind(shift+l, c.open[k>>6]>>(k&63)&1 != 0)
	}
	s.depth = shift + c.depth
	s.st = c.st
	s.off += int64(c.n)
	return true
}
