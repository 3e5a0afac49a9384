package checks

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// summarizeEvictionsBySets is summarizeEvictions as first written, with a
// set of names per eviction: the reference for the one that skips the set
// on exact joins.
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

func TestSummarizeEvictionsMatchesSets(t *testing.T) {
	pool := []Message{
		{Role: RoleTool, ToolName: "fleet_report", ToolCallID: "c1"},
		{Role: RoleTool, ToolName: "fleet_report", ToolCallID: "c2"},
		{Role: RoleTool, ToolName: "host_metrics", ToolCallID: "c3"},
		{Role: RoleTool, ToolCallID: "c4"},
		{Role: RoleUser},
		{Role: RoleAssistant},
	}
	// Every eviction of up to three candidates drawn from the pool, and
	// the unresolved one, each alone and all together.
	var all []Eviction
	var pick func(from int, cands []Message)
	pick = func(from int, cands []Message) {
		all = append(all, Eviction{Hash: fmt.Sprint("h", len(all)), Iteration: int64(len(all)), Candidates: append([]Message(nil), cands...)})
		if len(cands) == 3 {
			return
		}
		for i := from; i < len(pool); i++ {
			pick(i, append(cands, pool[i]))
		}
	}
	pick(0, nil)
	cmpSummary := cmp.AllowUnexported(evictionSummary{})
	for i := range all {
		evs := all[i : i+1]
		if d := cmp.Diff(summarizeEvictionsBySets(evs), summarizeEvictions(evs), cmpSummary); d != "" {
			t.Fatalf("eviction %+v (-sets +got):\n%s", evs[0], d)
		}
	}
	if d := cmp.Diff(summarizeEvictionsBySets(all), summarizeEvictions(all), cmpSummary); d != "" {
		t.Fatalf("all evictions (-sets +got):\n%s", d)
	}
}
