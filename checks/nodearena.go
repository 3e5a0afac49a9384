package checks

import "sync"

// A nodeArena lends the nodes and lists of trees that are read and dropped
// within one call: a semantic envelope flattened into claim rows, an answer
// and the readings its claims are judged against. Such trees were about a
// tenth of what an armed replay allocated, each container its own
// allocation; an arena's blocks are reused from tree to tree instead.
//
// Nothing lent may be read after the arena is released: a caller copies
// out what it keeps (strings cut out of the parsed text are the text's,
// not the arena's, and stay valid).
type nodeArena struct {
	nodes   blocks[jsonNode]
	members blocks[jsonMember]
	items   blocks[*jsonNode]
}

// blocks hands out runs of T from blocks that are never moved, so what was
// handed out stays where it is until reset.
type blocks[T any] struct {
	list [][]T
	// cur is the block being handed out from, used how much of it is.
	cur, used int
}

// firstBlock is the size of a list's first block; later ones double.
const firstBlock = 64

// take returns n fresh zero values.
func (b *blocks[T]) take(n int) []T {
	for b.cur < len(b.list) && b.used+n > len(b.list[b.cur]) {
		b.cur++
		b.used = 0
	}
	if b.cur == len(b.list) {
		size := firstBlock
		if k := len(b.list); k > 0 {
			size = 2 * len(b.list[k-1])
		}
		b.list = append(b.list, make([]T, max(size, n)))
		b.used = 0
	}
	s := b.list[b.cur][b.used : b.used+n : b.used+n]
	b.used += n
	return s
}

// reset clears what was handed out, so that the blocks hold on to nothing
// a tree pointed at, and hands them out again from the start.
func (b *blocks[T]) reset() {
	for i := 0; i < b.cur && i < len(b.list); i++ {
		clear(b.list[i])
	}
	if b.cur < len(b.list) {
		clear(b.list[b.cur][:b.used])
	}
	b.cur, b.used = 0, 0
}

// size is how many values the blocks hold in all.
func (b *blocks[T]) size() int {
	n := 0
	for _, l := range b.list {
		n += len(l)
	}
	return n
}

func (a *nodeArena) node() *jsonNode { return &a.nodes.take(1)[0] }

// lend copies src into values taken from b.
func lend[T any](b *blocks[T], src []T) []T {
	if len(src) == 0 {
		return nil
	}
	dst := b.take(len(src))
	copy(dst, src)
	return dst
}

// maxArenaNodes bounds the arenas kept for reuse: one that grew past it
// for a huge tree is let go rather than held for good.
const maxArenaNodes = 1 << 14

var arenas = sync.Pool{New: func() any { return new(nodeArena) }}

// borrowArena returns an empty arena; give it back with release.
func borrowArena() *nodeArena { return arenas.Get().(*nodeArena) }

// release empties a and returns it for reuse. Every tree parsed in it is
// gone from then on.
func (a *nodeArena) release() {
	if a.nodes.size() > maxArenaNodes || a.members.size() > maxArenaNodes || a.items.size() > maxArenaNodes {
		return
	}
	a.reset()
	arenas.Put(a)
}

// reset empties a for the next trees.
func (a *nodeArena) reset() {
	a.nodes.reset()
	a.members.reset()
	a.items.reset()
}

// parse is parseJSONNode with the tree lent by a.
func (a *nodeArena) parse(raw []byte) (*jsonNode, error) {
	return parseNodeIn(a, raw, string(raw))
}

// parseText is parseJSONText with the tree lent by a.
func (a *nodeArena) parseText(s string) (*jsonNode, error) {
	return parseNodeIn(a, []byte(s), s)
}
