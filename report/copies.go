package report

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

// One run id can reach a report through several inputs in two ways that
// call for opposite treatment. A run saved twice (the NDJSON stream and the
// recording JSON of the same run, or an envelope beside them) is one run: it
// must be counted and gated once, or a directory of one scenario reads as
// two runs and a gate counts one defect twice. A run split across inputs
// (rotated into files the loader does not pair, or cut into parts) is one
// run in pieces: each piece holds events the others lack, so each is judged
// on its own. Recordings are hostile, so the rule that tells the two apart
// must never let an input that claims to be a copy hide what it carries.
//
// The rule (docs/json-schema.md, "copies"). Runs of one run id in different
// inputs are compared by their prints: the content hash of the first and of
// the last event (type and meta, which agentfootprint stamps with the run's
// clock and stage) and of every integrity event (type, meta and payload). A
// run C is a copy of a run P when
//
//  1. they overlap: they share their first event, their last event, or an
//     integrity event, so they hold the same events rather than parts of
//     one stream;
//  2. every integrity event of C is one of P's (as a multiset), and every
//     real finding identity C carries, recorded or replayed, is one P
//     carries;
//  3. C alone would not be a run with defects where P is not;
//  4. when C's input lost lines (damage), P holds more events than C read,
//     and at least as many as C read and is known to have lost: what C
//     lost is then among what P holds, as far as counts can tell.
//
// P is the most complete run of the id: the one with a ledger, then the
// most integrity events, then the most events, then undamaged, then the
// first in input order. Runs are taken in that order; each joins the first
// run already taken of which it is a copy, and otherwise is judged on its
// own. A run that overlaps a run taken before it but is no copy of it
// disagrees with it: both are judged, both count, and each names the other,
// so neither hides the other. A run that overlaps none is a part of a split
// run, as before. Condition 2 is what a hostile copy cannot pass: a finding,
// a ledger or a lost line it holds that P does not keeps it apart, and the
// worse of the two verdicts then stands.

// RunPrint is what tells copies of a run from parts of it (see above):
// content hashes of the run's first and last event and of each integrity
// event, in event order. A saved report carries it in its evidence, so a
// merge of shards decides as one invocation does.
type RunPrint struct {
	Head      string   `json:"head"`
	Tail      string   `json:"tail"`
	Integrity []string `json:"integrity"`
	// Repeats counts, entry by entry of Integrity, the further integrity
	// events with the same hash: a tail that files one finding 200,000
	// times prints it once. Nil (and absent) when no hash repeats.
	Repeats []int `json:"repeats,omitempty"`
}

// events is how many integrity events the i-th hash of the print stands
// for; a saved report's repeats that are short or negative count once.
func (p *RunPrint) events(i int) int {
	if i < len(p.Repeats) && p.Repeats[i] > 0 {
		return 1 + p.Repeats[i]
	}
	return 1
}

// printOf computes a run's print. Payloads other than the integrity events'
// may be dropped by the loader's filter (and kept in another invocation),
// so only meta and type stand for the first and last event; integrity
// payloads are always read.
func printOf(events []recording.Event) *RunPrint {
	r := newPrintReader()
	for i := range events {
		r.add(&events[i])
	}
	return r.result()
}

// printReader is printOf read event by event: the first and last events
// are kept without their payloads, and the integrity events as hashes.
type printReader struct {
	p           *RunPrint
	first, last recording.Event
	n           int
	at          map[string]int
	hasher      eventHasher
}

func newPrintReader() printReader {
	return printReader{p: &RunPrint{Integrity: []string{}}, at: map[string]int{}}
}

func (r *printReader) add(e *recording.Event) {
	head := *e
	head.Payload = nil
	if r.n == 0 {
		r.first = head
	}
	r.last = head
	r.n++
	if e.Type != recording.TypeContextError && e.Type != recording.TypeDisposition {
		return
	}
	p := r.p
	h := r.hasher.hash(e, true)
	if j, ok := r.at[h]; ok {
		if p.Repeats == nil {
			p.Repeats = make([]int, len(p.Integrity))
		}
		p.Repeats[j]++
		return
	}
	r.at[h] = len(p.Integrity)
	p.Integrity = append(p.Integrity, h)
	if p.Repeats != nil {
		p.Repeats = append(p.Repeats, 0)
	}
}

