package replay

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestTextCacheBounded: however many long texts come between two model
// calls (results served one after another), the cache holds at most two
// generations of textGeneration bytes, and every text still decodes as
// without it.
func TestTextCacheBounded(t *testing.T) {
	var c textCache
	body := strings.Repeat("x", 64<<10)
	for i := range 600 {
		raw := strconv.Quote(fmt.Sprintf("result %d %s", i, body))
		got, ok := c.text([]byte(raw))
		want, _ := stringValue([]byte(raw), false)
		if !ok || got != want {
			t.Fatalf("text %d decodes otherwise through the cache", i)
		}
		c.messageHash("tool", i, got)
		held := 0
		for _, gen := range []map[string]cachedText{c.texts, c.oldTexts} {
			for _, x := range gen {
				// A key equal to its text is the text (see text).
				held += len(x.text)
				if x.key != x.text {
					held += len(x.key)
				}
			}
		}
		for _, gen := range []map[hashKey]string{c.hashes, c.oldHashes} {
			for k, h := range gen {
				held += len(k.content) + len(h)
			}
		}
		if held > 2*textGeneration {
			t.Fatalf("after %d texts the cache holds %d bytes, past two generations of %d", i+1, held, textGeneration)
		}
	}
}

// TestBoxedValuesStay: the addresses box hands out keep their values
// however many more are boxed after them, across chunks.
func TestBoxedValuesStay(t *testing.T) {
	var c textCache
	var strs []*string
	var nums []*float64
	for i := range 5*boxChunk + 3 {
		strs = append(strs, box(&c.strs, strconv.Itoa(i)))
		nums = append(nums, box(&c.nums, float64(i)))
	}
	for i := range strs {
		if *strs[i] != strconv.Itoa(i) || *nums[i] != float64(i) {
			t.Fatalf("box %d holds %q and %v, want %d", i, *strs[i], *nums[i], i)
		}
	}
}
