package checks

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// DanglingReference is dangling-reference at the compose seam: a tool whose
// arguments come from another tool's results is offered while those
// results have left the window and nothing fetched them again.
var DanglingReference = &Check{
	Kind:  KindDanglingReference,
	Seam:  SeamCompose,
	Title: "a grounded tool offered after its ground left the window",
	Doc: `On every model call, each offered tool (llm_start.tools) that declares argumentsFrom is checked against the window: a ground counts as dropped once a window strategy evicted one of its results earlier in the run (context.evicted, joined by content hash to the message it removed), and as present when a result of it is in this call's frame. A ground that is dropped and not present files one finding per dependent tool, naming every missing ground in declaration order; the same set on a later call is the same finding.

Fences: a ground never dropped is silent, since not yet grounded is ordinary sequencing; a ground fetched again (a result present in the frame) is silent however often it was dropped before; a tool that declares nothing is never a subject; a call that offers no grounded tool, or comes before anything was dropped, is not-applicable. An eviction whose hash matches no recorded message, or several messages of different tools, makes the call unreachable whenever it could change the verdict.`,
	Ceiling: `It judges what was offered, not what the model then did with it, and only tools declared with argumentsFrom. The eviction join works on content hashes: messages that never reached a recorded frame before they were evicted (for example from an earlier run of the same conversation) cannot be named.`,
	ArmedBy: "argumentsFrom declared on at least one tool",
	Armed:   func(d *Declarations) bool { return d.AnyArgumentsFrom() },
	Canary: func() []Finding {
		return danglingOf([]groundedTool{{name: "canary_tool", grounds: []string{"canary_ground"}}},
			map[string]bool{"canary_ground": true}, map[string]bool{}, -1)
	},
	OnCompose: judgeDangling,
}

type groundedTool struct {
	name    string
	grounds []string
}

// danglingOf is the pure judge: for each served grounded tool, the grounds
// that were dropped and are not present; one finding per tool that has any.
func danglingOf(served []groundedTool, dropped, present map[string]bool, epoch int64) []Finding {
	var fs []Finding
	for _, t := range served {
		var missing []string
		for _, g := range t.grounds {
			if dropped[g] && !present[g] {
				missing = append(missing, g)
			}
		}
		if len(missing) > 0 {
			fs = append(fs, danglingFinding(t.name, missing, epoch, nil))
		}
	}
	return fs
}

func danglingFinding(tool string, missing []string, epoch int64, filed func(string) bool) Finding {
	subject := toolSubject(tool)
	subjects := make([]Subject, 0, 1+len(missing))
	subjects = append(subjects, subject)
	for _, g := range missing {
		subjects = append(subjects, toolSubject(g))
	}
	if f, ok := bareFinding(filed, KindDanglingReference, SeamCompose, subjects, "", epoch); ok {
		return f
	}
	var witnesses []Witness
	for _, g := range missing {
		witnesses = append(witnesses, asserted(subject, "argument-ground",
			fmt.Sprintf("results of '%s' evicted and not fetched again", g), epoch,
			fmt.Sprintf("window: a '%s' result was evicted (context.evicted), and no '%s' result is in the iteration %d frame", g, g, epoch)))
	}
	msg := fmt.Sprintf("'%s' is offered while the results its arguments come from (%s) have left the window and were not fetched again; call %s again before the model relies on '%s', or keep %s results in the window.",
		tool, nameList(missing), strings.Join(missing, " and "), tool, plural(len(missing), "its", "their"))
	return finding(KindDanglingReference, SeamCompose, subjects, "", witnesses, epoch, msg)
}

// EvictionLedger is a run's messages-slot evictions, each folded once, as it
// is recorded, into what it certainly dropped (a tool's result, or some
// tool's result) and the doubt it raised when the join could not say which
// message left (a hash that matches nothing, or several messages). The
// engine owns one per run and hands each model call an EvictionView of it,
// taken in constant time: judging a call then costs what the call offers
// and what is new since the check's previous call, never the length of the
// run so far. A doubt is worded once, when its eviction is folded, and
// named by each check that reads the ledger at most once.
type EvictionLedger struct {
	// n is the number of evictions folded; every fact below is stamped
	// with the n it became true at, so a view cut at n sees the ledger as
	// it was then, however much is folded after.
	n int
	// dropped is, per tool, the n of the first eviction that certainly
	// removed one of its results.
	dropped map[string]int
	// anyToolAt is the n of the first eviction that certainly removed a
	// tool result, even if which tool's is uncertain; 0 when none has.
	anyToolAt int
	// doubts are the evictions that raised a doubt, in order.
	doubts []doubt
	// maybe lists, per tool, the doubts that it might have been dropped;
	// anyMaybe the doubts that some unknown tool's result might have been
	// (indexes into doubts, ascending).
	maybe    map[string][]int
	anyMaybe []int
	// maybeAt is the n of the first doubt about a named tool; 0 when none.
	maybeAt int
	// named is, per reader (a check's key), how far its verdicts have
	// named each list of doubts.
	named map[string]*doubtMarks
}

