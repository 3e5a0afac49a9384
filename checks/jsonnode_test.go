package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// refNode and parseRefNode are the token-by-token decoder parseJSONNode
// replaced, kept as the reference it must agree with on every input.
type refNode struct {
	kind   byte
	keys   []string
	fields map[string]*refNode
	items  []*refNode
	str    string
	num    float64
	b      bool
}

func parseRefNode(raw []byte) (*refNode, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	n, err := decodeRefNode(dec)
	if err != nil {
		return nil, err
	}
	// More stops at a closing bracket, so it cannot see "1 ] prose": the
	// rest of the input must be white space.
	if len(bytes.TrimLeft(raw[dec.InputOffset():], " \t\r\n")) > 0 {
		return nil, fmt.Errorf("trailing data")
	}
	return n, nil
}

func decodeRefNode(dec *json.Decoder) (*refNode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			n := &refNode{kind: 'o', fields: map[string]*refNode{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeRefNode(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := n.fields[k]; !dup {
					n.keys = append(n.keys, k)
				}
				n.fields[k] = v // the last duplicate wins, as in JSON.parse
			}
			_, err := dec.Token()
			return n, err
		}
		n := &refNode{kind: 'a'}
		for dec.More() {
			v, err := decodeRefNode(dec)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
		}
		_, err := dec.Token()
		return n, err
	case string:
		return &refNode{kind: 's', str: t}, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !isRangeErr(err) {
			return nil, err
		}
		return &refNode{kind: 'n', num: f}, nil
	case bool:
		return &refNode{kind: 'b', b: t}, nil
	}
	return &refNode{kind: 'z'}, nil
}

// diffNode describes the first difference between a reference tree and a
// parsed one, or returns "". The path is only built on the way back from a
// difference: the trees can be nested thousands of levels deep.
func diffNode(want *refNode, got *jsonNode) string {
	switch {
	case want == nil && got == nil:
		return ""
	case want == nil || got == nil:
		return fmt.Sprintf(": want %v, got %v", want, got)
	case want.kind != got.kind:
		return fmt.Sprintf(": kind %c, got %c", want.kind, got.kind)
	}
	switch want.kind {
	case 'o':
		if len(want.keys) != len(got.members) || len(want.fields) != len(got.members) {
			return fmt.Sprintf(": keys %q, got %q", want.keys, got.keyList())
		}
		for i, k := range want.keys {
			if got.members[i].key != k {
				return fmt.Sprintf(": key %d is %q, got %q", i, k, got.members[i].key)
			}
			v, ok := got.lookup(k)
			if !ok || v != got.members[i].val {
				return fmt.Sprintf(": lookup of %q misses its member", k)
			}
			if d := diffNode(want.fields[k], v); d != "" {
				return "." + k + d
			}
		}
		if _, ok := got.lookup("\x00absent"); ok && want.fields["\x00absent"] == nil {
			return ": lookup finds a key it does not hold"
		}
	case 'a':
		if len(want.items) != len(got.items) {
			return fmt.Sprintf(": %d items, got %d", len(want.items), len(got.items))
		}
		for i := range want.items {
			if d := diffNode(want.items[i], got.items[i]); d != "" {
				return fmt.Sprintf("[%d]%s", i, d)
			}
		}
	case 's':
		if want.str != got.str {
			return fmt.Sprintf(": string %q, got %q", want.str, got.str)
		}
	case 'n':
		if math.Float64bits(want.num) != math.Float64bits(got.num) {
			return fmt.Sprintf(": number %v, got %v", want.num, got.num)
		}
	case 'b':
		if want.b != got.b {
			return fmt.Sprintf(": %v, got %v", want.b, got.b)
		}
	}
	return ""
}

// testArena is reused from input to input, as a pooled arena is: a tree
// parsed in it after a reset must not see anything of the trees before.
var testArena nodeArena

