package replay

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fpcheck/fpcheck/checks"
)

// TestEncountersSumToRows holds the tracked encounters of every fixture to
// the ledger they were counted on: per check they sum to its row, placed
// ones name an iteration some model call had, and tracking changes nothing
// else the replay concludes.
func TestEncountersSumToRows(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(fixtureRoot, "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures under %s (%v)", fixtureRoot, err)
	}
	placedAny := false
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			decl := loadDeclarations(t, dir)
			for _, run := range readRuns(t, filepath.Join(dir, "events.jsonl")) {
				plain, perr := Replay(run, decl, Options{})
				ev, err := Replay(run, decl, Options{Encounters: true})
				if (perr == nil) != (err == nil) {
					t.Fatalf("run %s: tracking changed the error: %v, then %v", run.ID, perr, err)
				}
				if ev == nil {
					continue
				}
				if plain.Encounters != nil {
					t.Errorf("run %s: encounters kept without Options.Encounters", run.ID)
				}
				tracked := *ev
				tracked.Encounters = nil
				if diff := cmp.Diff(plain, &tracked); diff != "" {
					t.Errorf("run %s: tracking changed the evidence (-plain +tracked):\n%s", run.ID, diff)
				}
				sums := map[string][4]int64{}
				for _, e := range ev.Encounters {
					if e.Count <= 0 {
						t.Errorf("run %s: encounter %+v counts nothing", run.ID, e)
					}
					if e.Placed {
						placedAny = true
					}
					s := sums[checks.Key(e.Check, e.Seam)]
					s[e.Disposition] += e.Count
					sums[checks.Key(e.Check, e.Seam)] = s
				}
				for _, r := range ev.Disposition.Rows {
					want := [4]int64{r.Checked - r.Findings, r.Findings, r.NotApplicable, r.Unreachable}
					if got := sums[checks.Key(r.Check, r.Seam)]; got != want {
						t.Errorf("run %s: %s@%s encounters sum to %v, the row to %v", run.ID, r.Check, r.Seam, got, want)
					}
				}
			}
		})
	}
	if !placedAny {
		t.Error("no fixture placed any encounter at an iteration")
	}
}
