package synth

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// PackedFormat is the format string of a packed recording.
const PackedFormat = "agentfootprint.recording.packed.v1"

// minPooled is the shortest JSON a repeated value must have to be written
// once and referred to: a reference costs about fifteen bytes.
const minPooled = 64

// Pack packs a plain recording ({snapshot, events, structure}, as JSON)
// the way agentfootprint's packed format is documented: every value that
// occurs at least twice and whose JSON is at least 64 bytes long is written
// once in values and replaced everywhere by {"$af:ref": n}; values refer
// to values; an object of the recording's own with a "$af:ref" or
// "$af:esc" key is written as {"$af:esc": object}. The output is compact.
// It exists so that tests can read packed forms of real recordings; it is
// written from the format's description, not from the library's code.
func Pack(plain []byte) ([]byte, error) {
	root, err := parseTree(plain)
	if err != nil {
		return nil, err
	}
	p := &packer{counts: map[[32]byte]int{}, written: map[[32]byte]int{}}
	p.count(root)
	var out bytes.Buffer
	out.WriteString(`{"format":"` + PackedFormat + `","recording":`)
	p.emit(&out, root)
	out.WriteString(`,"values":[`)
	for i, v := range p.values {
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(v)
	}
	out.WriteString("]}")
	return out.Bytes(), nil
}

// PackMember packs the recording held in the top-level member key of a
// document (an envelope's "recording"), leaving its other members as they
// are (compacted).
func PackMember(doc []byte, key string) ([]byte, error) {
	root, err := parseTree(doc)
	if err != nil {
		return nil, err
	}
	if root.kind != '{' {
		return nil, errors.New("the document is not an object")
	}
	var out bytes.Buffer
	out.WriteByte('{')
	found := false
	for i, k := range root.keys {
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(k)
		out.WriteByte(':')
		kid := root.kids[i]
		if string(k) == strconv.Quote(key) {
			found = true
			var plain bytes.Buffer
			writeTree(&plain, kid)
			packed, err := Pack(plain.Bytes())
			if err != nil {
				return nil, err
			}
			out.Write(packed)
			continue
		}
		writeTree(&out, kid)
	}
	out.WriteByte('}')
	if !found {
		return nil, fmt.Errorf("the document has no %q", key)
	}
	return out.Bytes(), nil
}

// node is one JSON value, its scalars and keys kept as written.
type node struct {
	kind byte // '{', '[', or 's' for any scalar; '"' marks a string
	raw  []byte
	keys [][]byte
	kids []*node
	hash [32]byte
	size int
}

func parseTree(b []byte) (*node, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var raw json.RawMessage
	if err := d.Decode(&raw); err != nil {
		return nil, err
	}
	n, _, err := parseValue(raw, 0)
	return n, err
}

func ws(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func parseString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// parseValue parses the (already valid) JSON value at b[i:].
func parseValue(b []byte, i int) (*node, int, error) {
	i = ws(b, i)
	if i >= len(b) {
		return nil, i, errors.New("unexpected end of JSON")
	}
	h := sha256.New()
	n := &node{}
	switch b[i] {
	case '{', '[':
		n.kind = b[i]
		close := byte('}')
		if n.kind == '[' {
			close = ']'
		}
		h.Write([]byte{n.kind})
		j := ws(b, i+1)
		n.size = 2
		for j < len(b) && b[j] != close {
			if n.kind == '{' {
				kend := parseString(b, j)
				n.keys = append(n.keys, b[j:kend])
				h.Write([]byte(strconv.Itoa(kend - j)))
				h.Write(b[j:kend])
				n.size += kend - j + 1
				j = ws(b, kend) + 1
			}
			kid, end, err := parseValue(b, j)
			if err != nil {
				return nil, end, err
			}
			n.kids = append(n.kids, kid)
			h.Write(kid.hash[:])
			n.size += kid.size
			j = ws(b, end)
			if j < len(b) && b[j] == ',' {
				n.size++
				j = ws(b, j+1)
			}
		}
		copy(n.hash[:], h.Sum(nil))
		return n, j + 1, nil
	case '"':
		end := parseString(b, i)
		n.kind, n.raw = '"', b[i:end]
		n.size = end - i
		h.Write([]byte{'"'})
		h.Write(n.raw)
		copy(n.hash[:], h.Sum(nil))
		return n, end, nil
	}
	j := i
	for j < len(b) && !bytes.ContainsRune([]byte(" \t\r\n,]}"), rune(b[j])) {
		j++
	}
	n.kind, n.raw, n.size = 's', b[i:j], j-i
	h.Write([]byte{'s'})
	h.Write(n.raw)
	copy(n.hash[:], h.Sum(nil))
	return n, j, nil
}

type packer struct {
	counts  map[[32]byte]int
	written map[[32]byte]int
	values  [][]byte
}

func (p *packer) poolable(n *node) bool { return n.kind != 's' && n.size >= minPooled }

// count counts every occurrence of every poolable value, inside repeated
// values too: a value pooled inside a pooled value is referred to from it.
func (p *packer) count(n *node) {
	if p.poolable(n) {
		p.counts[n.hash]++
	}
	for _, k := range n.kids {
		p.count(k)
	}
}

func (p *packer) emit(out *bytes.Buffer, n *node) {
	if !p.poolable(n) || p.counts[n.hash] < 2 {
		p.expand(out, n)
		return
	}
	idx, ok := p.written[n.hash]
	if !ok {
		idx = len(p.values)
		p.written[n.hash] = idx
		p.values = append(p.values, nil)
		var v bytes.Buffer
		p.expand(&v, n)
		p.values[idx] = v.Bytes()
	}
	fmt.Fprintf(out, `{"$af:ref":%d}`, idx)
}

func (p *packer) expand(out *bytes.Buffer, n *node) {
	reserved := false
	for _, k := range n.keys {
		if s := decodeString(k); s == "$af:ref" || s == "$af:esc" {
			reserved = true
		}
	}
	if reserved {
		out.WriteString(`{"$af:esc":`)
	}
	writeNode(out, n, p.emit)
	if reserved {
		out.WriteByte('}')
	}
}

// writeNode writes one value compactly, its members by member.
func writeNode(out *bytes.Buffer, n *node, member func(*bytes.Buffer, *node)) {
	switch n.kind {
	case '"', 's':
		out.Write(n.raw)
	case '[':
		out.WriteByte('[')
		for i, k := range n.kids {
			if i > 0 {
				out.WriteByte(',')
			}
			member(out, k)
		}
		out.WriteByte(']')
	default:
		out.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				out.WriteByte(',')
			}
			out.Write(k)
			out.WriteByte(':')
			member(out, n.kids[i])
		}
		out.WriteByte('}')
	}
}

func decodeString(raw []byte) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// writeTree writes a value compactly, as it was.
func writeTree(out *bytes.Buffer, n *node) { writeNode(out, n, writeTree) }
