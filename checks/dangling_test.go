package checks

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// evictionSummary is what a run's evictions certainly dropped and what they
// might have, worked out from the whole list at once: the reference the
// EvictionLedger, which folds one eviction at a time, is held to.
type evictionSummary struct {
	dropped        map[string]bool
	anyToolDropped bool
	maybe          map[string][]string
	anyMaybe       []string
}

// summarizeEvictionsBySets sorts evictions into the summary with a set of
// names per eviction.
func summarizeEvictionsBySets(evs []Eviction) evictionSummary {
	s := evictionSummary{dropped: map[string]bool{}, maybe: map[string][]string{}}
	for _, e := range evs {
		if !e.Resolved() {
			s.anyMaybe = append(s.anyMaybe, fmt.Sprintf("context.evicted %s at iteration %d matches no message recorded before it in this run, so which message left the window is unknown", e.Hash, e.Iteration))
			continue
		}
		allTool, anyTool, unknownName := true, false, false
		names := map[string]bool{}
		for _, c := range e.Candidates {
			if c.Role != RoleTool {
				allTool = false
				continue
			}
			anyTool = true
			if c.ToolName == "" {
				unknownName = true
			} else {
				names[c.ToolName] = true
			}
		}
		if !anyTool {
			continue
		}
		if allTool {
			s.anyToolDropped = true
		}
		if allTool && !unknownName && len(names) == 1 {
			for n := range names {
				s.dropped[n] = true
			}
			continue
		}
		why := fmt.Sprintf("context.evicted %s at iteration %d matches %d recorded messages (%s), so which one left the window is ambiguous", e.Hash, e.Iteration, len(e.Candidates), describeCandidates(e.Candidates))
		if unknownName {
			s.anyMaybe = append(s.anyMaybe, why)
		}
		for n := range names {
			s.maybe[n] = append(s.maybe[n], why)
		}
	}
	return s
}

