package checks

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func f(kind, seam string, advisory bool, subjects ...string) Finding {
	var ss []Subject
	for _, s := range subjects {
		ss = append(ss, toolSubject(s))
	}
	return Finding{Kind: kind, Seam: seam, Subjects: ss, Advisory: advisory}
}

func TestLedgerRegistrationLaw(t *testing.T) {
	l := NewLedger(Registry, &Declarations{}, PostureObserve)
	want := []Row{
		{Check: KindInvariantViolation, Seam: SeamWire},
		{Check: KindInvariantViolation, Seam: SeamCompose, NotApplicable: 1},
		{Check: KindDanglingReference, Seam: SeamCompose, NotApplicable: 1},
		{Check: KindUnsupportedArgument, Seam: SeamChoice, NotApplicable: 1},
		{Check: KindUnsupportedClaim, Seam: SeamClaim, NotApplicable: 1},
		{Check: KindPriorTurnEvidence, Seam: SeamClaim, NotApplicable: 1},
		{Check: KindEmptyLookup, Seam: SeamWrite, NotApplicable: 1},
		{Check: KindColumnTypeMismatch, Seam: SeamWrite, NotApplicable: 1},
		{Check: KindMissingColumn, Seam: SeamWrite, NotApplicable: 1},
	}
	if diff := cmp.Diff(want, l.Rows()); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if l.Armed(ComposeInvariant) || !l.Armed(WireInvariant) {
		t.Error("arming disagrees with the rows")
	}
	dev := NewLedger(Registry, &Declarations{}, PostureDev)
	for _, r := range dev.Rows() {
		if r.Synthetic != 1 {
			t.Errorf("dev posture: %s@%s counts %d canaries, want 1", r.Check, r.Seam, r.Synthetic)
		}
	}
}

func TestLedgerNotes(t *testing.T) {
	l := NewLedger([]*Check{DanglingReference}, designDeclarations("d"), PostureObserve)
	a := f(KindDanglingReference, SeamCompose, false, "t", "g")
	b := f(KindDanglingReference, SeamCompose, false, "t", "h")
	adv := f(KindDanglingReference, SeamCompose, true, "u")
	for _, v := range []Verdict{
		Pass(),
		Fail(a),
		Fail(a), // the same defect on a later call: counted, not refiled
		{Disposition: CheckedPass, Findings: []Finding{b}},   // findings always fail the encounter
		{Disposition: CheckedFail},                           // a failure naming nothing is a pass
		{Disposition: CheckedPass, Findings: []Finding{adv}}, // an advisory never fails one
		NotApplicableVerdict(),
		UnreachableBecause("why one", "why two"),
		UnreachableBecause("why one"),
		{None: true, Disposition: CheckedFail, Findings: []Finding{a}},
	} {
		l.Note(DanglingReference, v)
	}
	want := Row{Check: KindDanglingReference, Seam: SeamCompose, Checked: 6, Findings: 3, NotApplicable: 1, Unreachable: 2}
	if diff := cmp.Diff([]Row{want}, l.Rows()); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Finding{a, b, adv}, l.Findings()); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string][]string{"dangling-reference@compose": {"why one", "why two"}}, l.Reasons()); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
	// A check that is not registered leaves no trace.
	l.Note(WireInvariant, Fail(f(KindInvariantViolation, SeamWire, false, "x")))
	if len(l.Rows()) != 1 || len(l.Findings()) != 3 {
		t.Error("a note for an unregistered check changed the ledger")
	}
}

func TestAssertAlive(t *testing.T) {
	l := NewLedger([]*Check{WireInvariant, DanglingReference}, designDeclarations("d"), PostureDev)
	if err := l.AssertAlive(false); err != nil {
		t.Errorf("no work existed, nothing to prove: %v", err)
	}
	err := l.AssertAlive(true)
	var cd *CheckerDeadError
	if !errors.As(err, &cd) || cd.Kind != KindInvariantViolation || cd.Seam != SeamWire || !cd.NeverRan {
		t.Fatalf("want the silent wire row reported first, got %v", err)
	}
	l.Note(WireInvariant, UnreachableBecause("no manifest"))
	l.Note(DanglingReference, NotApplicableVerdict())
	if err := l.AssertAlive(true); err != nil {
		t.Errorf("every row noted something: %v", err)
	}
}

func TestRunCanariesFindsTheDeadCheck(t *testing.T) {
	dead := *UnsupportedArgument
	dead.Canary = func() []Finding { return nil }
	err := RunCanaries([]*Check{WireInvariant, &dead, DanglingReference})
	var cd *CheckerDeadError
	if !errors.As(err, &cd) || cd.Kind != KindUnsupportedArgument || cd.Seam != SeamChoice || cd.NeverRan {
		t.Fatalf("want the unsupported-argument canary reported, got %v", err)
	}
}

// TestLedgerAdvisoryChecks: a check whose every finding is an advisory
// counts a filing as a failing encounter, while the doubt advisory of a
// check that files defects too leaves its encounter passed.
func TestLedgerAdvisoryChecks(t *testing.T) {
	l := NewLedger([]*Check{EmptyLookup, UnsupportedClaim}, designDeclarations("d"), PostureObserve)
	adv := f(KindEmptyLookup, SeamWrite, true, "backup_status", "fleet_report")
	l.Note(EmptyLookup, Verdict{Disposition: CheckedFail, Findings: []Finding{adv}})
	l.Note(EmptyLookup, Pass())
	doubt := f(KindUnsupportedClaim, SeamClaim, true, "x")
	l.Note(UnsupportedClaim, Verdict{Disposition: CheckedPass, Findings: []Finding{doubt}})
	want := []Row{
		{Check: KindEmptyLookup, Seam: SeamWrite, Checked: 2, Findings: 1},
		{Check: KindUnsupportedClaim, Seam: SeamClaim, Checked: 1},
	}
	if diff := cmp.Diff(want, l.Rows()); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}
