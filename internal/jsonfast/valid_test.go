package jsonfast

import (
	"encoding/json"
	"errors"
	"math/bits"
	"strings"
	"testing"
)

// validCases are tricky inputs with json.Valid's answer.
var validCases = []struct {
	in   string
	want bool
}{
	{``, false},
	{` `, false},
	{`null`, true},
	{` null `, true},
	{"\t\r\n null \n", true},
	{"\fnull", false},
	{"\u00a0null", false},
	{`nul`, false},
	{`nulll`, false},
	{`true`, true},
	{`True`, false},
	{`false`, true},
	{`fals`, false},
	{`0`, true},
	{`-0`, true},
	{`-0.0e-0`, true},
	{`01`, false},
	{`-01`, false},
	{`00`, false},
	{`1.`, false},
	{`.1`, false},
	{`1.e5`, false},
	{`1e`, false},
	{`1e+`, false},
	{`1E+5`, true},
	{`1e999`, true},
	{`-`, false},
	{`+1`, false},
	{`1 2`, false},
	{`12`, true},
	{`0x10`, false},
	{`Infinity`, false},
	{`NaN`, false},
	{`""`, true},
	{`"`, false},
	{`"abc`, false},
	{`"a\"b"`, true},
	{`"\u0000"`, true},
	{`"\u00"`, false},
	{`"\u00zz"`, false},
	{`"\uD800"`, true},
	{`"\uD83D\uDE00"`, true},
	{`"\'"`, false},
	{`"\x41"`, false},
	{`"\/\b\f\n\r\t\\"`, true},
	{"\"tab\there\"", false},
	{"\"nl\nhere\"", false},
	{"\"\x7f\"", true},
	{"\"\xff\xfe\"", true},     // invalid UTF-8 is accepted
	{"\"\xed\xa0\x80\"", true}, // an encoded surrogate too
	{"\"\xc3\"", true},         // a cut-off sequence too
	{"\xff", false},            // but not outside a string
	{"\"a\" \xff", false},      // nor after the value
	{`"` + strings.Repeat("long text with \\\"escapes\\\" and \\n newlines ", 20) + `"`, true},
	{`[]`, true},
	{`[ ]`, true},
	{`[1,]`, false},
	{`[,1]`, false},
	{`[1 2]`, false},
	{`[1,2]`, true},
	{`[`, false},
	{`]`, false},
	{`[}`, false},
	{`{}`, true},
	{`{ }`, true},
	{`{"a":1,}`, false},
	{`{"a" 1}`, false},
	{`{"a":}`, false},
	{`{a:1}`, false},
	{`{'a':1}`, false},
	{`{"a":1 "b":2}`, false},
	{`{"a":1,"a":2}`, true},
	{`{"a":[1,{"b":null}],"c":{"d":"e"}}`, true},
	{`{"a":[1,{"b":null}],"c":{"d":"e"}`, false},
	{`{"a":1]`, false},
	{`[1}`, false},
	{`{"a":1}}`, false},
	{`{"a":1} {}`, false},
	{`{1:2}`, false},
	{`{"":""}`, true},
	{"{\"a\"\n:\n1\n,\n\"b\"\t:\r2}", true},
	{`[true,false,null]`, true},
	{`[truefalse]`, false},
	{`[-]`, false},
	{`[0.5e+10,-1E-2]`, true},
	{"         0", true},
	{"{\n" + strings.Repeat(" ", 8) + "\"a\":" + strings.Repeat(" ", 17) + "[\n" + strings.Repeat(" ", 16) + "1]}", true},
	{strings.Repeat(" ", 16) + "x", false},
	{strings.Repeat(" ", 15) + "\t" + strings.Repeat(" ", 9) + "1" + strings.Repeat(" ", 24), true},
}

func TestValidCases(t *testing.T) {
	for _, c := range validCases {
		if got := json.Valid([]byte(c.in)); got != c.want {
			t.Errorf("json.Valid(%q) = %v; the table says %v", c.in, got, c.want)
		}
		if got := Valid([]byte(c.in)); got != c.want {
			t.Errorf("Valid(%q) = %v, want %v", c.in, got, c.want)
		}
		if got := scanInPieces([]byte(c.in), 1); got != c.want {
			t.Errorf("Scanner byte by byte on %q = %v, want %v", c.in, got, c.want)
		}
	}
}

