package jsonfast

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzValidWalk holds the walkers of validated JSON to jsonfast's
// validating ones: on valid input they must see the same members and
// elements, and on any input they must not panic.
func FuzzValidWalk(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, ` { "a" : 1 , "b":[1,{"c":"}"}], "d\"":"x\\", "e":-1.5e3,"f":true,"g":null} `,
		`[1, "a\\\"b", {"k":[]}, [[]], -0, false]`, `{"k\u0069nd":"x","a\\b":"\\\\"}`, `{"a":"\u00e9\ud83d\ude00"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		type member struct {
			Key string
			Val string
		}
		var got, want []member
		ValidMembers(data, func(key []byte, escaped bool, val []byte) {
			// A key without an escape comes as written; decode it to
			// compare with Members', which replaces invalid UTF-8.
			k := string(key)
			if !escaped {
				var err error
				if k, err = String([]byte(`"` + k + `"`)); err != nil {
					k = "(undecodable)"
				}
			}
			got = append(got, member{k, string(val)})
		})
		var gotElems, wantElems []string
		ValidElements(data, func(val []byte) { gotElems = append(gotElems, string(val)) })
		end := ValidObject(data, 0, func([]byte, bool, []byte) {})
		if !json.Valid(data) {
			return // only the absence of a panic is asked for
		}
		// An object ends at its closing brace, the last byte but
		// whitespace; anything else is no object.
		wantEnd := -1
		if i := skipSpace(data, 0); data[i] == '{' {
			wantEnd = len(trimSpace(data)) + i
		}
		if end != wantEnd {
			t.Errorf("ValidObject(%q) = %d, want %d", data, end, wantEnd)
		}
		Members(data, func(key []byte, escaped bool, val []byte) bool {
			want = append(want, member{string(key), string(val)})
			return true
		})
		Elements(data, func(_ int, val []byte) bool {
			wantElems = append(wantElems, string(val))
			return true
		})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("members of %q (-jsonfast +walker):\n%s", data, diff)
		}
		if diff := cmp.Diff(wantElems, gotElems); diff != "" {
			t.Errorf("elements of %q (-jsonfast +walker):\n%s", data, diff)
		}
	})
}
