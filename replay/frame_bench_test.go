package replay

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/internal/benchcpu"
	"github.com/fpcheck/fpcheck/recording"
)

// historyEvents are a run's head: the person's prompt and one
// iteration_end whose history holds n messages of about size bytes each
// (a tool result, then the model's note on it, in turn), then a result
// naming host-0042 and a note of the model's naming host-9999, so that a
// lookup of either reads the whole frame. Every later request the run
// makes is rebuilt from it.
func historyEvents(n, size int) []*recording.Event {
	filler := strings.Repeat("Abcdefghij KLMNOPQRST uvwxyz0123 ", size/33+1)[:size]
	var hist strings.Builder
	hist.WriteString(`{"iterIndex":0,"history":[{"role":"user","content":"Which hosts of zone z1 are at risk?"}`)
	for i := range n {
		if i%2 == 0 {
			fmt.Fprintf(&hist, `,{"role":"tool","toolCallId":"c-%d","toolName":"fleet_report","content":%q}`, i, fmt.Sprintf("host-%04d %d %s", i+100, i, filler))
		} else {
			fmt.Fprintf(&hist, `,{"role":"assistant","content":%q}`, fmt.Sprintf("Noted %d. %s", i, filler))
		}
	}
	hist.WriteString(`,{"role":"tool","toolCallId":"c-last","toolName":"fleet_report","content":"host-0042 is at risk"}`)
	hist.WriteString(`,{"role":"assistant","content":"I will check the backup of HOST-9999 next."}]}`)
	return []*recording.Event{
		{Type: recording.TypeTurnStart, Payload: []byte(`{"userPrompt":"Which hosts of zone z1 are at risk?"}`)},
		{Type: recording.TypeIterationEnd, Payload: []byte(hist.String())},
	}
}

// responseEvents are one model call rebuilt from the last history of
// messages messages (so that its frame is complete) and the call it
// answers with: a grounded tool called with machine, which the
// choice seam looks up in the whole frame.
func responseEvents(it, messages int, machine string) []*recording.Event {
	return []*recording.Event{
		{Type: recording.TypeLLMStart, Payload: []byte(fmt.Sprintf(`{"iteration":%d,"provider":"mock","systemPromptChars":0,"messagesCount":%d,"tools":[{"name":"fleet_report"},{"name":"backup_status"}],"toolsCount":2}`, it, messages))},
		{Type: recording.TypeLLMEnd, Payload: []byte(fmt.Sprintf(`{"iteration":%d,"content":"","wireManifest":{"tools":["fleet_report","backup_status"]}}`, it))},
		{Type: recording.TypeToolStart, Payload: []byte(`{"toolName":"backup_status","toolCallId":"q-` + strconv.Itoa(it) + `","args":{"machine":"` + machine + `"}}`)},
	}
}

// BenchmarkResponsesOverHistory replays model responses, one per
// iteration, each chosen from a frame rebuilt from the same long history,
// every check armed: what one more response costs (cpu-ns/op, B/op and
// allocs/op are per response) with histories of as many messages, small
// and 32 times larger, for a value the frame grounds and for one only the
// model's own words hold. Each distinct text is lowered once in the run, so
// the cost of a response follows the number of messages in its frame and
// not their bytes.
func BenchmarkResponsesOverHistory(b *testing.B) {
	for _, bc := range []struct {
		name    string
		n, size int
		machine string
	}{
		{"grounded-256x2K", 256, 2 << 10, "host-0042"},
		{"grounded-256x64K", 256, 64 << 10, "host-0042"},
		// Found only in the model's own note: a finding every response.
		{"self-256x2K", 256, 2 << 10, "host-9999"},
		{"self-256x64K", 256, 64 << 10, "host-9999"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			run := &recording.Run{Input: "history.jsonl", ID: "run-history"}
			e := armedEngine(b, run)
			defer e.finish()
			line := int64(0)
			feed := func(evs []*recording.Event) {
				for _, ev := range evs {
					line++
					ev.Line, ev.Index = line, line-1
					ev.Meta = recording.Meta{RunID: run.ID, RuntimeStageID: "stage#" + strconv.FormatInt(line, 10)}
					e.handle(ev)
				}
			}
			feed(historyEvents(bc.n, bc.size))
			// The first response pays for the history's texts once; it is
			// judged when the next one begins.
			feed(responseEvents(1, bc.n+3, bc.machine))
			feed(responseEvents(2, bc.n+3, bc.machine))
			it := 2
			benchcpu.Each(b, func() {
				it++
				feed(responseEvents(it, bc.n+3, bc.machine))
			})
			b.StopTimer()
			e.flushChoice()
			if got := judgedChoices(e); got < it {
				b.Fatalf("%d responses judged, want %d", got, it)
			}
			if self := bc.machine == "host-9999"; self != (len(e.ledger.Findings()) > 0) {
				b.Fatalf("%d findings for %s", len(e.ledger.Findings()), bc.machine)
			}
		})
	}
}

// armedEngine is an engine for run with every check armed by
// synthArmAll.
func armedEngine(b *testing.B, run *recording.Run) *engine {
	b.Helper()
	decl, err := checks.ParseDeclarations("bench.yaml", []byte(synthArmAll))
	if err != nil {
		b.Fatal(err)
	}
	p, err := prepare(checks.Registry, run, decl, Options{}, false)
	if err != nil {
		b.Fatal(err)
	}
	return p.f.e
}

// judgedChoices is how many responses unsupported-argument judged.
func judgedChoices(e *engine) int {
	for _, r := range e.ledger.Rows() {
		if r.Check == checks.KindUnsupportedArgument {
			return int(r.Checked + r.NotApplicable + r.Unreachable)
		}
	}
	return 0
}
