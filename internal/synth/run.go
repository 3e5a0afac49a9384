package synth

import (
	"strconv"
	"strings"
)

// msg is one message of the conversation. Its content never changes once
// made (only the bookkeeping below does), so windows and snapshots share
// messages freely.
type msg struct {
	role    string // user, assistant or tool
	content string
	calls   []toolCall // assistant: the tool calls it requested
	callID  string     // tool: the call it answers
	tool    string     // tool: the tool's name
	// firstSeen is the wall clock of the first request that carried the
	// message (0 = none yet); survivalMs of its eviction counts from it.
	firstSeen int64
	// units caches the content's UTF-16 length (-1 = not yet), and hash
	// the contentHash at position hashPos: a message keeps its position
	// until the window shifts, and hashing megabyte results once per
	// request would dominate generation.
	units   int
	hashPos int
	hash    string
}

func newMsg(m msg) *msg {
	m.units, m.hashPos = -1, -1
	return &m
}

func (m *msg) chars() int {
	if m.units < 0 {
		m.units = utf16Len(m.content)
	}
	return m.units
}

func (m *msg) hashAt(pos int) string {
	if m.hashPos != pos {
		m.hash, m.hashPos = MessageHash(m.role, pos, m.content), pos
	}
	return m.hash
}

type toolCall struct {
	id   string
	tool int
	arg  string // the value of registry[tool].argKey ("" = no argument)
}

func (c toolCall) name() string { return registry[c.tool].name }

// piece is a messages-slot context.injected record: a message at a position
// of one request.
type piece struct {
	m      *msg
	pos    int
	hash   string
	latest bool
}

func (p piece) source() string {
	switch p.m.role {
	case "tool":
		return "tool-result"
	default:
		return p.m.role
	}
}

// compaction is one sharedState.compactions record of the sliding window.
type compaction struct {
	iteration      int
	removed        int
	charsBefore    int
	charsAfter     int
	turnsBefore    int
	turnsAfter     int
	dropped        []string // tool names whose results left the window
	removedMarkers int
}

// iter is everything one model call of a run produced; stages of the
// snapshot and events both read it.
type iter struct {
	n       int
	final   bool
	c       int // the compact stage's counter; other stages are offsets of it
	evicted []piece
	comp    *compaction
	window  []*msg  // the request's messages
	pieces  []piece // messages slot
	calls   []toolCall
	results []string
	after   []*msg // the window after this call's tool results
	content string
	// prev is the last earlier iteration that ran tools (calls and results
	// only, so that iterations never chain in memory).
	prevCalls   []toolCall
	prevResults []string
	// compsUpTo is how many compaction records the run had after this
	// iteration's window stage.
	compsUpTo int
	inTok     int
	outTok    int
	t0        int64 // wall clock at the compact stage
}

// Stage counter offsets from the compact stage of an iteration, as a
// dynamic-mode agent with a skill graph numbers them.
const (
	offEngine   = 1
	offEvaluate = 3
	offContext  = 6
	offSP       = 7
	offSPComp   = 8
	offMsgs     = 9
	offMsgsComp = 10
	offTools    = 11
	offToolComp = 13
	offSkill    = 14
	offCache    = 15
	offCall     = 19
	offThinking = 20
	offRoute    = 22
	offToolCall = 23
	offFinal    = 23
	offPrepare  = 24
	period      = 24
)

type stageKind int

const (
	stSeed stageKind = iota
	stCompact
	stEngine
	stContext
	stSkill
	stCache
	stCall
	stThinking
	stRoute
	stToolCalls
	stFinal
)

// bundles is how many commit-log bundles each stage kind commits.
var bundles = [...]int{
	stSeed: 1, stCompact: 1, stEngine: 2, stContext: 9, stSkill: 1, stCache: 2,
	stCall: 1, stThinking: 2, stRoute: 1, stToolCalls: 1, stFinal: 2,
}

// stage is one committed chart stage.
type stage struct {
	kind      stageKind
	num       int // the engine's execution counter
	ts        int64
	it        *iter
	commitIdx int
}

func (s *stage) rsid(id string) string { return id + "#" + strconv.Itoa(s.num) }

// event is one agentfootprint event; body writes the payload members.
type event struct {
	typ     string
	stageID string
	subflow string
	wall    int64
	body    func(e *enc)
}

// item is the next thing a run produced: an event or a stage.
type item struct {
	ev *event
	st *stage
}

const keepRecentTurns = 2

