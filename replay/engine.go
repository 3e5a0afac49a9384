package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf16"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// Options tune a replay.
type Options struct {
	// Posture is "observe" or "dev"; empty takes the declarations'
	// posture, and observe when they state none. In dev posture every
	// check's canary runs first and a check that misses it stops the
	// replay with a *checks.CheckerDeadError.
	Posture string
	// Names is the book of call ids the earlier runs of the input name,
	// shared by its runs, which are prepared (or their folds started) in
	// input order (see NewCallNames and NewFold); nil reads each run
	// alone.
	Names *CallNames
	// BySeq places each run in the book by its Run.Seq (the loader's
	// first-event order) instead of by when its fold starts, so that the
	// folds of an input may start in any order (recording.Options.StartLate).
	BySeq bool
	// Encounters keeps the iteration of every encounter in
	// Evidence.Encounters, for a report that draws a timeline; it costs
	// memory that grows with the run's iterations.
	Encounters bool
	// KeepInMemory is the bytes of kept text (tool results, messages) a
	// run holds in memory before the rest goes to a temporary file; 0 is
	// DefaultKeepInMemory.
	KeepInMemory int64
	// Ledgers, when not nil, holds one copy of each replayed ledger the
	// runs that share it end with (see Ledgers).
	Ledgers *Ledgers
}

// Replay folds the run's events in order and returns the replayed
// evidence: the findings (one per identity, in filing order), the replay
// ledger with a row per registered check, and, per check, why encounters
// could not be judged, and the answer validations of the run's final
// answers.
//
// The declarations a producer put in the run's agent.run_configured payload
// are merged under decl (the file wins field by field), when it comes
// before the run's first model or tool event (see Fold). A declaration the
// recording carries but fpcheck cannot honour is returned as a
// *checks.DeclarationError.
//
// In dev posture a check that misses its canary returns a nil evidence and a
// *checks.CheckerDeadError; a registered check that noted nothing in a run
// where a model call completed returns the evidence and the error.
func Replay(run *recording.Run, decl *checks.Declarations, opts Options) (*Evidence, error) {
	return ReplayWith(checks.Registry, run, decl, opts)
}

// ReplayWith is Replay over a given registry.
func ReplayWith(reg []*checks.Check, run *recording.Run, decl *checks.Declarations, opts Options) (*Evidence, error) {
	return replay(reg, run, decl, opts, false)
}

// replay is ReplayWith; slow reads every payload in full with
// encoding/json, as the replay did before its payload decoders were
// written, so tests can hold the two readings to the same evidence.
func replay(reg []*checks.Check, run *recording.Run, decl *checks.Declarations, opts Options, slow bool) (*Evidence, error) {
	p, err := prepare(reg, run, decl, opts, slow)
	if err != nil {
		return nil, err
	}
	return p.Run()
}

// Prepared is a run ready to replay: its declarations are settled and, in
// dev posture, every check has passed its canary, so what can stop a
// replay has been said. Run does the rest of the work.
type Prepared struct {
	f *Fold
}

// Prepare is the part of Replay that can fail before the run's events are
// folded: Replay is Prepare then Run. A caller that replays runs on other
// goroutines prepares each in order, so an error stops it where Replay
// would; the names the run states are written to Options.Names here, so
// runs prepared later read them whenever this one runs.
func Prepare(run *recording.Run, decl *checks.Declarations, opts Options) (*Prepared, error) {
	return prepare(checks.Registry, run, decl, opts, false)
}

func prepare(reg []*checks.Check, run *recording.Run, decl *checks.Declarations, opts Options, slow bool) (*Prepared, error) {
	f, err := newFold(reg, run, decl, opts, slow)
	if err != nil {
		return nil, err
	}
	if err := f.preflight(); err != nil {
		return nil, err
	}
	return &Prepared{f: f}, nil
}

// Run folds the run's events in order and returns the evidence. Its only
// error is, in dev posture, a *checks.CheckerDeadError for a registered
// check that noted nothing in a run where a model call completed, and the
// evidence comes with it. Runs of different Prepared values may go on
// concurrently.
func (p *Prepared) Run() (*Evidence, error) {
	f := p.f
	for i := range f.run.Events {
		if err := f.Add(&f.run.Events[i]); err != nil {
			return nil, err
		}
	}
	res, err := f.End()
	if res == nil {
		return nil, err
	}
	Locate(f.run.Events, res.Replayed.Findings)
	return res.Replayed, err
}

// postureOf is the posture a replay runs in: the one asked for, else the
// declarations'.
func postureOf(asked string, d *checks.Declarations) (string, error) {
	p := asked
	if p == "" {
		p = d.EffectivePosture()
	}
	if p != checks.PostureObserve && p != checks.PostureDev {
		return "", fmt.Errorf("replay: posture %q is not one fpcheck knows; use observe or dev", p)
	}
	return p, nil
}

// EffectiveDeclarations are the declarations a replay of run judges by: the
// ones its agent.run_configured payload carries, overridden field by field
// by decl. A run_configured read after the run's first model or tool event
// declares nothing for the replay (see Fold), though one that cannot be
// honoured is refused wherever it stands.
func EffectiveDeclarations(run *recording.Run, decl *checks.Declarations) (*checks.Declarations, error) {
	var fromRec *checks.Declarations
	if run != nil {
		d, arms, err := configOf(run)
		if err != nil {
			return nil, err
		}
		if arms {
			fromRec = d
		}
	}
	return merge(fromRec, decl), nil
}