// doubt is one eviction the join could not pin to a single tool's result.
type doubt struct {
	at  int // the ledger's n once it was folded
	why string
}

// doubtMarks is how far one reader's verdicts have named the doubts: every
// doubt of a list folded at or before its mark has been named.
type doubtMarks struct {
	any   int
	tools map[string]int
}

// DoubtsNamed says which lists of eviction doubts a verdict named: the
// doubts about each of tools, and (any) those about an unknown tool's
// result, each up to the eviction its view was cut at.
type DoubtsNamed struct {
	upTo  int
	any   bool
	tools []string
}

// NewEvictionLedger returns an empty ledger.
func NewEvictionLedger() *EvictionLedger {
	return &EvictionLedger{dropped: map[string]int{}, maybe: map[string][]int{}, named: map[string]*doubtMarks{}}
}

// EvictionViewOf folds evs into a new ledger and returns its view, for a
// compose view built by hand.
func EvictionViewOf(evs ...Eviction) EvictionView {
	l := NewEvictionLedger()
	for _, e := range evs {
		l.Record(e)
	}
	return l.View("")
}

// Len is the number of evictions recorded.
func (l *EvictionLedger) Len() int { return l.n }

// Record folds one eviction into the ledger. The ledger keeps nothing of e
// itself, so e may be reused.
func (l *EvictionLedger) Record(e Eviction) {
	l.n++
	if !e.Resolved() {
		l.anyMaybe = append(l.anyMaybe, l.keep(e))
		return
	}
	if len(e.Candidates) == 1 {
		// The exact join, nearly every eviction: one message, known.
		c := &e.Candidates[0]
		if c.Role != RoleTool {
			return
		}
		if c.ToolName != "" {
			l.drop(c.ToolName)
			return
		}
	}
	allTool, anyTool, unknownName := true, false, false
	var names []string // distinct, in the order met
	var seen map[string]bool
	if len(e.Candidates) > 8 {
		// A hash shared by many messages is not compared pairwise.
		seen = map[string]bool{}
	}
	for j := range e.Candidates {
		c := &e.Candidates[j]
		if c.Role != RoleTool {
			allTool = false
			continue
		}
		anyTool = true
		switch {
		case c.ToolName == "":
			unknownName = true
		case seen != nil:
			if !seen[c.ToolName] {
				seen[c.ToolName] = true
				names = append(names, c.ToolName)
			}
		case !slices.Contains(names, c.ToolName):
			names = append(names, c.ToolName)
		}
	}
	if !anyTool {
		return
	}
	if allTool && !unknownName && len(names) == 1 {
		l.drop(names[0])
		return
	}
	if allTool && l.anyToolAt == 0 {
		l.anyToolAt = l.n
	}
	i := l.keep(e)
	if unknownName {
		l.anyMaybe = append(l.anyMaybe, i)
	}
	for _, name := range names {
		l.maybe[name] = append(l.maybe[name], i)
		if l.maybeAt == 0 {
			l.maybeAt = l.n
		}
	}
}

// drop notes that an eviction certainly removed a result of tool.
func (l *EvictionLedger) drop(tool string) {
	if l.anyToolAt == 0 {
		l.anyToolAt = l.n
	}
	if l.dropped[tool] == 0 {
		l.dropped[tool] = l.n
	}
}

