package synth

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// small is a configuration that exercises every feature in a few hundred
// kilobytes.
func small() Config {
	return Config{Runs: 2, Iterations: 7, ToolResultBytes: 300, LongResultEvery: 9,
		Evictions: true, Findings: true, SessionID: "sess-42", Seed: 7}
}

func gen(t testing.TB, write func(io.Writer, Config) (int64, error), c Config) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := write(&buf, c)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("generate reported %d bytes, wrote %d", n, buf.Len())
	}
	return buf.Bytes()
}

type rawEvent struct {
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
	Meta    struct {
		WallClockMs    int64    `json:"wallClockMs"`
		RunOffsetMs    *int64   `json:"runOffsetMs"`
		RuntimeStageID string   `json:"runtimeStageId"`
		SubflowPath    []string `json:"subflowPath"`
		Composition    []string `json:"compositionPath"`
		RunID          string   `json:"runId"`
		SessionID      string   `json:"sessionId"`
	} `json:"meta"`
}

// lines splits NDJSON into lines, checking the final newline.
func lines(t *testing.T, b []byte) [][]byte {
	t.Helper()
	if len(b) == 0 || b[len(b)-1] != '\n' {
		t.Fatal("NDJSON does not end with a newline")
	}
	return bytes.Split(b[:len(b)-1], []byte("\n"))
}

func decodeLines(t *testing.T, b []byte) []rawEvent {
	t.Helper()
	var evs []rawEvent
	for i, l := range lines(t, b) {
		var ev rawEvent
		if err := json.Unmarshal(l, &ev); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func TestDeterministic(t *testing.T) {
	one := small()
	one.Runs = 1
	inter := small()
	inter.Runs = 3
	inter.Interleave = true
	tests := []struct {
		name  string
		write func(io.Writer, Config) (int64, error)
		c     Config
	}{
		{"ndjson", WriteNDJSON, small()},
		{"ndjson-interleaved", WriteNDJSON, inter},
		{"recording", WriteRecordingJSON, small()},
		{"envelope", WriteEnvelope, one},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := gen(t, tt.write, tt.c), gen(t, tt.write, tt.c)
			if !bytes.Equal(a, b) {
				t.Fatal("the same Config gave different bytes")
			}
			other := tt.c
			other.Seed++
			if bytes.Equal(a, gen(t, tt.write, other)) {
				t.Fatal("another Seed gave the same bytes")
			}
		})
	}
}

func TestNDJSONDecodes(t *testing.T) {
	tests := []struct {
		name string
		c    Config
	}{
		{"defaults", Config{}},
		{"all-features", small()},
		{"interleaved", Config{Runs: 4, Iterations: 5, Interleave: true, Evictions: true, Findings: true, Seed: 3}},
		{"one-call", Config{Iterations: 1, Findings: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := decodeLines(t, gen(t, WriteNDJSON, tt.c))
			runs := map[string]bool{}
			for i, ev := range evs {
				if !strings.HasPrefix(ev.Type, "agentfootprint.") || ev.Payload == nil || ev.Meta.RunID == "" ||
					ev.Meta.RuntimeStageID == "" || ev.Meta.RunOffsetMs == nil || ev.Meta.SubflowPath == nil ||
					len(ev.Meta.Composition) != 1 {
					t.Fatalf("event %d is not a complete event: %+v", i, ev)
				}
				if ev.Type == "agentfootprint.stream.token" {
					t.Fatalf("event %d: a standard-tier stream holds no stream.token", i)
				}
				if ev.Meta.SessionID != tt.c.SessionID {
					t.Fatalf("event %d: sessionId %q, want %q", i, ev.Meta.SessionID, tt.c.SessionID)
				}
				runs[ev.Meta.RunID] = true
			}
			want := max(tt.c.Runs, 1)
			if len(runs) != want {
				t.Fatalf("%d runIds, want %d", len(runs), want)
			}
		})
	}
}

