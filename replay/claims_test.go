package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fpcheck/fpcheck/checks"
)

const claimsRoot = "../testdata/recordings/claims"

type validatedRun struct {
	Run      string    `json:"run"`
	Error    string    `json:"error,omitempty"`
	Evidence *Evidence `json:"evidence"`
}

// replayClaimsFixture replays every run of one fixture under
// testdata/recordings/claims with its declarations.
func replayClaimsFixture(t *testing.T, name string) []validatedRun {
	t.Helper()
	dir := filepath.Join(claimsRoot, name)
	decl := loadDeclarations(t, dir)
	var out []validatedRun
	// The runs of one stream share a book of call ids, as the CLI's do.
	names := NewCallNames()
	for _, run := range readRuns(t, filepath.Join(dir, "events.jsonl")) {
		ev, err := Replay(run, decl, Options{Names: names})
		vr := validatedRun{Run: run.ID, Evidence: ev}
		if err != nil {
			vr.Error = err.Error()
		}
		out = append(out, vr)
	}
	return out
}

// TestClaimsFixtures replays every fixture under testdata/recordings/claims
// and compares the evidence and the answer validations with want.json.
func TestClaimsFixtures(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(claimsRoot, "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures under %s (%v)", claimsRoot, err)
	}
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			gotJSON := marshalGolden(t, replayClaimsFixture(t, filepath.Base(dir)))
			checkGolden(t, filepath.Join(dir, "want.json"), gotJSON)
		})
	}
}

// TestClaimsFixtureHashes keeps the generated fixtures honest about the
// content hashes agentfootprint would write.
func TestClaimsFixtureHashes(t *testing.T) { checkFixtureHashes(t, claimsRoot) }

// story is what one seed story must give: exactly these findings (by
// identity, with their advisory mark) and these ledger rows.
type story struct {
	fixture string
	run     int
	// findings maps each expected identity to whether it is an advisory.
	findings map[string]bool
	rows     map[string]checks.Row
	says     map[string][]string
}

func row(kind, seam string, checked, findings, na, unreachable int64) checks.Row {
	return checks.Row{Check: kind, Seam: seam, Checked: checked, Findings: findings, NotApplicable: na, Unreachable: unreachable}
}

