package checks

import (
	"fmt"
)

// Ledger is one run's disposition ledger and findings rail. Every registered
// check has a row from the start (the registration law): an unarmed check
// files one not-applicable at once, so "nothing was armed" reads as explicit
// rows rather than as silence. Rows count every encounter; findings are kept
// once per identity, the first filing winning, so the two can differ and the
// report says so.
type Ledger struct {
	checks   []*Check
	armed    []bool
	rows     []Row
	index    map[string]int
	seen     map[string]bool
	findings []Finding
	reasons  map[string][]string
	reasonOK map[[2]string]bool // check key, reason
	// placed counts encounters by iteration once TrackEncounters is
	// called; at is the iteration NoteAt is noting (encounters.go).
	placed map[encounterKey]int64
	at     int64
	atSet  bool
	// excused are the excusals verdicts named, each once (Excused).
	excused  []string
	excuseOK map[string]bool
}

// NewLedger registers every check of reg, in order. In dev posture each row
// also counts the one canary minted for it (quarantined from the real
// counts); whether the canary was caught is RunCanaries' business.
func NewLedger(reg []*Check, decl *Declarations, posture string) *Ledger {
	l := &Ledger{
		index:    registryIndex,
		seen:     map[string]bool{},
		reasons:  map[string][]string{},
		reasonOK: map[[2]string]bool{},
		excuseOK: map[string]bool{},
		checks:   make([]*Check, 0, len(reg)),
		armed:    make([]bool, 0, len(reg)),
		rows:     make([]Row, 0, len(reg)),
	}
	if !isRegistry(reg) {
		l.index = indexOf(reg)
	}
	for _, c := range reg {
		row := Row{Check: c.Kind, Seam: c.Seam}
		if posture == PostureDev {
			row.Synthetic = 1
		}
		armed := c.Armed(decl)
		if !armed {
			row.NotApplicable = 1
		}
		l.checks = append(l.checks, c)
		l.armed = append(l.armed, armed)
		l.rows = append(l.rows, row)
	}
	return l
}

// registryIndex is indexOf(Registry), built once: the index is only read
// after NewLedger, so every run's ledger over the registry shares it.
var registryIndex = indexOf(Registry)

// indexOf maps each check's key to its row, the last one winning.
func indexOf(reg []*Check) map[string]int {
	m := make(map[string]int, len(reg))
	for i, c := range reg {
		m[c.Key()] = i
	}
	return m
}

// isRegistry reports whether reg is Registry itself, not a list of the
// caller's own.
func isRegistry(reg []*Check) bool {
	return len(reg) == len(Registry) && len(reg) > 0 && &reg[0] == &Registry[0]
}

// Armed reports whether a registered check was armed at run start.
func (l *Ledger) Armed(c *Check) bool {
	i, ok := l.row(c)
	return ok && l.armed[i]
}

// row finds c's row: by the check itself, which is how the replay asks
// (once per check and event), else by its key, as a check built apart
// from the ledger's list is filed. The two agree when every check has a
// key of its own; a list that repeats a key is only looked up by key.
func (l *Ledger) row(c *Check) (int, bool) {
	if len(l.index) == len(l.checks) {
		for i, d := range l.checks {
			if d == c {
				return i, true
			}
		}
	}
	i, ok := l.index[c.Key()]
	return i, ok
}

