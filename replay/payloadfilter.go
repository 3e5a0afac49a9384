package replay

import (
	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// PayloadFilter is the loader's payload policy (recording.Options'
// PayloadFilter) for replays over reg under decl, in posture ("" for the
// declarations' own): each run keeps the payloads its replay, the recorded
// evidence and the declarations reader will read, and drops the rest.
// With nothing declared that is a few small payloads per model call, so
// the message text that makes up most of a stream is validated and
// accounted for but not kept.
//
// What a run's replay reads depends on the declarations its own
// agent.run_configured carries, which agentfootprint writes as a run's
// first event: a run that starts with anything else keeps every payload.
func PayloadFilter(reg []*checks.Check, decl *checks.Declarations, posture string) func(first *recording.Event) func(typ string) bool {
	return func(first *recording.Event) func(string) bool {
		if first.Type != recording.TypeRunConfigured {
			return nil
		}
		run := &recording.Run{Events: []recording.Event{*first}}
		effective, err := EffectiveDeclarations(run, decl)
		if err != nil {
			return nil // the replay reports it; keep everything meanwhile
		}
		p, err := postureOf(posture, effective)
		if err != nil {
			return nil
		}
		return needsOf(reg, checks.NewLedger(reg, effective, p), effective).readsPayload
	}
}