// scanInPieces validates b with a Scanner fed pieces of n bytes, then the
// trailing whitespace check Valid makes.
func scanInPieces(b []byte, n int) bool {
	var s Scanner
	s.Reset(MaxDepth)
	off := 0
	for off < len(b) {
		end := min(off+n, len(b))
		k, done, err := s.Scan(b[off:end])
		if err != nil {
			return false
		}
		off += k
		if done {
			return skipSpace(b, off) == len(b)
		}
	}
	return s.End() == nil
}

func TestDepth(t *testing.T) {
	deep := func(n int) []byte {
		return []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
	}
	deepObj := func(n int) []byte {
		return []byte(strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n))
	}
	for _, c := range []struct {
		name string
		in   []byte
	}{
		{"arrays at the limit", deep(MaxDepth)},
		{"arrays over the limit", deep(MaxDepth + 1)},
		{"objects at the limit", deepObj(MaxDepth)},
		{"objects over the limit", deepObj(MaxDepth + 1)},
		{"mixed, beyond 256 levels", []byte(strings.Repeat(`[{"k":`, 300) + "0" + strings.Repeat("}]", 300))},
		{"mixed, closers swapped", []byte(strings.Repeat(`[{"k":`, 300) + "0" + strings.Repeat("]}", 300))},
	} {
		if got, want := Valid(c.in), json.Valid(c.in); got != want {
			t.Errorf("%s: Valid = %v, json.Valid = %v", c.name, got, want)
		}
		if got, want := scanInPieces(c.in, 7), json.Valid(c.in); got != want {
			t.Errorf("%s: Scanner = %v, json.Valid = %v", c.name, got, want)
		}
	}

	// A million levels: no recursion, so no stack to overflow.
	huge := deep(1_000_000)
	if ok, tooDeep := ValidDepth(huge, 2_000_000); !ok || tooDeep {
		t.Errorf("ValidDepth(1e6 levels, 2e6) = %v, %v; want true, false", ok, tooDeep)
	}
	if ok, tooDeep := ValidDepth(huge, 0); ok || !tooDeep {
		t.Errorf("ValidDepth(1e6 levels, default) = %v, %v; want false, true", ok, tooDeep)
	}
	if ok, tooDeep := ValidDepth(deep(3), 3); !ok || tooDeep {
		t.Errorf("ValidDepth(3 levels, 3) = %v, %v; want true, false", ok, tooDeep)
	}
	if ok, tooDeep := ValidDepth(deep(4), 3); ok || !tooDeep {
		t.Errorf("ValidDepth(4 levels, 3) = %v, %v; want false, true", ok, tooDeep)
	}
	_, err := SkipValueDepth([]byte(`{"a":[[1]]}`), 0, 2)
	var de *DepthError
	if !errors.As(err, &de) || de.Limit != 2 || de.Offset != 6 {
		t.Errorf("SkipValueDepth over the limit: %v; want a DepthError at offset 6 with limit 2", err)
	}
}

