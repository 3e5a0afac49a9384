package replay

import (
	"github.com/fpcheck/fpcheck/internal/jsonfast"
)

// minCachedText is the shortest JSON string worth remembering: shorter
// ones cost less to decode than to look up.
const minCachedText = 64

// textGeneration bounds the bytes one generation of the cache holds (the
// JSON strings, their texts and the contents hashed): a run may serve
// any number of results between two model calls, so a generation that
// fills starts the next one early.
const textGeneration = 8 << 20

// textCache remembers the long strings and message hashes of the last two
// model calls. A run repeats each message's text in every later request
// that carries it (context.injected), in every iteration_end history and
// in the tool result it came from, so without it the same text is decoded,
// allocated and hashed again and again. Entries not used during a whole
// call are forgotten, so the cache holds about what one request holds,
// and at most two generations of textGeneration bytes.
type textCache struct {
	texts, oldTexts   map[string]cachedText
	hashes, oldHashes map[hashKey]string
	// size is the bytes of the current generation.
	size int
	// strs and nums hold the values of the pointer fields of the
	// payloads decoded through the cache (see box).
	strs []string
	nums []float64
}

// boxChunk is how many values one allocation of box holds. A chunk of
// strings is let go at each new generation (rotate), so it holds texts of
// the current one only; a pointer kept would keep its chunk alive, and
// with it the chunk's other texts: small chunks bound what it holds on to.
const boxChunk = 16

// box stores v in the next free element of *chunk and returns its
// address: a payload's optional fields are pointers, as encoding/json
// fills them, and a context.injected payload, which a run holds for every
// message of every request, has two, which took an allocation each. The
// address stays valid (a full chunk is left to the pointers into it, and a
// new one started); the payloads that use it are read and dropped within
// their event, so the values are copied out, never the pointers kept.
func box[T any](chunk *[]T, v T) *T {
	if len(*chunk) == cap(*chunk) {
		*chunk = make([]T, 0, boxChunk)
	}
	*chunk = append(*chunk, v)
	return &(*chunk)[len(*chunk)-1]
}

type cachedText struct {
	// key is the JSON string token without its quotes, the map key: the
	// text itself when the token has no escape, so a plain text is held
	// once; size is the bytes the two hold.
	key  string
	text string
	size int
}

type hashKey struct {
	role    string
	index   int
	content string
}

// rotate starts a new generation, at each model call. The generation let
// go leaves its maps, emptied, to the new one: every call of a run fills
// them to about the same size, and growing new ones at each call was most
// of what the cache allocated. A map that held more than reusedEntries is
// let go instead, so one long call does not leave a large empty map to
// the rest of the run.
func (c *textCache) rotate() {
	texts, hashes := c.oldTexts, c.oldHashes
	if len(texts) > reusedEntries {
		texts = nil
	}
	if len(hashes) > reusedEntries {
		hashes = nil
	}
	clear(texts)
	clear(hashes)
	c.oldTexts, c.texts = c.texts, texts
	c.oldHashes, c.hashes = c.hashes, hashes
	c.size = 0
	// The strings' chunk is left to the pointers into it, so that it
	// holds no text of a generation let go; a number holds no text, and
	// its chunk goes on filling.
	c.strs = nil
}

// reusedEntries is the most entries a generation's map may have held for
// the next generation to reuse it.
const reusedEntries = 1 << 8

// grow counts n more bytes in the current generation, starting the next
// one first when they would not fit.
func (c *textCache) grow(n int) {
	if c.size+n > textGeneration {
		c.rotate()
	}
	c.size += n
}

// text is stringValue(raw, false), remembered for long strings; a nil
// cache remembers nothing.
func (c *textCache) text(raw []byte) (string, bool) {
	if c == nil || len(raw) < minCachedText || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return stringValue(raw, false)
	}
	inner := raw[1 : len(raw)-1]
	if t, ok := c.texts[string(inner)]; ok {
		return t.text, true
	}
	if t, ok := c.oldTexts[string(inner)]; ok {
		c.keepText(t)
		return t.text, true
	}
	s, err := jsonfast.String(raw)
	if err != nil {
		return stringValue(raw, false)
	}
	t := cachedText{key: s, text: s, size: len(s)}
	if s != string(inner) {
		t.key = string(inner)
		t.size += len(t.key)
	}
	c.keepText(t)
	return s, true
}

func (c *textCache) keepText(t cachedText) {
	c.grow(t.size)
	if c.texts == nil {
		c.texts = map[string]cachedText{}
	}
	c.texts[t.key] = t
}

// messageHash is MessageHash, remembered for long contents.
func (c *textCache) messageHash(role string, index int, content string) string {
	if c == nil || len(content) < minCachedText {
		return MessageHash(role, index, content)
	}
	k := hashKey{role, index, content}
	if h, ok := c.hashes[k]; ok {
		return h
	}
	h, ok := c.oldHashes[k]
	if !ok {
		h = MessageHash(role, index, content)
	}
	c.grow(len(content) + len(h))
	if c.hashes == nil {
		c.hashes = map[hashKey]string{}
	}
	c.hashes[k] = h
	return h
}

// text is stringValue(raw, e.slow), through the engine's cache.
func (e *engine) text(raw []byte) (string, bool) {
	if e.slow {
		return stringValue(raw, true)
	}
	return e.cache.text(raw)
}

// messageHash is MessageHash, through the engine's cache.
func (e *engine) messageHash(role string, index int, content string) string {
	if e.slow {
		return MessageHash(role, index, content)
	}
	return e.cache.messageHash(role, index, content)
}
