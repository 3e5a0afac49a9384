package recording

import (
	"slices"
	"strings"
	"testing"
)

// TestEnvelopeRunFacts: the envelope's statements about its run are read
// strictly. One that is there but cannot be read is not taken for "not
// stated": it is listed in Stats.Unusable, saying what is wrong, so the
// report counts the run as damaged; a whole number written 5.0 or 1e1 is
// a count.
func TestEnvelopeRunFacts(t *testing.T) {
	envelope := func(run string) string {
		return `{"format":"agentfootprint.recording.v1","run":` + run + `,"privacy":{"mode":"full"},"recording":{"events":[{"type":"agentfootprint.agent.turn_start","payload":{},"meta":{"runId":"run-1"}}]}}`
	}
	cases := []struct {
		name, run string
		// field and problem name the one unusable statement; "" for none.
		field, problem string
		dropped        int64 // -1: not read
		complete       string
	}{
		{"sound", `{"complete":true,"droppedEvents":0}`, "", "", 0, "true"},
		{"a count written 5.0", `{"complete":true,"droppedEvents":5.0}`, "", "", 5, "true"},
		{"a count written 1e1", `{"complete":true,"droppedEvents":1e1}`, "", "", 10, "true"},
		{"too large", `{"complete":true,"droppedEvents":1e300}`, "run.droppedEvents", "is 1e300, not a count (a whole number from 0 to 9007199254740991): it is beyond what a producer can count exactly", -1, "true"},
		{"a fraction", `{"complete":true,"droppedEvents":3.7}`, "run.droppedEvents", "is 3.7, not a count (a whole number from 0 to 9007199254740991): it is a fraction", -1, "true"},
		{"negative", `{"complete":true,"droppedEvents":-5}`, "run.droppedEvents", "is -5, not a count (a whole number from 0 to 9007199254740991): it is negative", -1, "true"},
		{"a string", `{"complete":true,"droppedEvents":"5"}`, "run.droppedEvents", `is "5", not a count`, -1, "true"},
		{"null", `{"complete":true,"droppedEvents":null}`, "run.droppedEvents", `is null, not a count`, -1, "true"},
		{"complete as a string", `{"complete":"false","droppedEvents":0}`, "run.complete", `is "false", not true or false`, 0, "nil"},
		{"complete as a number", `{"complete":0,"droppedEvents":0}`, "run.complete", `is 0, not true or false`, 0, "nil"},
		{"first retained index a fraction", `{"complete":true,"droppedEvents":0,"firstRetainedEventIndex":0.5}`, "run.firstRetainedEventIndex", "is 0.5, not a count", 0, "true"},
		{"run not an object", `"complete"`, "run", "is a JSON string, not an object", -1, "nil"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := loadBytes(t, "x.json", []byte(envelope(tc.run)), Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			st := res.Stats
			dropped := int64(-1)
			if st.DroppedEvents != nil {
				dropped = *st.DroppedEvents
			}
			complete := "nil"
			if st.Complete != nil {
				complete = map[bool]string{true: "true", false: "false"}[*st.Complete]
			}
			if dropped != tc.dropped || complete != tc.complete {
				t.Errorf("droppedEvents %d, complete %s; want %d, %s", dropped, complete, tc.dropped, tc.complete)
			}
			if tc.field == "" {
				if len(st.Unusable) != 0 {
					t.Errorf("unusable %+v", st.Unusable)
				}
				return
			}
			if len(st.Unusable) != 1 || st.Unusable[0].Field != tc.field || !strings.HasPrefix(st.Unusable[0].Problem, tc.problem) || st.Unusable[0].Line != 1 {
				t.Fatalf("unusable %+v, want %s %s", st.Unusable, tc.field, tc.problem)
			}
			found := false
			for _, p := range st.Problems {
				found = found || strings.HasPrefix(p.Message, tc.field+" "+tc.problem) && strings.HasSuffix(p.Message, "so the run's evidence counts as damaged")
			}
			if !found {
				t.Errorf("no problem states %s %s: %+v", tc.field, tc.problem, st.Problems)
			}
		})
	}
}

