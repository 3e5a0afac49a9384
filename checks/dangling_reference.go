package checks

import (
	"fmt"
	"slices"
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
			fs = append(fs, danglingFinding(t.name, missing, epoch))
		}
	}
	return fs
}

func danglingFinding(tool string, missing []string, epoch int64) Finding {
	subject := toolSubject(tool)
	subjects := []Subject{subject}
	var witnesses []Witness
	for _, g := range missing {
		subjects = append(subjects, toolSubject(g))
		witnesses = append(witnesses, asserted(subject, "argument-ground",
			fmt.Sprintf("results of '%s' evicted and not fetched again", g), epoch,
			fmt.Sprintf("window: a '%s' result was evicted (context.evicted), and no '%s' result is in the iteration %d frame", g, g, epoch)))
	}
	msg := fmt.Sprintf("'%s' is offered while the results its arguments come from (%s) have left the window and were not fetched again; call %s again before the model relies on '%s', or keep %s results in the window.",
		tool, nameList(missing), strings.Join(missing, " and "), tool, plural(len(missing), "its", "their"))
	return finding(KindDanglingReference, SeamCompose, subjects, "", witnesses, epoch, msg)
}

// evictionSummary sorts the run's evictions into what they certainly
// dropped and what they might have.
type evictionSummary struct {
	dropped map[string]bool
	// anyToolDropped is true when some eviction certainly removed a tool
	// result, even if which tool's is uncertain.
	anyToolDropped bool
	// maybe maps a tool name to the reasons it might have been dropped.
	maybe map[string][]string
	// anyMaybe are reasons some unknown tool's result might have been
	// dropped.
	anyMaybe []string
}

func summarizeEvictions(evs []Eviction) evictionSummary {
	s := evictionSummary{dropped: map[string]bool{}, maybe: map[string][]string{}}
	for i := range evs {
		e := &evs[i]
		if !e.Resolved() {
			s.anyMaybe = append(s.anyMaybe, fmt.Sprintf("context.evicted %s at iteration %d matches no message recorded before it in this run, so which message left the window is unknown", e.Hash, e.Iteration))
			continue
		}
		if len(e.Candidates) == 1 {
			// The exact join, nearly every eviction: one message, known.
			c := &e.Candidates[0]
			if c.Role != RoleTool {
				continue
			}
			if c.ToolName != "" {
				s.anyToolDropped = true
				if !s.dropped[c.ToolName] {
					s.dropped[c.ToolName] = true
				}
				continue
			}
		}
		allTool, anyTool, unknownName := true, false, false
		var names []string // distinct, in the order met
		for j := range e.Candidates {
			c := &e.Candidates[j]
			if c.Role != RoleTool {
				allTool = false
				continue
			}
			anyTool = true
			if c.ToolName == "" {
				unknownName = true
			} else if !slices.Contains(names, c.ToolName) {
				names = append(names, c.ToolName)
			}
		}
		if !anyTool {
			continue
		}
		if allTool {
			s.anyToolDropped = true
		}
		if allTool && !unknownName && len(names) == 1 {
			s.dropped[names[0]] = true
			continue
		}
		why := fmt.Sprintf("context.evicted %s at iteration %d matches %d recorded messages (%s), so which one left the window is ambiguous", e.Hash, e.Iteration, len(e.Candidates), describeCandidates(e.Candidates))
		if unknownName {
			s.anyMaybe = append(s.anyMaybe, why)
		}
		for _, n := range names {
			s.maybe[n] = append(s.maybe[n], why)
		}
	}
	return s
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

func judgeDangling(v ComposeView, d *Declarations) Verdict {
	it := v.Call.Iteration
	if v.Call.ServedGap != "" {
		return UnreachableBecause(v.Call.ServedGap)
	}
	var served []groundedTool
	seen := map[string]bool{}
	for _, name := range v.Call.Served {
		if seen[name] {
			continue
		}
		seen[name] = true
		if g := d.GroundsOf(name); len(g) > 0 {
			served = append(served, groundedTool{name: name, grounds: g})
		}
	}
	if len(served) == 0 {
		return NotApplicableVerdict()
	}
	ev := summarizeEvictions(v.Evictions)
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
		var missing []string
		var why []string
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
			fs = append(fs, danglingFinding(t.name, missing, it))
		}
	}
	switch {
	case len(fs) > 0:
		return Verdict{Disposition: CheckedFail, Findings: stamp(fs, v.Call.Stage), Reasons: dedupe(reasons)}
	case len(reasons) > 0:
		return UnreachableBecause(dedupe(reasons)...)
	case len(ev.dropped) == 0 && !ev.anyToolDropped:
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
