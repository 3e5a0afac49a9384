package replay

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/fpcheck/fpcheck/recording"
)

func TestToolsSeen(t *testing.T) {
	ev := func(typ, payload string) recording.Event {
		return recording.Event{Type: typ, Payload: json.RawMessage(payload)}
	}
	run := &recording.Run{Events: []recording.Event{
		ev(recording.TypeLLMStart, `{"iteration":1,"tools":[{"name":"fleet_report"},{"name":"backup_status"}]}`),
		ev(recording.TypeToolStart, `{"toolName":"fleet_report","toolCallId":"c1"}`),
		ev(recording.TypeToolStart, `{"toolName":"called_only"}`),
		ev(recording.TypeToolStart, `{"toolName":7}`),
		ev(recording.TypeLLMStart, `{"tools":"not a list"}`),
		ev(recording.TypeLLMStart, ``),
		ev(recording.TypeToolEnd, `{"toolName":"not_read_here"}`),
	}}
	want := []string{"backup_status", "called_only", "fleet_report"}
	if got := ToolsSeen(run); !slices.Equal(got, want) {
		t.Errorf("ToolsSeen = %v, want %v", got, want)
	}
}