// judgeDanglingWhole is the judge as it reads the run's whole eviction list
// on every call, each reason named as often as it bears: the reference the
// judge over a ledger view, which names each doubt once, is held to.
func judgeDanglingWhole(v ComposeView, evs []Eviction, d *Declarations) Verdict {
	it := v.Call.Iteration
	if v.Call.ServedGap != "" {
		return UnreachableBecause(v.Call.ServedGap)
	}
	served := groundedServed(v.Call.Served, d)
	if len(served) == 0 {
		return NotApplicableVerdict()
	}
	ev := summarizeEvictionsBySets(evs)
	anyMaybe := append([]string(nil), ev.anyMaybe...)
	if v.HistoryGap != "" {
		anyMaybe = append(anyMaybe, v.HistoryGap)
	}
	if len(ev.dropped) == 0 && !ev.anyToolDropped && len(ev.maybe) == 0 && len(anyMaybe) == 0 {
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
	var fs []Finding
	var reasons []string
	for _, t := range served {
		var missing, why []string
		for _, g := range t.grounds {
			if present[g] {
				continue
			}
			maybe := append(append([]string(nil), ev.maybe[g]...), anyMaybe...)
			if !ev.dropped[g] && len(maybe) == 0 {
				continue
			}
			if !ev.dropped[g] {
				why = append(why, maybe...)
				continue
			}
			if len(presenceUnknown) > 0 {
				why = append(why, presenceUnknown...)
				continue
			}
			missing = append(missing, g)
		}
		if len(why) > 0 {
			reasons = append(reasons, dedupe(why)...)
			continue
		}
		if len(missing) > 0 {
			fs = append(fs, danglingFinding(t.name, missing, it, nil))
		}
	}
	switch {
	case len(fs) > 0:
		return Verdict{Disposition: CheckedFail, Findings: stamp(fs, v.Call.Stage), Reasons: dedupe(reasons)}
	case len(reasons) > 0:
		return UnreachableBecause(dedupe(reasons)...)
	case len(ev.dropped) == 0 && !ev.anyToolDropped:
		return NotApplicableVerdict()
	}
	return Pass()
}

// evictionPool is the messages an eviction's candidates are drawn from.
var evictionPool = []Message{
	{Role: RoleTool, ToolName: "fleet_report", ToolCallID: "c1"},
	{Role: RoleTool, ToolName: "fleet_report", ToolCallID: "c2"},
	{Role: RoleTool, ToolName: "host_metrics", ToolCallID: "c3"},
	{Role: RoleTool, ToolCallID: "c4"},
	{Role: RoleUser},
	{Role: RoleAssistant},
}

// everyEviction is every eviction of up to three candidates drawn from the
// pool, the unresolved one first, and a few of many candidates.
func everyEviction() []Eviction {
	var all []Eviction
	var pick func(from int, cands []Message)
	pick = func(from int, cands []Message) {
		all = append(all, Eviction{Hash: fmt.Sprint("h", len(all)), Iteration: int64(len(all)), Candidates: append([]Message(nil), cands...)})
		if len(cands) == 3 {
			return
		}
		for i := from; i < len(evictionPool); i++ {
			pick(i, append(cands, evictionPool[i]))
		}
	}
	pick(0, nil)
	// Hashes shared by many messages, some of them repeated.
	many := slices.Concat(evictionPool[:4], evictionPool[:4], evictionPool[1:3])
	for _, cands := range [][]Message{many, many[:9], slices.Concat(many[:3], many[:3], many[:3], many[2:4])} {
		all = append(all, Eviction{Hash: fmt.Sprint("h", len(all)), Iteration: int64(len(all)), Candidates: cands})
	}
	onlyNamed := []Message{evictionPool[0], evictionPool[1], evictionPool[2]}
	all = append(all, Eviction{Hash: "many-named", Iteration: 1, Candidates: slices.Concat(onlyNamed, onlyNamed, onlyNamed, onlyNamed)})
	return all
}

// summaryOf reads a view back into the reference's shape, naming every
// doubt (a view no verdict has named anything from).
func summaryOf(v EvictionView, tools []string) evictionSummary {
	s := evictionSummary{dropped: map[string]bool{}, maybe: map[string][]string{}, anyToolDropped: v.AnyToolDropped()}
	for _, t := range tools {
		if v.Dropped(t) {
			s.dropped[t] = true
		}
		if v.doubtsAbout(t) {
			s.maybe[t] = v.unnamedAbout(nil, t)
		}
	}
	if v.doubtsAboutUnknown() {
		s.anyMaybe = v.unnamedAboutUnknown(nil)
	}
	return s
}

var cmpSummary = cmp.AllowUnexported(evictionSummary{})

// TestEvictionLedgerMatchesWholeList folds every eviction one at a time
// and, after each, holds the ledger's view to the summary of the whole
// list so far; a view taken earlier still reads as the list was then.
func TestEvictionLedgerMatchesWholeList(t *testing.T) {
	all := everyEviction()
	tools := []string{"fleet_report", "host_metrics", "absent"}
	for i := range all {
		l := NewEvictionLedger()
		l.Record(all[i])
		if d := cmp.Diff(summarizeEvictionsBySets(all[i:i+1]), summaryOf(l.View(""), tools), cmpSummary); d != "" {
			t.Fatalf("eviction %+v (-whole +ledger):\n%s", all[i], d)
		}
	}
	for _, order := range [][]Eviction{all, reversed(all)} {
		l := NewEvictionLedger()
		views := []EvictionView{l.View("")}
		for _, e := range order {
			l.Record(e)
			views = append(views, l.View(""))
		}
		for n, v := range views {
			if v.Len() != n {
				t.Fatalf("view %d holds %d evictions", n, v.Len())
			}
			if d := cmp.Diff(summarizeEvictionsBySets(order[:n]), summaryOf(v, tools), cmpSummary); d != "" {
				t.Fatalf("first %d evictions (-whole +ledger):\n%s", n, d)
			}
		}
	}
	if d := cmp.Diff(summarizeEvictionsBySets(nil), summaryOf(EvictionView{}, tools), cmpSummary); d != "" {
		t.Fatalf("the zero view (-whole +ledger):\n%s", d)
	}
}

func reversed(evs []Eviction) []Eviction {
	out := slices.Clone(evs)
	slices.Reverse(out)
	return out
}

// TestEvictionLedgerIgnoresReuse: a recorder that reuses the candidates
// it handed over does not change what the ledger says.
func TestEvictionLedgerIgnoresReuse(t *testing.T) {
	l := NewEvictionLedger()
	cands := []Message{{Role: RoleTool, ToolName: "fleet_report", ToolCallID: "c1"}, {Role: RoleTool, ToolName: "host_metrics", ToolCallID: "c2"}}
	l.Record(Eviction{Hash: "h", Iteration: 2, Candidates: cands})
	want := l.View("").unnamedAbout(nil, "fleet_report")
	cands[0].ToolCallID = "changed"
	if got := l.View("").unnamedAbout(nil, "fleet_report"); !slices.Equal(got, want) {
		t.Errorf("doubts changed with the recorder's slice: %q, want %q", got, want)
	}
}

// step is one event of a generated run, as the dangling judge sees it: an
// eviction, or a model call.
type step struct {
	evict *Eviction
	call  ComposeView
}

// randomSteps generates a run of evictions and calls over a few tools,
// grounds and frames, and whether its head is missing.
func randomSteps(r *rand.Rand, n int) []step {
	all := everyEviction()
	toolNames := []string{"fleet_report", "host_metrics", "backup_status", "screen_fire", "whats_here"}
	historyGap := ""
	if r.IntN(5) == 0 {
		historyGap = "the run's first events are missing"
	}
	var steps []step
	for i := 0; i < n; i++ {
		if r.IntN(3) == 0 {
			e := all[r.IntN(len(all))]
			e.Iteration = int64(i)
			if r.IntN(4) == 0 {
				// The same hash at the same iteration words the same
				// doubt twice.
				e.Hash, e.Iteration = "again", 1
			}
			steps = append(steps, step{evict: &e})
			continue
		}
		var served []string
		for _, name := range toolNames {
			if r.IntN(2) == 0 {
				served = append(served, name)
			}
		}
		if r.IntN(4) == 0 && len(served) > 0 {
			served = append(served, served[0])
		}
		var frame Frame
		for _, name := range toolNames {
			if r.IntN(4) == 0 {
				frame.Messages = append(frame.Messages, Message{Role: RoleTool, ToolName: name, ToolCallID: "p" + name})
			}
		}
		if r.IntN(8) == 0 {
			frame.Messages = append(frame.Messages, Message{Role: RoleTool, ToolCallID: "x"})
		}
		if r.IntN(8) == 0 {
			frame.Gaps = append(frame.Gaps, "a gap")
		}
		call := CallView{Iteration: int64(i), Stage: fmt.Sprint("call#", i), Served: served, Frame: frame}
		if r.IntN(30) == 0 {
			call = CallView{Iteration: int64(i), ServedGap: "no tools listed"}
		}
		steps = append(steps, step{call: ComposeView{Call: call, HistoryGap: historyGap}})
	}
	return steps
}

// TestDanglingLedgerMatchesWholeList replays generated runs twice: once
// with the judge handed the whole eviction list on every call, once as the
// engine does it, with a ledger view per call, the doubts each verdict
// named recorded back, and the ledger's Filed, so that findings it holds
// already come back bare. The replay ledgers must agree on every row,
// finding (whole, witnesses and message included) and reason, in order,
// after every call.
func TestDanglingLedgerMatchesWholeList(t *testing.T) {
	decls := []*Declarations{
		{Tools: []ToolDecl{{Name: "screen_fire", ArgumentsFrom: []string{"whats_here", "fleet_report"}}}},
		{Tools: []ToolDecl{
			{Name: "backup_status", ArgumentsFrom: []string{"fleet_report"}},
			{Name: "host_metrics", ArgumentsFrom: []string{"fleet_report", "whats_here"}},
			{Name: "screen_fire", ArgumentsFrom: []string{"host_metrics", "absent", "fleet_report"}},
		}},
	}
	reg := []*Check{DanglingReference}
	for seed := uint64(0); seed < 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		d := decls[seed%uint64(len(decls))]
		steps := randomSteps(r, 10+r.IntN(60))
		whole, folded := NewLedger(reg, d, PostureObserve), NewLedger(reg, d, PostureObserve)
		el := NewEvictionLedger()
		var evs []Eviction
		key := DanglingReference.Key()
		for i, s := range steps {
			if s.evict != nil {
				evs = append(evs, *s.evict)
				el.Record(*s.evict)
				continue
			}
			whole.Note(DanglingReference, judgeDanglingWhole(s.call, evs, d))
			v := s.call
			v.Evictions = el.View(key)
			v.Filed = folded.Filed
			verdict := judgeDangling(v, d)
			folded.Note(DanglingReference, verdict)
			el.Named(key, verdict.Named)
			if diff := cmp.Diff(whole.Rows(), folded.Rows()); diff != "" {
				t.Fatalf("seed %d step %d: rows (-whole +folded):\n%s", seed, i, diff)
			}
			if diff := cmp.Diff(whole.Findings(), folded.Findings()); diff != "" {
				t.Fatalf("seed %d step %d: findings (-whole +folded):\n%s", seed, i, diff)
			}
			if diff := cmp.Diff(whole.Reasons(), folded.Reasons()); diff != "" {
				t.Fatalf("seed %d step %d: reasons (-whole +folded):\n%s", seed, i, diff)
			}
		}
	}
}