// configOf reads the declarations of the run's first
// agent.run_configured, and whether it comes before the run's first seam
// event, where a fold arms its checks.
func configOf(run *recording.Run) (d *checks.Declarations, arms bool, err error) {
	arms = true
	for i := range run.Events {
		ev := &run.Events[i]
		if ev.Type == recording.TypeRunConfigured {
			d, err := declarationsOf(run.Input, ev)
			return d, arms, err
		}
		if seamEvent(ev.Type) {
			arms = false
		}
	}
	return nil, arms, nil
}

// declarationsOf reads the declarations an agent.run_configured carries; a
// refused one is named by the input and line it was read from.
func declarationsOf(input string, ev *recording.Event) (*checks.Declarations, error) {
	d, err := checks.FromRecording(ev.Payload)
	if err != nil {
		var de *checks.DeclarationError
		if errors.As(err, &de) && ev.Line > 0 {
			de.Source = fmt.Sprintf("%s line %d: %s", input, ev.Line, de.Source)
		}
		return nil, err
	}
	return d, nil
}

// SnapshotMapSource names map ownership taken from a recording's snapshot.
const SnapshotMapSource = "the recording snapshot's parkedToolNames"

// withSnapshotMap arms the compose invariant from the recording itself when
// no declaration names a map: a recording document's snapshot states
// exactly which tool names the park held off the wire (parkedToolNames), and
// with a single map id in the run's map events that set is that map's
// parked-and-owned set. Several map ids cannot be told apart by one union,
// so then nothing is armed from the snapshot.
func withSnapshotMap(d *checks.Declarations, run *recording.Run) *checks.Declarations {
	if len(d.Maps) > 0 || run.Snapshot == nil || !run.Snapshot.ParkedStated {
		return d
	}
	var ids []string
	for _, ev := range run.Events {
		if ev.Type != recording.TypeMapParked && ev.Type != recording.TypeMapEngaged {
			continue
		}
		var p mapPayload
		if decodeLoose(ev.Payload, &p) && p.MapID != "" && !containsString(ids, p.MapID) {
			ids = append(ids, p.MapID)
		}
	}
	if len(ids) != 1 {
		return d
	}
	out := *d
	out.Maps = []checks.MapDecl{{ID: ids[0], Tools: cloneStrings(run.Snapshot.ParkedToolNames)}}
	out.Source = d.Source + " and " + SnapshotMapSource
	return &out
}

// histEntry is one message of an iteration_end history; its index in the
// history gives it the content hash agentfootprint would (see hashHistory).
type histEntry struct {
	msg     checks.Message
	known   bool // content was a string
	evicted bool
}

// slotMessages are the messages-slot records since the last llm_start, as
// the frame needs them (nothing but their count when no check reads it):
// the messages whose content is recorded, in order, and of the others only
// what the frame's gap sentences name, the first listedUnknown of them one
// by one and the rest as a count.
type slotMessages struct {
	seen  bool
	count int64 // every record, for llm_start's messagesCount
	known []checks.Message
	// unknown are the first records without rawContent; more counts the
	// rest of them.
	unknown []unknownMessage
	more    int64
}

// unknownMessage is a messages-slot record without rawContent.
type unknownMessage struct {
	role     string
	position int64
}

// listedUnknown is how many records without rawContent one frame names
// one by one; a frame of more names the rest in one sentence, so a flood
// of them costs neither memory nor a gap each.
const listedUnknown = 16

// callState is the latest model call.
type callState struct {
	view checks.CallView
}

// pendingChoice collects the tool calls of one model response until the
// next call begins or the run ends.
type pendingChoice struct {
	call  checks.CallView
	stage string
	calls []checks.ToolCall
}

type pendingClaim struct {
	iteration int64
	stage     string
	answer    *string
	// frame is the request the answer was chosen from.
	frame checks.Frame
}

