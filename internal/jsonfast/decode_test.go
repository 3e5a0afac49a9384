package jsonfast

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

var stringCases = []string{
	`""`,
	`"plain ascii"`,
	` "padded" `,
	`"caf\u00e9 and café"`,
	`"\u0000"`,
	`"\"\\\/\b\f\n\r\t"`,
	`"\uD83D\uDE00"`,       // a pair
	`"\uD83D"`,             // a lone high surrogate
	`"\uDE00"`,             // a lone low surrogate
	`"\uDE00\uD83D"`,       // reversed
	`"\uD83D\uD83D\uDE00"`, // high, then a pair
	`"\uD83Dx"`,            // high, then text
	`"\uD83D\n"`,           // high, then another escape
	`"\ud83d\ude00"`,       // lower-case hex
	"\"\xff\xfe\"",         // invalid UTF-8
	"\"a\xc3\"",            // cut-off sequence
	"\"\xed\xa0\x80\"",     // encoded surrogate
	"\"\xf4\x90\x80\x80\"", // above U+10FFFF
	"\"\xe2\x82\xac \xff\\n\"",
	`"` + strings.Repeat(`a\nb\"`, 100) + `"`,
	// Not strings, or not one token.
	`"a" "b"`,
	`"a`,
	`"\'"`,
	"\"tab\t\"",
	`abc`,
	`null`,
	`1`,
	``,
}

func TestString(t *testing.T) {
	for _, in := range stringCases {
		checkString(t, []byte(in))
	}
}

// checkString compares String and AppendString with json.Unmarshal into a
// string, for inputs that start (after whitespace) with a quote.
func checkString(t *testing.T, in []byte) {
	t.Helper()
	got, err := String(in)
	got2, err2 := AppendString([]byte("x"), in)
	if (err == nil) != (err2 == nil) || err == nil && "x"+got != string(got2) {
		t.Errorf("AppendString(%q) = %q, %v; String = %q, %v", in, got2, err2, got, err)
	}
	// Twice: a miss, then (for a short plain string) a hit of the cache.
	for range 2 {
		if got3, err3 := ShortString(in); (err == nil) != (err3 == nil) || got3 != got {
			t.Errorf("ShortString(%q) = %q, %v; String = %q, %v", in, got3, err3, got, err)
		}
	}
	t2 := trimSpace(in)
	if len(t2) == 0 || t2[0] != '"' {
		if err == nil {
			t.Errorf("String(%q) = %q; want an error (not a string)", in, got)
		}
		return
	}
	var want string
	werr := json.Unmarshal(in, &want)
	if (err == nil) != (werr == nil) {
		t.Errorf("String(%q) error = %v; json.Unmarshal error = %v", in, err, werr)
		return
	}
	if got != want {
		t.Errorf("String(%q) = %q; json.Unmarshal gives %q", in, got, want)
	}
}

var numberCases = []string{
	`0`, `-0`, `-0.0`, `1`, `-1`, `123456789012345`, `1234567890123456`, `-999999999999999`,
	`9007199254740993`, `9223372036854775807`, `9223372036854775808`, `-9223372036854775808`,
	`-9223372036854775809`, `18446744073709551616`, `99999999999999999999999`,
	`1.5`, `1e2`, `1E+2`, `1e-2`, `1e999`, `-1e999`, `1e-999`, `4.9e-324`, `2e-324`,
	`1.7976931348623157e308`, `1.7976931348623159e308`, ` 42 `, `01`, `1.`, `.5`, `+1`,
	`-`, `1e`, `0x1`, `Inf`, `NaN`, `1_0`, `"1"`, `null`, ``,
}

func TestNumberInt(t *testing.T) {
	for _, in := range numberCases {
		checkNumber(t, []byte(in))
	}
}

func checkNumber(t *testing.T, in []byte) {
	t.Helper()
	t2 := trimSpace(in)
	isNum := len(t2) > 0 && (t2[0] == '-' || '0' <= t2[0] && t2[0] <= '9')
	f, ok := Number(in)
	var wf float64
	werr := json.Unmarshal(in, &wf)
	if !isNum {
		werr = errNotString // json.Unmarshal of null succeeds; Number refuses it
	}
	if ok != (werr == nil) || ok && math.Float64bits(f) != math.Float64bits(wf) {
		t.Errorf("Number(%q) = %v, %v; json.Unmarshal gives %v, %v", in, f, ok, wf, werr)
	}
	n, ok := Int(in)
	var wn int64
	werr = json.Unmarshal(in, &wn)
	if !isNum {
		werr = errNotString
	}
	if ok != (werr == nil) || ok && n != wn {
		t.Errorf("Int(%q) = %v, %v; json.Unmarshal gives %v, %v", in, n, ok, wn, werr)
	}
}

