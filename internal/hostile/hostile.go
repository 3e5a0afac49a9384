// Package hostile writes the recordings of docs/security.md's memory cases
// at any size: one run of many large tool results, millions of tiny events,
// an unfinished run ahead of many complete ones, one finding recorded many
// times, a million one-event runs and decompression bombs; and, for the
// tests of the replay's order, follow-up turns that need an earlier turn's
// names (NamelessFollowUps). The bench measures them at full size and
// cmd/fpcheck's tests at a small one, so both judge the same bytes; nothing
// of that size is ever committed.
//
// Every writer streams: it holds one event at a time, so gigabytes are
// written in a few kilobytes of memory. The events are shaped after the
// reference corpus's dangling-reference run (the same types, payload keys
// and meta), and the same arguments always give the same bytes.
package hostile

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Tools are the two tools of the hostile runs: the model looks a screen
// id up, then acts on it. ArmAll declares one as the ground of the other.
var Tools = []string{"whats_here", "screen_fire"}

// writer counts and buffers what the generators write, and keeps the first
// error so that the loops need not check each write.
type writer struct {
	w   *bufio.Writer
	n   int64
	err error
}

func newWriter(w io.Writer) *writer { return &writer{w: bufio.NewWriterSize(w, 256<<10)} }

func (w *writer) str(s string) {
	if w.err != nil {
		return
	}
	k, err := w.w.WriteString(s)
	w.n += int64(k)
	w.err = err
}

func (w *writer) bytes(b []byte) {
	if w.err != nil {
		return
	}
	k, err := w.w.Write(b)
	w.n += int64(k)
	w.err = err
}

func (w *writer) done() (int64, error) {
	if w.err == nil {
		w.err = w.w.Flush()
	}
	return w.n, w.err
}

// event writes one NDJSON line: typ, the payload as raw JSON, and the meta
// of the corpus (offsets derived from seq so that they grow).
func (w *writer) event(run, typ, stage, payload string, seq int64) {
	w.str(`{"type":"agentfootprint.`)
	w.str(typ)
	w.str(`","payload":`)
	w.str(payload)
	w.str(`,"meta":{"wallClockMs":`)
	w.str(strconv.FormatInt(1796026292669+seq, 10))
	w.str(`,"runOffsetMs":`)
	w.str(strconv.FormatInt(seq, 10))
	w.str(`,"runtimeStageId":"`)
	w.str(stage)
	w.str(`","subflowPath":[],"compositionPath":["Agent:agent"],"runId":"`)
	w.str(run)
	w.str("\"}}\n")
}

const (
	configured = `{"agentId":"agent","llm":{"provider":"mock","model":"mock"},"reactMode":"dynamic","memories":[],"window":"sliding-window","skillGraph":{}}`
	turnStart  = `{"turnIndex":0,"userPrompt":"Check the floor: list the screens and fire screen2."}`
	llmStart   = `{"iteration":1,"provider":"mock","model":"mock","systemPromptChars":31,"messagesCount":1,"toolsCount":2,"tools":[{"name":"whats_here","description":"Lists the valid screen ids on this floor."},{"name":"screen_fire","description":"Fires one of the screen ids whats_here listed."}]}`
	llmEnd     = `{"iteration":1,"content":"Screen screen2 fired.","toolCallCount":0,"usage":{"input":12,"output":4},"stopReason":"stop","durationMs":1}`
	turnEnd    = `{"turnIndex":0,"finalContent":"Screen screen2 fired.","iterationCount":1,"durationMs":1}`
	finding    = `{"kind":"dangling-reference","seam":"compose","subjects":[{"kind":"tool","id":"screen_fire"},{"kind":"tool","id":"whats_here"}],"witnesses":[{"subject":{"kind":"tool","id":"screen_fire"},"predicate":"argument-ground","value":"results of 'whats_here' evicted, not re-established","epoch":4,"stratum":"asserted","provenance":"window ledger: 'whats_here' in droppedObservations, no result in window"}],"epoch":4,"message":"'screen_fire' is being offered while the results that ground its arguments have left the window (whats_here) and were not re-established.","iteration":4}`
)

// disposition is the run's ledger: the four registered rows, the dangling
// row counting findings.
func disposition(findings int) string {
	return `{"posture":"observe","workExisted":true,"rows":[` +
		`{"check":"invariant-violation","seam":"wire","checked":1,"findings":0,"notApplicable":0,"unreachable":0,"synthetic":0},` +
		`{"check":"invariant-violation","seam":"compose","checked":0,"findings":0,"notApplicable":1,"unreachable":0,"synthetic":0},` +
		`{"check":"dangling-reference","seam":"compose","checked":` + strconv.Itoa(max(1, findings)) + `,"findings":` + strconv.Itoa(findings) + `,"notApplicable":0,"unreachable":0,"synthetic":0},` +
		`{"check":"unsupported-claim","seam":"claim","checked":0,"findings":0,"notApplicable":1,"unreachable":0,"synthetic":0}]}`
}