type engine struct {
	// recorded is the finding of the context_error being handled, when
	// the fold has it decoded already (see Fold.handle); read is what the
	// fold's other readers read of its payload.
	recorded *checks.Finding
	read     read
	reg      []*checks.Check
	decl     *checks.Declarations
	ledger   *checks.Ledger
	// filed is the ledger's Filed for the views (see checks.ComposeView),
	// nil on the slow path, which words every finding whole: the
	// reference the fast path is held to.
	filed       func(identity string) bool
	headMissing bool
	// need is what the armed checks read; slow reads every payload in
	// full with encoding/json (see replay).
	need  needs
	slow  bool
	cache textCache

	userPrompt *string
	callNames  map[string]string

	// slot records since the last llm_start
	sysSeen    bool
	sysPieces  []string
	sysGaps    []string
	msgs       slotMessages
	toolsStage string
	// slotKept counts the bytes of the slot records since the last
	// llm_start (see keptBytes): a run may record any number of them
	// before its next model call, or none.
	slotKept int64

	lastSystem    []string
	lastSystemSet bool

	// injectedByHash are the distinct messages-slot records seen with each
	// content hash, in order, their contents in store; injectedSeen holds
	// them as a set once a hash has gathered several, so that a flood of
	// records sharing one hash is not compared pairwise.
	injectedByHash map[string][]keptMessage
	injectedSeen   map[string]map[keptMessage]bool
	history        []histEntry
	// historyByHash indexes the history entries an eviction can still
	// remove, by hash: an eviction removes every entry with its hash at
	// once, so a hash leaves the index with its first eviction.
	historyByHash map[string][]int
	// historyHashed is true once historyByHash indexes the history (see
	// hashHistory).
	historyHashed bool
	historySet    bool
	historyIter   int64

	// evictions are the run's evictions, folded as they are recorded;
	// every compose check that reads them is handed a view.
	evictions *checks.EvictionLedger
	parked    []string

	call     *callState
	lastIter int64
	// choice is the pending choice, nil or choiceRec (see newChoice).
	choice    *pendingChoice
	choiceRec pendingChoice
	// lastContent are the model's words by iteration, in store.
	lastContent map[int64]textRef
	workExisted bool

	claimRows []checks.ClaimRow
	claim     *pendingClaim

	// toolCalls are the run's tool_start events by call id, for the write
	// seam.
	toolCalls map[string]checks.ToolCall
	// served are the tool results the run has served so far, in order:
	// tool_end results and the tool-result messages of its requests
	// (earlier turns' included), their texts lowered in store; servedAt
	// indexes them by call id.
	served   []servedEntry
	servedAt map[string]int
	// unnamedServed counts the served results with a call id and no tool
	// yet; firstServed is where each tool's first served result stands.
	unnamedServed int
	firstServed   map[string]int
	// store holds the texts the run keeps, each distinct one once (see
	// textStore); lookups remembers answers of earlier argument lookups.
	store   *textStore
	lookups lookupMemo
	// kept counts the bytes of the entries the run keeps beside its
	// store's texts (see keptBytes).
	kept int64

	validations []AnswerValidation

	refusals refusals

	// earlier is what earlier runs of the conversation name call ids;
	// deferred are the write encounters that wait for the end of the run
	// to learn a name (see callnames.go).
	earlier  callNamesView
	deferred []deferredWrite
	// stated collects the names the run states for the book, from the
	// events the engine reads them from anyway; nil when the run does not
	// write the book.
	stated *namesStated

	// grounds are the external grounds used since the last model call.
	grounds externalGrounds
	// redacted is true when the run's snapshot carries the redaction
	// marker (see redaction.go).
	redacted bool
	// tools are the names of the tools the last model call was offered.
	tools toolNamesMemo
	// scratch carries containers lent to this run (see runScratch) until
	// release hands them back.
	scratch *runScratch
}

func newEngine(reg []*checks.Check, decl *checks.Declarations, posture string, run *recording.Run, slow bool) *engine {
	return newEngineWith(reg, decl, posture, run, slow, newTextStore(0))
}

// newEngineWith is newEngine keeping its texts in store (a fold's, shared
// with its locator).
func newEngineWith(reg []*checks.Check, decl *checks.Declarations, posture string, run *recording.Run, slow bool, store *textStore) *engine {
	s := lendScratch()
	e := &engine{
		reg:            reg,
		decl:           decl,
		ledger:         checks.NewLedger(reg, decl, posture),
		headMissing:    run.HeadMissing,
		redacted:       run.Snapshot != nil && run.Snapshot.Redacted,
		slow:           slow,
		callNames:      map[string]string{},
		injectedByHash: lendMap(s.injectedByHash),
		injectedSeen:   map[string]map[keptMessage]bool{},
		historyByHash:  map[string][]int{},
		evictions:      checks.NewEvictionLedger(),
		lastContent:    map[int64]textRef{},
		toolCalls:      lendMap(s.toolCalls),
		servedAt:       map[string]int{},
		firstServed:    map[string]int{},
		history:        s.history,
		msgs:           slotMessages{known: s.known},
		store:          store,
		scratch:        s,
	}
	s.injectedByHash, s.toolCalls, s.history, s.known = nil, nil, nil, nil
	e.need = allNeeds
	if !slow {
		e.need = needsOf(reg, e.ledger, decl)
		e.filed = e.ledger.Filed
	}
	return e
}

func (e *engine) historyGap() string {
	if e.headMissing {
		return "the run's first events are missing (a capped or rotated head), so parks and evictions before them are unknown"
	}
	return ""
}