func TestScalars(t *testing.T) {
	for _, c := range []struct {
		in       string
		v, ok    bool
		null     bool
		kind     Kind
		kindName string
	}{
		{in: `true`, v: true, ok: true, kind: KindBool, kindName: "boolean"},
		{in: ` false `, ok: true, kind: KindBool, kindName: "boolean"},
		{in: `null`, null: true, kind: KindNull, kindName: "null"},
		{in: ` null`, null: true, kind: KindNull, kindName: "null"},
		{in: `nul`, kind: KindNull, kindName: "null"}, // KindOf does not validate
		{in: `"true"`, kind: KindString, kindName: "string"},
		{in: `-1`, kind: KindNumber, kindName: "number"},
		{in: `{}`, kind: KindObject, kindName: "object"},
		{in: `[]`, kind: KindArray, kindName: "array"},
		{in: ``, kind: KindInvalid, kindName: "invalid"},
		{in: `x`, kind: KindInvalid, kindName: "invalid"},
	} {
		v, ok := Bool([]byte(c.in))
		if v != c.v || ok != c.ok {
			t.Errorf("Bool(%q) = %v, %v; want %v, %v", c.in, v, ok, c.v, c.ok)
		}
		if IsNull([]byte(c.in)) != c.null {
			t.Errorf("IsNull(%q) = %v", c.in, !c.null)
		}
		if k := KindOf([]byte(c.in)); k != c.kind || k.String() != c.kindName {
			t.Errorf("KindOf(%q) = %v (%s), want %v (%s)", c.in, k, k, c.kind, c.kindName)
		}
	}
}

var objectCases = []string{
	`{}`,
	` { } `,
	`{"type":"a","payload":{"x":[1,2,{"y":null}]},"meta":{"runId":"r"}}`,
	`{"type":"a","type":"b"}`,
	`{"type":"a","type":null}`,
	`{"TYPE":"a","type":"b","Type":"c"}`,
	`{"ty\u0070e":"escaped key"}`,
	"{\"\xff\":1,\"\xef\xbf\xbd\":2}",
	"{\"a\" : 1 ,\n \"b\"\t:\t[ 1 , 2 ] }",
	`{"a":1,}`,
	`{"a":1} x`,
	`{"a":1`,
	`{"a":[}`,
	`[1,2]`,
	`null`,
	`{"\u212aey":1,"\u017fize":2}`, // Kelvin sign, long s
}

func TestFields(t *testing.T) {
	for _, in := range objectCases {
		checkFields(t, []byte(in))
		checkPickerFold(t, []byte(in))
	}

	// SkipNull keeps an earlier value; counts count every match.
	p := Picker{Names: []string{"a", "b"}, SkipNull: []bool{true, false}}
	out := make([][]byte, 2)
	counts := make([]int, 2)
	dup, err := p.Pick([]byte(`{"a":1,"b":2,"a":null,"b":null}`), out, counts)
	if err != nil || !dup || string(out[0]) != "1" || string(out[1]) != "null" || counts[0] != 2 || counts[1] != 2 {
		t.Errorf("Pick with SkipNull = %q, %v, dup %v, %v", out, counts, dup, err)
	}

	// More than 64 names still report duplicates.
	names := make([]string, 70)
	for i := range names {
		names[i] = strings.Repeat("k", i+1)
	}
	out = make([][]byte, 70)
	dup, err = Fields([]byte(`{"`+names[69]+`":1,"`+names[69]+`":2}`), names, out)
	if err != nil || !dup || string(out[69]) != "2" {
		t.Errorf("Fields with 70 names = %q, dup %v, %v", out[69], dup, err)
	}
}

