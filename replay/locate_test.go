package replay

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fpcheck/fpcheck/recording"
)

// TestPendingCalls: a stage's calls wait for their results until each is
// answered, and a stage whose calls are all answered keeps no list, so a
// run of many stages keeps only the calls still waiting; a result whose
// payload was dropped answers its stage's one waiting call.
func TestPendingCalls(t *testing.T) {
	type step struct {
		typ, stage, id string
		dropped        bool
	}
	tests := []struct {
		name  string
		steps []step
		want  map[string][]string
	}{
		{"answered one by one", []step{{"start", "s1", "c1", false}, {"end", "s1", "c1", false}, {"start", "s2", "c2", false}, {"end", "s2", "c2", false}}, map[string][]string{}},
		{"two waiting in a stage, one answered", []step{{"start", "s1", "c1", false}, {"start", "s1", "c2", false}, {"end", "s1", "c1", false}}, map[string][]string{"s1": {"c2"}}},
		{"a dropped result answers the one waiting", []step{{"start", "s1", "c1", false}, {"end", "s1", "", true}}, map[string][]string{}},
		{"an unnamed result of several waiting drops the list", []step{{"start", "s1", "c1", false}, {"start", "s1", "c2", false}, {"end", "s1", "", true}}, map[string][]string{}},
		{"one still waiting", []step{{"start", "s1", "c1", false}, {"start", "s2", "c2", false}, {"end", "s1", "c1", false}}, map[string][]string{"s2": {"c2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newTextStore(0)
			defer store.close()
			l := newLocator(store)
			for i, s := range tt.steps {
				ev := recording.Event{Line: int64(i + 1), Index: int64(i), Meta: recording.Meta{RuntimeStageID: s.stage}, PayloadDropped: s.dropped}
				switch s.typ {
				case "start":
					ev.Type, ev.Payload = recording.TypeToolStart, []byte(fmt.Sprintf(`{"toolName":"t","toolCallId":%q,"args":{}}`, s.id))
				case "end":
					ev.Type = recording.TypeToolEnd
					if !s.dropped {
						ev.Payload = []byte(fmt.Sprintf(`{"toolCallId":%q,"result":"r"}`, s.id))
					}
				}
				l.add(&ev)
			}
			if diff := cmp.Diff(tt.want, l.pending); diff != "" {
				t.Errorf("waiting calls (-want +got):\n%s", diff)
			}
		})
	}
}
