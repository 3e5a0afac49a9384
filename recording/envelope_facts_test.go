package recording

import (
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
