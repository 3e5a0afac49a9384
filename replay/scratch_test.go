package replay

import (
	"testing"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

func TestKeepMapAndSlice(t *testing.T) {
	tests := []struct {
		name    string
		entries int
		kept    bool
	}{
		{name: "empty", entries: 0, kept: true},
		{name: "small", entries: 10, kept: true},
		{name: "at the bound", entries: maxLentEntries, kept: true},
		{name: "past the bound", entries: maxLentEntries + 1, kept: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := map[string]checks.ToolCall{}
			s := make([]checks.Message, 0, max(tt.entries, 1))
			for i := range tt.entries {
				m[string(rune('a'+i%26))+string(rune(i))] = checks.ToolCall{ID: "x"}
				s = append(s, checks.Message{Content: "held"})
			}
			km, ks := keepMap(m), keepSlice(s)
			if (km != nil) != tt.kept || (ks != nil) != tt.kept {
				t.Fatalf("kept map %v, slice %v, want %v", km != nil, ks != nil, tt.kept)
			}
			if len(km) != 0 || len(ks) != 0 {
				t.Fatalf("handed on with %d entries and %d elements", len(km), len(ks))
			}
			// Nothing of the run stays reachable through the array.
			for i, x := range ks[:cap(ks)] {
				if x != (checks.Message{}) {
					t.Fatalf("element %d still holds %+v", i, x)
				}
			}
		})
	}
}

// TestStoreLentEmpty: a closed store hands its index and list on emptied,
// holds neither afterwards, and the next store starts with no text.
func TestStoreLentEmpty(t *testing.T) {
	for range 3 {
		st := newTextStore(0)
		if len(st.ids) != 0 || len(st.items) != 0 {
			t.Fatalf("a new store holds %d ids and %d items", len(st.ids), len(st.items))
		}
		a, b := st.intern("first"), st.intern("second")
		if a == b || st.intern("first") != a {
			t.Fatalf("refs %d, %d", a, b)
		}
		if s, err := st.text(b); err != nil || s != "second" {
			t.Fatalf("text %q, %v", s, err)
		}
		if err := st.close(); err != nil {
			t.Fatal(err)
		}
		if st.ids != nil || st.items != nil {
			t.Fatal("a closed store still holds its index or list")
		}
	}
}

// TestEngineScratchHandedBack: a released engine holds none of the lent
// containers, and the next engine starts with empty ones.
func TestEngineScratchHandedBack(t *testing.T) {
	for range 3 {
		e := newEngine(checks.Registry, &checks.Declarations{}, checks.PostureObserve, &recording.Run{ID: "run-scratch"}, false)
		if len(e.injectedByHash) != 0 || len(e.toolCalls) != 0 || len(e.history) != 0 || len(e.msgs.known) != 0 {
			t.Fatal("a new engine starts with entries")
		}
		e.injectedByHash["h"] = []keptMessage{{role: "user"}}
		e.toolCalls["c1"] = checks.ToolCall{ID: "c1"}
		e.history = append(e.history, histEntry{known: true})
		e.msgs.known = append(e.msgs.known, checks.Message{Content: "x"})
		e.release()
		if e.injectedByHash != nil || e.toolCalls != nil || e.history != nil || e.msgs.known != nil || e.scratch != nil {
			t.Fatal("a released engine still holds lent containers")
		}
	}
}
