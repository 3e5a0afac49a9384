package replay

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fpcheck/fpcheck/checks"
)

// evictionHeavyRun writes one run of calls model calls, each followed by
// one context.evicted, with dangling-reference armed by the declarations
// the run itself carries (agent.run_configured.payload.integrity). The
// evictions cycle through every kind the eviction join tells apart: a hash
// that matches nothing, a hash shared by results of two named tools, one
// shared by a named and an unnamed tool's result, and an exact join of a
// tool no check depends on. The last eviction certainly drops the ground,
// so the call after it files the run's one finding. Every other call
// offers a grounded tool whose ground is absent from its frame, so it is
// handed every doubt the run has raised so far. doubts is how many of the
// doubts the run raises the check names, each a distinct reason.
func evictionHeavyRun(calls int) (data []byte, doubts int) {
	var b bytes.Buffer
	stage := 0
	event := func(typ, payload string, args ...any) {
		stage++
		fmt.Fprintf(&b, `{"type":"agentfootprint.%s","payload":`, typ)
		fmt.Fprintf(&b, payload, args...)
		fmt.Fprintf(&b, `,"meta":{"runtimeStageId":"s#%d","runId":"run-evictions"}}`+"\n", stage)
	}
	event("agent.run_configured", `{"agentId":"agent","integrity":{"tools":{"screen_fire":{"argumentsFrom":["whats_here"]}}}}`)
	event("agent.turn_start", `{"turnIndex":0,"userPrompt":"Fire every screen."}`)
	toolStart := func(name, call string) {
		event("stream.tool_start", `{"toolName":%q,"toolCallId":%q,"args":{}}`, name, call)
	}
	toolResult := func(call, hash string) {
		event("context.injected", `{"slot":"messages","source":"tool-result","sourceId":%q,"asRole":"tool","rawContent":"r %s","contentHash":%q,"position":0}`, call, call, hash)
	}
	llmStart := func(i, messages int) {
		event("stream.llm_start", `{"iteration":%d,"systemPromptChars":0,"messagesCount":%d,"toolsCount":3,"tools":[{"name":"whats_here"},{"name":"screen_fire"},{"name":"other"}]}`, i, messages)
	}
	for i := 1; i <= calls; i++ {
		// The hash the eviction after the call names, and the messages
		// the call's frame holds (the user prompt alone when none were
		// injected).
		hash, messages, doubt := fmt.Sprint("dead", i), 1, true
		switch {
		case i == calls:
			toolStart("whats_here", "last")
			toolResult("last", "last")
			hash, doubt = "last", false
		case i%8 == 1, i%8 == 2:
			// Two results share one hash; the other call's tool is
			// named only in the first round.
			hash, messages = fmt.Sprint("amb", i), 2
			toolStart("whats_here", fmt.Sprint("w", i))
			if i%8 == 1 {
				toolStart("other", fmt.Sprint("o", i))
			}
			toolResult(fmt.Sprint("w", i), hash)
			toolResult(fmt.Sprint("o", i), hash)
		case i%8 == 3:
			hash, doubt = fmt.Sprint("oth", i), false
			toolStart("other", fmt.Sprint("x", i))
			toolResult(fmt.Sprint("x", i), hash)
		}
		if doubt && i < calls-1 {
			// The doubt raised after the second-last call is never
			// named: the last call holds a result of the ground, and
			// the one after it knows the ground was dropped.
			doubts++
		}
		llmStart(i, messages)
		event("context.evicted", `{"slot":"messages","contentHash":%q}`, hash)
	}
	llmStart(calls+1, 1)
	event("stream.llm_end", `{"iteration":%d,"content":"done","toolCallCount":0}`, calls+1)
	return b.Bytes(), doubts
}