// TestEnvelopeStatedTwice: a key the envelope states twice with different
// values is said, never taken last-wins in silence. A run fact stated
// twice differently cannot be read, so the run is damaged; a run block
// stated again is read together with the first.
func TestEnvelopeStatedTwice(t *testing.T) {
	events := `"recording":{"events":[{"type":"agentfootprint.agent.turn_start","payload":{},"meta":{"runId":"run-1"}}]}`
	cases := []struct {
		name, members string
		// unusable are the fields that cannot be read; problems are
		// substrings some problem must hold.
		unusable []string
		problems []string
		complete string
		err      string
	}{
		{name: "complete twice", members: `"run":{"complete":false,"complete":true,"droppedEvents":0},"privacy":{"mode":"full"}`,
			unusable: []string{"run.complete"}, problems: []string{"run.complete is stated more than once with different values (false, then true); whether the run is complete is not known, so the run's evidence counts as damaged"}, complete: "nil"},
		{name: "droppedEvents twice", members: `"run":{"complete":true,"droppedEvents":7,"droppedEvents":0},"privacy":{"mode":"full"}`,
			unusable: []string{"run.droppedEvents"}, problems: []string{"run.droppedEvents is stated more than once with different values (7, then 0)"}, complete: "true"},
		{name: "the same value twice", members: `"run":{"complete":true,"complete":true,"droppedEvents":0},"privacy":{"mode":"full"}`, complete: "true"},
		{name: "the run stated again", members: `"run":{"complete":false,"droppedEvents":0},"privacy":{"mode":"full"},"run":{"complete":true}`,
			unusable: []string{"run.complete"}, problems: []string{"the envelope states its run a second time; the two are read as one", "run.complete is stated more than once with different values (false, then true)"}, complete: "nil"},
		{name: "the run stated again, alike", members: `"run":{"complete":true,"droppedEvents":0},"privacy":{"mode":"full"},"run":{"complete":true}`,
			problems: []string{"the envelope states its run a second time"}, complete: "true"},
		{name: "the run id twice", members: `"run":{"runId":"run-1","runId":"run-2","complete":true,"droppedEvents":0},"privacy":{"mode":"full"}`,
			problems: []string{`run.runId is stated more than once with different values ("run-1", then "run-2"); the last is read`}, complete: "true"},
		{name: "privacy mode twice", members: `"run":{"complete":true,"droppedEvents":0},"privacy":{"mode":"redacted","mode":"full"}`,
			problems: []string{`privacy.mode is stated more than once with different values ("redacted", then "full"); the last is read`}, complete: "true"},
		{name: "the producer stated again", members: `"producer":{"agentfootprintVersion":"9.62.0"},"run":{"complete":true,"droppedEvents":0},"privacy":{"mode":"full"},"producer":{"agentfootprintVersion":"9.140.0"}`,
			problems: []string{"the envelope states its producer a second time", `producer.agentfootprintVersion is stated more than once with different values ("9.62.0", then "9.140.0"); the last is read`}, complete: "true"},
		{name: "a second snapshot", members: `"run":{"complete":true,"droppedEvents":0},"privacy":{"mode":"full"},"snapshot":{},"snapshot":{}`,
			problems: []string{"a second snapshot; it is read too"}, complete: "true"},
		{name: "format as a string and as a number", members: `"format":1,"meta":{"kind":"recording/run"}`, err: "format is stated twice, as a JSON string and as a JSON number"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := loadBytes(t, "x.json", []byte(`{"format":"agentfootprint.recording.v1",`+tc.members+`,`+events+`}`), Options{Workers: 1})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			st := res.Stats
			var fields []string
			for _, u := range st.Unusable {
				fields = append(fields, u.Field)
			}
			if !slices.Equal(fields, tc.unusable) {
				t.Errorf("unusable %+v, want %v", st.Unusable, tc.unusable)
			}
			complete := "nil"
			if st.Complete != nil {
				complete = map[bool]string{true: "true", false: "false"}[*st.Complete]
			}
			if complete != tc.complete {
				t.Errorf("complete %s, want %s", complete, tc.complete)
			}
			var all []string
			for _, p := range st.Problems {
				all = append(all, p.Message)
			}
			for _, want := range tc.problems {
				if !strings.Contains(strings.Join(all, "\n"), want) {
					t.Errorf("no problem holds %q:\n%s", want, strings.Join(all, "\n"))
				}
			}
			if len(tc.problems) == 0 && len(all) != 0 {
				t.Errorf("problems %q", all)
			}
		})
	}
}
