package recording

import (
	"bytes"
	"hash/maphash"
	"unsafe"

	"github.com/fpcheck/fpcheck/internal/prefault"
)

// verdicts remembers the payloads one decoder has validated in the run it
// is decoding, so that a payload written again byte for byte takes the
// verdict of its first copy instead of being scanned again: agentfootprint
// re-sends the conversation, and a real run repeats about a quarter of its
// payload bytes (38 % of its context.injected). Nothing is accepted without
// validation: a payload is taken only when its bytes equal, from the first
// to the last, an object validated before at the same depth and for the
// same schema, and a valid object ends where its last brace is.
//
// A payload is looked up by a hash of its first bytes, before its end is
// known; a candidate is compared with the bytes that follow. A miss costs
// that hash and, for a payload worth keeping, a copy, so the cache starts
// only once the decoder has read verdictWarmup bytes: a small input does
// not pay for a cache it would not fill. Its bytes are bounded by
// verdictBudget; a decoder that meets another run's events starts afresh.
//
// Only some event types repeat their payloads (context.injected re-sends
// the conversation; a model call's or a result's payload names its own
// iteration or call), and copying the others costs more than their rare
// hits save. So each schema is probed: once verdictProbe of its payloads
// were kept and fewer than one in verdictHitRatio was met again, its
// payloads are neither kept nor looked up, until verdictReprobe more have
// gone by and it is probed afresh.
type verdicts struct {
	// eager starts the cache at the first line (tests).
	eager bool
	seen  int64
	seed  maphash.Seed
	sets  *[verdictSets][verdictWays]verdict
	next  [verdictSets]uint8
	gen   uint32
	run   string
	held  int
	hits  int64
	// fresh is the verdict kept for the line being decoded, whose run is
	// known only after its payload.
	fresh *verdict
	// stats are the probes of each schema (nil: payloads of types without
	// one).
	stats map[*compiledSchema]*verdictStat
}

// verdictStat is how a schema's payloads have fared in the cache.
type verdictStat struct {
	kept, hits, skipped int
}

// off reports whether payloads of the schema are not worth keeping.
func (s *verdictStat) off() bool {
	return s.kept >= verdictProbe && s.hits*verdictHitRatio < s.kept
}

func (c *verdicts) stat(sc *compiledSchema) *verdictStat {
	st := c.stats[sc]
	if st == nil {
		if c.stats == nil {
			c.stats = map[*compiledSchema]*verdictStat{}
		}
		st = &verdictStat{}
		c.stats[sc] = st
	}
	return st
}

// verdict is one validated payload.
type verdict struct {
	gen   uint32
	key   uint64
	depth int
	sc    *compiledSchema
	body  []byte
	// fields are where the values of sc's fields are in body, as the
	// validating pass collected them (see indexOf).
	fields PayloadIndex
	// indexable is the payload's as the validating pass found it (see
	// members.go).
	indexable bool
}

const (
	verdictSets   = 256
	verdictWays   = 4
	verdictPrefix = 64
	// verdictMin is the shortest payload kept: shorter ones cost less to
	// validate than to look up. verdictMax keeps one payload from taking
	// the budget.
	verdictMin    = 128
	verdictMax    = 64 << 10
	verdictBudget = 1 << 20
	verdictWarmup = 256 << 10

	verdictProbe    = 256
	verdictHitRatio = 16
	verdictReprobe  = 64 << 10
)

// line counts a line read, and notes the run its event belongs to.
func (c *verdicts) line(n int) {
	c.seen += int64(n)
	c.fresh = nil
	if c.sets == nil && (c.eager || c.seen >= verdictWarmup) {
		c.sets = new([verdictSets][verdictWays]verdict)
		prefault.Memory(unsafe.Pointer(c.sets), unsafe.Sizeof(*c.sets))
		c.seed = maphash.MakeSeed()
	}
}

// inRun forgets every verdict when run is not the run they were kept in.
func (c *verdicts) inRun(run string) {
	if run != c.run {
		c.run = run
		c.gen++
		if c.fresh != nil {
			c.fresh.gen = c.gen
		}
	}
}

func (c *verdicts) on() bool { return c.sets != nil }

// find returns the verdict of a payload validated before that the bytes
// of b from i on start with, at depth for sc.
func (c *verdicts) find(b []byte, i, depth int, sc *compiledSchema) (*verdict, bool) {
	if c.sets == nil || len(b)-i < verdictMin || depth <= 0 {
		return nil, false
	}
	st := c.stat(sc)
	if st.off() {
		return nil, false
	}
	key := maphash.Bytes(c.seed, b[i:i+verdictPrefix])
	set := &c.sets[key%verdictSets]
	for w := range set {
		v := &set[w]
		if v.gen == c.gen && v.key == key && v.depth == depth && v.sc == sc &&
			len(b)-i >= len(v.body) && bytes.Equal(b[i:i+len(v.body)], v.body) {
			c.hits++
			st.hits++
			return v, true
		}
	}
	return nil, false
}

// keep remembers b[i:end], a payload just validated at depth for sc, with
// the values of sc's fields it holds (slices of b) and whether it can be
// indexed.
func (c *verdicts) keep(b []byte, i, end, depth int, sc *compiledSchema, fields [][]byte, indexable bool) {
	n := end - i
	if c.sets == nil || n < verdictMin || n > verdictMax || depth <= 0 {
		return
	}
	st := c.stat(sc)
	if st.off() {
		if st.skipped++; st.skipped >= verdictReprobe {
			*st = verdictStat{}
		}
		return
	}
	st.kept++
	key := maphash.Bytes(c.seed, b[i:i+verdictPrefix])
	s := key % verdictSets
	// The fields are slices of b[i:end]: the index made of them is where
	// each is in any payload of the same bytes.
	var ix PayloadIndex
	if sc != nil {
		var ok bool
		if ix, ok = indexOf(sc, b[i:end], fields); !ok {
			return
		}
	}
	v := &c.sets[s][c.next[s]]
	body := v.body
	if cap(body) < n {
		if c.held-cap(body)+n > verdictBudget {
			return
		}
		c.held += n - cap(body)
		body = make([]byte, n)
	}
	c.next[s] = (c.next[s] + 1) % verdictWays
	body = body[:n]
	copy(body, b[i:end])
	*v = verdict{gen: c.gen, key: key, depth: depth, sc: sc, body: body, fields: ix, indexable: indexable}
	c.fresh = v
}

// restore sets fields to the values of the payload's schema fields in p,
// the bytes equal to v's.
func (v *verdict) restore(p []byte, fields [][]byte) {
	for k := range fields {
		fields[k] = nil
		if o := v.fields.at[k]; o[1] != 0 {
			fields[k] = p[o[0]:o[1]]
		}
	}
}
