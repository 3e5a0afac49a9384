package replay

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// locatePayload is the part of any payload the locator reads: enough to
// tell which iteration, call and message an event belongs to.
type locatePayload struct {
	Iteration   *float64        `json:"iteration"`
	ToolName    string          `json:"toolName"`
	ToolCallID  string          `json:"toolCallId"`
	Args        json.RawMessage `json:"args"`
	Slot        string          `json:"slot"`
	SourceID    string          `json:"sourceId"`
	ContentHash string          `json:"contentHash"`
}

// The locator's fields of each payload it reads; of a tool_start and a
// context.evicted it reads them all, through the decoders' own fast
// readings (toolStartFast, evictedFast). Each type's are read on their
// own: a field the locator does not use for a type can neither change how
// the others read (see decodeLoose) nor send them to the lenient path.
var (
	locateLLMStart = recording.NewMemberSet("iteration")
	locateResult   = recording.NewMemberSet("toolCallId")
	locateInjected = recording.NewMemberSet("slot", "sourceId", "contentHash")
)

// decodeLocate reads the locator's fields of ev's payload, those of its
// type, as decodeLoose does, and reports whether it read them by the fast
// path: the values are then the ones the handlers' own decoders read of
// those members, and they may take them from p (see decodeInjected).
func decodeLocate(ev *recording.Event, p *locatePayload) (fast bool) {
	fastOrLoose(ev.Payload, p, false, func() bool {
		fast = decodeLocateFast(ev, p)
		return fast
	})
	return fast
}

// decodeLocateFast is decodeLocate's fast path.
func decodeLocateFast(ev *recording.Event, p *locatePayload) bool {
	var v [3][]byte
	switch ev.Type {
	case recording.TypeLLMStart:
		return pickPayload(ev, locateLLMStart, v[:]) && setNumPtr(&p.Iteration, v[0])
	case recording.TypeToolStart:
		return toolStartFast(ev, &p.ToolName, &p.ToolCallID, &p.Args)
	case recording.TypeToolEnd:
		return pickPayload(ev, locateResult, v[:]) && setStr(&p.ToolCallID, v[0])
	case recording.TypeContextInjected:
		return pickPayload(ev, locateInjected, v[:]) && setStr(&p.Slot, v[0]) && setStr(&p.SourceID, v[1]) &&
			setStr(&p.ContentHash, v[2])
	case recording.TypeContextEvicted:
		return evictedFast(ev, &p.Slot, &p.ContentHash)
	}
	return true
}

// locatedPayload reports whether the locator reads the payload of an
// event of type typ; of every other event it reads only the type, the
// stage and where it stands.
func locatedPayload(typ string) bool {
	switch typ {
	case recording.TypeLLMStart, recording.TypeToolStart, recording.TypeToolEnd, recording.TypeContextInjected, recording.TypeContextEvicted:
		return true
	}
	return false
}

// locatedCall is one tool_start with a call id and the iteration of the
// model call that made it.
type locatedCall struct {
	pos  checks.Position
	name string
	// args are the call's arguments as written, in the run's store, for
	// argsCarry; hasArgs is false when the call carries none.
	args      textRef
	hasArgs   bool
	iteration int64
}

// locator indexes the events of one run by what findings name: the model
// call of an iteration, the response of a stage, a tool call and its
// result by call id, the evictions and the answer. It is folded one event
// at a time and keeps only what locate reads, so a run's events need not
// be held until its findings are known.
type locator struct {
	llmStart   map[int64]checks.Position
	llmEnd     map[int64]checks.Position
	endByStage map[string]int64
	calls      []locatedCall
	// pending are, per stage, the calls whose result is not yet
	// recorded.
	pending  map[string][]string
	callByID map[string]int
	results  map[string]checks.Position
	// firstByStage is the first event of each stage, where a finding
	// nothing else pins down is filed. Nearly every event opens a stage
	// of its own, so it is held compactly.
	firstByStage map[string]eventAt
	// hashCalls joins a messages-slot record's content hash to the calls
	// whose result it carried, so an eviction names the call it dropped;
	// hashCallSeen holds the pairs already joined.
	hashCalls    map[string][]string
	hashCallSeen map[[2]string]bool
	evictions    []evictionAt
	answers      []checks.Position

	// iter is the iteration of the latest model call.
	iter int64
	// store keeps the calls' arguments (the fold's, shared with the
	// engine); kept counts the bytes of the entries above.
	store *textStore
	kept  int64
	// buf is locate's.
	buf []checks.Position
	// cur is the payload of the event being added.
	cur locatePayload
}

