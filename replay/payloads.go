package replay

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
)

// decodeLoose fills the payload struct out of an event payload. A producer
// that wrote one field with the wrong JSON type must not cost the replay the
// other fields, so on a type error each field is decoded on its own and the
// bad ones are left zero (the loader reports wrong types on the input).
// It reports false only when the payload is not a JSON object at all.
func decodeLoose(raw json.RawMessage, dst any) bool {
	if err := json.Unmarshal(raw, dst); err == nil {
		return true
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return false
	}
	v := reflect.ValueOf(dst).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if fr, ok := fields[name]; ok && name != "" {
			fv := reflect.New(t.Field(i).Type)
			if json.Unmarshal(fr, fv.Interface()) == nil {
				v.Field(i).Set(fv.Elem())
			}
		}
	}
	return true
}

// intOf turns a JSON number into an iteration or count; nil stays nil and a
// fraction is not a count.
func intOf(f *float64) (int64, bool) {
	if f == nil || *f != math.Trunc(*f) || math.IsInf(*f, 0) {
		return 0, false
	}
	return int64(*f), true
}

type turnStartPayload struct {
	UserPrompt *string `json:"userPrompt"`
}

type turnEndPayload struct {
	FinalContent *string `json:"finalContent"`
}

type injectedPayload struct {
	ContentHash string   `json:"contentHash"`
	Slot        string   `json:"slot"`
	Source      string   `json:"source"`
	SourceID    string   `json:"sourceId"`
	RawContent  *string  `json:"rawContent"`
	AsRole      string   `json:"asRole"`
	Position    *float64 `json:"position"`
}

type slotComposedPayload struct {
	Slot      string   `json:"slot"`
	Iteration *float64 `json:"iteration"`
}

type evictedPayload struct {
	Slot        string `json:"slot"`
	ContentHash string `json:"contentHash"`
}

type mapPayload struct {
	MapID     string   `json:"mapId"`
	Iteration *float64 `json:"iteration"`
	Reengaged *bool    `json:"reengaged"`
}

type llmStartPayload struct {
	Iteration         *float64        `json:"iteration"`
	Provider          string          `json:"provider"`
	SystemPromptChars *float64        `json:"systemPromptChars"`
	SystemPromptText  *string         `json:"systemPromptText"`
	MessagesCount     *float64        `json:"messagesCount"`
	ToolsCount        *float64        `json:"toolsCount"`
	Tools             json.RawMessage `json:"tools"`
}

type llmEndPayload struct {
	Iteration    *float64        `json:"iteration"`
	Content      *string         `json:"content"`
	WireManifest json.RawMessage `json:"wireManifest"`
	// ContentWithheld (releases after 9.62.0) says content is not what
	// the model wrote: the words were kept out of the record.
	ContentWithheld *bool `json:"contentWithheld"`
}

type toolStartPayload struct {
	ToolName   string          `json:"toolName"`
	ToolCallID string          `json:"toolCallId"`
	Args       json.RawMessage `json:"args"`
}

type toolEndPayload struct {
	ToolCallID string          `json:"toolCallId"`
	Result     json.RawMessage `json:"result"`
	Error      *bool           `json:"error"`
	// Status (success, failure, denied, invalid, partial, pending,
	// absent) and NotExecuted are written by releases after 9.62.0.
	Status      string `json:"status"`
	NotExecuted *bool  `json:"notExecuted"`
}

// notAnswer reports a tool_end whose result is not what the tool
// answered: the call failed, or never ran (denied by a permission rule,
// still pending, or absent), so its result is an error or a refusal and
// no write-seam check judges it as rows. An invalid result (rows a column
// check refused under enforce) and a partial one are still the tool's.
func (p *toolEndPayload) notAnswer() bool {
	switch p.Status {
	case "failure", "denied", "pending", "absent":
		return true
	}
	return p.Error != nil && *p.Error || p.NotExecuted != nil && *p.NotExecuted
}

type iterationEndPayload struct {
	IterIndex *float64        `json:"iterIndex"`
	History   json.RawMessage `json:"history"`
}

type historyMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	ToolCalls  []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"toolCalls"`
}

type routePayload struct {
	IterIndex *float64 `json:"iterIndex"`
	Chosen    string   `json:"chosen"`
}

type semanticsPayload struct {
	ToolName   string          `json:"toolName"`
	ToolCallID string          `json:"toolCallId"`
	Iteration  *float64        `json:"iteration"`
	Semantics  json.RawMessage `json:"semantics"`
}

// toolNames reads llm_start.tools: the names in request order. ok is false
// when the field is absent or not an array.
func toolNames(raw json.RawMessage) (names []string, ok bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, false
	}
	var tools []json.RawMessage
	if json.Unmarshal(raw, &tools) != nil {
		return nil, false
	}
	names = []string{}
	for _, t := range tools {
		var tool struct {
			Name *string `json:"name"`
		}
		if json.Unmarshal(t, &tool) != nil || tool.Name == nil {
			return nil, false
		}
		names = append(names, *tool.Name)
	}
	return names, true
}

// manifestNames reads llm_end.wireManifest. stated is false when the field
// is absent; a manifest that is present but unreadable returns a reason.
// Non-string names are dropped, as the adapters drop them.
func manifestNames(raw json.RawMessage) (names []string, stated bool, problem string) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, false, ""
	}
	var m struct {
		ToolNames json.RawMessage `json:"toolNames"`
	}
	if json.Unmarshal(raw, &m) != nil || len(m.ToolNames) == 0 {
		return nil, true, "is not an object with a toolNames list"
	}
	var items []json.RawMessage
	// A null decodes as an empty list, which would read as a stated zero.
	if string(m.ToolNames) == "null" || json.Unmarshal(m.ToolNames, &items) != nil {
		return nil, true, "has a toolNames that is not a list"
	}
	names = []string{}
	for _, it := range items {
		var s string
		if it[0] != '"' || json.Unmarshal(it, &s) != nil {
			return nil, true, notAName
		}
		names = append(names, s)
	}
	return names, true, ""
}

// notAName is the problem of a manifest list holding something other than
// a tool name (a null, a number): what crossed the wire there is unknown,
// so the list is unreadable rather than read without it.
const notAName = "has a toolNames entry that is not a tool name"
