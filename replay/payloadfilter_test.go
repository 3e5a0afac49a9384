package replay

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// TestPayloadFilterWithoutConfiguration: a run whose first event is not
// its run_configured keeps every payload until its fold arms; armed by its
// first seam event, it keeps only what the replay reads, as a run that
// starts with its run_configured does; armed by a run_configured read
// later, whose declarations the filter does not see, it keeps everything.
func TestPayloadFilterWithoutConfiguration(t *testing.T) {
	const (
		token  = recording.TypeToken
		start  = recording.TypeLLMStart
		config = recording.TypeRunConfigured
		turn   = recording.TypeTurnStart
	)
	tests := []struct {
		name  string
		types []string
		want  []bool
	}{
		{"configured first", []string{config, token, start, token}, []bool{true, false, true, false}},
		{"armed by a model call", []string{turn, token, start, token, config, token}, []bool{true, true, true, false, true, false}},
		{"armed by a later run_configured", []string{turn, token, config, token, start, token}, []bool{true, true, true, true, true, true}},
		{"never armed", []string{turn, token, token}, []bool{true, true, true}},
	}
	filter := PayloadFilter(checks.Registry, nil, "")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := recording.Event{Type: tt.types[0], Payload: []byte(`{}`)}
			if first.Type == config {
				first.Payload = []byte(`{"agentId":"agent","llm":{"provider":"mock","model":"mock"}}`)
			}
			keep := filter(&first)
			if keep == nil {
				t.Fatal("the filter keeps every payload of the run")
			}
			var got []bool
			for _, typ := range tt.types {
				got = append(got, keep(typ))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("payloads kept (-want +got):\n%s", diff)
			}
		})
	}
}
