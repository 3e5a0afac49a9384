package checks

import (
	"fmt"
)

// ComposeInvariant is invariant-violation at the compose seam: a map was
// parked while tools it owns were still offered to the model.
var ComposeInvariant = &Check{
	Kind:  KindInvariantViolation,
	Seam:  SeamCompose,
	Title: "a parked map's tools still offered to the model",
	Doc: `On every model call, each declared map that is parked for that call has the tools it owns compared with the tool names the call offered (llm_start.tools). A parked map means its subsystem is inactive; an owned tool that is still offered says the opposite in the same request. One finding per map per call names every owned tool still offered; the same set offered again later in the run is the same finding.

A map counts as parked from the iteration of its map.parked event until a map.engaged event re-engages it. Because the park holds tools off the wire by name, a declared map that is engaged but shares a tool name with a parked map is compared too.

Fences: a call with no map parked is not-applicable; a healthy park (no owned tool offered) passes; a parked map whose owned tools no declaration names makes the call unreachable rather than guessed at.`,
	Ceiling: `It sees only tool names: a tool offered under another name, or a parked subsystem's instructions still riding the system prompt, are invisible to it. Ownership comes only from declarations; agentfootprint 9.62.0 records no map's tools in any event.`,
	ArmedBy: "maps declared: the tools each map of a .maps() plan owns",
	Armed:   func(d *Declarations) bool { return d != nil && len(d.Maps) > 0 },
	Canary: func() []Finding {
		return parkedButServed("canary-map", []string{"canary_tool"}, []string{"canary_tool"}, -1, "canary: park", "canary: serving")
	},
	OnCompose: judgeComposeInvariant,
}

// parkedButServed is the pure judge: a map written parked whose parked-owned
// tools still appear among the served names files one finding naming every
// one of them, in owned order.
func parkedButServed(mapID string, parkedOwned, served []string, epoch int64, parkProvenance, servedProvenance string) []Finding {
	offered := setOf(served)
	var still []string
	for _, t := range parkedOwned {
		if offered[t] {
			still = append(still, t)
		}
	}
	if len(still) == 0 {
		return nil
	}
	mapSubject := Subject{Kind: "map", ID: mapID}
	subjects := []Subject{mapSubject}
	witnesses := []Witness{asserted(mapSubject, "availability", "suspended", epoch, parkProvenance)}
	for _, t := range still {
		subjects = append(subjects, toolSubject(t))
		witnesses = append(witnesses, asserted(mapSubject, "availability", "available", epoch,
			fmt.Sprintf("%s: tool '%s' offered, owned by '%s'", servedProvenance, t, mapID)))
	}
	msg := fmt.Sprintf("Map '%s' is parked, yet %d %s it owns %s still offered to the model (%s); take %s off the served list while the map is parked, or re-engage the map before serving %s.",
		mapID, len(still), plural(len(still), "tool", "tools"), plural(len(still), "is", "are"), nameList(still),
		plural(len(still), "it", "them"), plural(len(still), "it", "them"))
	return []Finding{finding(KindInvariantViolation, SeamCompose, subjects, "", witnesses, epoch, msg)}
}

func judgeComposeInvariant(v ComposeView, d *Declarations) Verdict {
	it := v.Call.Iteration
	if len(v.Parked) == 0 {
		if v.HistoryGap != "" {
			return UnreachableBecause(v.HistoryGap)
		}
		return NotApplicableVerdict()
	}
	if v.Call.ServedGap != "" {
		return UnreachableBecause(v.Call.ServedGap)
	}
	holdOut := map[string]bool{}
	var reasons []string
	for _, id := range v.Parked {
		m := d.Map(id)
		if m == nil {
			reasons = append(reasons, fmt.Sprintf("map '%s' is parked but no declared map says which tools it owns; declare them under maps", id))
			continue
		}
		for _, t := range m.Tools {
			holdOut[t] = true
		}
	}
	if v.HistoryGap != "" {
		reasons = append(reasons, v.HistoryGap)
	}
	compared := false
	var fs []Finding
	for _, m := range d.Maps {
		var parkedOwned []string
		for _, t := range m.Tools {
			if holdOut[t] {
				parkedOwned = append(parkedOwned, t)
			}
		}
		if len(parkedOwned) == 0 {
			continue
		}
		compared = true
		fs = append(fs, parkedButServed(m.ID, parkedOwned, v.Call.Served, it,
			fmt.Sprintf("map.parked: '%s' parked for iteration %d", m.ID, it),
			fmt.Sprintf("llm_start.tools of iteration %d", it))...)
	}
	switch {
	case len(fs) > 0:
		return Verdict{Disposition: CheckedFail, Findings: stamp(fs, v.ToolsStage), Reasons: reasons}
	case len(reasons) > 0:
		return UnreachableBecause(reasons...)
	case !compared:
		return NotApplicableVerdict()
	}
	return Pass()
}