// eventAt is where an event stands, all positionOf reads of it.
type eventAt struct {
	event       string
	line, index int64
	rotated     bool
}

func eventAtOf(ev *recording.Event) eventAt {
	return eventAt{event: ev.Type, line: ev.Line, index: ev.Index, rotated: ev.Rotated}
}

func (e eventAt) position(what string) checks.Position {
	return checks.Position{What: what, Event: e.event, Line: e.line, Index: e.index, Rotated: e.rotated}
}

type evictionAt struct {
	pos  checks.Position
	hash string
}

func positionOf(ev *recording.Event, what string) checks.Position {
	return eventAtOf(ev).position(what)
}

// positionCost is what one kept position costs beside its strings.
const positionCost = entryCost + 96

func newLocator(store *textStore) *locator {
	l := locatorPool.Get().(*locator)
	l.store = store
	return l
}

// locatorPool keeps the locators of ended runs, their maps emptied but
// grown: each run of a stream fills the same maps to about the same size,
// and growing them again was a sixth of what an armed replay allocated.
var locatorPool = sync.Pool{New: func() any {
	return &locator{
		llmStart:     map[int64]checks.Position{},
		llmEnd:       map[int64]checks.Position{},
		endByStage:   map[string]int64{},
		callByID:     map[string]int{},
		pending:      map[string][]string{},
		results:      map[string]checks.Position{},
		firstByStage: map[string]eventAt{},
		hashCalls:    map[string][]string{},
		hashCallSeen: map[[2]string]bool{},
	}
}}

// pooledEntries is the most entries a map of a released locator may have
// held: a larger one (a run of a million calls) is let go rather than kept
// at its size.
const pooledEntries = 1 << 12

// release empties l and gives it back to the pool; nothing of it may be
// read after. What locate handed out was copied out of it.
func (l *locator) release() {
	if len(l.firstByStage) > pooledEntries || len(l.callByID) > pooledEntries || len(l.hashCallSeen) > pooledEntries ||
		len(l.llmStart) > pooledEntries || cap(l.calls) > pooledEntries || cap(l.evictions) > pooledEntries {
		return
	}
	clear(l.llmStart)
	clear(l.llmEnd)
	clear(l.endByStage)
	clear(l.callByID)
	clear(l.pending)
	clear(l.results)
	clear(l.firstByStage)
	clear(l.hashCalls)
	clear(l.hashCallSeen)
	clear(l.calls[:cap(l.calls)])
	clear(l.evictions[:cap(l.evictions)])
	clear(l.answers[:cap(l.answers)])
	clear(l.buf[:cap(l.buf)])
	*l = locator{
		llmStart: l.llmStart, llmEnd: l.llmEnd, endByStage: l.endByStage, callByID: l.callByID,
		pending: l.pending, results: l.results, firstByStage: l.firstByStage, hashCalls: l.hashCalls,
		hashCallSeen: l.hashCallSeen, calls: l.calls[:0], evictions: l.evictions[:0], answers: l.answers[:0], buf: l.buf[:0],
	}
	locatorPool.Put(l)
}

// count adds one kept entry holding strings of the given lengths.
func (l *locator) count(base int64, lens ...int) {
	for _, n := range lens {
		base += int64(n)
	}
	l.kept += base
}

