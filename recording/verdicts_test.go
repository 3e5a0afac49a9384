package recording

import (
	"strconv"
	"strings"
	"testing"
)

// TestVerdictsReusedAndBounded pins when a payload takes the verdict of
// one validated before, and that the events decoded either way are the
// legacy decoder's.
func TestVerdictsReusedAndBounded(t *testing.T) {
	payload := `{"contentHash":"` + strings.Repeat("a", 64) + `","slot":"messages","rawContent":"` + strings.Repeat("x", 200) + `"}`
	line := func(run, p string) []byte {
		return []byte(`{"type":"agentfootprint.context.injected","payload":` + p + `,"meta":{"runId":"` + run + `"}}`)
	}
	longer := strings.TrimSuffix(payload, "}") + `,"asRole":"tool"}`
	untyped := []byte(`{"type":"agentfootprint.agent.turn_start","payload":` + payload + `,"meta":{"runId":"a"}}`)
	tests := []struct {
		name  string
		lines [][]byte
		hits  int64
	}{
		{"a repeat in the run", [][]byte{line("a", payload), line("a", payload), line("a", payload)}, 2},
		{"a short payload is not kept", [][]byte{line("a", `{"slot":"x"}`), line("a", `{"slot":"x"}`)}, 0},
		{"another run starts afresh", [][]byte{line("a", payload), line("b", `{}`), line("b", payload)}, 0},
		{"the same start, a longer payload", [][]byte{line("a", payload), line("a", longer)}, 0},
		{"the same bytes under another schema", [][]byte{line("a", payload), untyped, untyped}, 1},
		{"a kept payload followed by bytes that are not JSON", [][]byte{line("a", payload), []byte(`{"type":"agentfootprint.context.injected","payload":` + payload + `x,"meta":{"runId":"a"}}`)}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := eventDecoder{verdicts: verdicts{eager: true}}
			for _, l := range tt.lines {
				var r decodedEvent
				d.decode(l, &r)
			}
			if d.verdicts.hits != tt.hits {
				t.Errorf("%d payloads took a kept verdict, want %d", d.verdicts.hits, tt.hits)
			}
			compareDecode(t, tt.lines...)
		})
	}
}

// TestVerdictsStayWithinBudget fills the cache with distinct payloads
// longer than the budget allows.
func TestVerdictsStayWithinBudget(t *testing.T) {
	d := eventDecoder{verdicts: verdicts{eager: true}}
	for i := range 4000 {
		p := `{"slot":"messages","rawContent":"` + strings.Repeat(string(rune('a'+i%26)), 1000+i) + `"}`
		var r decodedEvent
		d.decode([]byte(`{"type":"agentfootprint.context.injected","payload":`+p+`,"meta":{"runId":"a"}}`), &r)
		if r.err != nil {
			t.Fatal(r.err)
		}
	}
	if d.verdicts.held > verdictBudget {
		t.Errorf("the cache holds %d bytes, more than its budget of %d", d.verdicts.held, verdictBudget)
	}
}

// TestVerdictsWaitForWarmup: a decoder that has read little keeps nothing.
func TestVerdictsWaitForWarmup(t *testing.T) {
	var d eventDecoder
	var r decodedEvent
	d.decode([]byte(`{"type":"agentfootprint.agent.turn_start","payload":{},"meta":{"runId":"a"}}`), &r)
	if d.verdicts.on() {
		t.Error("the cache started at the first line")
	}
}

// TestVerdictsProbeEachSchema: a type whose payloads never repeat stops
// being kept after its probe, and is probed again later; a type whose
// payloads repeat stays kept, and the events decode as the legacy
// decoder's either way.
func TestVerdictsProbeEachSchema(t *testing.T) {
	injected := func(i int) []byte {
		p := `{"slot":"messages","rawContent":"` + strings.Repeat("x", 200) + `","position":` + strconv.Itoa(i%4) + `}`
		return []byte(`{"type":"agentfootprint.context.injected","payload":` + p + `,"meta":{"runId":"a"}}`)
	}
	toolEnd := func(i int) []byte {
		p := `{"toolCallId":"call-` + strconv.Itoa(i) + `","result":"` + strings.Repeat("r", 200) + `"}`
		return []byte(`{"type":"agentfootprint.stream.tool_end","payload":` + p + `,"meta":{"runId":"a"}}`)
	}
	d := eventDecoder{verdicts: verdicts{eager: true}}
	var lines [][]byte
	for i := range verdictProbe + 100 {
		lines = append(lines, injected(i), toolEnd(i))
	}
	for _, l := range lines {
		var r decodedEvent
		d.decode(l, &r)
	}
	inj, end := d.verdicts.stats[compiledSchemas[TypeContextInjected]], d.verdicts.stats[compiledSchemas[TypeToolEnd]]
	if inj == nil || inj.off() {
		t.Errorf("repeated payloads stopped being kept: %+v", inj)
	}
	if end == nil || !end.off() || end.skipped != 100 {
		t.Errorf("distinct payloads: %+v, want off after %d kept and 100 skipped", end, verdictProbe)
	}
	end.skipped = verdictReprobe - 1
	var r decodedEvent
	d.decode(toolEnd(-1), &r)
	if end.off() || end.kept != 0 {
		t.Errorf("after %d skipped the schema is not probed again: %+v", verdictReprobe, end)
	}
	compareDecode(t, lines...)
}
