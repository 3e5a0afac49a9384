package recording

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSplitterExpectEvents(t *testing.T) {
	tests := []struct {
		name       string
		hint, n    int64
		want       int
		handedOver bool
	}{
		{name: "first hint taken", n: 300, want: 300},
		{name: "nothing expected", n: 0, want: 0},
		{name: "negative ignored", n: -5, want: 0},
		{name: "bounded", n: 10 * maxEventsHint, want: maxEventsHint},
		{name: "a run handed over decides", hint: 40, n: 300, want: 40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp := newSplitter("x", 0, nil)
			sp.eventsHint = int(tt.hint)
			sp.expectEvents(tt.n)
			if sp.eventsHint != tt.want {
				t.Errorf("eventsHint = %d, want %d", sp.eventsHint, tt.want)
			}
		})
	}
}

// TestDocumentReservesItsEvents: the run of a document read from a file
// is collected into an array reserved from the bytes left after the
// events key, not grown by doubling, on one goroutine or several.
func TestDocumentReservesItsEvents(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"snapshot":{"note":"` + strings.Repeat("s", 4000) + `"},"events":[`)
	const n = 100
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"agentfootprint.agent.turn_start","payload":{"turnIndex":0,"userPrompt":%q},"meta":{"runId":"run-a","wallClockMs":%d,"runOffsetMs":%d}}`, strings.Repeat("p", 900), 1000+i, i)
	}
	b.WriteString(`]}`)
	doc := b.Bytes()
	path := filepath.Join(t.TempDir(), "recording.json")
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	at := int64(bytes.Index(doc, []byte(`"events":[`)) + len(`"events":`))
	want := int((int64(len(doc)) - at) / eventBytesGuess)
	if want <= n {
		t.Fatalf("the document reserves %d events for %d: make its events larger", want, n)
	}
	for _, workers := range []int{1, 2} {
		var got, events int
		_, err := Load(path, Options{Workers: workers}, func(r *Run) error {
			got, events = cap(r.Events), len(r.Events)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if events != n || got != want {
			t.Errorf("workers %d: %d events in an array of %d, want %d in %d", workers, events, got, n, want)
		}
	}
}
