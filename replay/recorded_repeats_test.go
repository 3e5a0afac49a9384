package replay

import (
	"testing"

	"github.com/fpcheck/fpcheck/recording"
)

// TestRecordedRepeats pins what makes two recorded findings one: the
// report's identity (epoch, message and subject order left out) and the
// advisory and synthetic flags, never the position they were filed at.
func TestRecordedRepeats(t *testing.T) {
	const (
		a   = `{"kind":"dangling-reference","seam":"compose","subjects":[{"kind":"tool","id":"x"},{"kind":"tool","id":"y"}],"epoch":1,"message":"m1"}`
		a2  = `{"kind":"dangling-reference","seam":"compose","subjects":[{"kind":"tool","id":"y"},{"kind":"tool","id":"x"}],"epoch":7,"message":"m2"}`
		adv = `{"kind":"dangling-reference","seam":"compose","subjects":[{"kind":"tool","id":"x"},{"kind":"tool","id":"y"}],"advisory":true}`
		syn = `{"kind":"dangling-reference","seam":"compose","subjects":[{"kind":"tool","id":"x"},{"kind":"tool","id":"y"}],"synthetic":true}`
		b   = `{"kind":"dangling-reference","seam":"compose","subjects":[{"kind":"tool","id":"z"}]}`
	)
	type kept struct {
		line, last int64
		repeats    int
	}
	tests := []struct {
		name   string
		events []recording.Event
		want   []kept
	}{
		{"once", []recording.Event{recCtxErr(a, "s", 3)}, []kept{{3, 0, 0}}},
		{"three copies", []recording.Event{recCtxErr(a, "s", 3), recCtxErr(a, "s", 4), recCtxErr(a, "s", 9)}, []kept{{3, 9, 2}}},
		{"same identity, other epoch, message and subject order", []recording.Event{recCtxErr(a, "s", 3), recCtxErr(a2, "t", 5)}, []kept{{3, 5, 1}}},
		{"advisory and synthetic are apart", []recording.Event{recCtxErr(a, "s", 3), recCtxErr(adv, "s", 4), recCtxErr(syn, "s", 5), recCtxErr(adv, "s", 6)}, []kept{{3, 0, 0}, {4, 6, 1}, {5, 0, 0}}},
		{"first filing order kept", []recording.Event{recCtxErr(b, "s", 2), recCtxErr(a, "s", 3), recCtxErr(b, "s", 4)}, []kept{{2, 4, 1}, {3, 0, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := Recorded(tt.events)
			if ev.IntegrityEvents != len(tt.events) {
				t.Errorf("IntegrityEvents %d, want %d", ev.IntegrityEvents, len(tt.events))
			}
			var got []kept
			events := 0
			for _, f := range ev.Findings {
				got = append(got, kept{f.Line, f.LastLine, f.Repeats})
				events += f.Events()
			}
			if len(got) != len(tt.want) {
				t.Fatalf("kept %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("finding %d: %+v, want %+v", i, got[i], tt.want[i])
				}
			}
			if events != len(tt.events) {
				t.Errorf("the findings stand for %d events, want %d", events, len(tt.events))
			}
		})
	}
}