// TestManyEvictionsReplayInLinearTime replays a run of 20,000 model calls
// and 20,000 evictions. Each call is handed the run's evictions so far,
// so an engine that re-read them all on every call would take minutes on
// this run; folded once each, they take a fraction of a second. Nothing is
// timed here (a slow machine must not fail the suite): a regression shows
// as a suite that stalls.
func TestManyEvictionsReplayInLinearTime(t *testing.T) {
	const calls = 20000
	data, doubts := evictionHeavyRun(calls)
	runs := loadAll(t, "evictions.jsonl", data)
	if len(runs) != 1 {
		t.Fatalf("loaded %d runs, want 1", len(runs))
	}
	ev, err := Replay(runs[0], nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	row, ok := ev.Disposition.Row(checks.KindDanglingReference, checks.SeamCompose)
	if !ok {
		t.Fatal("no dangling-reference row")
	}
	if got := row.Checked + row.NotApplicable + row.Unreachable; got != int64(calls+1) {
		t.Errorf("dangling-reference noted %d encounters (%+v), want one per call, %d", got, row, calls+1)
	}
	if row.Unreachable == 0 || row.Findings != 1 || len(ev.Findings) != 1 {
		t.Errorf("row %+v with %d findings: want unreachable calls and the one finding of the last call", row, len(ev.Findings))
	}
	reasons := ev.Unreachable[checks.Key(checks.KindDanglingReference, checks.SeamCompose)]
	if len(reasons) != doubts {
		t.Errorf("%d reasons, want one per doubt, %d", len(reasons), doubts)
	}
}

// TestEvictionHeavyRunReadsAlike holds the two readings of a smaller
// eviction-heavy run to the same evidence.
func TestEvictionHeavyRunReadsAlike(t *testing.T) {
	data, _ := evictionHeavyRun(400)
	runs := loadAll(t, "evictions.jsonl", data)
	for _, run := range runs {
		assertSameReplay(t, "evictions.jsonl", run, nil, Options{})
	}
}

// TestEvictionJoins pins the candidates an eviction is joined to where many
// messages share its hash: two entries of one history whose hashes collide
// (both leave with the first eviction, so a second one matches nothing),
// and twenty records of the messages slot, twelve distinct, sharing a hash.
func TestEvictionJoins(t *testing.T) {
	head := `{"type":"agentfootprint.agent.run_configured","payload":{"integrity":{"tools":{"screen_fire":{"argumentsFrom":["whats_here"]}}}},"meta":{"runId":"r"}}
{"type":"agentfootprint.agent.turn_start","payload":{"userPrompt":"go"},"meta":{"runId":"r"}}
{"type":"agentfootprint.stream.tool_start","payload":{"toolName":"whats_here","toolCallId":"w1","args":{}},"meta":{"runId":"r"}}
{"type":"agentfootprint.stream.tool_start","payload":{"toolName":"other","toolCallId":"o1","args":{}},"meta":{"runId":"r"}}
`
	call := `{"type":"agentfootprint.stream.llm_start","payload":{"iteration":%d,"systemPromptChars":0,"messagesCount":1,"toolsCount":2,"tools":[{"name":"screen_fire"},{"name":"whats_here"}]},"meta":{"runId":"r"}}` + "\n"
	evicted := `{"type":"agentfootprint.context.evicted","payload":{"slot":"messages","contentHash":%q},"meta":{"runId":"r"}}` + "\n"
	// "result 213785" at index 1 and "result 947870" at index 2 of a
	// history share the content hash d4a2206f.
	collision := head + fmt.Sprintf(call, 1) +
		`{"type":"agentfootprint.agent.iteration_end","payload":{"iterIndex":1,"history":[{"role":"user","content":"go"},{"role":"tool","content":"result 213785","toolCallId":"w1"},{"role":"tool","content":"result 947870","toolCallId":"o1","toolName":"other"}]},"meta":{"runId":"r"}}` + "\n" +
		fmt.Sprintf(evicted, "d4a2206f") + fmt.Sprintf(evicted, "d4a2206f") + fmt.Sprintf(call, 2)
	shared := head
	for i := 0; i < 20; i++ {
		// Twelve distinct records, the first eight again after them.
		k := i % 12
		callID := fmt.Sprint("c", k)
		if k%4 == 0 {
			callID = "w1"
		}
		shared += fmt.Sprintf(`{"type":"agentfootprint.context.injected","payload":{"slot":"messages","source":"tool-result","sourceId":%q,"asRole":"tool","rawContent":"r%d","contentHash":"shared","position":%d},"meta":{"runId":"r"}}`+"\n", callID, k, i)
	}
	shared += fmt.Sprintf(call, 1) + fmt.Sprintf(evicted, "shared") + fmt.Sprintf(call, 2)
	tests := []struct {
		name, data string
		want       []string
	}{
		{"colliding history entries", collision, []string{
			"context.evicted d4a2206f at iteration 2 matches 2 recorded messages ('whats_here' result of call w1; 'other' result of call o1), so which one left the window is ambiguous",
			"context.evicted d4a2206f at iteration 2 matches no message recorded before it in this run, so which message left the window is unknown",
		}},
		{"records sharing a hash", shared, []string{
			"context.evicted shared at iteration 2 matches 12 recorded messages ('whats_here' result of call w1; tool result of call c1 from an unnamed tool; tool result of call c2 from an unnamed tool; tool result of call c3 from an unnamed tool; 'whats_here' result of call w1; tool result of call c5 from an unnamed tool; tool result of call c6 from an unnamed tool; tool result of call c7 from an unnamed tool; 'whats_here' result of call w1; tool result of call c9 from an unnamed tool; tool result of call c10 from an unnamed tool; tool result of call c11 from an unnamed tool), so which one left the window is ambiguous",
		}},
	}
	key := checks.Key(checks.KindDanglingReference, checks.SeamCompose)
	for _, tc := range tests {
		runs := loadAll(t, tc.name, []byte(tc.data))
		if len(runs) != 1 {
			t.Fatalf("%s: %d runs", tc.name, len(runs))
		}
		ev, err := Replay(runs[0], nil, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(tc.want, ev.Unreachable[key]); diff != "" {
			t.Errorf("%s: reasons (-want +got):\n%s", tc.name, diff)
		}
		assertSameReplay(t, tc.name, runs[0], nil, Options{})
	}
}

// BenchmarkReplayManyEvictions replays the eviction-heavy run of
// TestManyEvictionsReplayInLinearTime, loaded once.
func BenchmarkReplayManyEvictions(b *testing.B) {
	data, _ := evictionHeavyRun(20000)
	runs := loadAll(b, "evictions.jsonl", data)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Replay(runs[0], nil, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEvictionsJoinTheLastHistory: a history is indexed by its hashes when
// an eviction first asks after it, and an eviction joins the last history
// read, hashed at that history's own indexes. whats_here's result stands
// at index 1 of the first history and at index 2 of the second, so the
// hash of index 1 removes it from the first and nothing from the second,
// where the hash of index 2 does.
func TestEvictionsJoinTheLastHistory(t *testing.T) {
	decl, err := checks.ParseDeclarations("decl.yaml", []byte("tools:\n  screen_fire: { argumentsFrom: [whats_here] }\n"))
	if err != nil {
		t.Fatal(err)
	}
	atOne, atTwo := MessageHash("tool", 1, "result w"), MessageHash("tool", 2, "result w")
	first := `[{"role":"user","content":"go"},{"role":"tool","content":"result w","toolCallId":"w1"}]`
	second := `[{"role":"user","content":"go"},{"role":"tool","content":"result o","toolCallId":"o1"},{"role":"tool","content":"result w","toolCallId":"w1"}]`
	history := func(i int, h string) string {
		return fmt.Sprintf(`{"type":"agentfootprint.agent.iteration_end","payload":{"iterIndex":%d,"history":%s},"meta":{"runId":"r"}}`+"\n", i, h)
	}
	evicted := func(hash string) string {
		return fmt.Sprintf(`{"type":"agentfootprint.context.evicted","payload":{"slot":"messages","contentHash":%q},"meta":{"runId":"r"}}`+"\n", hash)
	}
	tests := []struct {
		name    string
		tail    string
		evicted []bool // of the last history's entries
	}{
		{"no eviction", history(1, first), []bool{false, false}},
		{"index 1 of the first", history(1, first) + evicted(atOne), []bool{false, true}},
		{"index 1 after the second", history(1, first) + evicted(atOne) + history(2, second) + evicted(atOne), []bool{false, false, false}},
		{"index 2 after the second", history(1, first) + evicted(atOne) + history(2, second) + evicted(atTwo), []bool{false, false, true}},
		{"the second unasked before", history(1, first) + history(2, second) + evicted(atTwo) + evicted(atOne), []bool{false, false, true}},
	}
	for _, tc := range tests {
		runs := loadAll(t, tc.name, []byte(tc.tail))
		if len(runs) != 1 {
			t.Fatalf("%s: %d runs", tc.name, len(runs))
		}
		for _, slow := range []bool{false, true} {
			e := newEngine(checks.Registry, decl, checks.PostureObserve, runs[0], slow)
			for i := range runs[0].Events {
				e.handle(&runs[0].Events[i])
			}
			var got []bool
			for _, h := range e.history {
				got = append(got, h.evicted)
			}
			if diff := cmp.Diff(tc.evicted, got); diff != "" {
				t.Errorf("%s (slow %v): evicted entries (-want +got):\n%s", tc.name, slow, diff)
			}
			e.finish()
		}
	}
}
