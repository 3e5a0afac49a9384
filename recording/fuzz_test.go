package recording

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// fuzzSeeds adds every loader fixture as a seed.
func fuzzSeeds(f *testing.F, filter func(name string) bool) {
	f.Helper()
	err := filepath.WalkDir(fixtureDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !filter(d.Name()) {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f.Add(data)
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
}

// checkInvariants loads data and checks what must hold for any input: no
// panic, and when it loads, every event is accounted for exactly once.
func checkInvariants(t *testing.T, data []byte) {
	var inRuns int64
	st, err := LoadReader("fuzz", bytes.NewReader(data), Options{MaxNesting: 2000}, func(r *Run) error {
		inRuns += int64(len(r.Events))
		if len(r.Events) == 0 || r.ID == "" || r.ID == ConsumerScope {
			t.Errorf("bad run handed over: %q with %d events", r.ID, len(r.Events))
		}
		return nil
	})
	if st == nil {
		t.Fatal("nil stats")
	}
	if err != nil {
		return
	}
	if inRuns+st.Orphans+st.ConsumerScope != st.Events {
		t.Errorf("events in runs %d + orphans %d + consumer-scope %d != events %d", inRuns, st.Orphans, st.ConsumerScope, st.Events)
	}
	if st.Format == FormatNDJSON {
		tail := int64(0)
		if st.TruncatedTail {
			tail = 1
		}
		if st.Lines != st.Blank+st.Malformed+st.Events+tail {
			t.Errorf("lines %d != blank %d + malformed %d + events %d + tail %d", st.Lines, st.Blank, st.Malformed, st.Events, tail)
		}
	}
	if _, err := json.Marshal(st); err != nil {
		t.Errorf("stats do not marshal: %v", err)
	}
}

func FuzzSniff(f *testing.F) {
	fuzzSeeds(f, func(string) bool { return true })
	f.Add([]byte(`{"format":"agentfootprint.recording.v1"`))
	f.Add([]byte(`{"format":1,"meta":{"kind":"recording/run"}}`))
	f.Add([]byte("\xef\xbb\xbf{\"type\":\"agentfootprint.x\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, atEOF := range []bool{true, false} {
			format, err := sniffFormat(data, atEOF)
			if err == nil && format == "" {
				t.Errorf("no format and no error")
			}
		}
	})
}

func FuzzNDJSON(f *testing.F) {
	fuzzSeeds(f, func(name string) bool { return filepath.Ext(name) == ".jsonl" || filepath.Ext(name) == ".1" })
	f.Add([]byte("{\"type\":\"agentfootprint.agent.turn_start\",\"meta\":{\"runId\":\"r\"}}\n{\"type\""))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkInvariants(t, data)
	})
}

func FuzzRecordingJSON(f *testing.F) {
	fuzzSeeds(f, func(name string) bool { return filepath.Ext(name) == ".json" })
	f.Fuzz(func(t *testing.T, data []byte) {
		checkInvariants(t, data)
	})
}

// FuzzSkipValue cross-checks the streaming scanner with encoding/json: a
// document is valid for one exactly when it is for the other, and a string
// decodes to the same text.
func FuzzSkipValue(f *testing.F) {
	fuzzSeeds(f, func(name string) bool { return filepath.Ext(name) == ".json" })
	f.Add([]byte(`"caf\u00e9 \ud83d\ude00 \ud800 x"`))
	f.Add([]byte(`[1, -0.5e+3, true, null, {"a": []}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newSliceScanner(data, 10000)
		err := s.skipValue()
		mine := err == nil && s.atEnd()
		if std := json.Valid(data); mine != std {
			t.Fatalf("scanner says valid=%v (err %v), encoding/json says %v, for %q", mine, err, std, data)
		}
		if !mine || len(bytes.TrimSpace(data)) == 0 || bytes.TrimSpace(data)[0] != '"' {
			return
		}
		var want string
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		s = newSliceScanner(bytes.TrimSpace(data)[1:], 10000)
		got, err := io.ReadAll(&stringDecoder{s: s})
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte{0xff}) || !json.Valid([]byte(`"`+string(got)+`"`)) && !bytes.ContainsAny(got, "\"\\") {
			return // raw invalid UTF-8 passes through undecoded; encoding/json replaces it
		}
		if string(got) != want && bytes.Equal([]byte(want), bytes.ToValidUTF8(got, []byte("\uFFFD"))) == false {
			t.Errorf("string decodes to %q, encoding/json gives %q", got, want)
		}
	})
}