// TestRecordingMatchesStream checks format B as a whole: it decodes, has
// what openRecording requires, and its events are the NDJSON stream's
// events plus stream.token, byte for byte.
func TestRecordingMatchesStream(t *testing.T) {
	c := small()
	rec := gen(t, WriteRecordingJSON, c)
	var r struct {
		Snapshot struct {
			CommitLog     []json.RawMessage          `json:"commitLog"`
			ExecutionTree map[string]json.RawMessage `json:"executionTree"`
			SharedState   map[string]json.RawMessage `json:"sharedState"`
			Subflows      map[string]json.RawMessage `json:"subflowResults"`
			Recorders     []json.RawMessage          `json:"recorders"`
			RunID         string                     `json:"runId"`
		} `json:"snapshot"`
		Events    []json.RawMessage `json:"events"`
		Structure map[string]any    `json:"structure"`
	}
	if err := json.Unmarshal(rec, &r); err != nil {
		t.Fatalf("recording does not decode: %v", err)
	}
	if len(r.Snapshot.CommitLog) == 0 || r.Snapshot.ExecutionTree == nil || r.Snapshot.SharedState == nil ||
		len(r.Snapshot.Subflows) == 0 || len(r.Snapshot.Recorders) != 1 || r.Snapshot.RunID == "" || r.Structure == nil {
		t.Fatal("snapshot or structure is missing a part")
	}
	var stream [][]byte
	tokens := 0
	for _, ev := range r.Events {
		if bytes.Contains(ev[:60], []byte(`"agentfootprint.stream.token"`)) {
			tokens++
			continue
		}
		stream = append(stream, ev)
	}
	if tokens == 0 {
		t.Fatal("the recording's events hold no stream.token")
	}
	want := lines(t, gen(t, WriteNDJSON, c))
	if len(stream) != len(want) {
		t.Fatalf("recording has %d non-token events, the stream %d", len(stream), len(want))
	}
	for i := range want {
		if !bytes.Equal(stream[i], want[i]) {
			t.Fatalf("event %d differs:\nrecording %s\nstream    %s", i, stream[i], want[i])
		}
	}
}

func TestEnvelope(t *testing.T) {
	c := small()
	c.Runs = 1
	env := gen(t, WriteEnvelope, c)
	if !bytes.HasSuffix(env, []byte("}\n")) || !bytes.HasPrefix(env, []byte("{\n  \"format\": ")) {
		t.Fatal("envelope is not pretty-printed with a final newline")
	}
	var e struct {
		Format string `json:"format"`
		Run    struct {
			RunID     string `json:"runId"`
			SessionID string `json:"sessionId"`
			Complete  bool   `json:"complete"`
			StartedAt string `json:"startedAt"`
		} `json:"run"`
		Configuration struct {
			Manifest map[string]any `json:"manifest"`
		} `json:"configuration"`
		Recording struct {
			Events []rawEvent `json:"events"`
		} `json:"recording"`
	}
	if err := json.Unmarshal(env, &e); err != nil {
		t.Fatalf("envelope does not decode: %v", err)
	}
	if e.Format != "agentfootprint.recording.v1" || !e.Run.Complete || e.Run.SessionID != c.SessionID ||
		e.Configuration.Manifest["agentId"] != "agent" || !strings.HasSuffix(e.Run.StartedAt, "Z") {
		t.Fatalf("envelope head is wrong: %+v", e)
	}
	for _, ev := range e.Recording.Events {
		if ev.Meta.RunID != e.Run.RunID {
			t.Fatalf("event of run %s in the envelope of %s", ev.Meta.RunID, e.Run.RunID)
		}
	}
	// the pretty envelope holds exactly the compact recording
	var compact bytes.Buffer
	if err := json.Compact(&compact, env); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(compact.Bytes(), gen(t, WriteRecordingJSON, c)) {
		t.Fatal("the envelope's recording is not the recording JSON")
	}
}

