package replay

import (
	"slices"

	"github.com/fpcheck/fpcheck/recording"
)

// ToolsSeen lists, sorted and once each, the tools a run offered (the names
// of each llm_start's tools) or called (each tool_start's toolName): what
// the recording itself says the run's tools were, to hold declarations
// against. An event whose payload was not kept or does not read adds
// nothing.
func ToolsSeen(run *recording.Run) []string {
	seen := map[string]bool{}
	for i := range run.Events {
		ev := &run.Events[i]
		if ev.Type == recording.TypeLLMStart {
			var p llmStartPayload
			if decodeLoose(ev.Payload, &p) {
				names, _ := toolNames(p.Tools)
				for _, n := range names {
					seen[n] = true
				}
			}
		}
	}
	for _, n := range ToolCalls(run) {
		seen[n] = true
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