func (e *engine) handle(ev *recording.Event) {
	stage := ev.Meta.RuntimeStageID
	switch ev.Type {
	case recording.TypeTurnStart:
		var p turnStartPayload
		if decodeTurnStart(ev, &p, e.slow) && p.UserPrompt != nil {
			e.userPrompt = p.UserPrompt
		}
	case recording.TypeContextInjected:
		switch {
		case e.need.messages():
			e.onInjected(ev, stage)
		case e.need.parks:
			if slot, ok := injectedSlot(ev); ok && slot == "tools" && e.toolsStage == "" {
				e.toolsStage = stage
			}
		}
	case recording.TypeSlotComposed:
		var p slotComposedPayload
		if e.need.parks && decodeSlotComposed(ev, &p, e.slow) && p.Slot == "tools" && e.toolsStage == "" {
			e.toolsStage = stage
		}
	case recording.TypeContextEvicted:
		if e.need.evictions || e.need.frame {
			e.onEvicted(ev)
		}
	case recording.TypeMapParked:
		var p mapPayload
		if e.need.parks && decodeMap(ev, &p, e.slow) && p.MapID != "" && !containsString(e.parked, p.MapID) {
			e.parked = append(e.parked, p.MapID)
		}
	case recording.TypeMapEngaged:
		var p mapPayload
		if e.need.parks && decodeMap(ev, &p, e.slow) && p.MapID != "" {
			e.parked = removeString(e.parked, p.MapID)
		}
	case recording.TypeLLMStart:
		e.onLLMStart(ev, stage)
	case recording.TypeLLMEnd:
		e.onLLMEnd(ev, stage)
	case recording.TypeToolStart:
		e.onToolStart(ev, stage)
	case recording.TypeToolEnd:
		if e.need.write || e.need.served {
			e.onToolEnd(ev, stage)
		}
	case recording.TypeIterationEnd:
		if e.need.callNames || e.need.messages() {
			e.onIterationEnd(ev)
		}
	case recording.TypeRouteDecided:
		var p routePayload
		if e.need.claims && decodeRoute(ev, &p, e.slow) && p.Chosen == "final" {
			it, ok := intOf(p.IterIndex)
			if !ok {
				it = e.lastIter
			}
			e.flushClaim()
			e.claim = &pendingClaim{iteration: it, stage: stage, frame: checks.Frame{Source: checks.FrameFromNothing,
				Gaps: []string{fmt.Sprintf("no model call is recorded before the final answer of iteration %d", it)}}}
			if e.call != nil {
				e.claim.frame = cloneCall(e.call.view).Frame
			}
		}
	case recording.TypeTurnEnd:
		if !e.need.claims {
			break
		}
		var p turnEndPayload
		if decodeTurnEnd(ev, &p, e.slow) && e.claim != nil && p.FinalContent != nil {
			e.claim.answer = p.FinalContent
		}
		e.flushClaim()
	case recording.TypeContextError:
		if e.need.write {
			e.refusals.noteRecorded(ev, e.recorded, e.slow)
		}
	case recording.TypeExternalGroundUsed:
		e.grounds.note(ev)
	case recording.TypeSemantics:
		if !e.need.claimRows {
			break
		}
		var p semanticsPayload
		if decodeSemantics(ev, &p, e.slow) {
			it, _ := intOf(p.Iteration)
			rows := checks.ClaimRowsOf(p.Semantics, p.ToolName, p.ToolCallID, it)
			for _, r := range rows {
				e.count(len(r.Entity), len(r.Field), len(r.Value), len(r.ToolName), len(r.ToolCallID), len(r.MeasuredAt))
			}
			e.claimRows = append(e.claimRows, rows...)
		}
	}
}

// finish judges what the run left pending and lets go of what it kept.
func (e *engine) finish() {
	e.judge()
	e.release()
}

// judge judges what the run left pending at its end.
func (e *engine) judge() {
	e.flushChoice()
	e.flushClaim()
	e.resolveDeferred()
	e.refusals.finish()
	for _, c := range e.reg {
		if c.Unfed != "" && e.ledger.Armed(c) && e.ledger.Untouched(c) {
			e.ledger.Note(c, checks.Verdict{Disposition: checks.NotApplicable, Reasons: []string{c.Unfed}})
		}
	}
}

// release lets go of what the run kept for its checks, once it is judged
// and located, and removes its file.
func (e *engine) release() {
	_ = e.store.close()
	e.served, e.servedAt, e.firstServed = nil, nil, nil
	if s := e.scratch; s != nil {
		e.scratch = nil
		s.injectedByHash, s.toolCalls = keepMap(e.injectedByHash), keepMap(e.toolCalls)
		s.history, s.known = keepSlice(e.history), keepSlice(e.msgs.known)
		e.injectedByHash, e.toolCalls, e.history, e.msgs.known = nil, nil, nil, nil
		giveBack(s)
	}
}

// evidence is the replayed evidence of a judged run.
func (e *engine) evidence(posture string) *Evidence {
	findings := e.ledger.Findings()
	return &Evidence{
		Findings: findings,
		Disposition: &Disposition{
			Posture:     posture,
			WorkExisted: e.workExisted,
			Rows:        e.ledger.Rows(),
		},
		// What the replay would file as events: its findings and its one
		// ledger.
		IntegrityEvents: len(findings) + 1,
		Unreachable:     e.ledger.Reasons(),
		Excused:         e.ledger.Excused(),
		Validation:      e.validations,
		Lost:            e.refusals.lost,
		Encounters:      e.ledger.Encounters(),
	}
}

// roleOf maps a messages-slot record to the role the model saw it in.
func roleOf(p injectedPayload) string {
	if p.AsRole != "" {
		return p.AsRole
	}
	switch p.Source {
	case "tool-result":
		return checks.RoleTool
	case "assistant":
		return checks.RoleAssistant
	case "user":
		return checks.RoleUser
	}
	return ""
}

func (e *engine) onInjected(ev *recording.Event, stage string) {
	var p injectedPayload
	if !decodeInjected(ev, &p, &e.cache, e.slow, e.read.located) {
		return
	}
	switch p.Slot {
	case "system-prompt":
		e.sysSeen = true
		switch {
		case p.RawContent == nil:
			gap := fmt.Sprintf("a system-prompt piece (hash %s) carries no rawContent", orDash(p.ContentHash))
			e.sysGaps = append(e.sysGaps, gap)
			e.slotKept += entryCost + int64(len(gap))
		case *p.RawContent != "":
			e.sysPieces = append(e.sysPieces, *p.RawContent)
			e.slotKept += entryCost + int64(len(*p.RawContent))
		}
	case "messages":
		e.onInjectedMessage(p)
	case "tools":
		if e.toolsStage == "" {
			e.toolsStage = stage
		}
	}
}