// agreeWithReference fails t unless parseJSONNode and parseJSONText give
// the reference's answer on in, allocated or lent by an arena.
func agreeWithReference(t *testing.T, in []byte) {
	t.Helper()
	want, wantErr := parseRefNode(in)
	for _, via := range []string{"bytes", "text", "arena", "arena text"} {
		var got *jsonNode
		var err error
		switch via {
		case "bytes":
			got, err = parseJSONNode(in)
		case "text":
			got, err = parseJSONText(string(in))
		case "arena":
			testArena.reset()
			got, err = testArena.parse(in)
		default:
			// A second tree in the same arena leaves the first as it was.
			first, _ := testArena.parse(in)
			got, err = testArena.parseText(string(in))
			if first != nil && got != nil && err == nil {
				if d := diffNode(want, first); d != "" {
					t.Fatalf("%s %q: the first tree changed: $%s", via, clipBytes(in), d)
				}
			}
		}
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%s %q: error %v, the reference's %v", via, clipBytes(in), err, wantErr)
		}
		if err != nil {
			continue
		}
		if got == nil {
			t.Fatalf("%s %q: no value and no error", via, clipBytes(in))
		}
		if d := diffNode(want, got); d != "" {
			t.Fatalf("%s %q: $%s", via, clipBytes(in), d)
		}
	}
}

func clipBytes(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

var parseSeeds = []string{
	``, ` `, "\t\n\r ", `null`, `true`, `false`, `nul`, `tru`, `truex`, `true]`, `true}`, `null null`,
	`0`, `-0`, `01`, `[01]`, `0]`, `1 ]`, `1 ] garbage`, `1}`, `1 2`, `1,`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`,
	`1.5e3`, `0.1`, `-0.0e0`, `123456789012345678`, `1e999`, `-1e999`, `1e-400`, `1E400`, `9007199254740993`,
	`""`, `"abc"`, `"a"x`, `"a"]`, `"\u00e9\n\t\"\\\/"`, `"\ud800"`, `"\ud83d\ude00"`, `"\udc00\ud800x"`,
	"\"\xff\xfe\"", "\"caf\xc3\xa9\"", "\"\x01\"", `"\x"`, `"\u12"`, `"abc`,
	`[]`, `[ ]`, `[1,]`, `[,1]`, `[1 2]`, `[1,2,3]`, `[[],[[]]]`, `[1]]`, `[1]}x`, `[`, `]`,
	`{}`, `{ }`, `{"a":1}`, `{"a" 1}`, `{"a":}`, `{,}`, `{"a":1,}`, `{1:2}`, `{"a":1 "b":2}`, `{"a":1}}`,
	`{"a":1,"a":2,"b":3,"a":4}`, `{"a":{"a":1},"a":[1]}`, `{"\u0061":1,"a":2}`, `{"":0,"":null}`,
	`{"k":[1,{"b":null,"c":"x"}],"z":false}`, " {\"a\" : [ 1 , 2 ] } \n",
	`{"kind":"known","value":"42.50"}`,
}

func TestParseJSONNodeAgreesWithReference(t *testing.T) {
	for _, s := range parseSeeds {
		agreeWithReference(t, []byte(s))
	}
	// Objects large enough to be indexed, with repeated keys.
	var big strings.Builder
	big.WriteByte('{')
	for i := 0; i < 3*indexedMembers; i++ {
		if i > 0 {
			big.WriteByte(',')
		}
		fmt.Fprintf(&big, `"k%d":%d`, i%(2*indexedMembers), i)
	}
	big.WriteByte('}')
	agreeWithReference(t, []byte(big.String()))
	agreeWithReference(t, []byte("["+big.String()+","+big.String()+"]"))
}

// TestParseJSONNodeDepth: the token reader had no nesting limit, so a
// value nested deeper than encoding/json's own limit still parses.
func TestParseJSONNodeDepth(t *testing.T) {
	for _, depth := range []int{10000, 10001} {
		open, closing := strings.Repeat(`[{"a":`, depth), strings.Repeat(`}]`, depth)
		agreeWithReference(t, []byte(open+"1"+closing))
		agreeWithReference(t, []byte(open+"1"+closing[1:]))
		agreeWithReference(t, []byte(strings.Repeat("[", depth)+strings.Repeat("]", depth)))
	}
}

func FuzzParseJSONNode(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		agreeWithReference(t, in)
	})
}
