package checks

import (
	"bytes"
	"strings"
	"sync"
)

// parsedResult is a tool result read once for every check that reads it:
// column-type-mismatch, missing-column and empty-lookup are each handed the
// same tool_end, and each used to parse it again.
type parsedResult struct {
	raw []byte // a private copy of the result, the cache key
	// node is the result parsed; nil when it is not JSON.
	node *jsonNode
	// trimmed is a string result's text, trimmed; inner is that text
	// parsed when it opens with [ or { or is null, and is JSON; nil
	// otherwise.
	trimmed string
	inner   *jsonNode
}

func readResult(raw []byte) *parsedResult {
	r := &parsedResult{raw: append([]byte(nil), raw...)}
	n, err := parseJSONNode(raw)
	if err != nil {
		return r
	}
	r.node = n
	if n.kind == 's' {
		r.trimmed = strings.TrimSpace(n.str)
		t := r.trimmed
		if strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{") || t == "null" {
			if inner, err := parseJSONText(t); err == nil {
				r.inner = inner
			}
		}
	}
	return r
}

// The result cache holds the last few results read. A result is found by
// its bytes, never by where they are held, so a caller that reuses a
// buffer cannot be handed another result's reading; a reading is a pure
// function of those bytes and is never changed once made, so what the
// cache holds decides only how fast an answer comes, never the answer.
const (
	resultCacheEntries = 4
	// maxCachedResult bounds the results kept: a larger one is read again
	// by each check rather than held.
	maxCachedResult = 2 << 20
)

var resultCache struct {
	mu      sync.Mutex
	entries [resultCacheEntries]*parsedResult
	next    int
}

// parseResult is readResult, remembered.
func parseResult(raw []byte) *parsedResult {
	if len(raw) > maxCachedResult {
		return readResult(raw)
	}
	c := &resultCache
	c.mu.Lock()
	for _, e := range c.entries {
		if e != nil && bytes.Equal(e.raw, raw) {
			c.mu.Unlock()
			return e
		}
	}
	c.mu.Unlock()
	r := readResult(raw)
	c.mu.Lock()
	c.entries[c.next] = r
	c.next = (c.next + 1) % resultCacheEntries
	c.mu.Unlock()
	return r
}