// TestDanglingNamesEachDoubtOnce: once a verdict named the doubts, the next
// call of the same check is handed only the new ones, while another reader
// of the same ledger still gets them all.
func TestDanglingNamesEachDoubtOnce(t *testing.T) {
	d := &Declarations{Tools: []ToolDecl{{Name: "screen_fire", ArgumentsFrom: []string{"whats_here"}}}}
	l := NewEvictionLedger()
	call := CallView{Iteration: 2, Served: []string{"screen_fire"}}
	judge := func(reader string) Verdict {
		v := judgeDangling(ComposeView{Call: call, Evictions: l.View(reader)}, d)
		l.Named(reader, v.Named)
		return v
	}
	l.Record(Eviction{Hash: "a", Iteration: 1})
	l.Record(Eviction{Hash: "b", Iteration: 1, Candidates: []Message{{Role: RoleTool, ToolName: "whats_here"}, {Role: RoleTool, ToolName: "other"}}})
	if v := judge("one"); v.Disposition != Unreachable || len(v.Reasons) != 2 {
		t.Fatalf("first call: %v %q, want unreachable with two reasons", v.Disposition, v.Reasons)
	}
	if v := judge("one"); v.Disposition != Unreachable || len(v.Reasons) != 0 {
		t.Fatalf("second call: %v %q, want unreachable naming nothing new", v.Disposition, v.Reasons)
	}
	l.Record(Eviction{Hash: "c", Iteration: 2})
	if v := judge("one"); len(v.Reasons) != 1 {
		t.Fatalf("third call: %q, want the one new doubt", v.Reasons)
	}
	if v := judge("two"); len(v.Reasons) != 3 {
		t.Fatalf("another reader: %q, want every doubt", v.Reasons)
	}
}
