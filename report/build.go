package report

import (
	"cmp"
	"errors"
	"slices"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/internal/idset"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

// Build turns what was read into the report model: per input the loss
// accounting, per run the coverage state, counts, listed findings, verdict
// and the sentences that state them. It never fails: an input that could
// not be read is a fact of the report, not an error of Build.
func Build(inputs []InputResult, opts Options) *Report {
	return build(inputs, opts, false)
}

// BuildTaking is Build for a report whose inputs no renderer reads again
// (see ReadsSources): it takes the inputs' runs, letting each run's result
// go as soon as its run is built, and leaves inputs' runs zero. At the end
// of a long stream the runs' results and the report built from them are
// each tens of MB; Build holds both whole at once, BuildTaking about one of
// them. The report has no Sources, and the renderers that read them refuse
// it.
func BuildTaking(inputs []InputResult, opts Options) *Report {
	return build(inputs, opts, true)
}

// ReadsSources reports whether the renderer of format reads the report's
// Sources: the JSON report carries them, and JSON Lines are written from
// them.
func ReadsSources(format string) bool {
	return format == FormatJSON || format == FormatJSONL
}

// errNoSources is what a renderer that reads Sources says of a report
// BuildTaking made: rendered, it would state inputs without their runs.
var errNoSources = errors.New("the report was built without keeping its inputs, which this format writes")

func build(inputs []InputResult, opts Options, take bool) *Report {
	r := &Report{SchemaVersion: SchemaVersion, Options: opts, Sources: inputs}
	if take {
		r.Sources, r.taken = nil, true
	}
	// Read before any run is taken.
	r.Declarations = holdDeclarations(inputs, opts)
	// Sized once: grown by appending, the runs of a large report would be
	// copied over and over, and held with room to spare.
	total := 0
	for _, in := range inputs {
		total += len(in.Runs)
	}
	var facts []runFacts
	if total > 0 {
		r.Runs, facts = make([]Run, 0, total), make([]runFacts, 0, total)
	}
	phrases := newInterner()
	m := newMemo(opts.Declared)
	for _, in := range inputs {
		if in.NotRecording {
			r.Skipped = append(r.Skipped, skippedInput(in))
			continue
		}
		input := buildInput(in)
		runs := inFirstLineOrder(in.Runs)
		if take && len(runs) > 0 && &runs[0] != &in.Runs[0] {
			// The sorted copy holds them now.
			clear(in.Runs)
		}
		for k, rr := range runs {
			if take {
				runs[k] = RunResult{}
			}
			if rr.Input == "" {
				rr.Input = input.Path
			}
			rr.Damage = append(append(inputDamage(in.Stats, rr), rr.Damage...), ledgerDamage(rr.Recorded)...)
			run := buildRun(rr, input, opts, m)
			// Held once from here: a million runs are each built before
			// any is stated whole.
			run.Headline = phrases.str(run.Headline)
			phrases.side(run.Recorded)
			phrases.side(run.Replayed)
			run.Recorded = phrases.same(true, run.Recorded)
			run.Replayed = phrases.same(false, run.Replayed)
			r.Runs = append(r.Runs, run)
			facts = append(facts, factsOf(rr, &run, input.Format, len(r.Inputs)))
		}
		r.Inputs = append(r.Inputs, input)
	}
	foldCopies(r, facts)
	linkRuns(r)
	for i := range r.Runs {
		run := &r.Runs[i]
		run.Notes = append(runNotes(run), baselineNotes(run)...)
		phrases.run(run)
		for j := range run.Copies {
			alone := run.Copies[j].alone
			alone.Notes = append(runNotes(alone), baselineNotes(alone)...)
		}
	}
	r.Baseline = summarizeBaseline(opts.Baseline, opts.Today, r.Runs)
	return r
}

// inFirstLineOrder is runs in the order they start in their input. A
// loader hands them over in that order nearly always, and sorting a copy
// of every run's result regardless would double what a report of a
// million runs holds of them.
func inFirstLineOrder(runs []RunResult) []RunResult {
	byLine := func(a, b RunResult) int { return cmp.Compare(a.FirstLine, b.FirstLine) }
	if slices.IsSortedFunc(runs, byLine) {
		return runs
	}
	runs = slices.Clone(runs)
	slices.SortStableFunc(runs, byLine)
	return runs
}

// buildInput states one input's loss accounting.
func buildInput(in InputResult) Input {
	input := Input{
		Path:         in.Path,
		UnknownTypes: map[string]int64{},
		WrongTypes:   map[string]int64{},
		Problems:     []recording.Problem{},
		RunCount:     len(in.Runs),
	}
	if s := in.Stats; s != nil {
		if s.Path != "" {
			input.Path = s.Path
		}
		input.Format = string(s.Format)
		input.Compression = s.Compression
		input.Lines, input.Events, input.Blank, input.Malformed = s.Lines, s.Events, s.Blank, s.Malformed
		for k, v := range s.UnknownTypes {
			input.UnknownTypes[k] = v
		}
		for k, v := range s.WrongTypes {
			input.WrongTypes[k] = v
		}
		input.TruncatedTail = s.TruncatedTail
		input.DroppedEvents, input.Complete = s.DroppedEvents, s.Complete
		input.Producer = s.Producer
		// Only a document read to its end is known to have no events key:
		// one that stopped may hold it past the stop.
		input.NoEventsKey = !s.HasEvents && in.Err == nil && (s.Format == recording.FormatRecording || s.Format == recording.FormatEnvelope || s.Format == recording.FormatArtifact)
		input.Problems = append(input.Problems, s.Problems...)
		input.StoppedRuns = slices.Clone(s.StoppedRuns)
	}
	if input.Path == "" && len(in.Runs) > 0 {
		input.Path = in.Runs[0].Input
	}
	if in.Err != nil {
		input.Error = in.Err.Error()
		var ie *recording.InputError
		if errors.As(in.Err, &ie) {
			input.ErrorLine = ie.Line
		}
	}
	ids := map[string]bool{}
	for _, rr := range in.Runs {
		ids[rr.RunID] = true
		if rr.HeadMissing {
			input.HeadMissing = append(input.HeadMissing, rr.RunID)
		}
	}
	// Before the notes: an input whose runs were all lost is not one that
	// holds no run.
	input.LostRuns = lostRuns(in.Stats, ids)
	if input.noTail() {
		input.Coverage = CoverageNoTail
	}
	input.Notes = inputNotes(&input, in.Stats != nil)
	if len(input.LostRuns) > 0 {
		input.Notes = append(input.Notes, lostRunsNote(input.LostRuns))
	}
	return input
}

// eventsPointer is where a document format keeps its events.
func eventsPointer(format string) string {
	switch recording.Format(format) {
	case recording.FormatEnvelope:
		return "/recording/events"
	case recording.FormatRecording, recording.FormatArtifact:
		return "/events"
	}
	return ""
}

// buildRun judges one run.
func buildRun(rr RunResult, input Input, opts Options, m *memo) Run {
	run := Run{
		Input:         rr.Input,
		RunID:         rr.RunID,
		SessionID:     rr.SessionID,
		PromptKey:     rr.PromptKey,
		Events:        rr.Events,
		HeadMissing:   rr.HeadMissing,
		FirstLine:     rr.FirstLine,
		LineNumbers:   input.Format == string(recording.FormatNDJSON),
		EventsPointer: eventsPointer(input.Format),
		CheckerDead:   rr.CheckerDead,
		Validation:    runValidation(rr),
		Damage:        sortDamage(rr.Damage),
		explain:       rr.Explain,
	}
	recIDs, repIDs := replay.Identities(rr.Recorded), replay.Identities(rr.Replayed)
	run.Recorded = m.side(true)
	*run.Recorded = buildSide("Ledger", true, rr.Recorded, recIDs, rr.Events, m)
	if rr.Replayed != nil {
		for _, s := range rr.Replayed.Lost {
			run.Damage = append(run.Damage, Damage{Cause: DamageLostFinding, Charged: true, Detail: s})
		}
		run.Damage = sortDamage(run.Damage)
	}
	if rr.Replayed != nil {
		run.Replayed = m.side(false)
		*run.Replayed = buildSide("Replayed ledger", false, rr.Replayed, repIDs, rr.Events, m)
		markAbsentTools(run.Replayed, m.arms, rr)
		run.Excused = rr.Replayed.Excused
	}
	all := collectFindings(rr.Recorded, rr.Replayed, recIDs, repIDs)

	var defects, advisories, drift idset.Set
	for _, f := range all {
		if f.Synthetic {
			continue
		}
		if f.Advisory {
			advisories.Add(f.Identity)
		} else {
			defects.Add(f.Identity)
		}
		// Only a disagreement between two sides that could both judge is
		// drift, not a replay that lacked input or a check unarmed live.
		if f.Drift {
			drift.Add(f.Identity)
		}
	}
	run.Defects, run.Advisories, run.Drift = defects.Len(), advisories.Len(), drift.Len()

	// Without a kind filter every finding matches: the list is all's,
	// held once (clipped, so that nothing appends into all).
	matching := slices.Clip(all)
	if opts.Kind != "" {
		matching = nil
		for _, f := range all {
			if f.Kind == opts.Kind {
				matching = append(matching, f)
			}
		}
	}
	run.Matching = len(matching)
	run.Findings = matching
	if opts.Limit > 0 && len(matching) > opts.Limit {
		run.Findings = matching[:opts.Limit:opts.Limit]
	}
	run.Omitted = run.Matching - len(run.Findings)
	var lc listCounts
	for i, f := range matching {
		if f.Synthetic {
			continue
		}
		lc.count(f)
		if opts.Limit == 0 || i < opts.Limit {
			lc.shown++
		}
	}
	for _, f := range all {
		if !f.Synthetic {
			lc.real++
		}
	}
	if opts.Kind != "" && lc.defects+lc.advisories == 0 {
		for _, f := range all {
			if !f.Synthetic && !slices.Contains(run.OtherKinds, f.Kind) {
				run.OtherKinds = append(run.OtherKinds, f.Kind)
			}
		}
	}

	run.Verdict = gate(&run, opts)
	// Damage never hides a proven defect, and never lets a green stand:
	// the lost lines could have held the run's only finding.
	if run.Damaged() && run.Verdict != VerdictDefects {
		run.DamagedOnly = run.Verdict == VerdictGreen
		run.Verdict = VerdictUnmeasured
	}
	run.HeadlineKind, run.Headline = headline(&run, opts, lc)
	applyBaseline(&run, all, opts)
	return run
}

// gate is the per-run half of the exit-code mapping: whether the run fails
// the gate level, and otherwise whether it is measured at all. A proven
// defect outranks missing coverage, because it is the more actionable news
// and because a run can carry both.
func gate(run *Run, opts Options) Verdict {
	level := opts.failOn()
	fail := run.Defects > 0 || run.Recorded.EvidenceMissing
	if (level == FailOnAdvisory || level == FailOnDrift) && run.Advisories > 0 {
		fail = true
	}
	if level == FailOnDrift && run.Drift > 0 {
		fail = true
	}
	if fail {
		return VerdictDefects
	}
	// A check that demonstrably never ran makes every green about it
	// decoration, whatever the other side says.
	if run.CheckerDead != "" {
		return VerdictUnmeasured
	}
	// With a replay, either side's evidence that the checks ran measures
	// the run: retro-checking a recording that carries no ledger is the
	// point of replaying it.
	if run.Recorded.Unmeasured && (run.Replayed == nil || run.Replayed.Unmeasured) {
		return VerdictUnmeasured
	}
	return VerdictGreen
}

// buildSide derives counts, coverage and the ledger rows from one source of
// evidence.
func buildSide(label string, recorded bool, ev *replay.Evidence, ids []string, events int, m *memo) Side {
	if ev == nil {
		ev = &replay.Evidence{}
	}
	s := Side{IntegrityEvents: ev.IntegrityEvents, Encounters: ev.Encounters}
	var defects, advisories idset.Set
	// ledgerCounted is how many filed findings a ledger row also counts as
	// failing encounters: every defect, and the advisories of checks whose
	// every finding is an advisory (a doubt advisory is noted as a pass).
	ledgerCounted, findingEvents := 0, 0
	for i, f := range ev.Findings {
		n := f.Events()
		findingEvents += n
		switch {
		case f.Synthetic:
			s.Synthetic += n
		case f.Advisory:
			s.AdvisoryEvents += n
			advisories.Add(ids[i])
			if checks.AdvisoryOnly(f.Kind, f.Seam) {
				ledgerCounted += n
			}
		default:
			s.DefectEvents += n
			defects.Add(ids[i])
			ledgerCounted += n
		}
	}
	s.Defects, s.Advisories = defects.Len(), advisories.Len()

	if d := ev.Disposition; d != nil {
		s.HasDisposition = true
		s.Dispositions = max(1, ev.IntegrityEvents-findingEvents)
		s.Posture, s.WorkExisted, s.RowsMalformed = d.Posture, d.WorkExisted, d.RowsMalformed
		if d.Rows != nil {
			s.Rows = m.rowsFor(recorded, len(d.Rows))
			for _, cr := range d.Rows {
				row := buildRow(cr, d.WorkExisted, m)
				s.RowFindings += cr.Findings
				s.Checked += cr.Checked
				s.NotApplicable += cr.NotApplicable
				s.Unreachable += cr.Unreachable
				switch row.State {
				case RowChecked:
					s.Checking++
				case RowNeverRan:
					s.NeverRan = append(s.NeverRan, row.Key())
					s.Silent = append(s.Silent, row.Key())
				default:
					s.Silent = append(s.Silent, row.Key())
				}
				s.Rows = append(s.Rows, row)
			}
		}
	}

	switch {
	case events == 0:
		s.Coverage = CoverageNoTail
	case len(ev.Findings) == 0 && ev.Disposition == nil:
		s.Coverage = CoverageNoIntegrityEvents
	case ev.Disposition == nil:
		s.Coverage = CoverageNoDisposition
	case len(s.Rows) == 0:
		s.Coverage = CoverageNoCheckRegistered
	case s.Checking == 0:
		s.Coverage = CoverageNothingChecked
	case s.Checking < len(s.Rows):
		s.Coverage = CoveragePartial
	default:
		s.Coverage = CoverageFull
	}
	// Only a recording can lose findings its own ledger counted; a replay
	// files every finding it counts.
	s.EvidenceMissing = recorded && s.RowFindings > 0 && s.DefectEvents+s.AdvisoryEvents == 0
	s.Reconcile = ledgerCounted > 0 && s.RowFindings > int64(ledgerCounted)
	s.Unmeasured = s.Coverage.Unmeasured() || len(s.NeverRan) > 0
	s.Ledger = m.ledgerSentence(label, &s)
	return s
}

// buildRow classifies a ledger row and words its facts.
func buildRow(cr checks.Row, workExisted bool, m *memo) Row {
	row := Row{Row: cr}
	switch {
	case cr.Checked > 0:
		row.State = RowChecked
	case cr.NotApplicable <= 0 && cr.Unreachable <= 0:
		row.State = RowNeverRan
	default:
		row.State = RowSilent
	}
	if cr.LastFiredAt != nil {
		row.LastFired, _ = isoMillis(*cr.LastFiredAt)
	}
	row.Parts = m.rowParts(row, workExisted)
	return row
}

// collectFindings lists a run's findings in display order: the recorded
// real findings in filing order (each marked with its reconciliation when a
// replay exists), then findings only the replay filed, then synthetic
// canaries, which are shown but never counted.
func collectFindings(recorded, replayed *replay.Evidence, recordedIDs, replayedIDs []string) []Finding {
	var out, synthetic []Finding
	// The matches of recorded findings, an identity once each (Reconcile
	// keeps a recorded identity's first finding), found by identity; and
	// the replay's first finding of each identity.
	var ofRecorded []replay.Match
	var replayedOnly []replay.Match
	filedByReplay := idset.NewIndex(replayedIDs)
	if replayed != nil {
		for _, m := range replay.ReconcileByID(recorded, replayed, recordedIDs, replayedIDs) {
			if m.Source == replay.SourceReplayed {
				replayedOnly = append(replayedOnly, m)
				continue
			}
			ofRecorded = append(ofRecorded, m)
		}
	}
	matchIDs := make([]string, len(ofRecorded))
	for i := range ofRecorded {
		matchIDs[i] = ofRecorded[i].ID
	}
	byID := idset.NewIndex(matchIDs)
	// Sized once: every recorded finding is listed, and each replayed-only
	// one.
	if n := len(recordedIDs) + len(replayedOnly); n > 0 {
		out = make([]Finding, 0, n)
	}
	if recorded != nil {
		for i, f := range recorded.Findings {
			lf := Finding{Finding: f, Identity: recordedIDs[i], Source: replay.SourceRecorded}
			if f.Synthetic {
				synthetic = append(synthetic, lf)
				continue
			}
			if at, ok := byID.Of(lf.Identity); ok {
				m := &ofRecorded[at]
				lf.Source, lf.Why, lf.Drift = m.Source, m.Why, m.Drift
				if m.Source == replay.SourceBoth {
					if j, ok := filedByReplay.Of(lf.Identity); ok {
						lf.Replay = &replayed.Findings[j]
					}
				}
			}
			out = append(out, lf)
		}
	}
	for _, m := range replayedOnly {
		out = append(out, Finding{Finding: m.Finding, Identity: m.ID, Source: m.Source, Why: m.Why, Drift: m.Drift})
	}
	return append(out, synthetic...)
}

// linkRuns finds runs split across inputs and groups runs by session into
// conversations, turns in report order.
func linkRuns(r *Report) {
	if !sameInput(r.Runs) {
		linkInputs(r)
	}
	linkSessions(r)
}

// sameInput reports whether every run is of one input, when no run id
// can be in two.
func sameInput(runs []Run) bool {
	for i := range runs {
		if runs[i].Input != runs[0].Input {
			return false
		}
	}
	return true
}

// linkInputs names, on each run, the other inputs its run id is in.
func linkInputs(r *Report) {
	// One list of inputs per run id, shared by its runs: a run id in
	// thousands of inputs must not give each of its runs a list of all
	// the others, which would make the report quadratic in the inputs.
	inputsOf := map[string][]string{}
	type idInput struct{ id, input string }
	seen := map[idInput]bool{}
	for _, run := range r.Runs {
		if k := (idInput{run.RunID, run.Input}); !seen[k] {
			seen[k] = true
			inputsOf[run.RunID] = append(inputsOf[run.RunID], run.Input)
		}
	}
	for i := range r.Runs {
		run := &r.Runs[i]
		others := inputsOf[run.RunID]
		if len(others) < 2 {
			continue
		}
		for _, in := range others {
			if in == run.Input {
				continue
			}
			if len(run.AlsoIn) == alsoInListed {
				break
			}
			run.AlsoIn = append(run.AlsoIn, in)
		}
		run.AlsoInMore = len(others) - 1 - len(run.AlsoIn)
	}
}

// linkSessions groups runs by session into conversations, turns in report
// order.
func linkSessions(r *Report) {
	bySession := map[string]int{}
	for i := range r.Runs {
		run := &r.Runs[i]
		if run.SessionID == "" {
			continue
		}
		ci, ok := bySession[run.SessionID]
		if !ok {
			ci = len(r.Conversations)
			bySession[run.SessionID] = ci
			r.Conversations = append(r.Conversations, Conversation{SessionID: run.SessionID})
		}
		r.Conversations[ci].RunIDs = append(r.Conversations[ci].RunIDs, run.RunID)
		run.Turn = len(r.Conversations[ci].RunIDs)
	}
	for i := range r.Runs {
		run := &r.Runs[i]
		if run.SessionID != "" {
			run.Turns = len(r.Conversations[bySession[run.SessionID]].RunIDs)
		}
	}
}

// alsoInListed is how many other inputs of a split run are named.
const alsoInListed = 3

func rowKey(check, seam string) string {
	if check == "" {
		check = "?"
	}
	if seam == "" {
		seam = "?"
	}
	if k, ok := registeredRowKeys[[2]string{check, seam}]; ok {
		return k
	}
	return check + " @" + seam
}

// registeredRowKeys holds the row key of every registered check once: each
// run's rows name their checks, and a report of a million runs would
// otherwise keep a million copies of the same few names.
var registeredRowKeys = func() map[[2]string]string {
	m := make(map[[2]string]string, len(checks.Registry))
	for _, c := range checks.Registry {
		m[[2]string{c.Kind, c.Seam}] = c.Kind + " @" + c.Seam
	}
	return m
}()

// memo holds what a report says alike of many runs, made once for the
// report: the declarations' arming of each check, and the phrases of the
// ledger rows that count alike. A long stream's runs repeat the same few
// rows, and wording each again was most of what building its report
// allocated.
type memo struct {
	arms    *arming
	parts   map[partsKey][]string
	ledgers map[ledgerKey]string
	// sides and rows are where the sides of the run being built and
	// their ledger rows are made, the recorded side's and the replay's:
	// most runs' are one of a few the interner holds already, and what it
	// does not hold it copies out (interner.side, interner.same).
	sides [2]Side
	rows  [2][]Row
}

// side is where the side being built goes.
func (m *memo) side(recorded bool) *Side {
	if recorded {
		return &m.sides[0]
	}
	return &m.sides[1]
}

// rowsFor is the empty list the rows of the side being built go in, with
// room for n.
func (m *memo) rowsFor(recorded bool, n int) []Row {
	i := 0
	if !recorded {
		i = 1
	}
	// Never nil, even for none: a ledger with no rows is not one without
	// rows (ledgerSentence).
	if m.rows[i] == nil || cap(m.rows[i]) < n {
		m.rows[i] = make([]Row, 0, max(n, 2*cap(m.rows[i])))
	}
	clear(m.rows[i][:cap(m.rows[i])])
	return m.rows[i][:0]
}

// partsKey is what rowParts reads of a row that never fired.
type partsKey struct {
	state                                                    RowState
	checked, findings, notApplicable, unreachable, synthetic int64
	workExisted                                              bool
}

// maxMemoParts bounds the phrases remembered: past it (a hostile ledger
// with counts all different) rows are worded one by one.
const maxMemoParts = 1 << 12

func newMemo(decl *checks.Declarations) *memo {
	return &memo{arms: newArming(decl), parts: map[partsKey][]string{}, ledgers: map[ledgerKey]string{}}
}

// ledgerKey is what ledgerSentence reads of a side.
type ledgerKey struct {
	label, posture                       string
	disposition, malformed, noRows, work bool
	rows, checking                       int
	checked                              int64
}

// ledgerSentence is ledgerSentence(label, s), one string for sides that
// count alike.
func (m *memo) ledgerSentence(label string, s *Side) string {
	k := ledgerKey{label: label, posture: s.Posture, disposition: s.HasDisposition, malformed: s.RowsMalformed,
		noRows: s.Rows == nil, work: s.WorkExisted, rows: len(s.Rows), checking: s.Checking, checked: s.Checked}
	if l, ok := m.ledgers[k]; ok {
		return l
	}
	l := ledgerSentence(label, s)
	if len(m.ledgers) < maxMemoParts {
		m.ledgers[k] = l
	}
	return l
}

// rowParts is rowParts(r, workExisted), the same list for rows that count
// alike. The list is clipped: a row that adds a part copies it.
func (m *memo) rowParts(r Row, workExisted bool) []string {
	if r.LastFiredAt != nil {
		return rowParts(r, workExisted)
	}
	k := partsKey{r.State, r.Checked, r.Findings, r.NotApplicable, r.Unreachable, r.Synthetic, workExisted}
	if p, ok := m.parts[k]; ok {
		return p
	}
	p := slices.Clip(rowParts(r, workExisted))
	if len(m.parts) < maxMemoParts {
		m.parts[k] = p
	}
	return p
}