func TestSkipValue(t *testing.T) {
	for _, c := range []struct {
		in      string
		start   int
		end     int
		wantErr string
	}{
		{in: `"abc" ,`, end: 5},
		{in: `  {"a":[1,2]} x`, end: 13},
		{in: `x:[1,2],`, start: 2, end: 7},
		{in: `123,`, end: 3},
		{in: `123`, end: 3},
		{in: `-12.5e3]`, end: 7},
		{in: `true}`, end: 4},
		{in: `[1,2`, wantErr: "unexpected end of JSON input at byte offset 4"},
		{in: `"ab\q"`, wantErr: `invalid character 'q' in string escape code at byte offset 4`},
		{in: `"ab\u12"`, wantErr: `invalid character '"' in \u hexadecimal character escape at byte offset 7`},
		{in: "\"a\x01\"", wantErr: `invalid character '\x01' in string literal at byte offset 2`},
		{in: `{"a" 1}`, wantErr: `invalid character '1' after object key at byte offset 5`},
		{in: `[1 2]`, wantErr: `invalid character '2' after array element at byte offset 3`},
		{in: `{"a":1]`, wantErr: `invalid character ']' after object key:value pair at byte offset 6`},
		{in: `tru`, wantErr: "unexpected end of JSON input at byte offset 3"},
		{in: `nul1`, wantErr: `invalid character '1' in literal null (expecting 'l') at byte offset 3`},
		{in: `-a`, wantErr: `invalid character 'a' in numeric literal at byte offset 1`},
		{in: `0123`, end: 1},
		{in: `-0}`, end: 2},
		{in: `1e+5 `, end: 4},
		{in: `x:7`, start: 2, end: 3},
		{in: `1.`, wantErr: "unexpected end of JSON input at byte offset 2"},
		{in: `1e`, wantErr: "unexpected end of JSON input at byte offset 2"},
		{in: `-`, wantErr: "unexpected end of JSON input at byte offset 1"},
		{in: ``, wantErr: "unexpected end of JSON input at byte offset 0"},
		{in: `"\u`, wantErr: "unexpected end of JSON input at byte offset 3"},
	} {
		end, err := SkipValue([]byte(c.in), c.start)
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("SkipValue(%q) error = %v, want %s", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil || end != c.end {
			t.Errorf("SkipValue(%q, %d) = %d, %v; want %d", c.in, c.start, end, err, c.end)
		}
	}
}

// TestScannerPieces feeds a Scanner a document in pieces of every small
// size and checks that it stops exactly after the value.
func TestScannerPieces(t *testing.T) {
	doc := []byte(`  {"k\u00e9y":"v\"\\\u0041\uD83D\uDE00","n":[-1.5e+3,0,true,false,null,{}],"e":[]}  ,"next"`)
	want := len(doc) - len(`  ,"next"`)
	for n := 1; n <= 12; n++ {
		var s Scanner
		s.Reset(0)
		off := 0
		for {
			k, done, err := s.Scan(doc[off:min(off+n, len(doc))])
			if err != nil {
				t.Fatalf("pieces of %d: %v", n, err)
			}
			off += k
			if done {
				break
			}
			if off >= len(doc) {
				t.Fatalf("pieces of %d: not done at the end", n)
			}
		}
		if off != want || s.Offset() != int64(want) || s.Depth() != 0 {
			t.Errorf("pieces of %d: stopped at %d (Offset %d), want %d", n, off, s.Offset(), want)
		}
	}

	// A number at the top level ends at the next byte or at End.
	var s Scanner
	s.Reset(0)
	if _, done, err := s.Scan([]byte(" 12")); done || err != nil {
		t.Fatalf("Scan(12) = done %v, %v", done, err)
	}
	if n, done, err := s.Scan([]byte("3,")); !done || err != nil || n != 1 {
		t.Fatalf("Scan(3,) = %d, %v, %v; want 1, true, nil", n, done, err)
	}
	s.Reset(0)
	s.Scan([]byte("12"))
	if err := s.End(); err != nil {
		t.Errorf("End after 12: %v", err)
	}
	s.Reset(0)
	s.Scan([]byte("[12"))
	if err := s.End(); err == nil {
		t.Errorf("End after [12: no error")
	}
	s.Reset(0)
	s.Scan([]byte("1e"))
	if err := s.End(); err == nil {
		t.Errorf("End after 1e: no error")
	}
}

func TestZeroScanner(t *testing.T) {
	var s Scanner
	in := []byte(strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth))
	if n, done, err := s.Scan(in); !done || err != nil || n != len(in) {
		t.Errorf("zero Scanner at MaxDepth: %d, %v, %v", n, done, err)
	}
	var s2 Scanner
	_, _, err := s2.Scan([]byte("[" + string(in)))
	var de *DepthError
	if !errors.As(err, &de) || de.Limit != MaxDepth || de.Offset != MaxDepth {
		t.Errorf("zero Scanner over MaxDepth: %v", err)
	}
	if n, done, err2 := s2.Scan([]byte("]")); n != 0 || done || err2 != err {
		t.Errorf("Scan after an error = %d, %v, %v; want the same error", n, done, err2)
	}
	if s2.End() != err {
		t.Errorf("End after an error = %v; want the same error", s2.End())
	}
}