// add folds one event into the index. Nothing of ev is kept: strings are
// copies, and arguments go to the store. It reports the payload's fields
// it read by the fast path (see decodeLocate), nil when it did not.
func (l *locator) add(ev *recording.Event) *locatePayload {
	p := &l.cur
	*p = locatePayload{}
	fast := false
	if !ev.PayloadDropped && locatedPayload(ev.Type) {
		fast = decodeLocate(ev, p)
	}
	if stage := ev.Meta.RuntimeStageID; stage != "" && ev.Type != recording.TypeContextError && ev.Type != recording.TypeDisposition {
		if _, seen := l.firstByStage[stage]; !seen {
			l.firstByStage[stage] = eventAtOf(ev)
			l.count(positionCost, len(stage))
		}
	}
	iter := l.iter
	switch ev.Type {
	case recording.TypeLLMStart:
		if it, ok := intOf(p.Iteration); ok {
			iter = it
		} else {
			iter++
		}
		l.iter = iter
		pos := positionOf(ev, checks.EvidenceModelCall)
		pos.Iteration = ptrInt(iter)
		if _, seen := l.llmStart[iter]; !seen {
			l.llmStart[iter] = pos
			l.count(positionCost)
		}
	case recording.TypeLLMEnd:
		pos := positionOf(ev, checks.EvidenceResponse)
		pos.Iteration = ptrInt(iter)
		if _, seen := l.llmEnd[iter]; !seen {
			l.llmEnd[iter] = pos
			l.count(positionCost)
		}
		if stage := ev.Meta.RuntimeStageID; stage != "" {
			if _, seen := l.endByStage[stage]; !seen {
				l.count(entryCost, len(stage))
			}
			l.endByStage[stage] = iter
		}
	case recording.TypeToolStart:
		if p.ToolCallID == "" {
			// Findings name calls by id: a call without one is never
			// named.
			break
		}
		pos := positionOf(ev, checks.EvidenceToolCall)
		pos.ToolCallID = p.ToolCallID
		pos.Iteration = ptrInt(iter)
		if _, seen := l.callByID[p.ToolCallID]; !seen {
			l.callByID[p.ToolCallID] = len(l.calls)
		}
		stage := ev.Meta.RuntimeStageID
		l.pending[stage] = append(l.pending[stage], p.ToolCallID)
		c := locatedCall{pos: pos, name: p.ToolName, iteration: iter}
		if len(p.Args) > 0 {
			c.args, c.hasArgs = l.store.intern(string(p.Args)), true
		}
		l.calls = append(l.calls, c)
		l.count(2*positionCost, 3*len(p.ToolCallID), len(p.ToolName))
	case recording.TypeToolEnd:
		if ev.PayloadDropped {
			// A result whose payload was not kept names no call: it
			// answers the stage's one call still waiting for its
			// result, and with several waiting it is not named.
			p.ToolCallID = l.onlyPending(ev.Meta.RuntimeStageID)
		}
		l.answered(ev.Meta.RuntimeStageID, p.ToolCallID)
		if _, seen := l.results[p.ToolCallID]; !seen && p.ToolCallID != "" {
			pos := positionOf(ev, checks.EvidenceResult)
			pos.ToolCallID = p.ToolCallID
			pos.Iteration = ptrInt(iter)
			l.results[p.ToolCallID] = pos
			l.count(positionCost, 2*len(p.ToolCallID))
		}
	case recording.TypeContextInjected:
		if p.Slot == "messages" && p.ContentHash != "" && p.SourceID != "" {
			k := [2]string{p.ContentHash, p.SourceID}
			if !l.hashCallSeen[k] {
				l.hashCallSeen[k] = true
				l.hashCalls[p.ContentHash] = append(l.hashCalls[p.ContentHash], p.SourceID)
				l.count(2*entryCost, 2*len(p.ContentHash), 2*len(p.SourceID))
			}
		}
	case recording.TypeContextEvicted:
		if p.Slot == "" || p.Slot == "messages" {
			pos := positionOf(ev, checks.EvidenceEviction)
			pos.Iteration = ptrInt(iter + 1)
			l.evictions = append(l.evictions, evictionAt{pos: pos, hash: p.ContentHash})
			l.count(positionCost, len(p.ContentHash))
		}
	case recording.TypeTurnEnd:
		pos := positionOf(ev, checks.EvidenceAnswer)
		pos.Iteration = ptrInt(iter)
		l.answers = append(l.answers, pos)
		l.count(positionCost)
	}
	if !fast {
		return nil
	}
	return p
}