// Note records one verdict of a check: it counts the encounter on the
// check's row, files the findings whose identity the run has not seen yet,
// and keeps each reason once. A verdict carrying findings is counted as
// checked-fail even when every finding was already filed: the row counts
// encounters, the rail counts defects. An advisory fails an encounter only
// of a check that files nothing but advisories (Check.Advisory), as
// empty-lookup and prior-turn-evidence do; the doubt advisory of
// unsupported-claim leaves its encounter passed.
func (l *Ledger) Note(c *Check, v Verdict) {
	if v.None {
		return
	}
	i, ok := l.row(c)
	if !ok {
		// Only registered checks reach the engine; an unregistered note
		// would be a row nobody reports, so it is dropped here on purpose.
		return
	}
	d := v.Disposition
	switch {
	case hasDefect(v.Findings):
		d = CheckedFail
	case c.Advisory && len(v.Findings) > 0:
		// For a check whose every finding is an advisory, filing one is
		// what its failing encounter means: the row counts it, the
		// advisory flag keeps it apart from defects everywhere else.
		d = CheckedFail
	case d == CheckedFail:
		// A failure that names no finding is not a failure anyone can read.
		d = CheckedPass
	}
	l.place(i, d)
	row := &l.rows[i]
	switch d {
	case CheckedPass:
		row.Checked++
	case CheckedFail:
		row.Checked++
		row.Findings++
	case NotApplicable:
		row.NotApplicable++
	case Unreachable:
		row.Unreachable++
	}
	for _, f := range v.Findings {
		id := f.Identity()
		if l.seen[id] {
			continue
		}
		l.seen[id] = true
		l.findings = append(l.findings, f)
	}
	for _, x := range v.Excused {
		if !l.excuseOK[x] {
			l.excuseOK[x] = true
			l.excused = append(l.excused, x)
		}
	}
	key := c.Key()
	for _, r := range v.Reasons {
		if r == "" || l.reasonOK[[2]string{key, r}] {
			continue
		}
		l.reasonOK[[2]string{key, r}] = true
		l.reasons[key] = append(l.reasons[key], r)
	}
}

// Filed reports whether the ledger holds a finding of the identity (see
// Finding.Identity): the views' Filed.
func (l *Ledger) Filed(identity string) bool { return l.seen[identity] }

// hasDefect reports whether any finding is a defect; an advisory alone
// never fails an encounter.
func hasDefect(fs []Finding) bool {
	for _, f := range fs {
		if !f.Advisory {
			return true
		}
	}
	return false
}

// Untouched reports whether a registered check's row has noted no
// encounter of any kind yet.
func (l *Ledger) Untouched(c *Check) bool {
	i, ok := l.row(c)
	return ok && l.rows[i].NeverRan()
}

// Rows returns a copy of the rows, in registration order.
func (l *Ledger) Rows() []Row { return append([]Row{}, l.rows...) }

// Findings returns the findings filed, one per identity, in filing order.
func (l *Ledger) Findings() []Finding { return append([]Finding(nil), l.findings...) }

// Excused returns what the checks passed over because the recording
// excuses it, each sentence once, in the order first noted.
func (l *Ledger) Excused() []string { return append([]string(nil), l.excused...) }

// Reasons returns, per check key, why encounters could not be judged, each
// reason once in first-seen order.
func (l *Ledger) Reasons() map[string][]string {
	out := make(map[string][]string, len(l.reasons))
	for k, v := range l.reasons {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// AssertAlive is the dev-posture liveness theorem: in a run where work
// existed (a model call completed), every registered row must have noted
// something. The first silent row, in registration order, is returned as a
// *CheckerDeadError.
func (l *Ledger) AssertAlive(workExisted bool) error {
	if !workExisted {
		return nil
	}
	for i, r := range l.rows {
		if r.NeverRan() {
			c := l.checks[i]
			return &CheckerDeadError{Kind: c.Kind, Seam: c.Seam, NeverRan: true}
		}
	}
	return nil
}

// CheckerDeadError says a registered check demonstrably cannot do its job:
// it missed its own canary, or it noted nothing in a run that had work for
// it. A green from such a check would be decoration, so the run stops.
type CheckerDeadError struct {
	Kind, Seam string
	// NeverRan is true for the liveness theorem (no disposition at all in
	// a run with work) and false for a missed canary.
	NeverRan bool
}

func (e *CheckerDeadError) Error() string {
	if e.NeverRan {
		return fmt.Sprintf("checker dead: %s at the %s seam noted no disposition at all in a run where a model call completed; a green row from a check that never ran proves nothing, so re-wire the check or remove it from the registry",
			e.Kind, e.Seam)
	}
	return fmt.Sprintf("checker dead: %s at the %s seam was handed its synthetic contradiction and caught nothing; a green row from a check that cannot catch its own canary proves nothing, so fix the check or remove it from the registry",
		e.Kind, e.Seam)
}

// RunCanaries hands every check of reg its synthetic contradiction, in
// registry order, and returns a *CheckerDeadError for the first check that
// files nothing. Canary findings are never filed anywhere.
func RunCanaries(reg []*Check) error {
	for _, c := range reg {
		if c.Canary == nil || len(c.Canary()) == 0 {
			return &CheckerDeadError{Kind: c.Kind, Seam: c.Seam}
		}
	}
	return nil
}