// runSim simulates one agent run and hands out its events and stages in
// order, one model call at a time.
type runSim struct {
	c      *Config
	idx    int
	r      rng
	tokens bool // emit stream.token (recording tail) or not (standard tier)

	runID    string
	engineID string
	start    int64
	now      int64
	prompt   string
	user     *msg
	history  []*msg
	marker   *msg
	comps    []*compaction
	commits  int
	callSeq  int
	results  int // tool results so far, for LongResultEvery

	droppedTools map[string]bool
	// disposition counters
	wireChecked, wireFindings         int
	wireLastFired                     int64
	dangChecked, dangFindings, dangNA int
	dangLastFired                     int64
	dangFiled                         bool
	totalIn, totalOut                 int
	findingIDs                        []string

	n     int // iterations done
	state int // 0 head, 1 iterations, 2 tail, 3 done
	q     []item
	qi    int
	last  *iter
	// lastTools is the last iteration that ran tools (nil if none).
	lastTools *iter
}

// runSpacing bounds a run's duration so that run k can start at a fixed
// offset, which lets any run be simulated alone (the snapshot passes
// re-simulate only the last one).
func runSpacing(c *Config) int64 { return int64(c.Iterations)*4000 + 60_000 }

// baseClock is the wall clock of the first run: a date in late 2026, moved
// by the seed.
func baseClock(seed int64) int64 {
	r := newRNG(seed, 0xc10c)
	return 1_796_000_000_000 + int64(r.intn(86_400_000))
}

func newRunSim(c *Config, idx int, tokens bool) *runSim {
	s := &runSim{c: c, idx: idx, tokens: tokens, r: newRNG(c.Seed, uint64(idx)+1)}
	s.start = baseClock(c.Seed) + int64(idx)*runSpacing(c)
	if c.Interleave && idx%2 == 1 {
		// the second run of a pair starts while the first is still going
		s.start = baseClock(c.Seed) + int64(idx-1)*runSpacing(c) + int64(17+s.r.intn(400))
	}
	s.now = s.start
	s.runID = "run-" + strconv.FormatInt(s.start, 10) + "-" + strconv.Itoa(idx+1)
	seq := strconv.Itoa(idx + 1)
	s.engineID = strconv.FormatInt(s.start+4, 10) + "-" + strings.Repeat("0", 10-len(seq)) + seq
	s.prompt = prompts[s.r.intn(len(prompts))]
	s.user = newMsg(msg{role: "user", content: s.prompt})
	s.history = []*msg{s.user}
	s.droppedTools = map[string]bool{}
	return s
}

func (s *runSim) tick(lo, hi int) int64 {
	s.now += int64(s.r.between(lo, hi))
	return s.now
}

func (s *runSim) emit(typ, stageID, subflow string, body func(e *enc)) {
	s.q = append(s.q, item{ev: &event{typ: typ, stageID: stageID, subflow: subflow, wall: s.now, body: body}})
}

func (s *runSim) stage(kind stageKind, num int, it *iter) *stage {
	st := &stage{kind: kind, num: num, ts: s.now, it: it, commitIdx: s.commits}
	s.commits += bundles[kind]
	s.q = append(s.q, item{st: st})
	return st
}

// next returns the run's next event or stage; ok is false after the last.
func (s *runSim) next() (item, bool) {
	for s.qi >= len(s.q) {
		if s.state == 3 {
			return item{}, false
		}
		s.q, s.qi = s.q[:0], 0
		s.fill()
	}
	it := s.q[s.qi]
	s.q[s.qi] = item{}
	s.qi++
	return it, true
}

func (s *runSim) fill() {
	switch s.state {
	case 0:
		s.head()
		s.state = 1
	case 1:
		s.n++
		s.iteration(s.n, s.n == s.c.Iterations)
		if s.n == s.c.Iterations {
			s.state = 2
		}
	case 2:
		s.tail()
		s.state = 3
	}
}

func (s *runSim) head() {
	s.tick(1, 2)
	s.emit("agentfootprint.agent.run_configured", "run-configured#0", "", s.runConfigured)
	s.tick(0, 1)
	s.emit("agentfootprint.skill.graph_declared", "graph-declared#0", "", writeGraphDeclared)
	s.tick(2, 5)
	s.stage(stSeed, 0, nil)
	prompt := s.prompt
	s.emit("agentfootprint.agent.turn_start", "seed#0", "", func(e *enc) {
		e.kint("turnIndex", 0)
		e.kstr("userPrompt", prompt)
	})
}