// onInjectedMessage folds one messages-slot record into the slot
// records of the coming request and, when the evictions are read, into
// the messages evictions may name.
func (e *engine) onInjectedMessage(p injectedPayload) {
	m := &e.msgs
	m.seen = true
	role := roleOf(p)
	position := m.count
	if pos, ok := intOf(p.Position); ok {
		position = pos
	}
	m.count++
	if p.RawContent == nil {
		if e.need.frame && len(m.unknown) < listedUnknown {
			m.unknown = append(m.unknown, unknownMessage{role: role, position: position})
			e.slotKept += entryCost + int64(len(role))
		} else {
			m.more++
		}
		return
	}
	msg := checks.Message{Role: role, Content: *p.RawContent}
	if role == checks.RoleTool {
		msg.ToolCallID = p.SourceID
		msg.ToolName = e.callNames[p.SourceID]
	}
	if role == checks.RoleUser && p.Source != "" && p.Source != "user" {
		msg.Delivered = true
	}
	if e.need.frame {
		m.known = append(m.known, msg)
		e.slotKept += entryCost + int64(len(msg.Role)+len(msg.Content)+len(msg.ToolCallID)+len(msg.ToolName))
	}
	if role == checks.RoleTool {
		e.serve(msg.ToolName, msg.ToolCallID, msg.Content)
	}
	if !e.need.evictions {
		return
	}
	// The hash only joins evictions to this record.
	hash := p.ContentHash
	if hash == "" && role != "" {
		hash = e.messageHash(role, int(position), msg.Content)
	}
	if hash == "" {
		return
	}
	n := len(e.injectedByHash[hash])
	e.injectedByHash[hash] = e.appendInjected(hash, e.keep(msg))
	if len(e.injectedByHash[hash]) > n {
		e.count(len(hash), len(msg.Role), len(msg.ToolCallID), len(msg.ToolName))
	}
}

func appendDistinct[T comparable](ms []T, m T) []T {
	for _, x := range ms {
		if x == m {
			return ms
		}
	}
	return append(ms, m)
}

// distinctScan is how many messages appendInjected compares one by one
// before it keeps a set.
const distinctScan = 8

// appendInjected adds m to the records seen with hash unless it is there.
func (e *engine) appendInjected(hash string, m keptMessage) []keptMessage {
	ms := e.injectedByHash[hash]
	if len(ms) < distinctScan {
		return appendDistinct(ms, m)
	}
	seen := e.injectedSeen[hash]
	if seen == nil {
		seen = make(map[keptMessage]bool, 2*len(ms))
		for _, x := range ms {
			seen[x] = true
		}
		e.injectedSeen[hash] = seen
	}
	if seen[m] {
		return ms
	}
	seen[m] = true
	return append(ms, m)
}

// distinctMessages appends to dst each message of ms not already in it, in
// order; dst starts empty.
func distinctMessages(dst, ms []checks.Message) []checks.Message {
	if len(ms) <= distinctScan {
		for _, m := range ms {
			dst = appendDistinct(dst, m)
		}
		return dst
	}
	seen := make(map[checks.Message]bool, len(ms))
	for _, m := range ms {
		if !seen[m] {
			seen[m] = true
			dst = append(dst, m)
		}
	}
	return dst
}

// onEvicted joins an eviction to the message it removed. The exact join is
// against the last iteration_end history, the list the window cut from,
// hashed at each index the way agentfootprint hashes it. Without a match
// there, the eviction is joined to the messages-slot records seen so far with
// the same hash; if those differ, the join is ambiguous and says so.
func (e *engine) onEvicted(ev *recording.Event) {
	var p evictedPayload
	if !decodeEvicted(ev, &p, e.slow, e.read.located) || (p.Slot != "" && p.Slot != "messages") || p.ContentHash == "" {
		return
	}
	out := checks.Eviction{Hash: p.ContentHash, Iteration: e.lastIter + 1}
	e.hashHistory()
	if idx, ok := e.historyByHash[p.ContentHash]; ok && e.historySet {
		delete(e.historyByHash, p.ContentHash)
		msgs := make([]checks.Message, len(idx))
		for j, i := range idx {
			e.history[i].evicted = true
			msgs[j] = e.history[i].msg
		}
		out.Candidates = distinctMessages(nil, msgs)
	}
	if len(out.Candidates) == 0 {
		// The records of a hash are distinct already. One whose text
		// cannot be read back joins nothing: the eviction is then
		// unresolved, a doubt, never a message it did not drop.
		out.Candidates = e.messagesOf(e.injectedByHash[p.ContentHash])
	}
	// Names learned after the message was recorded (a tool_start joined
	// later) still name it.
	for i := range out.Candidates {
		c := &out.Candidates[i]
		if c.Role == checks.RoleTool && c.ToolName == "" {
			c.ToolName = e.callNames[c.ToolCallID]
		}
	}
	if e.need.evictions {
		e.evictions.Record(out)
	}
}

