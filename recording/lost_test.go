package recording

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSalvageRunID(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{"meta runId of a cut event", `{"type":"agentfootprint.stream.llm_start","payload":{"iteration":`, ""},
		{"runId before the cut", `{"meta":{"runId":"run-1-1","x":`, "run-1-1"},
		{"spaces around the colon", `{"meta":{"runId" :  "run-1-1"`, "run-1-1"},
		{"two keys agreeing", `{"meta":{"runId":"r"},"payload":{"runId":"r"},`, "r"},
		{"two keys disagreeing", `{"meta":{"runId":"r1"},"payload":{"runId":"r2"},`, ""},
		{"value cut off", `{"meta":{"runId":"run-1`, ""},
		{"escape in the value", `{"meta":{"runId":"run\"-1"}`, ""},
		{"not a string", `{"meta":{"runId":12}`, ""},
		{"empty value", `{"meta":{"runId":""}`, ""},
		{"key as a value", `{"note":"runId","meta":{"runId":"r"}`, "r"},
		{"control character", "{\"meta\":{\"runId\":\"r\x1b1\"}", ""},
		{"too long", `{"meta":{"runId":"` + strings.Repeat("x", runIDBytes+1) + `"}`, ""},
		{"not JSON", "this is not json at all", ""},
		{"NULs", "\x00\x00\x00", ""},
		{"a payload runId, the line cut before its meta", `{"type":"agentfootprint.stream.tool_start","payload":{"runId":"run-A","toolName":"x","args":{"id":`, ""},
		{"a payload runId agreeing with meta", `{"payload":{"runId":"r"},"meta":{"runId":"r"},"type":`, "r"},
		{"a payload runId against meta", `{"payload":{"runId":"run-A"},"meta":{"runId":"run-B"},"type":`, ""},
		{"runId outside meta", `{"runId":"r","payload":{`, ""},
		{"meta in another case", `{"Meta":{"runId":"r"},"type":`, ""},
		{"runId in another case", `{"meta":{"runid":"r"},"type":`, ""},
		{"an escaped meta key", `{"met\u0061":{"runId":"r"},"type":`, ""},
		{"meta after the damage", `{"type":"x" "meta":{"runId":"r"}}`, ""},
		{"meta not an object", `{"meta":"runId","x":{"runId":"r"}`, ""},
		{"a second meta naming another run", `{"meta":{"runId":"r1"},"type":"x","meta":{"runId":"r2"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := salvageRunID([]byte(tt.line)); got != tt.want {
				t.Errorf("salvageRunID(%q) = %q, want %q", tt.line, got, tt.want)
			}
		})
	}
}

func TestLossLog(t *testing.T) {
	var g lossLog
	g.add("malformed", 4, "")
	g.add("malformed", 5, "r1")
	g.add("malformed", 6, "")
	g.add("cut off", 9, "r1")
	for i := int64(0); i < 7; i++ {
		g.add("malformed", 10+i, "r2")
	}
	want := []Loss{
		{Kind: "malformed", Count: 2, Lines: []int64{4, 6}},
		{Kind: "malformed", RunID: "r1", Count: 1, Lines: []int64{5}},
		{Kind: "cut off", RunID: "r1", Count: 1, Lines: []int64{9}},
		{Kind: "malformed", RunID: "r2", Count: 7, Lines: []int64{10, 11, 12, 13, 14}},
	}
	if diff := cmp.Diff(want, g.finish()); diff != "" {
		t.Errorf("losses (-want +got):\n%s", diff)
	}
}

// TestLossLogBoundsRunIDs: a crafted input with a fresh run id on every bad
// line keeps a bounded list, and what is past the bound is charged to no run
// in particular (every run), never dropped.
func TestLossLogBoundsRunIDs(t *testing.T) {
	var g lossLog
	const n = lostRunIDs * 4
	for i := range n {
		g.add("malformed", int64(i+1), "run-"+strconv.Itoa(i))
	}
	ls := g.finish()
	if len(ls) > lostRunIDs+1 {
		t.Fatalf("%d losses kept, want at most %d", len(ls), lostRunIDs+1)
	}
	var total int64
	for _, l := range ls {
		total += l.Count
	}
	if total != n {
		t.Errorf("losses count %d lines, want %d", total, n)
	}
}

// TestLoadLosses loads NDJSON and a recording document with bad lines and
// checks the losses name the runs the lines still carry.
func TestLoadLosses(t *testing.T) {
	ndjson := strings.Join([]string{
		`{"type":"agentfootprint.agent.turn_start","payload":{},"meta":{"runId":"r1"}}`,
		`{"type":"agentfootprint.stream.llm_start","meta":{"runId":"r1"},"payload":{"iteration":`,
		`garbage`,
		`{"type":"agentfootprint.agent.turn_start","payload":{},"meta":{"runId":"r2"}}`,
		// r2's line, cut before its meta, naming r1 in its payload.
		`{"type":"agentfootprint.stream.tool_start","payload":{"runId":"r1","args":`,
		`{"type":"agentfootprint.stream.llm_end","meta":{"runId":"r2"`,
	}, "\n")
	res, err := loadBytes(t, "losses.jsonl", []byte(ndjson), Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	want := []Loss{
		{Kind: "malformed", RunID: "r1", Count: 1, Lines: []int64{2}},
		{Kind: "malformed", Count: 2, Lines: []int64{3, 5}},
		{Kind: "cut off", RunID: "r2", Count: 1, Lines: []int64{6}},
	}
	if diff := cmp.Diff(want, st.Losses); diff != "" {
		t.Errorf("losses (-want +got):\n%s", diff)
	}
}

func FuzzSalvageRunID(f *testing.F) {
	f.Add([]byte(`{"meta":{"runId":"run-1-1"`))
	f.Add([]byte(`{"runId":"a","runId":"b"}`))
	f.Add([]byte(`"runId":`))
	f.Fuzz(func(t *testing.T, b []byte) {
		id := salvageRunID(b)
		if id == "" {
			return
		}
		if len(id) > runIDBytes || strings.ContainsAny(id, "\\\"") || !strings.Contains(string(b), `"`+id+`"`) {
			t.Fatalf("salvageRunID(%q) = %q: not a plain string value of the line", b, id)
		}
	})
}

// failingReader hands over data, then fails as a disk or a network can.
type failingReader struct{ data []byte }

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, errors.New("the device went away")
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestLoadStoppedPartWay: when reading stops part-way, the runs it cut
// short are handed over as far as they were read, each charged with an
// "unread" loss at the line reading stopped on, so every event read is in
// a run; a run whose ledger was read is whole and charged nothing. A
// callback's error is returned as is, and no run is handed over after it.
func TestLoadStoppedPartWay(t *testing.T) {
	lines := strings.SplitAfter(string(readFixture(t, "ndjson-two-runs.jsonl")), "\n")
	const second = "run-1796025753200-2"
	head := strings.Join(lines[:10], "") // the first run whole, four events of the second
	// A failure within the first bytes fails the sniff; this one comes
	// past them.
	padded := strings.Replace(head, `"userPrompt":"hello"`, `"userPrompt":"`+strings.Repeat("a", sniffWindow)+`"`, 1)
	long := `{"type":"agentfootprint.agent.turn_end","payload":{"x":"` + strings.Repeat("a", 2000) + `"},"meta":{"runId":"` + second + `"}}` + "\n"
	var doc strings.Builder
	doc.WriteString("{\"events\": [\n")
	for _, l := range lines[:8] {
		doc.WriteString(strings.TrimSuffix(l, "\n") + ",\n")
	}
	doc.WriteString(`{"type": "agentfootprint.stream.llm_end", "payl`)
	tests := []struct {
		name     string
		open     func() io.Reader
		opts     Options
		wantErr  string
		wantRuns int
		wantLoss []Loss
	}{
		{"a line over the limit", func() io.Reader { return strings.NewReader(head + long) }, Options{MaxLineBytes: 1000, Workers: 1},
			"line 11: the line is longer than 1000 bytes", 2, []Loss{{Kind: "unread", RunID: second, Count: 1, Lines: []int64{11}}}},
		{"a line over the limit, parallel", func() io.Reader { return strings.NewReader(head + long) }, Options{MaxLineBytes: 1000, Workers: 4},
			"line 11: the line is longer than 1000 bytes", 2, []Loss{{Kind: "unread", RunID: second, Count: 1, Lines: []int64{11}}}},
		{"a read that fails", func() io.Reader { return &failingReader{[]byte(padded + long[:40])} }, Options{Workers: 1},
			"the device went away", 2, []Loss{{Kind: "unread", RunID: second, Count: 1, Lines: []int64{11}}}},
		{"a document cut off", func() io.Reader { return strings.NewReader(doc.String()) }, Options{Workers: 1},
			"line 10: malformed JSON", 2, []Loss{{Kind: "unread", RunID: second, Count: 1, Lines: []int64{10}}}},
		{"read whole", func() io.Reader { return strings.NewReader(head + lines[10] + lines[11]) }, Options{Workers: 1},
			"", 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var inRuns int64
			var runs int
			st, err := LoadReader("in", tt.open(), tt.opts, func(r *Run) error {
				runs++
				inRuns += int64(len(r.Events))
				return nil
			})
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if runs != tt.wantRuns {
				t.Errorf("%d runs handed over, want %d", runs, tt.wantRuns)
			}
			if got := inRuns + st.Orphans + st.ConsumerScope; got != st.Events {
				t.Errorf("%d events in runs, orphans and consumer scope, but %d events read", got, st.Events)
			}
			if diff := cmp.Diff(tt.wantLoss, st.Losses); diff != "" {
				t.Errorf("losses (-want +got):\n%s", diff)
			}
		})
	}
	// The caller's error ends the load at once: no run is handed over
	// after it, and it comes back unchanged.
	stop := errors.New("enough")
	runs := 0
	_, err := LoadReader("in", strings.NewReader(head+long), Options{MaxLineBytes: 1000, Workers: 1}, func(*Run) error {
		runs++
		return stop
	})
	if err != stop || runs != 1 {
		t.Errorf("err = %v after %d runs, want the callback's error after 1", err, runs)
	}
}