// callPlan picks the tools the model calls at iteration n: the fleet list
// first and again every twelfth call, otherwise lookups of single hosts,
// two at once every fifth call.
func (s *runSim) callPlan(n int) []toolCall {
	var ts []int
	switch {
	case n == 1 || n%12 == 0:
		ts = []int{toolFleet}
	case n%5 == 0:
		ts = []int{toolMetrics, toolBackup}
	case n%7 == 0:
		ts = []int{toolTickets}
	case n%2 == 0:
		ts = []int{toolMetrics}
	default:
		ts = []int{toolBackup}
	}
	calls := make([]toolCall, len(ts))
	for i, t := range ts {
		s.callSeq++
		c := toolCall{id: "call_" + strconv.Itoa(s.callSeq), tool: t}
		switch registry[t].argKey {
		case "host":
			c.arg = hostName(s.r.intn(fleetSize))
		case "query":
			c.arg = "backup failed " + hostName(s.r.intn(fleetSize))
		}
		calls[i] = c
	}
	return calls
}

// resultSize is the size of the next tool result.
func (s *runSim) resultSize() int {
	s.results++
	if s.c.LongResultEvery > 0 && s.results%s.c.LongResultEvery == 0 {
		// log-uniform between 32 KiB and 1 MiB
		return 32 << 10 << s.r.intn(6)
	}
	n := s.c.ToolResultBytes
	return n - n/4 + s.r.intn(n/2+1)
}

// turns splits a history into the user request, an optional window marker,
// and the assistant turns (an assistant message and its tool results).
func turns(h []*msg, marker *msg) (head []*msg, ts [][]*msg) {
	i := 1
	head = h[:1]
	if len(h) > 1 && h[1] == marker && marker != nil {
		head = h[:2]
		i = 2
	}
	for i < len(h) {
		j := i + 1
		for j < len(h) && h[j].role == "tool" {
			j++
		}
		ts = append(ts, h[i:j])
		i = j
	}
	return head, ts
}

func chars(ms []*msg) int {
	n := 0
	for _, m := range ms {
		n += m.chars()
	}
	return n
}