// head writes the start of a run and returns the next sequence number.
func (w *writer) head(run string) int64 {
	w.event(run, "agent.run_configured", "run-configured#0", configured, 0)
	w.event(run, "agent.turn_start", "seed#0", turnStart, 1)
	w.event(run, "stream.llm_start", "call-llm#1", llmStart, 2)
	return 3
}

// tail writes the end of a run: the answer, the turn's end, the ledger.
func (w *writer) tail(run string, seq int64, findings int) {
	w.event(run, "stream.llm_end", "call-llm#1", llmEnd, seq)
	w.event(run, "agent.turn_end", "turn-end#0", turnEnd, seq+1)
	w.event(run, "integrity.disposition", "integrity-disposition#0", disposition(findings), seq+2)
}

// Results writes one run of n whats_here calls, each answered with a
// result of size bytes: all alike when identical is set, otherwise each
// different throughout (a counter and pseudo-random words). A last model
// call then calls screen_fire with an id the results hold.
func Results(out io.Writer, n, size int, identical bool) (int64, error) {
	w := newWriter(out)
	const run = "run-results"
	seq := w.head(run)
	body := make([]byte, 0, size)
	x := uint64(0x9e3779b97f4a7c15)
	for i := range n {
		id := "h" + strconv.Itoa(i)
		w.event(run, "stream.tool_start", "tool-calls#"+strconv.Itoa(i), `{"toolName":"whats_here","toolCallId":"`+id+`","args":{}}`, seq)
		if i == 0 || !identical {
			body = append(body[:0], "IDS screen2 screen7 rack-a1 "...)
			body = strconv.AppendInt(body, int64(i), 10)
			for len(body) < size {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				body = append(body, ' ', 'r')
				body = strconv.AppendUint(body, x%1e9, 36)
			}
			body = body[:size]
		}
		w.str(`{"type":"agentfootprint.stream.tool_end","payload":{"toolCallId":"` + id + `","result":"`)
		w.bytes(body)
		w.str(`","durationMs":1},"meta":{"wallClockMs":1796026292700,"runOffsetMs":` + strconv.FormatInt(seq+1, 10) +
			`,"runtimeStageId":"tool-calls#` + strconv.Itoa(i) + `","subflowPath":[],"compositionPath":["Agent:agent"],"runId":"` + run + "\"}}\n")
		seq += 2
	}
	// the model then acts on an id, so that the armed checks search
	// everything the run served for it
	w.event(run, "stream.llm_start", "call-llm#2", strings.Replace(llmStart, `"iteration":1`, `"iteration":2`, 1), seq)
	w.event(run, "stream.tool_start", "tool-calls#fire", `{"toolName":"screen_fire","toolCallId":"f1","args":{"id":"screen2"}}`, seq+1)
	w.event(run, "stream.tool_end", "tool-calls#fire", `{"toolCallId":"f1","result":"fired screen2","durationMs":1}`, seq+2)
	w.tail(run, seq+3, 0)
	return w.done()
}

// TinyEvents writes one run of n events in all, nearly all of them small
// context.injected events.
func TinyEvents(out io.Writer, n int) (int64, error) {
	w := newWriter(out)
	const run = "run-tiny"
	seq := w.head(run)
	for ; seq < int64(n)-3; seq++ {
		w.event(run, "context.injected", "inject#0", `{"slot":"messages","source":"user","contentHash":"h`+strconv.FormatInt(seq, 36)+`"}`, seq)
	}
	w.tail(run, seq, 0)
	return w.done()
}

// UnfinishedAhead writes a run that never ends (one run_configured event,
// as a killed writer leaves it) and then n complete runs.
func UnfinishedAhead(out io.Writer, n int) (int64, error) {
	w := newWriter(out)
	w.event("run-unfinished", "agent.run_configured", "run-configured#0", configured, 0)
	for i := range n {
		run := "run-complete-" + strconv.Itoa(i)
		w.tail(run, w.head(run), 0)
	}
	return w.done()
}

// RepeatedFinding writes one run that records the same finding n times,
// its ledger counting every one.
func RepeatedFinding(out io.Writer, n int) (int64, error) {
	w := newWriter(out)
	const run = "run-findings"
	seq := w.head(run)
	for range n {
		w.event(run, "integrity.context_error", "call-llm#88", finding, seq)
	}
	w.tail(run, seq+1, n)
	return w.done()
}

