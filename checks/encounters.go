package checks

import (
	"cmp"
	"slices"
)

// Encounter counts one check's encounters of one disposition at one
// iteration of a run: what a timeline draws, where a ledger row only sums.
type Encounter struct {
	Check, Seam string
	// Placed is false for encounters tied to no iteration: the
	// not-applicable a check files at registration when it is unarmed, and
	// what a check notes when the run ends. Iteration is then 0.
	Placed      bool
	Iteration   int64
	Disposition Disposition
	Count       int64
}

type encounterKey struct {
	row int
	it  int64
	d   Disposition
}

// TrackEncounters makes the ledger keep where each encounter happened, at a
// cost that grows with the run's iterations; only a report that draws a
// timeline asks for it.
func (l *Ledger) TrackEncounters() {
	if l.placed == nil {
		l.placed = map[encounterKey]int64{}
	}
}

// NoteAt is Note for an encounter of iteration it.
func (l *Ledger) NoteAt(c *Check, it int64, v Verdict) {
	l.at, l.atSet = it, true
	l.Note(c, v)
	l.atSet = false
}

// place counts an encounter of row i where the engine said it happened.
func (l *Ledger) place(i int, d Disposition) {
	if l.placed == nil || !l.atSet {
		return
	}
	l.placed[encounterKey{row: i, it: l.at, d: d}]++
}

// Encounters returns the encounters tracked since TrackEncounters, by
// iteration, then registration order, then disposition; nil when they were
// not tracked. The rest of each row's counts, those no iteration was given
// for, follow as unplaced encounters, so the encounters of a check always
// sum to its row.
func (l *Ledger) Encounters() []Encounter {
	if l.placed == nil {
		return nil
	}
	keys := make([]encounterKey, 0, len(l.placed))
	for k := range l.placed {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b encounterKey) int {
		return cmp.Or(cmp.Compare(a.it, b.it), cmp.Compare(a.row, b.row), cmp.Compare(a.d, b.d))
	})
	out := make([]Encounter, 0, len(keys)+len(l.rows))
	sums := make([][4]int64, len(l.rows))
	for _, k := range keys {
		n := l.placed[k]
		c := l.checks[k.row]
		out = append(out, Encounter{Check: c.Kind, Seam: c.Seam, Placed: true, Iteration: k.it, Disposition: k.d, Count: n})
		sums[k.row][k.d] += n
	}
	for i, r := range l.rows {
		total := [4]int64{
			CheckedPass:   r.Checked - r.Findings,
			CheckedFail:   r.Findings,
			NotApplicable: r.NotApplicable,
			Unreachable:   r.Unreachable,
		}
		for d, n := range total {
			if rest := n - sums[i][d]; rest > 0 {
				out = append(out, Encounter{Check: r.Check, Seam: r.Seam, Disposition: Disposition(d), Count: rest})
			}
		}
	}
	return out
}
