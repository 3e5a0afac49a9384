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
// first event. A run that starts with anything else keeps every payload
// until its fold arms (see Fold): on a run_configured, whose declarations
// are read only then, it keeps every payload to its end; on its first seam
// event, the replay is armed by the declarations given, and a later
// run_configured can no longer arm anything, so from that event on the run
// keeps what a replay under them reads.
func PayloadFilter(reg []*checks.Check, decl *checks.Declarations, posture string) func(first *recording.Event) func(typ string) bool {
	return func(first *recording.Event) func(string) bool {
		if first.Type != recording.TypeRunConfigured {
			reads := readsUnder(reg, &recording.Run{}, decl, posture)
			if reads == nil {
				return nil
			}
			return unconfigured(reads)
		}
		return readsUnder(reg, &recording.Run{Events: []recording.Event{*first}}, decl, posture)
	}
}

// DocumentPayloadFilter is PayloadFilter for the runs of a recording
// document, whose report must be the one every payload kept gives. Two
// readers of a document's payloads are beyond what PayloadFilter keeps: a
// snapshot's parkedToolNames, which may come after the events, arms the
// compose invariant with the run's one map (withSnapshotMap), and the
// locator names results and evictions by payloads no armed check may read
// (a stream's report may name fewer; a document's names them all). So a
// document's run keeps, beside what PayloadFilter keeps, what its replay
// reads with a map armed, and every payload the locator reads.
func DocumentPayloadFilter(reg []*checks.Check, decl *checks.Declarations, posture string) func(first *recording.Event) func(typ string) bool {
	stream := PayloadFilter(reg, decl, posture)
	return func(first *recording.Event) func(string) bool {
		keep := stream(first)
		if keep == nil {
			return nil
		}
		parked := readsWithMap(reg, first, decl, posture)
		if parked == nil {
			return nil
		}
		return func(typ string) bool {
			// keep is asked of every event: it follows the run's arming.
			k := keep(typ)
			return k || parked(typ) || locatedPayload(typ)
		}
	}
}

// readsWithMap is which payloads a replay of the run that first starts
// reads once a snapshot has armed a map, when its declarations name none;
// nil, keeping them all, when they cannot be settled.
func readsWithMap(reg []*checks.Check, first *recording.Event, decl *checks.Declarations, posture string) func(string) bool {
	run := &recording.Run{}
	if first.Type == recording.TypeRunConfigured {
		run.Events = []recording.Event{*first}
	}
	effective, p, ok := settle(run, decl, posture)
	if !ok || effective == nil {
		return nil
	}
	if len(effective.Maps) == 0 {
		withMap := *effective
		withMap.Maps = []checks.MapDecl{{ID: "snapshot", Tools: []string{"snapshot"}}}
		effective = &withMap
	}
	// Not needsFor: its one-entry cache serves the stream filter and the
	// book's order, and this declaration is new at every run.
	return needsOf(reg, checks.NewLedger(reg, effective, p), effective).readsPayload
}

// readsUnder is which payloads a replay of run's declarations (its
// run_configured, if it has one, over decl) reads; nil, keeping them all,
// when they cannot be settled: the replay reports that.
func readsUnder(reg []*checks.Check, run *recording.Run, decl *checks.Declarations, posture string) func(string) bool {
	effective, p, ok := settle(run, decl, posture)
	if !ok {
		return nil
	}
	return needsFor(reg, effective, p).readsPayload
}

// settle is the declarations and posture a replay of run settles on, as
// far as its events so far tell, before reading anything else: the
// loader's questions about a run's first event are answered from them.
// ok is false when they cannot be settled, which the replay reports.
func settle(run *recording.Run, decl *checks.Declarations, posture string) (effective *checks.Declarations, p string, ok bool) {
	effective, err := EffectiveDeclarations(run, decl)
	if err != nil {
		return nil, "", false
	}
	if p, err = postureOf(posture, effective); err != nil {
		return nil, "", false
	}
	return effective, p, true
}

// unconfigured is the filter of a run whose first event is not its
// run_configured: every payload until the fold arms, then what reads
// keeps, unless a run_configured armed it.
func unconfigured(reads func(string) bool) func(string) bool {
	armed, configured := false, false
	return func(typ string) bool {
		if !armed {
			switch {
			case typ == recording.TypeRunConfigured:
				armed, configured = true, true
			case seamEvent(typ):
				armed = true
			}
		}
		if configured || !armed {
			return true
		}
		return reads(typ)
	}
}
