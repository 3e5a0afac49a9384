package replay

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestToolNamesMemo holds the memo to toolNamesOf over a run's sequence of
// tool lists: repeated, changed, malformed, absent and too long to hold.
func TestToolNamesMemo(t *testing.T) {
	long := `[` + strings.Repeat(`{"name":"pad","description":"`+strings.Repeat("d", 1000)+`"},`, 20) + `{"name":"last"}]`
	seq := []string{
		`[{"name":"a"},{"name":"b"}]`,
		`[{"name":"a"},{"name":"b"}]`,
		`[{"name":"a"},{"name":"c"}]`,
		``,
		``,
		`[{"name":"a"},{"name":"c"}]`,
		`[{"name":1}]`,
		`[{"name":1}]`,
		`{"name":"a"}`,
		long,
		long,
		`[{"name":"a"},{"name":"b"}]`,
	}
	var m toolNamesMemo
	for i, raw := range seq {
		for _, slow := range []bool{false, true} {
			wantNames, wantOK := toolNamesOf(json.RawMessage(raw), slow, true)
			var mm toolNamesMemo
			if !slow {
				mm = m
			}
			names, ok := mm.namesOf(json.RawMessage(raw), slow, true)
			if ok != wantOK || !cmp.Equal(names, wantNames) {
				t.Fatalf("step %d (slow %v): %q, %v; toolNamesOf %q, %v", i, slow, names, ok, wantNames, wantOK)
			}
			if !slow {
				m = mm
				if held := m.held(); len(raw) > maxMemoTools && held != 0 {
					t.Fatalf("step %d: a list of %d bytes is held (%d)", i, len(raw), held)
				}
			}
		}
	}
}

func FuzzToolNamesMemo(f *testing.F) {
	f.Add(`[{"name":"a"}]`, `[{"name":"a"}]`, `[{"name":"b"}]`)
	f.Add(`[{"name":"a","name":"b"}]`, `[1]`, ``)
	f.Fuzz(func(t *testing.T, a, b, c string) {
		var m toolNamesMemo
		for _, raw := range []string{a, b, a, c, b, b} {
			wantNames, wantOK := toolNamesOf(json.RawMessage(raw), false, false)
			names, ok := m.namesOf(json.RawMessage(raw), false, false)
			if ok != wantOK || !cmp.Equal(names, wantNames) {
				t.Fatalf("%q: %q, %v; toolNamesOf %q, %v", raw, names, ok, wantNames, wantOK)
			}
		}
	})
}