func (e *engine) onIterationEnd(ev *recording.Event) {
	var p iterationEndPayload
	if !decodeIterationEnd(ev, &p, e.slow) || len(p.History) == 0 || string(p.History) == "null" {
		return
	}
	// Tool names alone need no message text; the frame, the eviction join
	// and the served results do.
	entries := e.need.messages()
	buf := historyArrays.Get().(*[]historyMessage)
	msgs, ok := decodeHistory(*buf, p.History, entries, e.slow, ev.PayloadValidated())
	defer func() {
		// Lent again without its hold on this payload.
		clear(msgs)
		if ok && cap(msgs) <= pooledHistory {
			*buf = msgs[:0]
		}
		historyArrays.Put(buf)
	}()
	if !ok {
		return
	}
	if e.stated != nil {
		e.stated.historyOf(msgs)
	}
	it, _ := intOf(p.IterIndex)
	e.historyIter = it
	e.historySet = true
	e.history = e.history[:0]
	clear(e.historyByHash)
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if tc.ID != "" && tc.Name != "" && e.callNames[tc.ID] == "" {
				e.nameCall(tc.ID, tc.Name)
			}
		}
	}
	if !entries {
		return
	}
	// Sized once per history, growing as append grows: a run's history
	// only lengthens, call after call.
	e.history = slices.Grow(e.history, len(msgs))
	e.historyHashed = false
	for _, m := range msgs {
		entry := histEntry{msg: checks.Message{Role: m.Role}}
		if content, ok := e.text(m.Content); ok {
			entry.known = true
			entry.msg.Content = content
		}
		if m.Role == checks.RoleTool {
			entry.msg.ToolCallID = m.ToolCallID
			entry.msg.ToolName = m.ToolName
			if entry.msg.ToolName == "" {
				entry.msg.ToolName = e.callNames[m.ToolCallID]
			}
			if entry.known {
				e.serve(entry.msg.ToolName, entry.msg.ToolCallID, entry.msg.Content)
			}
		}
		e.history = append(e.history, entry)
	}
}

// hashHistory indexes the entries of the last history by their message
// hashes, once, at the first eviction that asks after it: only evictions
// read the index, and a history no eviction follows (the run's last, and
// every one before its window fills) is never hashed.
func (e *engine) hashHistory() {
	if e.historyHashed {
		return
	}
	e.historyHashed = true
	for i, h := range e.history {
		if h.known {
			hash := e.messageHash(h.msg.Role, i, h.msg.Content)
			e.historyByHash[hash] = append(e.historyByHash[hash], i)
		}
	}
}

func (e *engine) onLLMStart(ev *recording.Event, stage string) {
	e.flushChoice()
	e.grounds = nil
	e.cache.rotate()
	var p llmStartPayload
	if s := e.read.start; s != nil && !e.slow {
		p = *s
	} else {
		decodeLLMStart(ev, &p, e.slow)
	}
	it, ok := intOf(p.Iteration)
	if !ok {
		it = e.lastIter + 1
	}
	e.lastIter = it
	view := checks.CallView{Iteration: it, Stage: stage, Provider: p.Provider}
	if names, ok := e.tools.namesOf(p.Tools, e.slow, ev.PayloadValidated()); ok {
		view.Served = names
	} else if n, ok := intOf(p.ToolsCount); ok && n == 0 && len(p.Tools) == 0 {
		view.Served = []string{}
	} else {
		view.ServedGap = fmt.Sprintf("llm_start of iteration %d does not list the tools it offered", it)
	}
	if e.need.frame {
		view.Frame = e.buildFrame(p, it)
		view.Frame.Texts = e.frameTexts(view.Frame)
	}
	e.call = &callState{view: view}

	toolsStage := e.toolsStage
	if toolsStage == "" {
		toolsStage = stage
	}
	for _, c := range e.reg {
		if c.OnCompose == nil || !e.ledger.Armed(c) {
			continue
		}
		cv := checks.ComposeView{
			Call:       cloneCall(view),
			ToolsStage: toolsStage,
			Parked:     append([]string(nil), e.parked...),
			HistoryGap: e.historyGap(),
			Filed:      e.filed,
		}
		// A check that reads the evictions gets a view of the ledger that
		// costs nothing to take, and names only the doubts it has not named
		// in an earlier verdict.
		reads := e.reads(c).evictions
		if reads {
			cv.Evictions = e.evictions.View(c.Key())
		}
		v := c.OnCompose(cv, e.decl)
		e.ledger.NoteAt(c, it, v)
		if reads {
			e.evictions.Named(c.Key(), v.Named)
		}
	}

	e.sysSeen, e.sysPieces, e.sysGaps = false, nil, nil
	// The next call's records reuse the lists (the frame copied them).
	clear(e.msgs.known)
	e.msgs = slotMessages{known: e.msgs.known[:0], unknown: e.msgs.unknown[:0]}
	e.toolsStage = ""
	e.slotKept = 0
}

func utf16Len(s string) int64 {
	n := int64(0)
	for _, r := range s {
		n += int64(utf16.RuneLen(r))
	}
	return n
}

// joinedUTF16Len is utf16Len of the pieces joined by an ASCII separator of
// sep bytes, without joining them: a separator of ASCII bytes ends any
// sequence a piece leaves unfinished, so the lengths add up.
func joinedUTF16Len(pieces []string, sep int) int64 {
	n := int64(sep * max(0, len(pieces)-1))
	for _, p := range pieces {
		n += utf16Len(p)
	}
	return n
}

