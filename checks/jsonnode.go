package checks

import (
	"bytes"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
)

// jsonNode is a decoded JSON value that keeps numbers exact and object keys
// in the order written: claims compare values the way agentfootprint does,
// and messages quote them as the answer wrote them.
//
// A parsed tree may be shared (ReadRowset hands the same rows to both
// column checks), so nothing mutates a node after parseJSONNode returns it.
type jsonNode struct {
	kind byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	// members are an object's distinct keys in the order they were first
	// written, each with the value of its last occurrence, as JSON.parse
	// keeps it.
	members []jsonMember
	// index finds a member of a large object without a scan.
	index map[string]int
	items []*jsonNode
	// str is a string's value, or a number's literal as written.
	str string
	num float64
	b   bool
}

// jsonMember is one key of an object and its value.
type jsonMember struct {
	key string
	val *jsonNode
}

// indexedMembers is the member count from which an object gets an index:
// below it a scan of the keys is cheaper than hashing.
const indexedMembers = 12

// lookup returns the value of key k of an object, and whether it has one;
// anything but an object has no keys.
func (n *jsonNode) lookup(k string) (*jsonNode, bool) {
	if n.index != nil {
		i, ok := n.index[k]
		if !ok {
			return nil, false
		}
		return n.members[i].val, true
	}
	for i := range n.members {
		if n.members[i].key == k {
			return n.members[i].val, true
		}
	}
	return nil, false
}

// field is the value of key k, nil when absent.
func (n *jsonNode) field(k string) *jsonNode {
	v, _ := n.lookup(k)
	return v
}

// keyList is an object's keys in written order, in a fresh slice.
func (n *jsonNode) keyList() []string {
	keys := make([]string, len(n.members))
	for i, m := range n.members {
		keys[i] = m.key
	}
	return keys
}

var errTrailingData = errors.New("trailing data")

// parseJSONNode decodes one JSON value. It accepts exactly what a
// json.Decoder read token by token accepts (the answers were fixed when
// values were first decoded that way, and changing them would change which
// answers, readings and results are judged): one valid value after optional
// white space, nested to any depth, followed by nothing but white space
// until the end or a closing bracket or brace (the decoder stops looking
// there). Strings decode as encoding/json decodes them, numbers as
// strconv.ParseFloat reads them (a number past float64's range is ±Inf,
// not an error), and a repeated key keeps its first position and its last
// value.
func parseJSONNode(raw []byte) (*jsonNode, error) {
	return parseNode(raw, string(raw))
}

// parseJSONText is parseJSONNode on text.
func parseJSONText(s string) (*jsonNode, error) {
	return parseNode([]byte(s), s)
}

// parseNode parses b, whose text s also is: strings without escapes are
// cut out of s instead of copied one by one.
func parseNode(b []byte, s string) (*jsonNode, error) {
	return parseNodeIn(nil, b, s)
}

// parseNodeIn is parseNode with the tree's nodes and containers lent by
// a, or allocated when a is nil.
func parseNodeIn(a *nodeArena, b []byte, s string) (*jsonNode, error) {
	start := jsonfast.SkipSpace(b, 0)
	// Validate the whole value first, with no depth limit but the input's
	// length, as the token reader had none; the walk below then only reads.
	end, err := jsonfast.SkipValueDepth(b, start, len(b))
	if err != nil {
		return nil, err
	}
	// Text after the value means the input is not one JSON value: an
	// answer followed by prose is prose, whatever its first bytes are.
	if k := jsonfast.SkipSpace(b, end); k < len(b) {
		return nil, errTrailingData
	}
	p := nodeParser{b: b[:end], s: s[:end], arena: a}
	n, _, err := p.value(start)
	if err != nil {
		return nil, err
	}
	return n, nil
}

// nodeParser walks one validated value. Nodes come from slabs, and the
// members and items of the containers being built wait on two scratch
// stacks, so each container costs one exact allocation.
type nodeParser struct {
	b       []byte
	s       string
	slab    []jsonNode
	nextLen int
	members []jsonMember
	items   []*jsonNode
	// arena, when set, lends the nodes and the containers' lists.
	arena *nodeArena
}

// maxSlab bounds a slab: slabs double from 8 nodes, so a small value wastes
// little and a large one allocates rarely.
const maxSlab = 512

func (p *nodeParser) node() *jsonNode {
	if p.arena != nil {
		return p.arena.node()
	}
	if len(p.slab) == 0 {
		switch {
		case p.nextLen == 0:
			p.nextLen = 8
		case p.nextLen < maxSlab:
			p.nextLen *= 2
		}
		p.slab = make([]jsonNode, p.nextLen)
	}
	n := &p.slab[0]
	p.slab = p.slab[1:]
	return n
}

// errMalformed reports a walk that met something validation should have
// refused; it means a bug, never bad input.
var errMalformed = errors.New("malformed JSON value")

