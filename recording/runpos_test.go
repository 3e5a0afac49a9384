package recording

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// TestRunFirstPosition checks that a run's FirstLine is its first event's
// line in a stream and its 1-based position in the events array of a
// document, pretty-printed or not: a pretty-printed document's lines are
// not positions, and the JSON report documents firstLine as one.
func TestRunFirstPosition(t *testing.T) {
	compact, err := os.ReadFile("../testdata/recordings/newer/redacted/recording.json")
	if err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, compact, "", " "); err != nil {
		t.Fatal(err)
	}
	var doc struct{ Events []json.RawMessage }
	if err := json.Unmarshal(compact, &doc); err != nil {
		t.Fatal(err)
	}
	// A stream with a blank line first: its lines are one ahead of the
	// events' positions.
	stream := []byte("\n")
	for _, ev := range doc.Events {
		stream = append(append(stream, ev...), '\n')
	}
	for _, c := range []struct {
		name string
		data []byte
		want []int64
	}{
		{"compact document", compact, []int64{1, 51}},
		{"pretty-printed document", pretty.Bytes(), []int64{1, 51}},
		{"stream", stream, []int64{2, 52}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []int64
			_, err := LoadReader("x", bytes.NewReader(c.data), Options{}, func(r *Run) error {
				got = append(got, r.FirstLine)
				return nil
			})
			if err != nil || !slices.Equal(got, c.want) {
				t.Errorf("first positions %v (%v), want %v", got, err, c.want)
			}
		})
	}
}