// keep words the doubt an eviction raised and returns its index. An
// eviction with no candidate matched nothing; one with several is
// ambiguous between them.
func (l *EvictionLedger) keep(e Eviction) int {
	why := ""
	if e.Resolved() {
		why = fmt.Sprintf("context.evicted %s at iteration %d matches %d recorded messages (%s), so which one left the window is ambiguous", e.Hash, e.Iteration, len(e.Candidates), describeCandidates(e.Candidates))
	} else {
		why = fmt.Sprintf("context.evicted %s at iteration %d matches no message recorded before it in this run, so which message left the window is unknown", e.Hash, e.Iteration)
	}
	l.doubts = append(l.doubts, doubt{at: l.n, why: why})
	return len(l.doubts) - 1
}

// View is the ledger as it stands, for one call of the check keyed reader:
// the doubts that reader's verdicts already named are left out. Taking it
// copies nothing.
func (l *EvictionLedger) View(reader string) EvictionView {
	return EvictionView{l: l, n: l.n, marks: l.named[reader]}
}

// Named records that a verdict of reader named the doubts n says, so its
// later views leave them out. A nil n names nothing.
func (l *EvictionLedger) Named(reader string, n *DoubtsNamed) {
	if n == nil || n.upTo > l.n {
		return
	}
	m := l.named[reader]
	if m == nil {
		m = &doubtMarks{tools: map[string]int{}}
		l.named[reader] = m
	}
	if n.any {
		m.any = max(m.any, n.upTo)
	}
	for _, t := range n.tools {
		m.tools[t] = max(m.tools[t], n.upTo)
	}
}

// EvictionView is an EvictionLedger cut at the evictions recorded when it
// was taken, as one call of one check sees it. It offers no way to change
// the ledger. Which doubts count as already named is read from the ledger
// when asked, so a view is meant to be read during the call it was handed
// to.
type EvictionView struct {
	l     *EvictionLedger
	n     int
	marks *doubtMarks
}

// Len is the number of evictions the view holds.
func (v EvictionView) Len() int { return v.n }

func (v EvictionView) at(n int) bool { return n != 0 && n <= v.n }

// Dropped reports whether an eviction certainly removed a result of tool.
func (v EvictionView) Dropped(tool string) bool {
	return v.l != nil && v.at(v.l.dropped[tool])
}

// AnyToolDropped reports whether an eviction certainly removed some tool's
// result, even if which tool's is uncertain.
func (v EvictionView) AnyToolDropped() bool { return v.l != nil && v.at(v.l.anyToolAt) }

// anyDoubtAboutNamed reports whether some eviction might have dropped a
// result of a named tool.
func (v EvictionView) anyDoubtAboutNamed() bool { return v.l != nil && v.at(v.l.maybeAt) }

// doubtsAbout reports whether some eviction might have dropped a result of
// tool.
func (v EvictionView) doubtsAbout(tool string) bool {
	return v.l != nil && v.has(v.l.maybe[tool])
}

// doubtsAboutUnknown reports whether some eviction might have dropped a
// result of a tool it cannot name.
func (v EvictionView) doubtsAboutUnknown() bool { return v.l != nil && v.has(v.l.anyMaybe) }

func (v EvictionView) has(list []int) bool {
	return len(list) > 0 && v.l.doubts[list[0]].at <= v.n
}

// unnamedAbout appends, worded, the doubts about tool the reader has not
// named.
func (v EvictionView) unnamedAbout(dst []string, tool string) []string {
	if v.l == nil {
		return dst
	}
	from := 0
	if v.marks != nil {
		from = v.marks.tools[tool]
	}
	return v.unnamed(dst, v.l.maybe[tool], from)
}

// unnamedAboutUnknown appends, worded, the doubts about an unknown tool's
// result the reader has not named.
func (v EvictionView) unnamedAboutUnknown(dst []string) []string {
	if v.l == nil {
		return dst
	}
	from := 0
	if v.marks != nil {
		from = v.marks.any
	}
	return v.unnamed(dst, v.l.anyMaybe, from)
}

// unnamed appends the doubts of list folded after from and by the view's
// cut.
func (v EvictionView) unnamed(dst []string, list []int, from int) []string {
	ds := v.l.doubts
	lo := 0
	if from > 0 {
		lo = sort.Search(len(list), func(i int) bool { return ds[list[i]].at > from })
	}
	hi := len(list)
	if hi > 0 && ds[list[hi-1]].at > v.n {
		hi = sort.Search(len(list), func(i int) bool { return ds[list[i]].at > v.n })
	}
	for _, i := range list[lo:max(lo, hi)] {
		dst = append(dst, ds[i].why)
	}
	return dst
}