func TestConfigRefused(t *testing.T) {
	tests := []struct {
		name  string
		write func(io.Writer, Config) (int64, error)
		c     Config
	}{
		{"negative runs", WriteNDJSON, Config{Runs: -1}},
		{"negative iterations", WriteRecordingJSON, Config{Iterations: -2}},
		{"negative result size", WriteNDJSON, Config{ToolResultBytes: -1}},
		{"negative long results", WriteNDJSON, Config{LongResultEvery: -1}},
		{"control character in session", WriteNDJSON, Config{SessionID: "a\nb"}},
		{"envelope over two runs", WriteEnvelope, Config{Runs: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if _, err := tt.write(&buf, tt.c); err == nil {
				t.Fatal("no error")
			}
			if buf.Len() != 0 {
				t.Fatalf("wrote %d bytes before refusing", buf.Len())
			}
		})
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	w.n++
	if w.n > 2 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestWriteErrorStops(t *testing.T) {
	c := DefaultConfig()
	for name, write := range map[string]func(io.Writer, Config) (int64, error){
		"ndjson": WriteNDJSON, "recording": WriteRecordingJSON, "envelope": WriteEnvelope,
	} {
		w := &failWriter{}
		if _, err := write(w, c); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%s: error %v, want the writer's", name, err)
		}
		if w.n > 3 {
			t.Errorf("%s: %d writes after the first failure", name, w.n-3)
		}
	}
}

// TestHashesAreTheReplays: the generator's hashes are the replay's, so an
// eviction it writes joins back to the message it removed.
func TestHashesAreTheReplays(t *testing.T) {
	if MessageHash("tool", 3, "fired screen2: temperature 49C") != "729df910" {
		t.Error("MessageHash drifted from agentfootprint's")
	}
	if ToolHash("whats_here", "Lists the valid screen ids on this floor.") != "8144a3b8" {
		t.Error("ToolHash drifted from agentfootprint's")
	}
	if SystemPromptHash("", "", "You walk the data-center floor.") != "d48d7caf" ||
		SystemPromptHash("skill", "zone-audit", "Audit zones.") != "9811c273" {
		t.Error("SystemPromptHash drifted from agentfootprint's")
	}
}

type injected struct {
	ContentHash string `json:"contentHash"`
	Slot        string `json:"slot"`
	Source      string `json:"source"`
	SourceID    string `json:"sourceId"`
	RawContent  string `json:"rawContent"`
	AsRole      string `json:"asRole"`
	Position    int    `json:"position"`
	Summary     string `json:"contentSummary"`
	Reason      string `json:"reason"`
}

// checkHashes recomputes every contentHash of a stream and joins every
// eviction to the most recent injection with the same hash.
func checkHashes(t *testing.T, evs []rawEvent, corpus bool) (checked int) {
	t.Helper()
	// hashes injected so far, per run; for the corpus, per file: a follow-up
	// turn (a new runId) evicts messages its previous turn injected, at
	// its very first window stage
	seen := map[string]map[string]bool{}
	key := func(ev rawEvent) string {
		if corpus {
			return ""
		}
		return ev.Meta.RunID
	}
	for i, ev := range evs {
		switch ev.Type {
		case "agentfootprint.context.injected":
			var p injected
			if err := json.Unmarshal(ev.Payload, &p); err != nil {
				t.Fatal(err)
			}
			var want string
			switch p.Slot {
			case "messages":
				want = MessageHash(p.AsRole, p.Position, p.RawContent)
				if seen[key(ev)] == nil {
					seen[key(ev)] = map[string]bool{}
				}
				seen[key(ev)][p.ContentHash] = true
			case "tools":
				name, desc, _ := strings.Cut(p.RawContent, ": ")
				switch {
				case p.Source != "registry":
					want = FNV1a("tool:" + p.Source + ":" + p.SourceID + ":" + name)
				case strings.HasPrefix(p.Reason, "tool provider"):
					want = FNV1a("tool:provider:" + name)
				default:
					want = ToolHash(name, desc)
				}
			case "system-prompt":
				if p.Source == "base" {
					want = SystemPromptHash("", "", p.RawContent)
				} else {
					want = SystemPromptHash(p.Source, p.SourceID, p.RawContent)
				}
			}
			if p.ContentHash != want {
				t.Errorf("event %d: %s contentHash %s, recomputed %s", i, p.Slot, p.ContentHash, want)
			}
			if !corpus && p.Summary != summary(p.RawContent) {
				t.Errorf("event %d: contentSummary %q", i, p.Summary)
			}
			checked++
		case "agentfootprint.context.evicted":
			var p struct {
				ContentHash string `json:"contentHash"`
			}
			if err := json.Unmarshal(ev.Payload, &p); err != nil {
				t.Fatal(err)
			}
			if !seen[key(ev)][p.ContentHash] {
				t.Errorf("event %d: evicted hash %s joins no earlier message", i, p.ContentHash)
			}
			checked++
		}
	}
	return checked
}

func TestContentHashes(t *testing.T) {
	c := small()
	c.Interleave = true
	if n := checkHashes(t, decodeLines(t, gen(t, WriteNDJSON, c)), false); n < 100 {
		t.Fatalf("only %d hashes checked", n)
	}
}

// TestContentHashesCorpus recomputes the hashes agentfootprint itself wrote,
// which pins the hash formulas this package relies on.
func TestContentHashesCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "reference-corpus", "*", "events.jsonl"))
	if len(files) == 0 {
		t.Skip("reference corpus not present")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := checkHashes(t, decodeLines(t, b), true); n == 0 {
			t.Errorf("%s: no hash checked", f)
		}
	}
}