// TestSeedStories pins each seed story to exactly the finding (or the
// silence) the seed describes, with its seam, advisory mark, predicate and
// ledger row.
func TestSeedStories(t *testing.T) {
	const (
		ctm  = checks.KindColumnTypeMismatch
		mc   = checks.KindMissingColumn
		el   = checks.KindEmptyLookup
		pte  = checks.KindPriorTurnEvidence
		uc   = checks.KindUnsupportedClaim
		wr   = checks.SeamWrite
		clm  = checks.SeamClaim
		lun  = "column-type-mismatch @write [tool host_group_mappings] logical_unit_number "
		gany = "empty-lookup @write [tool backup_status + tool fleet_report] machine "
		prio = "prior-turn-evidence @claim [answer final] grounding "
		ua   = checks.KindUnsupportedArgument
		// callisto: the ground was served a turn earlier.
		callisto = "empty-lookup @write [tool backup_status + tool fleet_report] machine "
	)
	stories := []story{
		{fixture: "columns-lun-zero", findings: map[string]bool{lun: false},
			rows: map[string]checks.Row{ctm: row(ctm, wr, 1, 1, 0, 0), mc: row(mc, wr, 1, 0, 0, 0)},
			says: map[string][]string{lun: {"1 of 2 rows hold something else; the first is \"\" (string)", "Call id call-1", checks.ColumnTypeCeiling}}},
		{fixture: "columns-quoted-numbers", findings: map[string]bool{"column-type-mismatch @write [tool array_capacity] capacity_gb ": false},
			says: map[string][]string{"column-type-mismatch @write [tool array_capacity] capacity_gb ": {"2 of 3 rows", `"1240" (string)`}}},
		{fixture: "columns-zero-gb", findings: map[string]bool{},
			rows: map[string]checks.Row{ctm: row(ctm, wr, 1, 0, 0, 0), mc: row(mc, wr, 1, 0, 0, 0)}},
		{fixture: "columns-enforce", findings: map[string]bool{lun: false, "missing-column @write [tool host_group_mappings] host_group ": false},
			rows: map[string]checks.Row{ctm: row(ctm, wr, 1, 1, 0, 0), mc: row(mc, wr, 1, 1, 0, 0)},
			says: map[string][]string{lun: {"Result refused: host_group_mappings", "No data was returned."}}},
		{fixture: "columns-not-judged", findings: map[string]bool{},
			rows: map[string]checks.Row{ctm: row(ctm, wr, 0, 0, 5, 0), mc: row(mc, wr, 0, 0, 5, 0)}},
		{fixture: "columns-json-in-string", findings: map[string]bool{lun: false},
			rows: map[string]checks.Row{ctm: row(ctm, wr, 1, 1, 1, 0), mc: row(mc, wr, 1, 0, 1, 0)},
			says: map[string][]string{lun: {"Call id call-2"}}},
		{fixture: "columns-absence-later", findings: map[string]bool{lun: false},
			rows: map[string]checks.Row{ctm: row(ctm, wr, 1, 1, 0, 0), mc: row(mc, wr, 1, 0, 0, 0)},
			says: map[string][]string{lun: {`3 of 4 rows hold something else; the first is "x" (string)`, "2 of the 3 offending rows carry no value", "declare it nullable: true"}}},
		{fixture: "columns-enforce-refused", run: 0, findings: map[string]bool{},
			rows: map[string]checks.Row{ctm: row(ctm, wr, 0, 0, 0, 1), mc: row(mc, wr, 0, 0, 0, 1)}},
		{fixture: "columns-enforce-refused", run: 1, findings: map[string]bool{},
			rows: map[string]checks.Row{ctm: row(ctm, wr, 0, 0, 0, 1), mc: row(mc, wr, 0, 0, 0, 1)}},
		{fixture: "claims-doubt-both-sides", run: 0, findings: map[string]bool{}, rows: map[string]checks.Row{uc: row(uc, clm, 0, 0, 0, 1)}},
		{fixture: "claims-doubt-both-sides", run: 1, findings: map[string]bool{}, rows: map[string]checks.Row{uc: row(uc, clm, 0, 0, 0, 1)}},
		{fixture: "empty-lookup-earlier-turn", run: 0, findings: map[string]bool{}, rows: map[string]checks.Row{el: row(el, wr, 0, 0, 1, 0)}},
		{fixture: "empty-lookup-earlier-turn", run: 1, findings: map[string]bool{callisto: true},
			rows: map[string]checks.Row{el: row(el, wr, 1, 1, 0, 0), ua: row(ua, checks.SeamChoice, 1, 0, 1, 0)},
			says: map[string][]string{callisto: {`machine = "callisto-02"`, "in a result of 'fleet_report', call call-1", checks.EmptyLookupCeiling}}},
		{fixture: "empty-lookup-later-history", findings: map[string]bool{callisto: true},
			rows: map[string]checks.Row{el: row(el, wr, 1, 1, 0, 0), ua: row(ua, checks.SeamChoice, 1, 0, 1, 0)},
			says: map[string][]string{callisto: {"in a result of 'fleet_report', call call-1"}}},
		{fixture: "columns-dial-off", findings: map[string]bool{},
			rows: map[string]checks.Row{ctm: row(ctm, wr, 0, 0, 1, 0), mc: row(mc, wr, 0, 0, 1, 0)}},
		{fixture: "empty-lookup-run-produced", findings: map[string]bool{gany: true},
			rows: map[string]checks.Row{el: row(el, wr, 2, 1, 0, 0)},
			says: map[string][]string{gany: {`machine = "4417-ganymede"`, "a list with no items", checks.EmptyLookupCeiling}}},
		{fixture: "empty-lookup-user-supplied", findings: map[string]bool{}, rows: map[string]checks.Row{el: row(el, wr, 1, 0, 0, 0)}},
		{fixture: "empty-lookup-prose", findings: map[string]bool{}, rows: map[string]checks.Row{el: row(el, wr, 0, 0, 1, 0)}},
		{fixture: "prior-turn-field-case", run: 0, findings: map[string]bool{}, rows: map[string]checks.Row{pte: row(pte, clm, 1, 0, 0, 0)}},
		{fixture: "prior-turn-field-case", run: 1, findings: map[string]bool{prio: true},
			rows: map[string]checks.Row{pte: row(pte, clm, 1, 1, 0, 0)},
			says: map[string][]string{prio: {"states 2 values", "last served in turn 1 or earlier, at least 1 turn before turn 2",
				"This turn called no tool and served no result, so the answer was assembled entirely from the conversation.", checks.PriorTurnEvidenceCeiling}}},
		{fixture: "prior-turn-honest-follow-up", run: 1, findings: map[string]bool{}, rows: map[string]checks.Row{pte: row(pte, clm, 1, 0, 0, 0)}},
		{fixture: "prior-turn-four-turns-stale", findings: map[string]bool{prio: true},
			rows: map[string]checks.Row{pte: row(pte, clm, 1, 1, 0, 0)},
			says: map[string][]string{prio: {"states 4 values", "turn 1 or earlier, at least 4 turns before turn 5", "called no tool"}}},
		{fixture: "claims-normalized", findings: map[string]bool{"unsupported-claim @claim [entity job-7] state ": false},
			rows: map[string]checks.Row{uc: row(uc, clm, 4, 1, 0, 2)},
			says: map[string][]string{"unsupported-claim @claim [entity job-7] state ": {"earlier reading (job_status (call j1, iteration 1))", `"done"`}}},
	}
	for _, st := range stories {
		t.Run(st.fixture, func(t *testing.T) {
			runs := replayClaimsFixture(t, st.fixture)
			ev := runs[st.run].Evidence
			got := map[string]bool{}
			for _, f := range ev.Findings {
				got[f.Identity()] = f.Advisory
				for _, s := range st.says[f.Identity()] {
					if !strings.Contains(f.Message, s) {
						t.Errorf("%s: message %q does not say %q", f.Identity(), f.Message, s)
					}
				}
			}
			if diff := cmp.Diff(st.findings, got); diff != "" {
				t.Errorf("findings and advisory marks (-want +got):\n%s", diff)
			}
			for kind, want := range st.rows {
				r, ok := ev.Disposition.Row(kind, want.Seam)
				if !ok || r != want {
					t.Errorf("%s row %+v, want %+v", kind, r, want)
				}
			}
		})
	}
}

