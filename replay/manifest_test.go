package replay

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestManifestNamesNotNames: a wire manifest's toolNames is read as names
// only when every entry is one; a null list is not the stated zero, and a
// null or a number among the names leaves what crossed the wire unknown,
// so the manifest is unreadable (the encounter unreachable), never read
// without the entry (a tool gone unseen) or as a tool named "".
func TestManifestNamesNotNames(t *testing.T) {
	tests := []struct {
		raw     string
		names   []string
		stated  bool
		problem string
	}{
		{`{"toolNames":["a","b"]}`, []string{"a", "b"}, true, ""},
		{`{"toolNames":[]}`, []string{}, true, ""},
		{`null`, nil, false, ""},
		{`{"toolNames":null}`, nil, true, "has a toolNames that is not a list"},
		{`{"toolNames":"a"}`, nil, true, "has a toolNames that is not a list"},
		{`{"toolNames":["a",null]}`, nil, true, notAName},
		{`{"toolNames":["a",7,"b"]}`, nil, true, notAName},
		{`{"toolNames":[null]}`, nil, true, notAName},
	}
	for _, tt := range tests {
		for _, fast := range []bool{false, true} {
			var names []string
			var stated bool
			var problem string
			if fast {
				names, stated, problem = manifestNamesOf(json.RawMessage(tt.raw), false, true)
			} else {
				names, stated, problem = manifestNames(json.RawMessage(tt.raw))
			}
			if !cmp.Equal(names, tt.names) || stated != tt.stated || problem != tt.problem {
				t.Errorf("%s (fast %v) = %q, %v, %q; want %q, %v, %q", tt.raw, fast, names, stated, problem, tt.names, tt.stated, tt.problem)
			}
		}
	}
}