// buildFrame rebuilds the request of the call at iteration it, by role.
func (e *engine) buildFrame(p llmStartPayload, it int64) checks.Frame {
	f := checks.Frame{Iteration: it}
	sysKnown := true
	switch {
	case e.sysSeen:
		f.System = append([]string(nil), e.sysPieces...)
		if len(e.sysGaps) > 0 {
			f.Gaps = append(f.Gaps, prefixAll(fmt.Sprintf("iteration %d: ", it), e.sysGaps)...)
		}
		sysKnown = len(e.sysGaps) == 0
		if sysKnown {
			e.lastSystem, e.lastSystemSet = f.System, true
		}
	case p.SystemPromptText != nil:
		if *p.SystemPromptText != "" {
			f.System = []string{*p.SystemPromptText}
		}
	case e.lastSystemSet:
		// A loop that composes the system prompt once carries it forward.
		f.System = append([]string(nil), e.lastSystem...)
	default:
		if n, ok := intOf(p.SystemPromptChars); !ok || n != 0 {
			sysKnown = false
			f.Gaps = append(f.Gaps, fmt.Sprintf("no system prompt is recorded for iteration %d (no system-prompt slot records and no llm_start.systemPromptText)", it))
		}
	}
	if n, ok := intOf(p.SystemPromptChars); ok && sysKnown {
		if got := joinedUTF16Len(f.System, len("\n\n")); got != n {
			f.Gaps = append(f.Gaps, fmt.Sprintf("the system prompt recorded for iteration %d has %d characters but llm_start says %d", it, got, n))
		}
	}

	count, countKnown := intOf(p.MessagesCount)
	switch {
	case e.msgs.seen:
		f.Source = checks.FrameFromInjected
		for _, u := range e.msgs.unknown {
			f.Gaps = append(f.Gaps, fmt.Sprintf("the %s message at position %d of iteration %d carries no rawContent", orDash(u.role), u.position, it))
		}
		switch {
		case e.msgs.more == 1:
			f.Gaps = append(f.Gaps, fmt.Sprintf("1 more message of iteration %d carries no rawContent", it))
		case e.msgs.more > 1:
			f.Gaps = append(f.Gaps, fmt.Sprintf("%d more messages of iteration %d carry no rawContent", e.msgs.more, it))
		}
		if len(e.msgs.known) > 0 {
			f.Messages = make([]checks.Message, 0, len(e.msgs.known))
		}
		for _, m := range e.msgs.known {
			if m.Role == checks.RoleTool && m.ToolName == "" {
				m.ToolName = e.callNames[m.ToolCallID]
			}
			f.Messages = append(f.Messages, m)
		}
		if countKnown && count != e.msgs.count {
			f.Gaps = append(f.Gaps, fmt.Sprintf("iteration %d recorded %d messages in context.injected but llm_start says %d", it, e.msgs.count, count))
		}
	case e.historySet:
		f.Source = checks.FrameFromHistory
		for _, h := range e.history {
			if h.evicted {
				continue
			}
			if !h.known {
				f.Gaps = append(f.Gaps, fmt.Sprintf("a %s message of the iteration %d history has no text content", orDash(h.msg.Role), e.historyIter))
				continue
			}
			f.Messages = append(f.Messages, h.msg)
		}
		if !countKnown || count != int64(len(f.Messages)) {
			f.Gaps = append(f.Gaps, fmt.Sprintf("no context.injected messages for iteration %d; the iteration %d history minus its evictions holds %d messages, which llm_start does not confirm", it, e.historyIter, len(f.Messages)))
		}
	case e.userPrompt != nil:
		f.Source = checks.FrameFromUserPrompt
		f.Messages = []checks.Message{{Role: checks.RoleUser, Content: *e.userPrompt}}
		if !countKnown || count != 1 {
			f.Gaps = append(f.Gaps, fmt.Sprintf("no context.injected messages for iteration %d and no earlier history; only turn_start.userPrompt is known", it))
		}
	default:
		f.Source = checks.FrameFromNothing
		f.Gaps = append(f.Gaps, fmt.Sprintf("no context.injected messages for iteration %d and no earlier history", it))
	}
	return f
}

func (e *engine) onLLMEnd(ev *recording.Event, stage string) {
	e.workExisted = true
	var p llmEndPayload
	decodeLLMEnd(ev, &p, e.need.claims, e.slow)
	if e.call == nil {
		// A completed call whose start was not recorded: nothing to compare.
		return
	}
	view := e.call.view
	switch {
	case p.ContentWithheld != nil && *p.ContentWithheld:
		// What stands in content is not the model's words: the answer of
		// this iteration is not recorded, never an empty one.
		delete(e.lastContent, view.Iteration)
	case p.Content != nil && e.need.claims:
		if _, ok := e.lastContent[view.Iteration]; !ok {
			e.count()
		}
		e.lastContent[view.Iteration] = e.store.intern(*p.Content)
	}
	names, stated, problem := manifestNamesOf(p.WireManifest, e.slow, ev.PayloadValidated())
	for _, c := range e.reg {
		if c.OnWire == nil || !e.ledger.Armed(c) {
			continue
		}
		wv := checks.WireView{Call: cloneCall(view), Stage: stage, ManifestStated: stated, Manifest: append([]string(nil), names...)}
		if problem != "" {
			wv.ManifestGap = fmt.Sprintf("the wireManifest on llm_end of iteration %d %s", view.Iteration, problem)
		}
		e.ledger.NoteAt(c, view.Iteration, c.OnWire(wv, e.decl))
	}
	e.choice = e.newChoice(view, stage)
}

// newChoice starts a pending choice in the engine's one record of it: a
// choice is read only until flushChoice hands the checks copies of it, so
// one record serves every model call of the run.
func (e *engine) newChoice(call checks.CallView, stage string) *pendingChoice {
	calls := e.choiceRec.calls
	clear(calls)
	e.choiceRec = pendingChoice{call: call, stage: stage, calls: calls[:0]}
	return &e.choiceRec
}