func (r *printReader) result() *RunPrint {
	if r.n > 0 {
		r.p.Head = r.hasher.hash(&r.first, false)
		// A run of one event ends where it begins: its tail is its
		// head, hashed once.
		r.p.Tail = r.p.Head
		if r.n > 1 {
			r.p.Tail = r.hasher.hash(&r.last, false)
		}
	}
	return r.p
}

// eventHash is a SHA-256 of the event's type and meta (and payload, with
// insignificant whitespace removed, so a pretty-printed envelope and a
// compact stream agree), cut to 128 bits: a crafted event must not be able
// to pass for another.
func eventHash(e *recording.Event, payload bool) string {
	var h eventHasher
	return h.hash(e, payload)
}

// eventHasher computes eventHash in buffers it keeps: a stream's integrity
// events are hashed one after the other, and the text hashed is built
// whole, then hashed at once.
type eventHasher struct {
	b []byte
	c bytes.Buffer
}

func (h *eventHasher) hash(e *recording.Event, payload bool) string {
	b := h.b[:0]
	field := func(s string) { b = appendField(b, s) }
	num := func(f float64) {
		var t [32]byte
		b = appendField(b, strconv.AppendFloat(t[:0], f, 'g', -1, 64))
	}
	optNum := func(f *float64) {
		if f == nil {
			field("-")
			return
		}
		num(*f)
	}
	// joined is field(strings.Join(ss, "\x00")) without the join.
	joined := func(ss []string) {
		n := max(0, len(ss)-1)
		for _, s := range ss {
			n += len(s)
		}
		b = appendFieldLen(b, n)
		for i, s := range ss {
			if i > 0 {
				b = append(b, 0)
			}
			b = append(b, s...)
		}
	}
	m := &e.Meta
	field(e.Type)
	num(m.WallClockMs)
	num(m.RunOffsetMs)
	field(m.RuntimeStageID)
	joined(m.SubflowPath)
	joined(m.CompositionPath)
	for _, s := range [...]string{m.RunID, m.SessionID, m.Principal, m.Tenant, m.TraceID, m.CorrelationID} {
		field(s)
	}
	optNum(m.TurnIndex)
	optNum(m.IterIndex)
	if payload {
		h.c.Reset()
		switch {
		case e.PayloadDropped:
			field("\x00dropped")
		case json.Compact(&h.c, e.Payload) == nil:
			b = appendField(b, h.c.Bytes())
		default:
			b = appendField(b, []byte(e.Payload))
		}
	}
	h.b = b
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// appendField appends s as the print hashes a field: its length in bytes,
// a colon, then its bytes.
func appendField[T string | []byte](b []byte, s T) []byte {
	return append(appendFieldLen(b, len(s)), s...)
}

// appendFieldLen appends the head of a field of n bytes.
func appendFieldLen(b []byte, n int) []byte {
	return append(strconv.AppendInt(b, int64(n), 10), ':')
}

// RunCopy is an input that carries a copy of a run judged elsewhere: the
// run is counted and gated once, on the most complete copy, and each other
// copy is named with what it lacks.
type RunCopy struct {
	Input       string
	Format      string
	Events      int
	FirstLine   int64
	LineNumbers bool
	// Verdict is what the copy alone would have been judged.
	Verdict Verdict
	// Differences say where the copy differs from the run judged, as
	// phrases ("lacks 8 of the 202 events"); never empty.
	Differences []string
	// alone is the copy judged on its own: what its input alone would
	// give, for the per-input lines and for a diff, which pairs inputs.
	alone *Run
	// input is the copy's input's index in Report.Inputs; judgedIn the
	// input of the run judged.
	input    int
	judgedIn string
}

// RunConflict is an input that holds the same run id and shares events with
// a run, but is no copy of it: each is judged on its own.
type RunConflict struct {
	Input string
	// Why says what the other input holds that this one lacks.
	Why string
}

// copyCandidates bounds how many runs of one id a run is compared with:
// beyond it, a run is judged on its own, which never hides anything, and a
// run id shared by thousands of inputs keeps the report linear.
const copyCandidates = 8

// runFacts is what the copy rule reads of a built run.
type runFacts struct {
	print     *RunPrint
	hasLedger bool
	integrity int
	// sides are the run's evidence, of which known reads the real
	// finding identities: only a run met again in another input needs
	// them, so they are not gathered for every run.
	sides      [2]*replay.Evidence
	knownIDs   map[string]bool // known's, once gathered
	ownDefects bool
	lostLines  int64 // known lost lines or events
	format     string
	input      int
}

// foldCopies replaces the copies of a run by one entry on the most
// complete of them, and notes where runs of one id disagree. facts is
// parallel to r.Runs.
func foldCopies(r *Report, facts []runFacts) {
	byID := map[string][]int{}
	var ids []string
	for i := range r.Runs {
		id := r.Runs[i].RunID
		if id == "" || facts[i].print == nil {
			continue
		}
		if _, ok := byID[id]; !ok {
			ids = append(ids, id)
		}
		byID[id] = append(byID[id], i)
	}
	copyOf := make([]int, len(r.Runs))
	for i := range copyOf {
		copyOf[i] = -1
	}
	for _, id := range ids {
		members := byID[id]
		if len(members) < 2 {
			continue
		}
		slices.SortStableFunc(members, func(a, b int) int { return moreComplete(&r.Runs[a], &facts[a], &r.Runs[b], &facts[b]) })
		taken := newPrintIndex()
		for _, m := range members {
			joined := false
			for _, p := range taken.overlapping(facts[m].print, func(p int) bool { return facts[p].input != facts[m].input }) {
				why := notCopy(&r.Runs[m], &facts[m], &r.Runs[p], &facts[p])
				if why == "" {
					copyOf[m] = p
					joined = true
					break
				}
				addConflict(&r.Runs[p], RunConflict{Input: r.Runs[m].Input, Why: why})
				addConflict(&r.Runs[m], RunConflict{Input: r.Runs[p].Input, Why: why})
			}
			if !joined {
				taken.add(m, facts[m].print)
			}
		}
	}
	if !slices.ContainsFunc(copyOf, func(p int) bool { return p >= 0 }) {
		return
	}
	// The copies leave r.Runs in place: a second list of every run is
	// what a report of a million runs cannot afford. Runs only move down,
	// so each is read before a later one takes its place.
	type copied struct {
		alone   *Run
		of, pos int
	}
	var copies []copied
	at := make([]int, len(r.Runs))
	kept := 0
	for i := range r.Runs {
		if p := copyOf[i]; p >= 0 {
			alone := r.Runs[i]
			copies = append(copies, copied{&alone, p, i})
			continue
		}
		at[i] = kept
		r.Runs[kept] = r.Runs[i]
		kept++
	}
	clear(r.Runs[kept:])
	r.Runs = r.Runs[:kept]
	for _, c := range copies {
		alone, i := c.alone, c.pos
		primary := &r.Runs[at[c.of]]
		primary.Copies = append(primary.Copies, RunCopy{
			Input: alone.Input, Format: facts[i].format, Events: alone.Events, FirstLine: alone.FirstLine,
			LineNumbers: alone.LineNumbers, Verdict: alone.Verdict,
			Differences: copyDifferences(alone, &facts[i], primary, &facts[c.of]),
			alone:       alone, input: facts[i].input, judgedIn: primary.Input,
		})
		r.Inputs[facts[i].input].Copies++
	}
}

func addConflict(run *Run, c RunConflict) {
	if slices.ContainsFunc(run.Conflicts, func(o RunConflict) bool { return o.Input == c.Input }) || len(run.Conflicts) == alsoInListed {
		return
	}
	run.Conflicts = append(run.Conflicts, c)
}

// moreComplete orders runs of one id from the most complete.
func moreComplete(a *Run, fa *runFacts, b *Run, fb *runFacts) int {
	boolRank := func(x bool) int {
		if x {
			return 0
		}
		return 1
	}
	return cmp.Or(
		cmp.Compare(boolRank(fa.hasLedger), boolRank(fb.hasLedger)),
		cmp.Compare(fb.integrity, fa.integrity),
		cmp.Compare(b.Events, a.Events),
		cmp.Compare(boolRank(!a.Damaged()), boolRank(!b.Damaged())),
		cmp.Compare(fa.input, fb.input),
	)
}

// printIndex holds the runs of one id taken so far, in the order they were
// taken, by the hashes of their prints: two prints overlap when they share
// their first event, their last event or an integrity event, and looking
// each hash up keeps a run id shared by thousands of inputs, or a run of
// thousands of integrity events, linear.
type printIndex struct {
	taken []int
	// ends and integrity list, by hash, the places in taken of the runs
	// whose first or last event, or one of whose integrity events, has it.
	ends, integrity map[string][]int
}

func newPrintIndex() *printIndex {
	return &printIndex{ends: map[string][]int{}, integrity: map[string][]int{}}
}

// add takes run with its print.
func (x *printIndex) add(run int, p *RunPrint) {
	at := len(x.taken)
	x.taken = append(x.taken, run)
	put := func(m map[string][]int, h string) {
		if l := m[h]; len(l) == 0 || l[len(l)-1] != at {
			m[h] = append(l, at)
		}
	}
	for _, h := range []string{p.Head, p.Tail} {
		if h != "" {
			put(x.ends, h)
		}
	}
	for _, h := range p.Integrity {
		put(x.integrity, h)
	}
}

// overlapping returns, in the order they were taken, the first
// copyCandidates runs that overlap p and that eligible admits.
func (x *printIndex) overlapping(p *RunPrint, eligible func(run int) bool) []int {
	var at []int
	// The first candidates of all the lists are among the first of each.
	from := func(l []int) {
		n := 0
		for _, a := range l {
			if n == copyCandidates {
				return
			}
			if eligible(x.taken[a]) {
				at = append(at, a)
				n++
			}
		}
	}
	for _, h := range []string{p.Head, p.Tail} {
		if h != "" {
			from(x.ends[h])
		}
	}
	for _, h := range p.Integrity {
		from(x.integrity[h])
	}
	slices.Sort(at)
	at = slices.Compact(at)
	runs := make([]int, 0, min(len(at), copyCandidates))
	for _, a := range at[:min(len(at), copyCandidates)] {
		runs = append(runs, x.taken[a])
	}
	return runs
}

// notCopy says why run c is no copy of run p, or "" when it is one.
func notCopy(c *Run, fc *runFacts, p *Run, fp *runFacts) string {
	have := map[string]int{}
	for i, h := range fp.print.Integrity {
		have[h] += fp.print.events(i)
	}
	extra := 0
	for i, h := range fc.print.Integrity {
		n := fc.print.events(i)
		extra += max(0, n-have[h])
		have[h] = max(0, have[h]-n)
	}
	if extra > 0 {
		return fmt.Sprintf("%s holds %s that %s lacks", displayPath(c.Input), count(extra, "integrity event", "integrity events"), displayPath(p.Input))
	}
	inP := fp.known()
	for _, id := range sortedKeys(fc.known()) {
		if !inP[id] {
			return fmt.Sprintf("%s holds a finding that %s lacks (%s)", displayPath(c.Input), displayPath(p.Input), id)
		}
	}
	if fc.ownDefects && p.Verdict != VerdictDefects {
		return fmt.Sprintf("%s alone is a run with defects and %s is not", displayPath(c.Input), displayPath(p.Input))
	}
	if c.Damaged() {
		lost := max(fc.lostLines, 1)
		if int64(p.Events) <= int64(c.Events) || int64(p.Events) < int64(c.Events)+lost {
			return fmt.Sprintf("%s lost lines (%s) that %s may not hold", displayPath(c.Input), damageText(c), displayPath(p.Input))
		}
	}
	return ""
}

// copyDifferences words where copy c differs from the run p judged.
func copyDifferences(c *Run, fc *runFacts, p *Run, fp *runFacts) []string {
	var out []string
	if c.Events < p.Events {
		out = append(out, fmt.Sprintf("lacks %d of the %d events", p.Events-c.Events, p.Events))
	}
	if c.HeadMissing && !p.HeadMissing {
		out = append(out, "lacks the run's head")
	}
	if fc.print.Tail != fp.print.Tail && c.Events < p.Events {
		out = append(out, "lacks its tail (it ends before the last event)")
	}
	if !fc.hasLedger && fp.hasLedger {
		out = append(out, "lacks the ledger")
	}
	if n := fp.integrity - fc.integrity; n > 0 {
		out = append(out, fmt.Sprintf("lacks %s", count(n, "integrity event", "integrity events")))
	}
	if lost := c.Damage; len(lost) > 0 {
		out = append(out, "has damaged evidence ("+damageText(c)+"), which does not reach the run: the judged copy holds more events than it read and lost")
	}
	if c.Verdict != p.Verdict {
		out = append(out, "would alone be judged "+string(c.Verdict))
	}
	if len(out) == 0 {
		out = append(out, "holds the same integrity events and as many events")
	}
	return out
}

// copyNote states a run's copies in one sentence.
func copyNote(run *Run) string {
	var parts []string
	for _, c := range run.Copies {
		parts = append(parts, fmt.Sprintf("%s (%s) %s", displayPath(c.Input), displayFormat(c.Format), strings.Join(c.Differences, ", ")))
	}
	return fmt.Sprintf("%s %s: %s. Counted and judged once, on this input, the most complete.",
		copiesPrefix, count(len(run.Copies), "other input holds a copy of this run", "other inputs hold copies of this run"), strings.Join(parts, "; "))
}

// copiesPrefix starts the copy note, which the compact text report always
// shows: it says why inputs hold fewer runs than they read.
const copiesPrefix = "Copies:"

// conflictNote states the inputs that share events with a run but are no
// copy of it.
func conflictNote(run *Run) string {
	var parts []string
	for _, c := range run.Conflicts {
		parts = append(parts, c.Why)
	}
	verb := "shares"
	if len(run.Conflicts) > 1 {
		verb = "share"
	}
	return fmt.Sprintf("⚠ Disagreeing copies: this run id also appears in %s, which %s events with this run but %s no copy of it (%s). Each is judged on its own and counted, so neither hides the other.",
		strings.Join(conflictInputs(run), ", "), verb, map[bool]string{false: "is", true: "are"}[len(run.Conflicts) > 1], strings.Join(parts, "; "))
}

func conflictInputs(run *Run) []string {
	out := make([]string, len(run.Conflicts))
	for i, c := range run.Conflicts {
		out[i] = displayPath(c.Input)
	}
	return out
}

// copiesByInput returns, for each input, its runs judged as copies of a run
// of another input.
func copiesByInput(r *Report) [][]*RunCopy {
	out := make([][]*RunCopy, len(r.Inputs))
	for i := range r.Runs {
		for j := range r.Runs[i].Copies {
			c := &r.Runs[i].Copies[j]
			if c.input < len(out) {
				out[c.input] = append(out[c.input], c)
			}
		}
	}
	return out
}

// copyOfSentence words a copy from its own input's side.
func copyOfSentence(c *RunCopy) string {
	return fmt.Sprintf("Run %s in %s is a copy of the run judged in %s: it %s. Counted and judged once, there.",
		runLabel(c.alone), displayPath(c.Input), displayPath(c.judgedIn), strings.Join(c.Differences, ", "))
}

// line is where the copy starts in its input, for a format that locates
// by line; 0 when its input has no lines.
func (c *RunCopy) line() int64 {
	if c.LineNumbers {
		return c.FirstLine
	}
	return 0
}

// factsOf reads what the copy rule needs of a run as built.
func factsOf(rr RunResult, run *Run, format string, input int) runFacts {
	f := runFacts{print: rr.Print, format: format, input: input, ownDefects: run.Verdict == VerdictDefects}
	if rr.Print != nil {
		// Only a run with a print is ever compared (foldCopies); any
		// other's evidence is not held for it.
		f.sides = [2]*replay.Evidence{rr.Recorded, rr.Replayed}
	}
	if rr.Recorded != nil {
		f.hasLedger = rr.Recorded.Disposition != nil
		f.integrity = rr.Recorded.IntegrityEvents
	}
	for _, d := range run.Damage {
		switch d.Cause {
		case DamageMalformed, DamageCutOff, DamageDropped, DamageCappedHead:
			f.lostLines += d.Lost
		}
	}
	return f
}

// known are the identities of the run's real findings, both sides,
// gathered the first time a copy rule asks: a run compared with several
// candidates gathers them once.
func (f *runFacts) known() map[string]bool {
	if f.knownIDs != nil {
		return f.knownIDs
	}
	known := map[string]bool{}
	for _, ev := range f.sides {
		if ev == nil {
			continue
		}
		for i := range ev.Findings {
			if !ev.Findings[i].Synthetic {
				known[ev.Findings[i].Identity()] = true
			}
		}
	}
	f.knownIDs = known
	return known
}

// inputRuns returns, for each input, its runs as that input alone gives
// them: the runs judged there, then its copies of runs judged elsewhere,
// each judged on its own. A diff pairs inputs, so each side of a pair
// must keep the runs it read.
func inputRuns(r *Report) [][]*Run {
	copies := copiesByInput(r)
	out := make([][]*Run, len(r.Inputs))
	for i, idx := range runsByInput(r) {
		for _, ri := range idx {
			out[i] = append(out[i], &r.Runs[ri])
		}
		for _, c := range copies[i] {
			out[i] = append(out[i], c.alone)
		}
	}
	return out
}
