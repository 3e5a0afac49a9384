package checks

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLedgerEncounters places encounters noted with NoteAt at their
// iterations, in iteration then registration order, and returns what no
// iteration was given for (the registration's not-applicable, a plain
// Note) unplaced, so that each check's encounters sum to its row.
func TestLedgerEncounters(t *testing.T) {
	reg := []*Check{WireInvariant, DanglingReference}
	l := NewLedger(reg, &Declarations{}, PostureObserve)
	if l.Encounters() != nil {
		t.Fatal("encounters returned before TrackEncounters")
	}
	l.TrackEncounters()
	a := f(KindInvariantViolation, SeamWire, false, "t")
	l.NoteAt(WireInvariant, 2, Pass())
	l.NoteAt(WireInvariant, 1, Fail(a))
	l.NoteAt(WireInvariant, 2, Pass())
	l.NoteAt(WireInvariant, 2, UnreachableBecause("why"))
	l.Note(WireInvariant, NotApplicableVerdict())
	l.NoteAt(WireInvariant, 3, Verdict{None: true})
	want := []Encounter{
		{Check: KindInvariantViolation, Seam: SeamWire, Placed: true, Iteration: 1, Disposition: CheckedFail, Count: 1},
		{Check: KindInvariantViolation, Seam: SeamWire, Placed: true, Iteration: 2, Disposition: CheckedPass, Count: 2},
		{Check: KindInvariantViolation, Seam: SeamWire, Placed: true, Iteration: 2, Disposition: Unreachable, Count: 1},
		{Check: KindInvariantViolation, Seam: SeamWire, Disposition: NotApplicable, Count: 1},
		// Unarmed: its registration not-applicable belongs to no iteration.
		{Check: KindDanglingReference, Seam: SeamCompose, Disposition: NotApplicable, Count: 1},
	}
	if diff := cmp.Diff(want, l.Encounters()); diff != "" {
		t.Errorf("encounters (-want +got):\n%s", diff)
	}
}