// compact applies the sliding window at the head of iteration n: turns
// beyond the two most recent leave the window (with the previous window
// marker), and a fresh marker says what left.
func (s *runSim) compact(it *iter) {
	if !s.c.Evictions || it.n < 2 {
		return
	}
	head, ts := turns(s.history, s.marker)
	comp := &compaction{iteration: it.n, charsBefore: chars(s.history), turnsBefore: len(ts) + 1}
	s.comps = append(s.comps, comp)
	it.comp = comp
	if len(ts) <= keepRecentTurns {
		comp.charsAfter, comp.turnsAfter = comp.charsBefore, comp.turnsBefore
		return
	}
	drop := ts[:len(ts)-keepRecentTurns]
	pos := 1
	if len(head) == 2 {
		it.evicted = append(it.evicted, piece{m: s.marker, pos: 1, hash: s.marker.hashAt(1)})
		comp.removedMarkers = 1
		pos = 2
	}
	var names []string
	for _, t := range drop {
		for _, m := range t {
			it.evicted = append(it.evicted, piece{m: m, pos: pos, hash: m.hashAt(pos)})
			pos++
			comp.removed++
			if m.role == "tool" {
				if !s.droppedTools[m.tool] {
					s.droppedTools[m.tool] = true
				}
				if !contains(names, m.tool) {
					names = append(names, m.tool)
				}
			}
		}
	}
	comp.dropped = names
	s.marker = newMsg(msg{role: "user", content: markerText(it.n, len(it.evicted), names)})
	h := []*msg{s.user, s.marker}
	for _, t := range ts[len(ts)-keepRecentTurns:] {
		h = append(h, t...)
	}
	s.history = h
	comp.charsAfter = chars(h)
	comp.turnsAfter = keepRecentTurns + 1
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func markerText(n, count int, tools []string) string {
	var sb strings.Builder
	sb.WriteString("[window note — ")
	sb.WriteString(strconv.Itoa(count))
	sb.WriteString(" earlier message(s) left this window at iteration ")
	sb.WriteString(strconv.Itoa(n))
	sb.WriteString(" under the 'sliding-window' strategy. Your request above stays.")
	if len(tools) > 0 {
		sb.WriteString(" Results of ")
		sb.WriteString(strings.Join(tools, ", "))
		sb.WriteString(" are no longer visible: call the tool again rather than recalling ids or figures.")
	}
	sb.WriteString(" The full conversation is kept in the run's commit log.]")
	return sb.String()
}

// present reports whether a result of the named tool is in the window.
func present(h []*msg, tool string) bool {
	for _, m := range h {
		if m.role == "tool" && m.tool == tool {
			return true
		}
	}
	return false
}

func (s *runSim) iteration(n int, final bool) {
	c := 1 + (n-1)*period
	it := &iter{n: n, final: final, c: c}
	if s.lastTools != nil {
		it.prevCalls, it.prevResults = s.lastTools.calls, s.lastTools.results
	}
	s.last = it

	// window stage
	s.tick(0, 2)
	it.t0 = s.now
	s.compact(it)
	it.compsUpTo = len(s.comps)
	s.stage(stCompact, c, it)
	for _, p := range it.evicted {
		p := p
		surv := s.now - p.m.firstSeen
		s.emit("agentfootprint.context.evicted", "compact#"+strconv.Itoa(c), "", func(e *enc) {
			e.kstr("slot", "messages")
			e.kstr("contentHash", p.hash)
			e.kstr("reason", "budget")
			e.kint("survivalMs", surv)
		})
	}

	// injection engine
	s.tick(1, 3)
	s.stage(stEngine, c+offEngine, it)
	s.emit("agentfootprint.context.evaluated", "sf-injection-engine/evaluate#"+strconv.Itoa(c+offEvaluate), "sf-injection-engine", func(e *enc) {
		writeEvaluated(e, n)
	})

	// the three slots
	s.tick(1, 2)
	s.stage(stContext, c+offContext, it)
	spID := "sf-system-prompt/compose#" + strconv.Itoa(c+offSPComp)
	s.emit("agentfootprint.context.injected", spID, "sf-system-prompt", writeSPBase)
	s.emit("agentfootprint.context.injected", spID, "sf-system-prompt", writeSPSkill)
	s.emit("agentfootprint.context.slot_composed", spID, "sf-system-prompt", func(e *enc) { writeSPComposed(e, n) })

	s.tick(0, 1)
	it.window = s.history
	it.pieces = make([]piece, len(s.history))
	msgID := "sf-messages/compose#" + strconv.Itoa(c+offMsgsComp)
	for i, m := range s.history {
		if m.firstSeen == 0 {
			m.firstSeen = s.now
		}
		p := piece{m: m, pos: i, hash: m.hashAt(i), latest: i == len(s.history)-1}
		it.pieces[i] = p
		s.emit("agentfootprint.context.injected", msgID, "sf-messages", func(e *enc) { writeMessagePiece(e, p) })
	}
	pieces := it.pieces
	s.emit("agentfootprint.context.slot_composed", msgID, "sf-messages", func(e *enc) { writeMsgsComposed(e, n, pieces) })

	s.tick(0, 1)
	toolID := "sf-tools/compose#" + strconv.Itoa(c+offToolComp)
	for i := range registry {
		i := i
		s.emit("agentfootprint.context.injected", toolID, "sf-tools", func(e *enc) { writeToolPiece(e, i) })
	}
	s.emit("agentfootprint.context.slot_composed", toolID, "sf-tools", func(e *enc) { writeToolsComposed(e, n) })

	s.tick(0, 1)
	s.stage(stSkill, c+offSkill, it)
	s.tick(1, 2)
	s.stage(stCache, c+offCache, it)

	// the model call
	s.tick(1, 3)
	callID := "call-llm#" + strconv.Itoa(c+offCall)
	s.stage(stCall, c+offCall, it)
	s.emit("agentfootprint.agent.iteration_start", callID, "", func(e *enc) {
		e.kint("turnIndex", 0)
		e.kint("iterIndex", int64(n))
	})
	it.inTok = (utf16Len(basePrompt) + utf16Len(skillPiece) + chars(it.window) + 600) / 4
	msgCount := len(it.window)
	s.emit("agentfootprint.stream.llm_start", callID, "", func(e *enc) { writeLLMStart(e, n, msgCount) })

	// dangling-reference at the compose seam, before the call goes out
	if s.c.Findings {
		if len(s.droppedTools) == 0 {
			s.dangNA++
		} else {
			s.dangChecked++
			if s.droppedTools[registry[toolFleet].name] && !present(it.window, registry[toolFleet].name) {
				s.dangFindings++
				s.dangLastFired = s.now
				if !s.dangFiled {
					s.dangFiled = true
					s.findingIDs = append(s.findingIDs, "dangling-reference @compose [tool backup_status + tool fleet_report]  ")
					s.emit("agentfootprint.integrity.context_error", callID, "", func(e *enc) { writeDangling(e, n) })
				}
			}
		}
	}

	var dur int
	if final {
		it.content = finalAnswer(&s.r)
		it.outTok = (utf16Len(it.content) + 3) / 4
		dur = s.r.between(300, 2500)
		if s.tokens {
			for i, w := range strings.SplitAfter(it.content, " ") {
				s.now += int64(dur / 40)
				i, w := i, w
				s.emit("agentfootprint.stream.token", callID, "", func(e *enc) {
					e.kint("iteration", int64(n))
					e.kint("tokenIndex", int64(i))
					e.kstr("content", w)
				})
			}
		}
	} else {
		it.calls = s.callPlan(n)
		dur = s.r.between(150, 1500)
	}
	s.now = max(s.now, it.t0+int64(dur))
	s.tick(0, 1)
	s.totalIn += it.inTok
	s.totalOut += it.outTok
	content, ncalls, in, out := it.content, len(it.calls), it.inTok, it.outTok
	s.emit("agentfootprint.stream.llm_end", callID, "", func(e *enc) {
		writeLLMEnd(e, n, content, ncalls, in, out, dur)
	})
	s.wireChecked++
	if s.c.Findings && n == 1 {
		s.wireFindings++
		s.wireLastFired = s.now
		s.findingIDs = append(s.findingIDs, "invariant-violation @wire [tool "+ghostTool+"]  ")
		s.emit("agentfootprint.integrity.context_error", callID, "", writeWire)
	}

	// routing
	s.tick(0, 2)
	routeID := "sf-route#" + strconv.Itoa(c+offRoute)
	s.stage(stThinking, c+offThinking, it)
	s.stage(stRoute, c+offRoute, it)
	if final {
		s.emit("agentfootprint.agent.route_decided", routeID, "", func(e *enc) {
			e.kint("turnIndex", 0)
			e.kint("iterIndex", int64(n))
			e.kstr("chosen", "final")
			e.kstr("rationale", "no tool calls requested: final answer")
		})
		s.tick(1, 3)
		s.stage(stFinal, c+offFinal, it)
		prepID := "final/prepare-final#" + strconv.Itoa(c+offPrepare)
		s.emit("agentfootprint.agent.iteration_end", prepID, "final", func(e *enc) {
			e.kint("turnIndex", 0)
			e.kint("iterIndex", int64(n))
			e.kint("toolCallCount", 0)
		})
		ans := newMsg(msg{role: "assistant", content: it.content})
		it.after = append(append([]*msg(nil), s.history...), ans)
		s.history = it.after
		s.tick(0, 1)
		totalIn, totalOut, took := s.totalIn, s.totalOut, s.now-s.start
		s.emit("agentfootprint.agent.turn_end", prepID, "final", func(e *enc) {
			e.kint("turnIndex", 0)
			e.kstr("finalContent", content)
			e.kint("totalInputTokens", int64(totalIn))
			e.kint("totalOutputTokens", int64(totalOut))
			e.kint("iterationCount", int64(n))
			e.kint("durationMs", took)
		})
		return
	}
	s.emit("agentfootprint.agent.route_decided", routeID, "", func(e *enc) {
		e.kint("turnIndex", 0)
		e.kint("iterIndex", int64(n))
		e.kstr("chosen", "tool-calls")
		e.kstr("rationale", "model requested "+strconv.Itoa(ncalls)+" tool call(s)")
	})

	// tool calls
	tcID := "tool-calls#" + strconv.Itoa(c+offToolCall)
	s.stage(stToolCalls, c+offToolCall, it)
	asst := newMsg(msg{role: "assistant", content: "", calls: it.calls})
	after := append(append([]*msg(nil), s.history...), asst)
	it.results = make([]string, len(it.calls))
	for i, call := range it.calls {
		call := call
		s.tick(0, 1)
		s.emit("agentfootprint.stream.tool_start", tcID, "", func(e *enc) { writeToolStart(e, call) })
		res := toolResult(&s.r, call.tool, call.arg, s.resultSize())
		it.results[i] = res
		took := s.r.between(2, 400)
		s.now += int64(took)
		s.emit("agentfootprint.stream.tool_end", tcID, "", func(e *enc) {
			e.kstr("toolCallId", call.id)
			e.kstr("result", res)
			e.kint("durationMs", int64(took))
		})
		after = append(after, newMsg(msg{role: "tool", content: res, callID: call.id, tool: call.name()}))
	}
	it.after = after
	s.history = after
	s.lastTools = it
	s.tick(0, 1)
	s.emit("agentfootprint.agent.iteration_end", tcID, "", func(e *enc) {
		e.kint("turnIndex", 0)
		e.kint("iterIndex", int64(n))
		e.kint("toolCallCount", int64(ncalls))
		e.karr("history")
		for _, m := range after {
			writeMessage(e, m)
		}
		e.endArr()
	})
}

func (s *runSim) tail() {
	s.tick(0, 1)
	s.emit("agentfootprint.integrity.disposition", "integrity-disposition#0", "", s.writeDisposition)
}
