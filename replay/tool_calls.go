package replay

import (
	"github.com/fpcheck/fpcheck/recording"
)

// ToolCalls lists the tools a run called (each tool_start's toolName), in
// call order, repeats kept: what a declarations skeleton reads to suggest
// which earlier results could ground a tool's arguments.
func ToolCalls(run *recording.Run) []string {
	var out []string
	for i := range run.Events {
		if name, ok := calledTool(&run.Events[i]); ok {
			out = append(out, name)
		}
	}
	return out
}

// calledTool is the toolName of a tool_start, when it names one.
func calledTool(ev *recording.Event) (string, bool) {
	if ev.Type != recording.TypeToolStart {
		return "", false
	}
	var p toolStartPayload
	if decodeToolStart(ev, &p, false, nil) && p.ToolName != "" {
		return p.ToolName, true
	}
	return "", false
}
