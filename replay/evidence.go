package replay

import (
	"fmt"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/internal/idset"
)

// Sources of a finding in a reconciled report.
const (
	SourceRecorded = "recorded"
	SourceReplayed = "replayed"
	SourceBoth     = "both"
)

// Evidence is one side of a run's integrity story: the findings and the
// disposition ledger, either as the live run recorded them or as the replay
// produced them.
type Evidence struct {
	// Findings are in filing order. Recorded findings are the
	// context_error events of the run, synthetic ones included, one per
	// identity and flags with the count of its copies; replayed findings
	// are already one per identity.
	Findings []checks.Finding
	// Disposition is nil when no disposition event was recorded (or, for a
	// replay, never: the replay always keeps a ledger).
	Disposition *Disposition
	// IntegrityEvents counts context_error and disposition events seen.
	IntegrityEvents int
	// Unreachable names, per check ("kind@seam"), why encounters could not
	// be judged (replay only), each reason once, in first-seen order.
	Unreachable map[string][]string
	// Excused says what the replay passed over because the recording
	// excuses it (an argument the app verified), one sentence each.
	Excused []string `json:",omitempty"`
	// Validation is the answer validation of the run's final answers, when
	// the declarations ask for one (replay only), in answer order.
	Validation []AnswerValidation
	// Lost names findings the recording proves the live run filed and does
	// not hold, or the replay could not look for (replay only): a result
	// refused under enforce with no column finding about its tool, and
	// declarations the run carries too late for the replay to arm by (see
	// Fold).
	Lost []string `json:",omitempty"`
	// Encounters are the replay's encounters by iteration (replay only,
	// and only when Options.Encounters asked for them); nil otherwise.
	Encounters []checks.Encounter `json:",omitempty"`
}

// Disposition is the ledger: one row per registered check.
type Disposition struct {
	Posture     string
	WorkExisted bool
	// Rows is nil when the disposition carried no rows array; an empty,
	// non-nil slice means no check was registered.
	Rows []checks.Row
	// RowsMalformed is true when rows was present but not an array.
	RowsMalformed bool
	// Damage lists what makes the ledger unusable (a count that is not a
	// count, a repeated key), in payload order; nil for a sound ledger.
	// A damaged ledger's counts prove nothing, so its run is never green.
	Damage []LedgerDamage `json:",omitempty"`
}

// LedgerDamage is one unusable part of a disposition event.
type LedgerDamage struct {
	Line  int64  // the disposition event's line; 0 when not known
	Field string // "payload.rows[2].findings"
	// Problem completes a sentence about the field: `is "6", not a count …`.
	Problem string
}

// String states the damage as one sentence fragment.
func (d LedgerDamage) String() string {
	s := d.Field + " " + d.Problem
	if d.Line > 0 {
		s = fmt.Sprintf("line %d: %s", d.Line, s)
	}
	return s
}

// CheckKey is how rows and reasons are keyed: "kind@seam".
func CheckKey(kind, seam string) string { return kind + "@" + seam }

// Row returns the ledger row for a check, if the disposition has one.
func (d *Disposition) Row(kind, seam string) (checks.Row, bool) {
	if d == nil {
		return checks.Row{}, false
	}
	for _, r := range d.Rows {
		if r.Check == kind && r.Seam == seam {
			return r, true
		}
	}
	return checks.Row{}, false
}

// Match is one finding of the reconciled list.
type Match struct {
	Finding checks.Finding
	// ID is the finding's identity (checks.Finding.Identity).
	ID string
	// Source is recorded, replayed or both.
	Source string
	// Why explains a one-sided finding; empty for both.
	Why string
	// Drift is true when both sides could judge the finding and disagree,
	// as opposed to one side lacking input or the check being unarmed.
	Drift bool
}

// Identities is the identity of each of ev's findings, in order; nil for
// a nil ev. A report keys each finding by it several times: made once, it
// is not built again each time.
func Identities(ev *Evidence) []string {
	if ev == nil {
		return nil
	}
	ids := make([]string, len(ev.Findings))
	for i := range ev.Findings {
		ids[i] = ev.Findings[i].Identity()
	}
	return ids
}