func describeCandidates(cs []Message) string {
	var parts []string
	for _, c := range cs {
		switch {
		case c.Role != RoleTool:
			parts = append(parts, c.Role+" message")
		case c.ToolName == "":
			parts = append(parts, fmt.Sprintf("tool result of call %s from an unnamed tool", orUnknown(c.ToolCallID)))
		default:
			parts = append(parts, fmt.Sprintf("'%s' result of call %s", c.ToolName, orUnknown(c.ToolCallID)))
		}
	}
	return strings.Join(parts, "; ")
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// groundedServed is each tool served on the call that declares grounds,
// once, in the order first served.
func groundedServed(names []string, d *Declarations) []groundedTool {
	var served []groundedTool
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		if g := d.GroundsOf(name); len(g) > 0 {
			served = append(served, groundedTool{name: name, grounds: g})
		}
	}
	return served
}

func judgeDangling(v ComposeView, d *Declarations) Verdict {
	it := v.Call.Iteration
	if v.Call.ServedGap != "" {
		return UnreachableBecause(v.Call.ServedGap)
	}
	served := groundedServed(v.Call.Served, d)
	if len(served) == 0 {
		return NotApplicableVerdict()
	}
	ev := v.Evictions
	// Doubt about an unknown tool's result, or about the run's missing
	// head, bears on every ground.
	doubtAll := ev.doubtsAboutUnknown() || v.HistoryGap != ""
	if !ev.AnyToolDropped() && !ev.anyDoubtAboutNamed() && !doubtAll {
		return NotApplicableVerdict()
	}

	present := map[string]bool{}
	var presenceUnknown []string
	for _, m := range v.Call.Frame.Messages {
		if m.Role != RoleTool {
			continue
		}
		if m.ToolName == "" {
			presenceUnknown = append(presenceUnknown, fmt.Sprintf("the tool result of call %s in the iteration %d frame cannot be tied to a tool (no tool_start for that call)", orUnknown(m.ToolCallID), it))
			continue
		}
		present[m.ToolName] = true
	}
	presenceUnknown = append(presenceUnknown, v.Call.Frame.Gaps...)

	// A ground in doubt is named by the doubts about it, then those about
	// any tool, then the missing head; a dropped ground whose presence
	// cannot be told by what hides it. Each list is named at most once
	// per call (a second naming in the same verdict would repeat it), and
	// only its doubts that the reader's earlier verdicts have not named.
	var fs []Finding
	var reasons []string
	var named *DoubtsNamed
	var namedHere map[string]bool
	nameAll, namePresence := false, false
	anyDoubtful := false
	for _, t := range served {
		var missing []string
		doubtful := false
		for _, g := range t.grounds {
			if present[g] {
				continue
			}
			if !ev.Dropped(g) {
				if !doubtAll && !ev.doubtsAbout(g) {
					continue
				}
				doubtful = true
				if named == nil {
					named = &DoubtsNamed{upTo: ev.n}
				}
				if !namedHere[g] {
					if namedHere == nil {
						namedHere = map[string]bool{}
					}
					namedHere[g] = true
					named.tools = append(named.tools, g)
					reasons = ev.unnamedAbout(reasons, g)
				}
				if !nameAll {
					nameAll, named.any = true, true
					reasons = ev.unnamedAboutUnknown(reasons)
					if v.HistoryGap != "" {
						reasons = append(reasons, v.HistoryGap)
					}
				}
				continue
			}
			if len(presenceUnknown) > 0 {
				doubtful = true
				if !namePresence {
					namePresence = true
					reasons = append(reasons, presenceUnknown...)
				}
				continue
			}
			missing = append(missing, g)
		}
		if doubtful {
			anyDoubtful = true
			continue
		}
		if len(missing) > 0 {
			fs = append(fs, danglingFinding(t.name, missing, it, v.Filed))
		}
	}
	switch {
	case len(fs) > 0:
		return Verdict{Disposition: CheckedFail, Findings: stamp(fs, v.Call.Stage), Reasons: dedupe(reasons), Named: named}
	case anyDoubtful:
		return Verdict{Disposition: Unreachable, Reasons: dedupe(reasons), Named: named}
	case !ev.AnyToolDropped():
		// Nothing this run certainly dropped a tool result, and nothing
		// uncertain touched a ground the call depends on.
		return NotApplicableVerdict()
	}
	return Pass()
}

// dedupe keeps the first of each string, in order.
func dedupe(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