func TestScannerErrorOffset(t *testing.T) {
	in := []byte(`[1, 2, x]`)
	var s Scanner
	var err error
	for off := 0; off < len(in) && err == nil; off += 3 {
		_, _, err = s.Scan(in[off:min(off+3, len(in))])
	}
	var se *SyntaxError
	if !errors.As(err, &se) || se.Offset != 7 || s.Offset() != 7 {
		t.Errorf("error in pieces: %v (Offset() %d); want a SyntaxError at offset 7", err, s.Offset())
	}
}

// TestSpecialFindsFirstSpecialByte checks the word test of string bodies
// against the byte test, for every byte value at every position, with
// another special byte (or none) after it.
func TestSpecialFindsFirstSpecialByte(t *testing.T) {
	isSpecial := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 }
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 8; pos++ {
			for _, after := range []byte{'a', '"', 0x00, 0xff, 0x21} {
				var w [8]byte
				for i := range w {
					w[i] = 'a'
					if i > pos {
						w[i] = after
					}
				}
				w[pos] = byte(c)
				want := 8
				for i, b := range w {
					if isSpecial(b) {
						want = i
						break
					}
				}
				got := 8
				if m := special(le64(w[:])); m != 0 {
					got = bits.TrailingZeros64(m) >> 3
				}
				if got != want {
					t.Fatalf("word % x: first special byte at %d, want %d", w, got, want)
				}
			}
		}
	}
}

// TestLongStringBodies puts each kind of special byte at every offset of
// bodies long enough for the 64-byte windows, and compares Valid and
// SkipValue with encoding/json.
func TestLongStringBodies(t *testing.T) {
	specials := []string{`\n`, `\"`, `\\`, `\u00e9`, `\ud83d\ude00`, "\x01", "\x1f", `\x`, `\u12`, "\"", "é", "\xff", `\`}
	for n := 60; n <= 200; n += 7 {
		for at := 0; at < n; at++ {
			for _, sp := range specials {
				body := strings.Repeat("a", at) + sp + strings.Repeat("b", n-at)
				for _, doc := range []string{`"` + body + `"`, `["` + body + `",1]`, `{"k":"` + body + `"}`, `"` + body} {
					if got, want := Valid([]byte(doc)), json.Valid([]byte(doc)); got != want {
						t.Fatalf("Valid(%q) = %v, encoding/json says %v", doc, got, want)
					}
					// SkipValue reads one value and leaves what follows it.
					end, err := SkipValue([]byte(doc), 0)
					if got, want := err == nil && end == len(doc), json.Valid([]byte(doc)); got != want {
						t.Fatalf("SkipValue(%q) = %d, %v; encoding/json says valid=%v", doc, end, err, want)
					}
				}
			}
		}
	}
}

// TestByteClasses checks the exact word tests byte by byte, with every
// pair of neighbouring byte values that could carry or borrow.
func TestByteClasses(t *testing.T) {
	for a := 0; a < 256; a++ {
		for b := 0; b < 256; b++ {
			w := [8]byte{byte(a), byte(b), byte(a), 'x', byte(b), byte(b), 0x7f, byte(a)}
			q, bs, ctl := gatherTop(eqBytes(le64(w[:]), '"')), gatherTop(eqBytes(le64(w[:]), '\\')), gatherTop(controlBytes(le64(w[:])))
			for k, c := range w {
				if q>>k&1 == 1 != (c == '"') || bs>>k&1 == 1 != (c == '\\') || ctl>>k&1 == 1 != (c < 0x20) {
					t.Fatalf("word % x: byte %d (%#x): quote %v, backslash %v, control %v", w, k, c, q>>k&1, bs>>k&1, ctl>>k&1)
				}
			}
		}
	}
}
