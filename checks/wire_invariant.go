package checks

import (
	"fmt"
)

// WireInvariant is invariant-violation at the wire seam: the tools the
// composed request carried disagree with the tools the provider says
// crossed the wire.
var WireInvariant = &Check{
	Kind:  KindInvariantViolation,
	Seam:  SeamWire,
	Title: "composed tools and the stated wire manifest disagree",
	Doc: `On every completed model call (llm_end), the tool names the composed request carried (llm_start.tools) are compared with the wire manifest the provider stated for the serialized request body (llm_end.wireManifest.toolNames). Both directions are defects: a tool that crossed the wire although the frame never held it, and a composed tool that never crossed. Each direction files one finding naming every offending tool, the crossed direction first; order and repeats never matter, and the same offending set on a later call is the same finding.

Fences: a call whose llm_end states no manifest is unreachable, never a pass; an empty manifest is a stated zero and is compared like any other; a call that never completed (no llm_end) is no encounter.`,
	Ceiling: `It needs a producer that states the manifest: agentfootprint 9.62.0 computes it in process and records it nowhere, so on its recordings every encounter is unreachable. llm_start.tools is taken before a cache strategy edits the request; a strategy that edits tools would show here as drift.`,
	ArmedBy: "always registered; judges only calls whose llm_end states a wireManifest",
	Armed:   func(*Declarations) bool { return true },
	Canary: func() []Finding {
		return wireMismatch([]string{"canary_tool"}, []string{"canary_tool", "canary_ghost"}, -1, "canary: composed frame", "canary: wire")
	},
	OnWire: judgeWire,
}

// wireMismatch is the pure judge: tools present on only one side, one
// finding per direction, crossed-uncomposed before composed-not-crossed.
func wireMismatch(composed, wire []string, epoch int64, composedProvenance, wireProvenance string) []Finding {
	inComposed, inWire := setOf(composed), setOf(wire)
	added := onlyIn(wire, inComposed)
	dropped := onlyIn(composed, inWire)
	var fs []Finding
	if len(added) > 0 {
		fs = append(fs, wireFinding(added, "absent", "present", epoch, composedProvenance, wireProvenance,
			fmt.Sprintf("%d %s crossed the wire that the composed request never carried (%s); find the step after composition that adds %s to the serialized body and remove it, or compose %s on purpose.",
				len(added), plural(len(added), "tool", "tools"), nameList(added), plural(len(added), "it", "them"), plural(len(added), "it", "them"))))
	}
	if len(dropped) > 0 {
		fs = append(fs, wireFinding(dropped, "present", "absent", epoch, composedProvenance, wireProvenance,
			fmt.Sprintf("%d composed %s never crossed the wire (%s), so the model was promised %s it cannot call; find the step after composition that strips %s, or stop composing %s.",
				len(dropped), plural(len(dropped), "tool", "tools"), nameList(dropped), plural(len(dropped), "a tool", "tools"),
				plural(len(dropped), "it", "them"), plural(len(dropped), "it", "them"))))
	}
	return fs
}

// onlyIn returns the distinct names of list not in other, in first
// occurrence order.
func onlyIn(list []string, other map[string]bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range list {
		if !other[n] && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

func wireFinding(names []string, composedValue, wireValue string, epoch int64, composedProvenance, wireProvenance, msg string) Finding {
	var subjects []Subject
	var witnesses []Witness
	for _, n := range names {
		s := toolSubject(n)
		subjects = append(subjects, s)
		witnesses = append(witnesses,
			asserted(s, "on-wire", composedValue, epoch, composedProvenance),
			asserted(s, "on-wire", wireValue, epoch, wireProvenance))
	}
	return finding(KindInvariantViolation, SeamWire, subjects, "", witnesses, epoch, msg)
}

// NoManifestReason is why a call without a stated manifest is unreachable.
// It names no iteration: every such call lacks the same input.
const NoManifestReason = "the provider stated no wireManifest on llm_end, so nothing says which tools crossed the wire"

func judgeWire(v WireView, _ *Declarations) Verdict {
	it := v.Call.Iteration
	switch {
	case v.ManifestGap != "":
		return UnreachableBecause(v.ManifestGap)
	case !v.ManifestStated:
		return UnreachableBecause(NoManifestReason)
	case v.Call.ServedGap != "":
		return UnreachableBecause(v.Call.ServedGap)
	}
	provider := v.Call.Provider
	if provider == "" {
		provider = "provider"
	}
	fs := wireMismatch(v.Call.Served, v.Manifest, it,
		fmt.Sprintf("llm_start.tools of iteration %d: composed request", it),
		fmt.Sprintf("%s: llm_end.wireManifest, serialized body", provider))
	if len(fs) > 0 {
		return Fail(stamp(fs, v.Stage)...)
	}
	return Pass()
}
