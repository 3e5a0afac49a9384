package recording

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSplitterReserve(t *testing.T) {
	tests := []struct {
		name      string
		hint      int
		maxEvents int
		live      []int // capacities of the runs started so far
		n         int64
		wantHint  int
		wantCaps  []int
	}{
		{name: "no run yet: the first to start", n: 300, wantHint: 300},
		{name: "nothing expected", n: 0},
		{name: "negative ignored", n: -5},
		{name: "bounded", n: 10 * maxEventsHint, wantHint: int(maxReserved)},
		{name: "bounded by the events limit", maxEvents: 100, n: 300, wantHint: 100},
		{name: "a run handed over decides", hint: 40, n: 300, wantHint: 40},
		{name: "the one run started grows", live: []int{16}, n: 300, wantCaps: []int{300}},
		{name: "a run already larger keeps its room", live: []int{500}, n: 300, wantCaps: []int{500}},
		{name: "two runs started: neither", live: []int{16, 16}, n: 300, wantCaps: []int{16, 16}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			max := tt.maxEvents
			if max == 0 {
				max = 1 << 30
			}
			sp := newSplitter("x", max, nil)
			sp.eventsHint = tt.hint
			var runs []*Run
			for i, c := range tt.live {
				r := &Run{Events: make([]Event, 3, c)}
				runs = append(runs, r)
				sp.live[fmt.Sprint(i)] = &runState{run: r}
			}
			sp.reserve(tt.n)
			if sp.eventsHint != tt.wantHint {
				t.Errorf("eventsHint = %d, want %d", sp.eventsHint, tt.wantHint)
			}
			for i, r := range runs {
				if cap(r.Events) < tt.wantCaps[i] || cap(r.Events) > tt.wantCaps[i]+tt.wantCaps[i]/4 || len(r.Events) != 3 {
					t.Errorf("run %d: %d events in room for %d, want 3 in about %d", i, len(r.Events), cap(r.Events), tt.wantCaps[i])
				}
			}
		})
	}
}

// TestDocumentReservesItsEvents: the run of a document read from a file
// is collected into an array reserved once, from the size of its first
// events and the bytes left in the file, not grown by doubling; on one
// goroutine (the run already started) or several (not yet started).
func TestDocumentReservesItsEvents(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"snapshot":{"note":"` + strings.Repeat("s", 4000) + `"},"events":`)
	start := b.Len()
	b.WriteByte('[')
	const n = 600
	var at []int
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		at = append(at, b.Len())
		fmt.Fprintf(&b, `{"type":"agentfootprint.agent.turn_start","payload":{"turnIndex":0,"userPrompt":%q},"meta":{"runId":"run-a","wallClockMs":%d,"runOffsetMs":%d}}`, strings.Repeat("p", 300), 1000+i, 100+i)
	}
	b.WriteString(`]}`)
	doc := b.Bytes()
	path := filepath.Join(t.TempDir(), "recording.json")
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	want := reserveAfter * (len(doc) - start) / (at[reserveAfter] - start)
	want += want / 16
	if want < n || want > n+n/10 {
		t.Fatalf("the document reserves %d events for %d", want, n)
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
		// A slice grown to hold want may round its room up to a size
		// class; doubling from 256 would have made it 1,024 or more.
		if events != n || got < want || got > want+want/8 {
			t.Errorf("workers %d: %d events in an array of %d, want %d in about %d", workers, events, got, n, want)
		}
	}
}