// TestClaimsValidation pins the answer-validation report of the claims
// fixture: one row per claim and the names-and-numbers row, no row ever
// checked-pass, and a failed status because a row contradicts a reading.
func TestClaimsValidation(t *testing.T) {
	v := replayClaimsFixture(t, "claims-normalized")[0].Evidence.Validation
	if len(v) != 1 {
		t.Fatalf("want one validation per final answer, got %d", len(v))
	}
	got := map[string]string{}
	for _, r := range v[0].Rows {
		got[r.ID] = r.Disposition
		if r.Disposition == checks.CheckedPass.String() {
			t.Errorf("%s: an agent row is never checked-pass", r.ID)
		}
	}
	want := map[string]string{
		"agent:claims:nav_count":   "not-applicable",
		"agent:claims:zone":        "not-applicable",
		"agent:claims:power":       "unreachable",
		"agent:claims:load":        "not-applicable",
		"agent:claims:status":      "checked-fail",
		"agent:claims:temperature": "not-applicable",
		"agent:names-and-numbers":  "not-applicable",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if v[0].Status != checks.ValidationFailed || v[0].Reason != "unreachable-checks" {
		t.Errorf("status %s (%s), want failed (unreachable-checks)", v[0].Status, v[0].Reason)
	}
	// A report of agent rows alone that found nothing is unverified.
	v = replayClaimsFixture(t, "prior-turn-field-case")[1].Evidence.Validation
	if len(v) != 1 || v[0].Status != checks.ValidationUnverified {
		t.Errorf("agent rows alone: %+v, want unverified", v)
	}
}

// TestValidationTravelsWithEvidence: Replay's evidence carries its
// validations; recorded evidence carries none.
func TestValidationTravelsWithEvidence(t *testing.T) {
	dir := filepath.Join(claimsRoot, "claims-normalized")
	run := readRuns(t, filepath.Join(dir, "events.jsonl"))[0]
	ev, err := Replay(run, loadDeclarations(t, dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := ev.Validation; len(v) != 1 || len(v[0].Rows) != 7 {
		t.Errorf("replayed validation = %+v", v)
	}
	if v := Recorded(run.Events).Validation; v != nil {
		t.Errorf("recorded evidence carries no validation, got %+v", v)
	}
}

// TestCorpusClaimsStillBoth replays the corpus's unsupported-claim and
// multi-turn recordings with the contracts their scenario.md states and
// holds the claim findings to the recorded ones: matched on both sides.
func TestCorpusClaimsStillBoth(t *testing.T) {
	decl := "claims: {nav_count: {entity: screen2, field: nav}}"
	for _, tc := range []struct {
		scenario string
		run      int
		want     int
	}{{"unsupported-claim", 0, 1}, {"multi-turn", 1, 1}, {"multi-turn", 0, 0}, {"multi-turn", 2, 0}} {
		dir := corpusDir(t, tc.scenario)
		runs := readRuns(t, filepath.Join(dir, "events.jsonl"))
		run := runs[tc.run]
		replayed, err := Replay(run, mustDeclare(t, decl), Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range Reconcile(Recorded(run.Events), replayed) {
			if m.Finding.Kind != checks.KindUnsupportedClaim {
				continue
			}
			n++
			if m.Source != SourceBoth || m.Finding.Identity() != "unsupported-claim @claim [entity screen2] nav " || m.Finding.Advisory {
				t.Errorf("%s run %d: %s from %s (%s)", tc.scenario, tc.run, m.Finding.Identity(), m.Source, m.Why)
			}
		}
		if n != tc.want {
			t.Errorf("%s run %d: %d claim findings, want %d", tc.scenario, tc.run, n, tc.want)
		}
	}
}

// TestUnfedArmedChecks: an armed check that meets no encounter in a run
// notes one not-applicable, naming why, instead of a row that reads as
// never run.
func TestUnfedArmedChecks(t *testing.T) {
	dir := filepath.Join(claimsRoot, "columns-zero-gb")
	run := readRuns(t, filepath.Join(dir, "events.jsonl"))[0]
	decl := mustDeclare(t, "tools: {never_called: {argumentsFrom: [capacity_view], noticeEmptyLookups: true, resultColumns: {n: number}}}\ndials: {checkColumnTypes: warn}")
	ev, err := Replay(run, decl, Options{Posture: checks.PostureDev})
	if err != nil {
		t.Fatalf("dev posture: an unfed armed check is not a dead one: %v", err)
	}
	for _, kind := range []string{checks.KindEmptyLookup, checks.KindColumnTypeMismatch, checks.KindMissingColumn} {
		r, _ := ev.Disposition.Row(kind, checks.SeamWrite)
		if r.NotApplicable != 1 || r.Checked != 0 || len(ev.Unreachable[CheckKey(kind, checks.SeamWrite)]) != 1 {
			t.Errorf("%s: row %+v, reasons %v", kind, r, ev.Unreachable[CheckKey(kind, checks.SeamWrite)])
		}
	}
}