func (e *engine) onToolStart(ev *recording.Event, stage string) {
	var p toolStartPayload
	if !decodeToolStart(ev, &p, e.slow, e.read.located) {
		return
	}
	if e.stated != nil {
		e.stated.call(p.ToolCallID, p.ToolName)
	}
	if p.ToolCallID != "" && p.ToolName != "" {
		e.nameCall(p.ToolCallID, p.ToolName)
	}
	if e.choice == nil {
		var call checks.CallView
		if e.call != nil {
			call = e.call.view
		} else {
			call = checks.CallView{Frame: checks.Frame{Source: checks.FrameFromNothing,
				Gaps: []string{fmt.Sprintf("no model call is recorded before tool_start %s", orDash(p.ToolCallID))}}}
		}
		e.choice = e.newChoice(call, stage)
	}
	call := checks.ToolCall{ID: p.ToolCallID, Name: p.ToolName, Args: append(json.RawMessage(nil), p.Args...), Stage: stage}
	e.choice.calls = append(e.choice.calls, call)
	// Only the write seam and the served results read a call back by its
	// id (onToolEnd runs for nothing else).
	if p.ToolCallID != "" && (e.need.write || e.need.served) {
		if _, ok := e.toolCalls[p.ToolCallID]; !ok {
			e.count(len(call.ID), len(call.Name), len(call.Args), len(call.Stage))
		}
		e.toolCalls[p.ToolCallID] = call
	}
}

// flushChoice judges the tool calls of the latest model response.
func (e *engine) flushChoice() {
	pc := e.choice
	e.choice = nil
	if pc == nil {
		return
	}
	for _, c := range e.reg {
		if c.OnChoice == nil || !e.ledger.Armed(c) {
			continue
		}
		calls := make([]checks.ToolCall, len(pc.calls))
		for i, tc := range pc.calls {
			calls[i] = tc
			calls[i].Args = append(json.RawMessage(nil), tc.Args...)
		}
		view := checks.ChoiceView{Call: cloneCall(pc.call), Stage: pc.stage, Calls: calls, Excused: e.grounds, Filed: e.filed}
		if why := redactedChoice(c, view, e.redacted); why != "" {
			e.ledger.NoteAt(c, pc.call.Iteration, checks.UnreachableBecause(why))
			continue
		}
		e.ledger.NoteAt(c, pc.call.Iteration, c.OnChoice(view, e.decl))
	}
}

// flushClaim judges the pending final answer.
func (e *engine) flushClaim() {
	pc := e.claim
	e.claim = nil
	if pc == nil {
		return
	}
	view := checks.ClaimView{Iteration: pc.iteration, Stage: pc.stage, Rows: append([]checks.ClaimRow(nil), e.claimRows...), Frame: pc.frame}
	if e.userPrompt != nil {
		view.UserPrompt = *e.userPrompt
	}
	switch {
	case pc.answer != nil:
		view.Answer, view.AnswerKnown = *pc.answer, true
	default:
		// An answer that cannot be read back is not known, never empty.
		if r, ok := e.lastContent[pc.iteration]; ok {
			if c, err := e.store.text(r); err == nil {
				view.Answer, view.AnswerKnown = c, true
			}
		}
	}
	if e.headMissing {
		view.RowsGap = "the run's first events are missing, so facts settled before them are unknown"
	}
	view.Grounding = sharedGrounding(view.Frame, view.UserPrompt)
	for _, c := range e.reg {
		if c.OnClaim == nil || !e.ledger.Armed(c) {
			continue
		}
		if why := redactedClaim(c, view, e.redacted); why != "" {
			e.ledger.NoteAt(c, pc.iteration, checks.UnreachableBecause(why))
			continue
		}
		for _, v := range c.OnClaim(view, e.decl) {
			e.ledger.NoteAt(c, pc.iteration, v)
		}
	}
	if v, ok := validateAnswer(view, e.decl); ok {
		e.validations = append(e.validations, v)
	}
}

// sharedGrounding builds the grounding index of an answer's frame once,
// when first asked, for every check and validation that reads it: on a
// long run it indexes the whole history.
func sharedGrounding(frame checks.Frame, prompt string) func() *checks.GroundingIndex {
	var g *checks.GroundingIndex
	return func() *checks.GroundingIndex {
		if g == nil {
			g = checks.NewGroundingIndex(frame, prompt)
		}
		return g
	}
}

// cloneCall is the view of a call handed to one check. The frame and the
// tools offered are built once per call and never written after, and no
// check writes into a view's slices, so each check shares them; their
// capacity is clipped so that a check that appends to one gets a copy and
// the others never see it. A call's frame is about as large as its
// request's history, and is handed to every armed check of every seam.
func cloneCall(v checks.CallView) checks.CallView {
	out := v
	out.Served = slices.Clip(v.Served)
	out.Frame.System = slices.Clip(v.Frame.System)
	out.Frame.Messages = slices.Clip(v.Frame.Messages)
	if len(out.Frame.Messages) == 0 {
		out.Frame.Messages = nil
	}
	out.Frame.Gaps = slices.Clip(v.Frame.Gaps)
	return out
}

func cloneStrings(ss []string) []string {
	if ss == nil {
		return nil
	}
	return append([]string{}, ss...)
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func removeString(ss []string, s string) []string {
	out := ss[:0]
	for _, x := range ss {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

func prefixAll(prefix string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = prefix + s
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