// ManyRuns writes n runs of one event each.
func ManyRuns(out io.Writer, n int) (int64, error) {
	w := newWriter(out)
	for i := range n {
		w.event("run-"+strconv.Itoa(i), "agent.run_configured", "run-configured#0", configured, 0)
	}
	return w.done()
}

// Bomb writes a recording of one real event followed by blank lines, to
// pad bytes uncompressed in all, compressed with codec ("zstd" or "gzip").
// One compressed chunk is written again and again (concatenated zstd
// frames and gzip members decompress as one stream), so an 8 GiB bomb is a
// few hundred kilobytes on disk and takes a moment to write. It returns
// the compressed size.
func Bomb(out io.Writer, codec string, pad int64) (int64, error) {
	compress := func(p []byte) ([]byte, error) {
		var b strings.Builder
		var zw io.WriteCloser
		var err error
		switch codec {
		case "zstd":
			zw, err = zstd.NewWriter(&b, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
		case "gzip":
			zw, err = gzip.NewWriterLevel(&b, gzip.BestCompression)
		default:
			err = fmt.Errorf("hostile: no codec %q", codec)
		}
		if err != nil {
			return nil, err
		}
		if _, err := zw.Write(p); err != nil {
			return nil, err
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		return []byte(b.String()), nil
	}
	const chunk = 16 << 20
	line := strings.Repeat(" ", 1023) + "\n"
	headOut := &strings.Builder{}
	hw := newWriter(headOut)
	hw.event("run-bomb", "agent.run_configured", "run-configured#0", configured, 0)
	if _, err := hw.done(); err != nil {
		return 0, err
	}
	w := newWriter(out)
	for _, part := range []struct {
		plain string
		times int64
	}{
		{headOut.String(), 1},
		{strings.Repeat(line, chunk/len(line)), pad / chunk},
		{strings.Repeat(line, int(pad%chunk)/len(line)) + strings.Repeat(" ", int(pad%chunk)%len(line)), 1},
	} {
		if part.plain == "" || part.times == 0 {
			continue
		}
		c, err := compress([]byte(part.plain))
		if err != nil {
			return 0, err
		}
		for range part.times {
			w.bytes(c)
		}
	}
	return w.done()
}

// ArmAll is declarations that arm every check fpcheck has for tools: each
// takes its arguments from every other (dangling-reference,
// unsupported-argument), notices empty lookups, declares a result column
// checked under warn; one claim and one map owning the first tool; and
// every dial on.
func ArmAll(tools []string) string {
	var b strings.Builder
	b.WriteString("tools:\n")
	for i, t := range tools {
		var from []string
		for j, u := range tools {
			if j != i {
				from = append(from, strconv.Quote(u))
			}
		}
		fmt.Fprintf(&b, "  %q:\n", t)
		if len(from) > 0 {
			fmt.Fprintf(&b, "    argumentsFrom: [%s]\n    noticeEmptyLookups: true\n", strings.Join(from, ", "))
		}
		b.WriteString("    resultColumns: { id: string }\n")
	}
	b.WriteString("claims:\n  nav_count: { entity: screen2, field: nav }\n")
	if len(tools) > 0 {
		fmt.Fprintf(&b, "maps:\n  - { id: skill-map, tools: [%q] }\n", tools[0])
	}
	b.WriteString("dials:\n  checkColumnTypes: warn\n  noticeEmptyLookups: true\n  noticePriorTurnEvidence: true\n")
	return b.String()
}

// NamelessFollowUps repeats a recording of two session-less turns of one
// conversation (testdata's claims/empty-lookup-earlier-turn: runs
// run-fleet-turn-1 and run-fleet-turn-2) n times, each pair under run ids of
// its own, with the second turn's names of call-1 taken out: only the first
// turn's tool_start names it, so judging the second turn needs the names
// the first one leaves behind, which a replay reads only once the first
// turn has ended.
func NamelessFollowUps(turns []byte, n int) []byte {
	var out bytes.Buffer
	for i := range n {
		for _, line := range bytes.SplitAfter(turns, []byte("\n")) {
			if bytes.Contains(line, []byte(`"runId":"run-fleet-turn-2"`)) {
				line = bytes.ReplaceAll(line, []byte(`"toolName":"fleet_report"`), []byte(`"toolName":""`))
				line = bytes.ReplaceAll(line, []byte(`"id":"call-1","name":"fleet_report"`), []byte(`"id":"call-1","name":""`))
			}
			out.Write(bytes.ReplaceAll(line, []byte(`"runId":"run-fleet-`), fmt.Appendf(nil, `"runId":"pair-%d-`, i)))
		}
	}
	return out.Bytes()
}