// onlyPending is the call of a stage still waiting for its result, when
// there is exactly one.
func (l *locator) onlyPending(stage string) string {
	if ids := l.pending[stage]; len(ids) == 1 {
		return ids[0]
	}
	return ""
}

// answered takes a call off its stage's waiting list; an unnamed result
// of a stage with several waiting leaves the list unknowable, so it is
// dropped. A list left empty goes, so a run of many stages keeps only
// those still waiting.
func (l *locator) answered(stage, id string) {
	ids := l.pending[stage]
	if id == "" || len(ids) == 1 && ids[0] == id {
		delete(l.pending, stage)
		return
	}
	for i, x := range ids {
		if x == id {
			l.pending[stage] = append(ids[:i:i], ids[i+1:]...)
			return
		}
	}
}

// ptrInt points at v. Iterations and epochs are small numbers that every
// finding and position of a run repeats; those share one value each (the
// values are only read), so that a report of many runs does not hold one
// allocation apiece.
func ptrInt(v int64) *int64 {
	if v >= 0 && v < int64(len(smallInts)) {
		return &smallInts[v]
	}
	return &v
}

var smallInts = func() (a [256]int64) {
	for i := range a {
		a[i] = int64(i)
	}
	return a
}()

// Locate fills each finding's Evidence with the recording positions of
// what it is about, read from the run's events: the model call of its
// iteration, the response it was chosen in, the tool calls it names and
// their results, the evictions that dropped a ground it names, and the
// final answer it judges. A recorded finding keeps the position of the
// event that carried it first. Positions a recording does not let the
// locator pin down are left out rather than guessed.
func Locate(events []recording.Event, fs []checks.Finding) {
	if len(fs) == 0 {
		return
	}
	store := newTextStore(0)
	defer store.close()
	l := newLocator(store)
	defer l.release()
	for i := range events {
		l.add(&events[i])
	}
	l.locateAll(fs)
}

// locateAll fills the Evidence of each finding from what the locator has
// folded.
func (l *locator) locateAll(fs []checks.Finding) {
	for i := range fs {
		fs[i].Evidence = l.locate(fs[i])
	}
}

func (l *locator) locate(f checks.Finding) []checks.Position {
	// Gathered in the locator's buffer and handed out at their length:
	// a report holds every finding's positions, and grown by appending
	// they were held with room to spare.
	out := l.buf[:0]
	defer func() { l.buf = out[:0] }()
	add := func(p checks.Position) {
		for _, q := range out {
			if q.Same(p) {
				return
			}
		}
		out = append(out, p)
	}
	for _, p := range f.Evidence {
		if p.What == checks.EvidenceFinding {
			add(p)
		}
	}
	iter, iterKnown := int64(0), false
	if f.Iteration != nil {
		iter, iterKnown = *f.Iteration, true
	} else if f.Epoch != nil {
		iter, iterKnown = *f.Epoch, true
	}
	if it, ok := l.endByStage[f.FiledAt]; ok && (f.Seam == checks.SeamChoice || f.Seam == checks.SeamWire) {
		iter, iterKnown = it, true
	}
	if iterKnown {
		if p, ok := l.llmStart[iter]; ok {
			add(p)
		}
		if f.Seam == checks.SeamChoice || f.Seam == checks.SeamWire {
			if p, ok := l.llmEnd[iter]; ok {
				add(p)
			}
		}
	}
	for _, id := range l.callsOf(f, iter, iterKnown) {
		if c, ok := l.callByID[id]; ok {
			add(l.calls[c].pos)
		}
		if p, ok := l.results[id]; ok {
			add(p)
		}
	}
	if f.Kind == checks.KindDanglingReference {
		for _, p := range l.evictionsOf(f, iter, iterKnown) {
			add(p)
		}
	}
	if f.Seam == checks.SeamClaim {
		if p, ok := l.answerOf(iter, iterKnown); ok {
			add(p)
		}
	}
	if len(out) == 0 || (len(out) == 1 && out[0].What == checks.EvidenceFinding) {
		// Nothing else pinned down: the stage that filed it is still a
		// place to look.
		if e, ok := l.firstByStage[f.FiledAt]; ok && f.FiledAt != "" {
			add(e.position(checks.EvidenceFiledAt))
		}
	}
	if len(out) == 0 {
		return nil
	}
	checks.SortPositions(out)
	return slices.Clone(out)
}

