package replay

import (
	"sync/atomic"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// needs says which of the engine's derived inputs some armed check (or the
// answer validation) reads. Reading a recording costs its bytes, and most
// of the bytes are message text (context.injected, iteration_end.history,
// tool results) that only a few checks look at: a replay with nothing
// declared judges the wire alone, which reads llm_start.tools and
// llm_end.wireManifest and nothing else. What nobody reads is not decoded.
// Every seam hook of an armed check is still called at every encounter, so
// the ledger counts what it always counted; only the parts of a view its
// check never reads are left empty.
type needs struct {
	// frame is the request of each model call (system prompt and
	// messages), rebuilt from context.injected, iteration_end.history and
	// turn_start; it also needs evictions joined to the history, since an
	// evicted message leaves the frame.
	frame bool
	// evictions are the context.evicted events joined to the messages
	// they removed (by content hash).
	evictions bool
	// served are the tool results the run served, for the key arguments
	// of a tool that declares argumentsFrom.
	served bool
	// callNames are the tool names of tool call ids.
	callNames bool
	// write is true when a write-seam check is armed: tool_end is read.
	write bool
	// claimRows is the ledger of settled facts (tools.semantics_declared).
	claimRows bool
	// claims is true when final answers are judged (a claim-seam check
	// or the answer validation): route_decided and turn_end are followed
	// and llm_end.content is kept.
	claims bool
	// parks are the parked maps and the stage of the tools slot, for the
	// compose invariant.
	parks bool
}

// allNeeds is what an engine that cannot tell what its checks read builds.
var allNeeds = needs{frame: true, evictions: true, served: true, callNames: true, write: true, claimRows: true, claims: true, parks: true}

// checkNeeds is what each check of the registry reads of its views. A
// check not listed here (another registry's) is assumed to read
// everything.
var checkNeeds = map[*checks.Check]needs{
	// Served and the manifest only.
	checks.WireInvariant: {},
	// Served, parked maps, the tools-slot stage.
	checks.ComposeInvariant: {parks: true},
	// Served against evictions and the frame's messages.
	checks.DanglingReference: {frame: true, evictions: true},
	// The calls against the frame they were chosen from.
	checks.UnsupportedArgument: {frame: true},
	// The answer against the settled facts.
	checks.UnsupportedClaim: {claimRows: true, claims: true},
	// The answer against the frame's grounding.
	checks.PriorTurnEvidence: {frame: true, claims: true},
	// The result, the call and where its key arguments were served.
	checks.EmptyLookup: {write: true, served: true},
	// The result and the call.
	checks.ColumnTypeMismatch: {write: true},
	checks.MissingColumn:      {write: true},
}

// reads is what check c reads of its views.
func (e *engine) reads(c *checks.Check) needs {
	if n, ok := checkNeeds[c]; ok && !e.slow {
		return n
	}
	return allNeeds
}

// needsOf is what the armed checks of reg and the answer validation read.
func needsOf(reg []*checks.Check, l *checks.Ledger, d *checks.Declarations) needs {
	var n needs
	for _, c := range reg {
		if !l.Armed(c) {
			continue
		}
		cn, known := checkNeeds[c]
		if !known {
			return allNeeds
		}
		n = n.or(cn)
	}
	if d != nil && len(d.Claims) > 0 {
		n.claimRows, n.claims = true, true
	}
	if d.NamesAndNumbersDeclared() {
		n.frame, n.claims = true, true
	}
	// Tool names are read wherever messages or calls are named.
	n.callNames = n.callNames || n.frame || n.evictions || n.served || n.write
	return n
}

// messages reports whether the replay reads the texts of the messages a
// model call carries: for the frame, the eviction join or the served
// results.
func (n needs) messages() bool { return n.frame || n.evictions || n.served }

func (n needs) or(m needs) needs {
	return needs{
		frame:     n.frame || m.frame,
		evictions: n.evictions || m.evictions,
		served:    n.served || m.served,
		callNames: n.callNames || m.callNames,
		write:     n.write || m.write,
		claimRows: n.claimRows || m.claimRows,
		claims:    n.claims || m.claims,
		parks:     n.parks || m.parks,
	}
}

// readsPayload reports whether a replay with these needs (or the
// recorded-evidence reader, or the declarations reader) ever looks at the
// payload of an event of type typ. It follows engine.handle case by case;
// TestFilteredReadingMatchesFullReading holds the two together.
func (n needs) readsPayload(typ string) bool {
	switch typ {
	case recording.TypeRunConfigured, recording.TypeContextError, recording.TypeDisposition, recording.TypeExternalGroundUsed,
		recording.TypeTurnStart, recording.TypeLLMStart, recording.TypeLLMEnd, recording.TypeToolStart,
		// withSnapshotMap reads the map ids of a document's runs; map
		// events are small.
		recording.TypeMapParked, recording.TypeMapEngaged:
		return true
	case recording.TypeContextInjected:
		return n.messages() || n.parks
	case recording.TypeSlotComposed:
		return n.parks
	case recording.TypeContextEvicted:
		return n.evictions || n.frame
	case recording.TypeToolEnd:
		return n.write || n.served
	case recording.TypeIterationEnd:
		return n.callNames || n.messages()
	case recording.TypeRouteDecided, recording.TypeTurnEnd:
		return n.claims
	case recording.TypeSemantics:
		return n.claimRows
	}
	return false
}

// settledNeeds is needsOf for one registry, declarations and posture.
type settledNeeds struct {
	reg     []*checks.Check
	decl    *checks.Declarations
	posture string
	n       needs
}

// lastNeeds keeps the last needs settled without an engine: the loader
// asks them of every run's first event, twice (its payload filter, the
// book's order), and a run without declarations of its own settles on the
// file's, shared (see merge). It keeps decl alive, so no other
// declarations can take its address.
var lastNeeds atomic.Pointer[settledNeeds]

// needsFor is needsOf under a fresh ledger of reg, decl and posture.
func needsFor(reg []*checks.Check, decl *checks.Declarations, posture string) needs {
	if m := lastNeeds.Load(); m != nil && m.decl == decl && m.posture == posture && sameRegistry(m.reg, reg) {
		return m.n
	}
	n := needsOf(reg, checks.NewLedger(reg, decl, posture), decl)
	lastNeeds.Store(&settledNeeds{reg: reg, decl: decl, posture: posture, n: n})
	return n
}

// sameRegistry reports whether a and b are the same slice of checks.
func sameRegistry(a, b []*checks.Check) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