// checkFields compares Fields with decoding into map[string]json.RawMessage.
func checkFields(t *testing.T, in []byte) {
	t.Helper()
	t2 := trimSpace(in)
	var m map[string]json.RawMessage
	werr := json.Unmarshal(in, &m)
	isObj := len(t2) > 0 && t2[0] == '{'
	if !isObj {
		werr = errNotObject
	}
	// Every key as decoded, with its number of occurrences.
	counts := map[string]int{}
	merr := Members(in, func(k []byte, _ bool, _ []byte) bool {
		counts[string(k)]++
		return true
	})
	if (merr == nil) != (werr == nil) {
		t.Errorf("Members(%q) error = %v; json.Unmarshal error = %v", in, merr, werr)
		return
	}
	names := []string{"not-a-key-in-any-case"}
	for k := range m {
		names = append(names, k)
	}
	out := make([][]byte, len(names))
	dup, err := Fields(in, names, out)
	if (err == nil) != (werr == nil) {
		t.Errorf("Fields(%q) error = %v; json.Unmarshal error = %v", in, err, werr)
		return
	}
	if err != nil {
		return
	}
	if out[0] != nil {
		t.Errorf("Fields(%q) found %q for an absent name", in, out[0])
	}
	wantDup := false
	for i, k := range names[1:] {
		if string(out[i+1]) != string(m[k]) {
			t.Errorf("Fields(%q)[%q] = %q; json.Unmarshal gives %q", in, k, out[i+1], m[k])
		}
		wantDup = wantDup || counts[k] > 1
	}
	if len(counts) != len(m) {
		t.Errorf("Members(%q) saw keys %v; json.Unmarshal gives %d keys", in, counts, len(m))
	}
	if dup != wantDup {
		t.Errorf("Fields(%q) dup = %v, want %v", in, dup, wantDup)
	}
}

// foldShape is decoded by encoding/json's struct-field matching rules; its
// names have letters (k, s) that fold with non-ASCII runes.
type foldShape struct {
	Type    json.RawMessage `json:"type"`
	Key     json.RawMessage `json:"key"`
	Size    json.RawMessage `json:"size"`
	Payload json.RawMessage `json:"payload"`
}

var foldNames = []string{"type", "key", "size", "payload"}

// checkPickerFold compares a folding Picker with decoding into a struct.
func checkPickerFold(t *testing.T, in []byte) {
	t.Helper()
	t2 := trimSpace(in)
	if len(t2) == 0 || t2[0] != '{' {
		return
	}
	var w foldShape
	werr := json.Unmarshal(in, &w)
	p := Picker{Names: foldNames, Fold: true}
	out := make([][]byte, len(foldNames))
	_, err := p.Pick(in, out, nil)
	if (err == nil) != (werr == nil) {
		t.Errorf("Pick(%q) error = %v; json.Unmarshal error = %v", in, err, werr)
		return
	}
	if err != nil {
		return
	}
	v := reflect.ValueOf(w)
	for i := range foldNames {
		want := v.Field(i).Bytes()
		if string(out[i]) != string(want) {
			t.Errorf("Pick(%q)[%q] = %q; json.Unmarshal into a struct gives %q", in, foldNames[i], out[i], want)
		}
	}
}

func TestElements(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  bool
	}{
		{in: `[]`},
		{in: ` [ ] `},
		{in: `[1, "a" ,{"b":[2]},null]`, want: []string{"1", `"a"`, `{"b":[2]}`, "null"}},
		{in: `[1,]`, err: true},
		{in: `[1 2]`, err: true},
		{in: `[1] 2`, err: true},
		{in: `[1`, err: true},
		{in: `{}`, err: true},
	} {
		var got []string
		err := Elements([]byte(c.in), func(i int, v []byte) bool {
			if i != len(got) {
				t.Errorf("Elements(%q): index %d, want %d", c.in, i, len(got))
			}
			got = append(got, string(v))
			return true
		})
		if (err != nil) != c.err {
			t.Errorf("Elements(%q) error = %v, want error %v", c.in, err, c.err)
			continue
		}
		if !c.err && !reflect.DeepEqual(got, c.want) {
			t.Errorf("Elements(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Stopping early is not an error.
	n := 0
	if err := Elements([]byte(`[1,2,3]`), func(int, []byte) bool { n++; return false }); err != nil || n != 1 {
		t.Errorf("Elements stopped early: %d calls, %v", n, err)
	}
	n = 0
	if err := Members([]byte(`{"a":1,"b":2}`), func([]byte, bool, []byte) bool { n++; return false }); err != nil || n != 1 {
		t.Errorf("Members stopped early: %d calls, %v", n, err)
	}
}

func TestMembersEscapedKeys(t *testing.T) {
	type member struct {
		key     string
		escaped bool
		val     string
	}
	var got []member
	err := Members([]byte("{\"plain\":1,\"t\\u0079pe\":\"x\",\"caf\xc3\xa9\":2,\"\xff\":3}"), func(k []byte, esc bool, v []byte) bool {
		got = append(got, member{string(k), esc, string(v)})
		return true
	})
	want := []member{{"plain", false, "1"}, {"type", true, `"x"`}, {"café", false, "2"}, {"\ufffd", true, "3"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Members = %+v, %v; want %+v", got, err, want)
	}
}