// value parses the value at b[i] (no white space before it) and returns it
// with the index just after it.
func (p *nodeParser) value(i int) (*jsonNode, int, error) {
	if i >= len(p.b) {
		return nil, i, errMalformed
	}
	switch c := p.b[i]; c {
	case '{':
		return p.object(i)
	case '[':
		return p.array(i)
	case '"':
		str, end, err := p.str(i)
		if err != nil {
			return nil, end, err
		}
		n := p.node()
		n.kind, n.str = 's', str
		return n, end, nil
	case 't':
		n := p.node()
		n.kind, n.b = 'b', true
		return n, i + 4, nil
	case 'f':
		n := p.node()
		n.kind = 'b'
		return n, i + 5, nil
	case 'n':
		n := p.node()
		n.kind = 'z'
		return n, i + 4, nil
	}
	j := i
	for j < len(p.b) && isNumberByte(p.b[j]) {
		j++
	}
	f, err := strconv.ParseFloat(p.s[i:j], 64)
	if err != nil && !isRangeErr(err) {
		return nil, j, err
	}
	n := p.node()
	n.kind, n.num, n.str = 'n', f, p.s[i:j]
	return n, j, nil
}

func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// str decodes the string token at b[i]: cut out of s when it holds no
// escape and is valid UTF-8, else decoded as encoding/json decodes it.
func (p *nodeParser) str(i int) (string, int, error) {
	end, err := jsonfast.SkipValue(p.b, i)
	if err != nil {
		return "", end, err
	}
	body := p.b[i+1 : end-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return p.s[i+1 : end-1], end, nil
	}
	s, err := jsonfast.String(p.b[i:end])
	return s, end, err
}

func (p *nodeParser) object(i int) (*jsonNode, int, error) {
	n := p.node()
	n.kind = 'o'
	base := len(p.members)
	var index map[string]int
	i = jsonfast.SkipSpace(p.b, i+1)
	if i < len(p.b) && p.b[i] == '}' {
		return n, i + 1, nil
	}
	for {
		if i >= len(p.b) || p.b[i] != '"' {
			return nil, i, errMalformed
		}
		key, end, err := p.str(i)
		if err != nil {
			return nil, end, err
		}
		i = jsonfast.SkipSpace(p.b, end)
		if i >= len(p.b) || p.b[i] != ':' {
			return nil, i, errMalformed
		}
		v, end, err := p.value(jsonfast.SkipSpace(p.b, i+1))
		if err != nil {
			return nil, end, err
		}
		mine := p.members[base:]
		at := -1
		if index != nil {
			if k, ok := index[key]; ok {
				at = k
			}
		} else {
			for k := range mine {
				if mine[k].key == key {
					at = k
					break
				}
			}
		}
		switch {
		case at >= 0:
			mine[at].val = v // the last duplicate wins, as in JSON.parse
		default:
			p.members = append(p.members, jsonMember{key: key, val: v})
			count := len(p.members) - base
			switch {
			case index != nil:
				index[key] = count - 1
			case count >= indexedMembers:
				index = make(map[string]int, 2*count)
				for k, m := range p.members[base:] {
					index[m.key] = k
				}
			}
		}
		i = jsonfast.SkipSpace(p.b, end)
		if i < len(p.b) && p.b[i] == ',' {
			i = jsonfast.SkipSpace(p.b, i+1)
			continue
		}
		if i >= len(p.b) || p.b[i] != '}' {
			return nil, i, errMalformed
		}
		n.members = p.keepMembers(p.members[base:])
		n.index = index
		clear(p.members[base:])
		p.members = p.members[:base]
		return n, i + 1, nil
	}
}

func (p *nodeParser) array(i int) (*jsonNode, int, error) {
	n := p.node()
	n.kind = 'a'
	base := len(p.items)
	i = jsonfast.SkipSpace(p.b, i+1)
	if i < len(p.b) && p.b[i] == ']' {
		return n, i + 1, nil
	}
	for {
		v, end, err := p.value(i)
		if err != nil {
			return nil, end, err
		}
		p.items = append(p.items, v)
		i = jsonfast.SkipSpace(p.b, end)
		if i < len(p.b) && p.b[i] == ',' {
			i = jsonfast.SkipSpace(p.b, i+1)
			continue
		}
		if i >= len(p.b) || p.b[i] != ']' {
			return nil, i, errMalformed
		}
		n.items = p.keepItems(p.items[base:])
		clear(p.items[base:])
		p.items = p.items[:base]
		return n, i + 1, nil
	}
}

// keepMembers is a container's own copy of ms.
func (p *nodeParser) keepMembers(ms []jsonMember) []jsonMember {
	if p.arena != nil {
		return lend(&p.arena.members, ms)
	}
	return append([]jsonMember(nil), ms...)
}

// keepItems is a container's own copy of items.
func (p *nodeParser) keepItems(items []*jsonNode) []*jsonNode {
	if p.arena != nil {
		return lend(&p.arena.items, items)
	}
	return append([]*jsonNode(nil), items...)
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}
