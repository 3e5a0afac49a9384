package checks

import (
	"strings"
	"sync"
)

// Lower-casing is how an argument is looked up in what the run served
// (case-insensitive substring: strings.Contains(strings.ToLower(text),
// strings.ToLower(value))). The texts are the long part: every message of a
// frame, for every argument of every call, and the same messages again in
// the next frame, which carries most of the last one. So each text is
// lowered once per judgement (lowerMemo) and the lowered form of a long
// text is kept across judgements (lowerCache), keyed by the text itself.
// Both only remember strings.ToLower's answers, so they change how fast a
// verdict comes and never what it is.

const (
	// minLowerCached is the shortest text worth remembering: a shorter one
	// costs less to lower than to look up.
	minLowerCached = 64
	// lowerGeneration bounds the bytes (texts and their lowered forms) one
	// generation of the cache holds. A full generation becomes the old one
	// and the one before it is dropped, so at most two are held; a text
	// found in the old generation moves to the new one.
	lowerGeneration = 4 << 20
	// maxLowerCached is the longest text kept.
	maxLowerCached = lowerGeneration / 8
)

// textLowerer remembers lowered texts in two generations of at most limit
// bytes each.
type textLowerer struct {
	limit    int
	mu       sync.Mutex
	cur, old map[string]string
	size     int // bytes held by cur
}

var lowerCache = textLowerer{limit: lowerGeneration}

// lowerText is strings.ToLower(s), remembered for long texts.
func lowerText(s string) string {
	if len(s) < minLowerCached || len(s) > maxLowerCached {
		return strings.ToLower(s)
	}
	return lowerCache.lower(s)
}

func (c *textLowerer) lower(s string) string {
	c.mu.Lock()
	if low, ok := c.cur[s]; ok {
		c.mu.Unlock()
		return low
	}
	low, ok := c.old[s]
	if ok {
		delete(c.old, s)
		c.keep(s, low)
	}
	c.mu.Unlock()
	if ok {
		return low
	}
	low = strings.ToLower(s)
	c.mu.Lock()
	c.keep(s, low)
	c.mu.Unlock()
	return low
}

// keep adds a text to the current generation, starting a new one when it
// is full; c.mu is held.
func (c *textLowerer) keep(s, low string) {
	n := len(s) + len(low)
	if c.cur == nil || c.size+n > c.limit {
		c.old, c.cur, c.size = c.cur, map[string]string{}, 0
	}
	c.cur[s] = low
	c.size += n
}

// lowerMemo lowers a list of texts, each at most once: one judgement looks
// many values up in the same texts.
type lowerMemo struct {
	texts []string
	low   []string
	done  []bool
}

func newLowerMemo(texts []string) *lowerMemo {
	return &lowerMemo{texts: texts, low: make([]string, len(texts)), done: make([]bool, len(texts))}
}

// at is the lowered form of texts[i].
func (m *lowerMemo) at(i int) string {
	if !m.done[i] {
		m.low[i], m.done[i] = lowerText(m.texts[i]), true
	}
	return m.low[i]
}
