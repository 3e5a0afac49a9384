package recording

import "strings"

// Further event types known by name (the ones without a Type constant in
// event.go are listed only here).
const (
	TypeEvidenceChecked    = "agentfootprint.agent.evidence_checked"
	TypeRepeatedCall       = "agentfootprint.tools.repeated_call"
	TypeToolsShadowed      = "agentfootprint.tools.shadowed"
	TypeDiscoveryStarted   = "agentfootprint.tools.discovery_started"
	TypeDiscoveryCompleted = "agentfootprint.tools.discovery_completed"
	TypeDiscoveryFailed    = "agentfootprint.tools.discovery_failed"
	TypeResultRefused      = "agentfootprint.tools.result_refused"
	TypeArgsInvalid        = "agentfootprint.validation.args_invalid"
	TypeBudgetPressure     = "agentfootprint.context.budget_pressure"
	TypeCostTick           = "agentfootprint.cost.tick"
	TypeArtifactsMinted    = "agentfootprint.artifacts.minted"
	// Filed by releases after 9.62.0: an argument excused by a value the
	// app verified (9.72.0), and the assessment of a final answer.
	TypeExternalGroundUsed = "agentfootprint.integrity.external_ground_used"
	TypeAnswerAssessed     = "agentfootprint.answer.assessed"
)

// knownTypes are the agentfootprint 9.62.0 event types this build knows by
// name: every type in the reference corpus plus those the format reference
// describes. agentfootprint adds types within a major version, so an
// unknown type is counted (Stats.UnknownTypes) and kept, never an error.
var knownTypes = map[string]bool{
	TypeRunConfigured:   true,
	TypeTurnStart:       true,
	TypeTurnEnd:         true,
	TypeIterationStart:  true,
	TypeIterationEnd:    true,
	TypeRouteDecided:    true,
	TypeEvidenceChecked: true,

	TypeLLMStart:  true,
	TypeLLMEnd:    true,
	TypeToken:     true,
	TypeToolStart: true,
	TypeToolEnd:   true,

	TypeContextInjected: true,
	TypeSlotComposed:    true,
	TypeContextEvicted:  true,
	TypeContextEval:     true,
	TypeBudgetPressure:  true,

	TypeSemantics:          true,
	TypeRepeatedCall:       true,
	TypeToolsShadowed:      true,
	TypeDiscoveryStarted:   true,
	TypeDiscoveryCompleted: true,
	TypeDiscoveryFailed:    true,
	TypeResultRefused:      true,
	// Declared by agentfootprint but never emitted by the library itself;
	// consumer code may emit them.
	"agentfootprint.tools.offered":     true,
	"agentfootprint.tools.activated":   true,
	"agentfootprint.tools.deactivated": true,

	TypeArgsInvalid: true,

	TypeMapParked:                      true,
	TypeMapEngaged:                     true,
	TypeGraphDeclared:                  true,
	TypeSkillActivated:                 true,
	"agentfootprint.skill.deactivated": true,
	"agentfootprint.skill.rejected":    true,
	"agentfootprint.skill.turn_routed": true,

	TypeContextError: true,
	TypeDisposition:  true,

	TypeExternalGroundUsed: true,
	TypeAnswerAssessed:     true,

	TypeCostTick:        true,
	TypeArtifactsMinted: true,
}

// KnownType reports whether t is an agentfootprint event type this build
// knows by name.
func KnownType(t string) bool {
	return strings.HasPrefix(t, "agentfootprint.") && knownTypes[t]
}