// Reconcile lines the recorded findings up with the replayed ones by
// identity. The list keeps the recorded filing order, then appends the
// findings only the replay filed. Synthetic recorded findings are left out:
// canary material is never a real finding. Recorded findings are compared
// by identity, so a defect the live run filed once per turn matches the
// replay's one finding of that run.
func Reconcile(recorded, replayed *Evidence) []Match {
	return ReconcileByID(recorded, replayed, Identities(recorded), Identities(replayed))
}

// ReconcileByID is Reconcile given the identities of both sides' findings
// (Identities).
func ReconcileByID(recorded, replayed *Evidence, recordedIDs, replayedIDs []string) []Match {
	replayedByID := idset.NewIndex(replayedIDs)
	// Sized once: every finding of either side is at most one match.
	var out []Match
	if n := len(recordedIDs) + len(replayedIDs); n > 0 {
		out = make([]Match, 0, n)
	}
	var matched, seenRecorded idset.Set
	if recorded != nil {
		for i, f := range recorded.Findings {
			if f.Synthetic {
				continue
			}
			id := recordedIDs[i]
			if !seenRecorded.Add(id) {
				continue
			}
			if replayed == nil {
				out = append(out, Match{Finding: f, ID: id, Source: SourceRecorded})
				continue
			}
			if _, ok := replayedByID.Of(id); ok {
				matched.Add(id)
				out = append(out, Match{Finding: f, ID: id, Source: SourceBoth})
				continue
			}
			why, drift := recordedOnlyWhy(f, replayed)
			out = append(out, Match{Finding: f, ID: id, Source: SourceRecorded, Why: why, Drift: drift})
		}
	}
	if replayed != nil {
		for i, f := range replayed.Findings {
			if matched.Has(replayedIDs[i]) || f.Synthetic {
				continue
			}
			why, drift := replayedOnlyWhy(f, recorded)
			out = append(out, Match{Finding: f, ID: replayedIDs[i], Source: SourceReplayed, Why: why, Drift: drift})
		}
	}
	return out
}

// recordedOnlyWhy says why the replay did not re-derive a recorded finding:
// it lacked input (naming what), the check was not armed for the replay, or
// the two disagree (drift).
func recordedOnlyWhy(f checks.Finding, replayed *Evidence) (string, bool) {
	key := CheckKey(f.Kind, f.Seam)
	if reasons := replayed.Unreachable[key]; len(reasons) > 0 {
		return "replay lacked input: " + reasons[0], false
	}
	row, ok := replayed.Disposition.Row(f.Kind, f.Seam)
	switch {
	case !ok:
		return "no check in this build replays " + orUnknown(f.Kind) + " @" + orUnknown(f.Seam), false
	case row.Checked == 0 && row.NotApplicable > 0:
		return "the check was not armed for the replay: declare what arms it (see fpcheck checks)", false
	case row.Checked == 0 && row.Unreachable > 0:
		return "replay lacked input for every encounter", false
	}
	return "drift: the replayed check judged the same run differently", true
}

// replayedOnlyWhy says why the live run did not record a finding the replay
// filed: its check was unarmed live, did not exist in the live build, the
// recording carries no integrity evidence, or the two disagree (drift).
func replayedOnlyWhy(f checks.Finding, recorded *Evidence) (string, bool) {
	if recorded == nil || recorded.Disposition == nil {
		if recorded == nil || len(recorded.Findings) == 0 {
			return "the recording carries no ledger to compare against", false
		}
		return "the recording carries no disposition ledger; the live run may not have run this check", false
	}
	row, ok := recorded.Disposition.Row(f.Kind, f.Seam)
	switch {
	case !ok:
		return "newer check: the live build did not register " + orUnknown(f.Kind) + " @" + orUnknown(f.Seam), false
	case row.Checked == 0 && row.NotApplicable > 0:
		return "the check was unarmed in the live run", false
	case row.Checked == 0 && row.Unreachable > 0:
		return "the live check could not see its input (unreachable)", false
	case row.Findings > 0:
		return "the live check fired but its finding is not in the recording (evidence missing or another identity)", false
	}
	return "drift: the live check ran and filed nothing here", true
}

// orUnknown stands in for a kind or seam the recording did not state.
func orUnknown(s string) string {
	if s == "" {
		return "?"
	}
	return s
}
