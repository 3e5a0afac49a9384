package replay

import (
	"encoding/json"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// externalGrounds collects the integrity.external_ground_used events of
// one model response (agentfootprint 9.72.0 and later): the live check
// excused each of those arguments because the app said it had verified
// the value, and the replay excuses exactly the same ones. The events come
// after the response they belong to and before the next model call, so
// the collection is handed to that response's choice and emptied at the
// next llm_start.
type externalGrounds map[string]string

type externalGroundPayload struct {
	ToolCallID json.RawMessage `json:"toolCallId"`
	Path       json.RawMessage `json:"path"`
	Source     json.RawMessage `json:"source"`
}

// note reads one external_ground_used event. One whose call or path is not
// a string excuses nothing: an excusal that cannot be placed is not
// applied to some other argument.
func (g *externalGrounds) note(ev *recording.Event) {
	var p externalGroundPayload
	if json.Unmarshal(ev.Payload, &p) != nil {
		return
	}
	var id, path, source string
	if json.Unmarshal(p.ToolCallID, &id) != nil || json.Unmarshal(p.Path, &path) != nil || id == "" || path == "" {
		return
	}
	_ = json.Unmarshal(p.Source, &source)
	if *g == nil {
		*g = externalGrounds{}
	}
	(*g)[checks.ExcuseKey(id, path)] = source
}