// callsOf names the tool calls a finding is about: the calls its check
// named, or, for a finding that names none (a recorded one), the calls of
// its iteration to the tool it is about whose arguments carry the value its
// witnesses name.
func (l *locator) callsOf(f checks.Finding, iter int64, iterKnown bool) []string {
	if len(f.CallIDs) > 0 {
		return f.CallIDs
	}
	if !iterKnown || len(f.Subjects) == 0 || f.Subjects[0].Kind != "tool" {
		return nil
	}
	if f.Seam != checks.SeamChoice && f.Seam != checks.SeamWrite {
		return nil
	}
	var ids []string
	for _, c := range l.calls {
		if c.iteration != iter || c.name != f.Subjects[0].ID || c.pos.ToolCallID == "" {
			continue
		}
		if f.Predicate != "" && !l.argsCarry(c, f) {
			continue
		}
		ids = append(ids, c.pos.ToolCallID)
	}
	return ids
}

// argsCarry reports whether a call's arguments carry a value one of the
// finding's witnesses asserts, or the finding names no such value.
// Arguments that cannot be read back carry nothing: the call is then not
// named, rather than guessed.
func (l *locator) argsCarry(c locatedCall, f checks.Finding) bool {
	args, read := "", false
	valued := false
	for _, w := range f.Witnesses {
		var s string
		if json.Unmarshal(w.Value, &s) != nil || s == "" {
			continue
		}
		valued = true
		if !read && c.hasArgs {
			read = true
			if t, err := l.store.text(c.args); err == nil {
				args = strings.ToLower(t)
			} else {
				return false
			}
		}
		if c.hasArgs && strings.Contains(args, strings.ToLower(s)) {
			return true
		}
	}
	return !valued
}

// evictionsOf are the evictions before the finding's model call that
// dropped a result of a ground the finding names.
func (l *locator) evictionsOf(f checks.Finding, iter int64, iterKnown bool) []checks.Position {
	grounds := map[string]bool{}
	for _, s := range f.Subjects[min(1, len(f.Subjects)):] {
		grounds[s.ID] = true
	}
	limit := int64(-1)
	if p, ok := l.llmStart[iter]; ok && iterKnown {
		limit = p.Index
	}
	var out []checks.Position
	for _, e := range l.evictions {
		if limit >= 0 && e.pos.Index > limit {
			break
		}
		for _, id := range l.hashCalls[e.hash] {
			c, ok := l.callByID[id]
			if !ok || !grounds[l.calls[c].name] {
				continue
			}
			p := e.pos
			p.ToolCallID = id
			out = append(out, p)
			if r, ok := l.results[id]; ok {
				out = append(out, r)
			}
			break
		}
	}
	return out
}

// answerOf is the final answer of the iteration (or the run's last).
func (l *locator) answerOf(iter int64, iterKnown bool) (checks.Position, bool) {
	for _, p := range l.answers {
		if iterKnown && p.Iteration != nil && *p.Iteration == iter {
			return p, true
		}
	}
	if len(l.answers) > 0 {
		return l.answers[len(l.answers)-1], true
	}
	return checks.Position{}, false
}