func TestSummary(t *testing.T) {
	long := strings.Repeat("a", 79) + "—" + "tail"
	tests := []struct{ in, want string }{
		{"short", "short"},
		{strings.Repeat("b", 80), strings.Repeat("b", 80)},
		{strings.Repeat("b", 81), strings.Repeat("b", 79) + "…"},
		{long, strings.Repeat("a", 79) + "…"},
		{strings.Repeat("é", 80), strings.Repeat("é", 80)},
	}
	for _, tt := range tests {
		if got := summary(tt.in); got != tt.want {
			t.Errorf("summary(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSizesScaleLinearly(t *testing.T) {
	size := func(c Config) float64 {
		n, err := WriteNDJSON(io.Discard, c)
		if err != nil {
			t.Fatal(err)
		}
		return float64(n)
	}
	base := Config{Iterations: 40, ToolResultBytes: 1000, Evictions: true, Findings: true, Seed: 5}
	four := base
	four.Runs = 4
	if r := size(four) / size(base); r < 3.9 || r > 4.1 {
		t.Errorf("4 runs are %.2f times 1 run", r)
	}
	long := base
	long.Iterations = 160
	if r := size(long) / size(base); r < 3.6 || r > 4.4 {
		t.Errorf("160 calls are %.2f times 40 calls", r)
	}
	big := base
	big.ToolResultBytes = 16000
	if r := size(big) / size(base); r < 5 {
		t.Errorf("16x the result size grew the stream only %.2f times", r)
	}
	rec := func(c Config) float64 {
		n, err := WriteRecordingJSON(io.Discard, c)
		if err != nil {
			t.Fatal(err)
		}
		return float64(n)
	}
	if r := rec(long) / rec(base); r < 3.6 || r > 5 {
		t.Errorf("recording: 160 calls are %.2f times 40 calls", r)
	}
}

// jsonDepth walks the tokens of a JSON document and returns its deepest
// nesting. It stops once a nest deeper than 100 levels has closed back to
// depth 2: the execution tree is over and the rest of a recording is
// shallow, so walking it would only slow the test.
func jsonDepth(t *testing.T, r io.Reader) int {
	t.Helper()
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	depth, deepest := 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF || (deepest > 100 && depth == 2) {
			return deepest
		}
		if err != nil {
			t.Fatalf("token walk: %v", err)
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
				deepest = max(deepest, depth)
			} else {
				depth--
			}
		}
	}
}

func TestRecordingDepth(t *testing.T) {
	c := Config{Iterations: 200, ToolResultBytes: 64, Evictions: true, Seed: 2}
	pr, pw := io.Pipe()
	go func() {
		_, err := WriteRecordingJSON(pw, c)
		pw.CloseWithError(err)
	}()
	d := jsonDepth(t, pr)
	pr.Close() // stops the writer
	if d <= 2000 {
		t.Fatalf("a 200-call recording nests %d levels, want more than 2,000", d)
	}
	t.Logf("a 200-call recording nests %d levels", d)
}

// TestEventOrder checks each run of a small stream against the order of
// events in a dynamic-mode run (formats reference §2.4), one call at a time.
func TestEventOrder(t *testing.T) {
	for _, c := range []Config{
		{Runs: 1, Iterations: 6, Evictions: true, Findings: true, ToolResultBytes: 200, Seed: 11},
		{Runs: 3, Iterations: 5, Evictions: true, Findings: true, Interleave: true, ToolResultBytes: 200, Seed: 12},
		{Runs: 1, Iterations: 3, Seed: 13},
	} {
		evs := decodeLines(t, gen(t, WriteNDJSON, c))
		byRun := map[string][]rawEvent{}
		var order []string
		for _, ev := range evs {
			if byRun[ev.Meta.RunID] == nil {
				order = append(order, ev.Meta.RunID)
			}
			byRun[ev.Meta.RunID] = append(byRun[ev.Meta.RunID], ev)
		}
		if c.Interleave && byRun[order[0]][len(byRun[order[0]])-1].Meta.WallClockMs < byRun[order[1]][0].Meta.WallClockMs {
			t.Error("interleaved runs do not overlap in time")
		}
		for _, id := range order {
			checkRunOrder(t, c, byRun[id])
		}
	}
}

func short(typ string) string { return strings.TrimPrefix(typ, "agentfootprint.") }

func checkRunOrder(t *testing.T, c Config, evs []rawEvent) {
	t.Helper()
	i := 0
	peek := func() string {
		if i < len(evs) {
			return short(evs[i].Type)
		}
		return "<end>"
	}
	expect := func(typ string) rawEvent {
		t.Helper()
		if peek() != typ {
			t.Fatalf("run %s event %d: %s, want %s", evs[0].Meta.RunID, i, peek(), typ)
		}
		i++
		return evs[i-1]
	}
	iteration := func(ev rawEvent, key string) int {
		var p map[string]any
		if err := json.Unmarshal(ev.Payload, &p); err != nil {
			t.Fatal(err)
		}
		v, _ := p[key].(float64)
		return int(v)
	}
	// monotonic clocks and stage counters, pseudo-stages aside
	lastWall, lastN := int64(0), -1
	for k, ev := range evs {
		if ev.Meta.WallClockMs < lastWall {
			t.Fatalf("event %d: wallClockMs goes back", k)
		}
		lastWall = ev.Meta.WallClockMs
		if strings.Contains(ev.Meta.RuntimeStageID, "-configured#") || strings.Contains(ev.Meta.RuntimeStageID, "-declared#") ||
			strings.HasPrefix(ev.Meta.RuntimeStageID, "integrity-disposition#") {
			continue
		}
		_, num, _ := strings.Cut(ev.Meta.RuntimeStageID, "#")
		var n int
		for _, d := range num {
			n = n*10 + int(d-'0')
		}
		if n < lastN {
			t.Fatalf("event %d: stage %s goes back", k, ev.Meta.RuntimeStageID)
		}
		lastN = n
	}

	expect("agent.run_configured")
	if peek() == "skill.graph_declared" {
		i++
	}
	expect("agent.turn_start")
	for n := 1; n <= c.Iterations; n++ {
		for peek() == "context.evicted" {
			if n < 2 || !c.Evictions {
				t.Fatalf("eviction at iteration %d", n)
			}
			i++
		}
		if got := iteration(expect("context.evaluated"), "iteration"); got != n {
			t.Fatalf("context.evaluated for iteration %d, want %d", got, n)
		}
		messages := 0
		for _, slot := range []string{"system-prompt", "messages", "tools"} {
			k := 0
			for peek() == "context.injected" {
				k++
				i++
			}
			ev := expect("context.slot_composed")
			var p struct {
				Slot      string `json:"slot"`
				Iteration int    `json:"iteration"`
			}
			_ = json.Unmarshal(ev.Payload, &p)
			if p.Slot != slot || p.Iteration != n || k == 0 {
				t.Fatalf("slot %s iteration %d with %d pieces, want %s at %d", p.Slot, p.Iteration, k, slot, n)
			}
			if slot == "messages" {
				messages = k
			}
		}
		expect("agent.iteration_start")
		start := expect("stream.llm_start")
		if iteration(start, "iteration") != n || iteration(start, "messagesCount") != messages {
			t.Fatalf("llm_start of iteration %d does not match its messages slot", n)
		}
		if peek() == "integrity.context_error" {
			i++ // dangling-reference, before the call
		}
		end := expect("stream.llm_end")
		for peek() == "integrity.context_error" {
			i++ // wire, after the call
		}
		expect("agent.route_decided")
		if n == c.Iterations {
			break
		}
		calls := 0
		for peek() == "stream.tool_start" {
			i++
			expect("stream.tool_end")
			calls++
		}
		if calls == 0 || calls != iteration(end, "toolCallCount") {
			t.Fatalf("iteration %d ran %d tools, llm_end asked for %d", n, calls, iteration(end, "toolCallCount"))
		}
		var p struct {
			History []any `json:"history"`
		}
		_ = json.Unmarshal(expect("agent.iteration_end").Payload, &p)
		if len(p.History) == 0 {
			t.Fatalf("iteration_end %d has no history", n)
		}
	}
	var p struct {
		History []any `json:"history"`
	}
	_ = json.Unmarshal(expect("agent.iteration_end").Payload, &p)
	if p.History != nil {
		t.Fatal("the final iteration_end carries history")
	}
	expect("agent.turn_end")
	var d struct {
		Rows []struct {
			Check string `json:"check"`
			Seam  string `json:"seam"`
		} `json:"rows"`
	}
	_ = json.Unmarshal(expect("integrity.disposition").Payload, &d)
	if len(d.Rows) != 4 || d.Rows[0].Seam != "wire" || d.Rows[3].Check != "unsupported-claim" {
		t.Fatalf("disposition rows %+v", d.Rows)
	}
	if i != len(evs) {
		t.Fatalf("%d events after the disposition", len(evs)-i)
	}
}

// TestFindings checks the filed findings against the ledger rows.
func TestFindings(t *testing.T) {
	tests := []struct {
		name      string
		c         Config
		kinds     []string
		dangArmed bool
	}{
		{"clean", Config{Iterations: 12, Evictions: true, Seed: 1}, nil, false},
		{"wire only", Config{Iterations: 12, Findings: true, Seed: 1}, []string{"invariant-violation"}, true},
		{"wire and dangling", Config{Iterations: 12, Findings: true, Evictions: true, Seed: 1}, []string{"invariant-violation", "dangling-reference"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var kinds []string
			var rows []struct {
				Check         string `json:"check"`
				Checked       int    `json:"checked"`
				Findings      int    `json:"findings"`
				NotApplicable int    `json:"notApplicable"`
			}
			for _, ev := range decodeLines(t, gen(t, WriteNDJSON, tt.c)) {
				switch ev.Type {
				case "agentfootprint.integrity.context_error":
					var p struct{ Kind string }
					_ = json.Unmarshal(ev.Payload, &p)
					kinds = append(kinds, p.Kind)
				case "agentfootprint.integrity.disposition":
					var p struct {
						Rows *[]struct {
							Check         string `json:"check"`
							Checked       int    `json:"checked"`
							Findings      int    `json:"findings"`
							NotApplicable int    `json:"notApplicable"`
						} `json:"rows"`
					}
					p.Rows = &rows
					_ = json.Unmarshal(ev.Payload, &p)
				}
			}
			if strings.Join(kinds, ",") != strings.Join(tt.kinds, ",") {
				t.Fatalf("findings %v, want %v", kinds, tt.kinds)
			}
			if rows[0].Checked != tt.c.Iterations {
				t.Errorf("wire row checked %d, want every call", rows[0].Checked)
			}
			dang := rows[2]
			if tt.dangArmed {
				if dang.Checked+dang.NotApplicable != tt.c.Iterations {
					t.Errorf("dangling row %+v does not count every call", dang)
				}
				if (dang.Findings > 0) != contains(kinds, "dangling-reference") {
					t.Errorf("dangling row %+v disagrees with the findings filed", dang)
				}
			} else if dang.NotApplicable != 1 || dang.Checked != 0 {
				t.Errorf("unarmed dangling row %+v", dang)
			}
		})
	}
}

// heapWatcher samples the live heap while a writer streams into it.
type heapWatcher struct {
	writes int
	peak   uint64
}

func (h *heapWatcher) Write(p []byte) (int, error) {
	h.writes++
	if h.writes%64 == 0 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		h.peak = max(h.peak, m.HeapAlloc)
	}
	return len(p), nil
}

// TestStreamsInFlatMemory generates far more output than it may hold.
func TestStreamsInFlatMemory(t *testing.T) {
	c := Config{Runs: 6, Iterations: 150, ToolResultBytes: 3000, LongResultEvery: 50, Evictions: true, Findings: true, Seed: 9}
	h := &heapWatcher{}
	n, err := WriteNDJSON(h, c)
	if err != nil {
		t.Fatal(err)
	}
	if n < 30<<20 {
		t.Fatalf("only %d bytes generated", n)
	}
	if h.peak > 24<<20 {
		t.Fatalf("heap reached %d MiB while writing %d MiB", h.peak>>20, n>>20)
	}
	t.Logf("%d MiB written, heap peak %d MiB", n>>20, h.peak>>20)
}
