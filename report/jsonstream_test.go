package report

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestJSONStreamMatchesWholeEncoding: a value with streamed lists in it is
// written byte for byte as the same value with plain slices, encoded whole
// the way the report always was, at every depth a list can stand.
func TestJSONStreamMatchesWholeEncoding(t *testing.T) {
	type item struct {
		Name string `json:"name"`
		Tags []int  `json:"tags"`
		Sub  any    `json:"sub"`
	}
	type doc struct {
		First any    `json:"first"`
		Items any    `json:"items"`
		Last  string `json:"last"`
	}
	hostile := []string{
		"plain", "<b>&amp;</b>", "del \x7f csi \u009b nel \u0085", "line\nbreak",
		`"quoted" \"`, `looks like "a mark-0"`, "\u2028 \u202e", "",
	}
	tests := []struct {
		name string
		// build returns the value with streamed lists (made on s) and the
		// same value with plain slices.
		build func(s *jsonStream) (streamed, plain any)
	}{
		{"a list at the top", func(s *jsonStream) (any, any) {
			return s.list(len(hostile), func(i int) any { return hostile[i] }), hostile
		}},
		{"an empty list", func(s *jsonStream) (any, any) {
			return doc{Items: s.list(0, nil)}, doc{Items: []item{}}
		}},
		{"lists in lists", func(s *jsonStream) (any, any) {
			var plain []item
			for i, h := range hostile {
				plain = append(plain, item{Name: h, Tags: []int{i, i * 2}, Sub: []string{h, h}})
			}
			streamed := s.list(len(plain), func(i int) any {
				p := plain[i]
				return item{Name: p.Name, Tags: p.Tags, Sub: s.list(2, func(int) any { return p.Name })}
			})
			return doc{First: map[string]int{"b": 2, "a": 1}, Items: streamed, Last: "end"},
				doc{First: map[string]int{"b": 2, "a": 1}, Items: plain, Last: "end"}
		}},
		{"a list inside a map", func(s *jsonStream) (any, any) {
			return map[string]any{"k": s.list(1, func(int) any { return []any{} }), "z": nil},
				map[string]any{"k": [][]any{{}}, "z": nil}
		}},
		{"no list", func(s *jsonStream) (any, any) {
			return doc{Items: hostile}, doc{Items: hostile}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got, want bytes.Buffer
			s := newJSONStream(&got)
			streamed, plain := tt.build(s)
			if err := s.encode(streamed); err != nil {
				t.Fatal(err)
			}
			enc := json.NewEncoder(&controlEscaper{w: &want})
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(plain); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("streamed:\n%s\nwhole:\n%s", got.String(), want.String())
			}
			if bytes.Contains(got.Bytes(), s.nonce[1:]) {
				t.Errorf("a mark reached the output:\n%s", got.String())
			}
		})
	}
}

// TestJSONListOutsideItsStream: a list marshaled by anything but its own
// stream's encode is an error, never a document holding a mark.
func TestJSONListOutsideItsStream(t *testing.T) {
	s := newJSONStream(&bytes.Buffer{})
	l := s.list(1, func(int) any { return 1 })
	for _, v := range []any{l, map[string]any{"l": l}, &jsonList{}} {
		if b, err := json.Marshal(v); err == nil {
			t.Errorf("json.Marshal(%v) = %s, want an error", v, b)
		}
	}
	if err := newJSONStream(&bytes.Buffer{}).encode(l); err == nil {
		t.Error("another stream wrote a list it did not make")
	}
}

// FuzzJSONStream holds the streamed encoding to the whole one for any
// strings in any of the places a list can stand.
func FuzzJSONStream(f *testing.F) {
	f.Add("plain", "<b>\x7f\u009b</b>", 2)
	f.Add(`"quoted" \`, "\xff\xfe", 0)
	f.Fuzz(func(t *testing.T, a, b string, n int) {
		n = max(0, min(n, 5))
		type row struct {
			A    string `json:"a"`
			List any    `json:"list"`
		}
		var got, want bytes.Buffer
		s := newJSONStream(&got)
		plainRows := make([]row, n)
		for i := range plainRows {
			plainRows[i] = row{A: a, List: []string{b, a}}
		}
		streamed := map[string]any{"b": b, "rows": s.list(n, func(i int) any {
			return row{A: a, List: s.list(2, func(j int) any { return []string{b, a}[j] })}
		})}
		if err := s.encode(streamed); err != nil {
			t.Fatal(err)
		}
		enc := json.NewEncoder(&controlEscaper{w: &want})
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"b": b, "rows": plainRows}); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("streamed:\n%s\nwhole:\n%s", got.String(), want.String())
		}
	})
}
