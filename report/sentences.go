package report

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// Bound is the sentence every run's report carries: what a green does and
// does not prove.
const Bound = "Bound: a green means no registered check was violated, not that the run holds no context error. A seam without a check files nothing, and an encounter a check could not see stays silent."

// Sentences hold strings from recordings raw; every text renderer passes
// whole lines through Sanitize before they reach a terminal.

// count words a number with its noun: "1 defect", "3 defects".
func count[N int | int64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(int64(n), 10) + " " + many
}

// nameList joins names, naming at most limit of them.
func nameList(names []string, limit int) string {
	if len(names) <= limit {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:limit], ", ") + fmt.Sprintf(", and %d more", len(names)-limit)
}

// listCounts are the counts behind the list headline: real (non-synthetic)
// findings matching the kind filter, split into defects and advisories, how
// many of them the limit shows, and how many real findings the run has in
// all.
type listCounts struct {
	defects, advisories, shown, real int
	// advisoryKinds are the kinds of the advisories counted, in first-seen
	// order: each says in its own words why it is counted apart.
	advisoryKinds []string
}

// count counts one real finding of the list.
func (lc *listCounts) count(f Finding) {
	if !f.Advisory {
		lc.defects++
		return
	}
	lc.advisories++
	if !slices.Contains(lc.advisoryKinds, f.Kind) {
		lc.advisoryKinds = append(lc.advisoryKinds, f.Kind)
	}
}

// advisoryWhy is why the counted advisories are apart from defects, in the
// words of the checks that filed them.
func (lc *listCounts) advisoryWhy() string {
	var why []string
	for _, kind := range lc.advisoryKinds {
		w := "a check marked it advisory"
		for _, c := range checks.Registry {
			if c.Kind == kind && c.AdvisoryWhy != "" {
				w = c.AdvisoryWhy
				break
			}
		}
		why = append(why, kind+": "+w)
	}
	return strings.Join(why, "; ")
}

// headline words the run's outcome in one sentence. The first matching case
// wins: findings to list, then evidence missing, then a kind filter that
// hid every finding, then the absence or coverage state.
func headline(run *Run, opts Options, lc listCounts) (HeadlineKind, string) {
	defects, advisories, shown := lc.defects, lc.advisories, lc.shown
	rec := run.Recorded
	switch {
	case defects+advisories > 0:
		return HeadlineFindings, listHeadline(run, opts, defects, advisories, shown, lc.advisoryWhy())
	case rec.EvidenceMissing:
		return HeadlineEvidenceMissing, fmt.Sprintf("⚠ EVIDENCE MISSING — the ledger counts %s, yet this run's events carry none of the findings: the stream was capped, filtered or cut. The contradictions happened and their detail is lost; this is the opposite of a clean run.",
			count(rec.RowFindings, "failing encounter", "failing encounters"))
	case len(run.OtherKinds) > 0:
		return HeadlineFiltered, fmt.Sprintf("NONE OF KIND '%s' — this run filed no finding of that kind. It filed %s of other kinds (%s); drop the kind filter to list them.",
			opts.Kind, count(lc.real, "finding", "findings"), strings.Join(run.OtherKinds, ", "))
	}
	if run.Damaged() {
		return HeadlineDamaged, damageHeadline(run, absenceHeadline(run))
	}
	return HeadlineAbsence, absenceHeadline(run)
}

func listHeadline(run *Run, opts Options, defects, advisories, shown int, why string) string {
	source := "filed by the live run's checks"
	if run.Replayed != nil {
		source = "in the recorded and replayed evidence"
	}
	var b strings.Builder
	if defects > 0 {
		fmt.Fprintf(&b, "DEFECTS — %s %s", count(defects, "defect", "defects"), source)
		if advisories > 0 {
			fmt.Fprintf(&b, ", plus %s counted apart (%s)", count(advisories, "advisory", "advisories"), why)
		}
	} else {
		fmt.Fprintf(&b, "ADVISORIES ONLY — no defect; %s %s, counted apart (%s)", count(advisories, "advisory", "advisories"), source, why)
	}
	fmt.Fprintf(&b, " (listing %d of %d", shown, defects+advisories)
	if opts.Kind != "" {
		fmt.Fprintf(&b, " of kind '%s'", opts.Kind)
	}
	b.WriteString(").")
	if run.Replayed == nil {
		b.WriteString(" Each was deduplicated when it was filed; nothing is re-judged here.")
	}
	return b.String()
}

// absenceHeadline words a run with nothing to list by its coverage state.
func absenceHeadline(run *Run) string {
	rec := run.Recorded
	switch rec.Coverage {
	case CoverageNoTail:
		return "⚠ NO EVENT TAIL — there are no events to read. Findings and the ledger travel in the event stream; without it this run cannot be judged either way. No evidence, not \"no context errors\": record with recordRun(agent) and keep its events, or keep the NDJSON stream."
	case CoverageNoIntegrityEvents:
		return fmt.Sprintf("⚠ NO INTEGRITY EVENTS — %s neither a finding nor the disposition ledger. Either no check was registered for this configuration, or the stream was capped, filtered or cut before they were written. No evidence, not a clean bill of health.",
			count(run.Events, "event of the run holds", "events of the run hold"))
	case CoverageNoDisposition:
		return "⚠ NO LEDGER — no real finding, and no disposition ledger in this run's events, so no check is known to have run, let alone passed. Unmeasured, not clean."
	case CoverageNoCheckRegistered:
		why := "its rows are empty"
		switch {
		case rec.RowsMalformed:
			why = "its rows are not a list"
		case rec.Rows == nil:
			why = "it carries no rows"
		}
		return fmt.Sprintf("⚠ NO CHECK REGISTERED — the run's ledger lists no check (%s), so nothing was checked and nothing could be found. An honest absence, not health.", why)
	case CoverageNothingChecked:
		var why []string
		if rec.Unreachable > 0 {
			why = append(why, fmt.Sprintf("%d unreachable (the check could not see its input)", rec.Unreachable))
		}
		if rec.NotApplicable > 0 {
			why = append(why, fmt.Sprintf("%d out of scope by rule", rec.NotApplicable))
		}
		if n := len(rec.NeverRan); n > 0 {
			why = append(why, count(n, "check met no encounter at all", "checks met no encounter at all"))
		}
		detail := ""
		if len(why) > 0 {
			detail = ": " + strings.Join(why, " · ")
		}
		return fmt.Sprintf("⚠ NOTHING CHECKED — %s reached a checked encounter%s. A check that judged nothing cannot have passed anything: this is silence at every seam, not a clean run.",
			noneOf(len(rec.Rows)), detail)
	case CoveragePartial:
		mark := ""
		if weakened(rec) {
			mark = "⚠ "
		}
		s := fmt.Sprintf("NONE FILED, %sCOVERAGE PARTIAL — only %d of %s checked anything (%s) and found nothing; %d judged nothing and %s silent about %s, not clean: %s.",
			mark, rec.Checking, count(len(rec.Rows), "registered check", "registered checks"),
			count(rec.Checked, "checked encounter", "checked encounters"),
			len(rec.Silent), isAre(len(rec.Silent)), itsTheir(len(rec.Silent)), nameList(rec.Silent, 6))
		if n := len(rec.NeverRan); n > 0 {
			return s + fmt.Sprintf(" %s never met an encounter of any kind (%s): wired but never fed, so the run counts as unmeasured.",
				count(n, "registered check", "registered checks"), nameList(rec.NeverRan, 6))
		}
		return s + " This green covers only the checks that ran."
	}
	return fmt.Sprintf("NONE FILED, FULL COVERAGE — all %s ran (%s) and none was violated.",
		count(len(rec.Rows), "registered check", "registered checks"), count(rec.Checked, "checked encounter", "checked encounters"))
}

func noneOf(n int) string {
	if n == 1 {
		return "the one registered check never"
	}
	return fmt.Sprintf("none of the %d registered checks", n)
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func itsTheir(n int) string {
	if n == 1 {
		return "its seam"
	}
	return "their seams"
}

// ledgerSentence heads the rows, or stands for them when there are none,
// and says how many registered checks actually checked something.
func ledgerSentence(label string, s *Side) string {
	switch {
	case !s.HasDisposition:
		return "⚠ " + label + ": none in this run's events. Nothing records which checks ran, so silence at any seam says nothing."
	case s.RowsMalformed:
		return "⚠ " + label + ": its rows are not a list. No check is known to be registered, so nothing is known to have been checked."
	case s.Rows == nil:
		return "⚠ " + label + ": it carries no rows. No check is known to be registered, so nothing is known to have been checked."
	case len(s.Rows) == 0:
		return "⚠ " + label + ": no check registered. This configuration made none applicable, so nothing was checked and nothing could be found; an honest absence, not health."
	}
	work := "the run did work a check could see"
	if !s.WorkExisted {
		work = "⚠ the run did no checkable work"
	}
	return fmt.Sprintf("%s (posture %s · %s): %d of %s checked something (%s).",
		label, s.Posture, work, s.Checking, count(len(s.Rows), "registered check", "registered checks"),
		count(s.Checked, "checked encounter", "checked encounters"))
}

// rowParts words one ledger row. The distinctions matter: a check that
// never ran is wiring rot; one whose encounters were all out of scope ran
// by rule and had nothing to judge; an unreachable encounter is silence,
// never a pass.
func rowParts(r Row, workExisted bool) []string {
	if r.State == RowNeverRan {
		p := "⚠ registered but never ran — no encounter of any kind"
		if workExisted {
			p += " while the run did work: wired but never fed, so its silence is not health"
		} else {
			p += " (the run did no checkable work either)"
		}
		parts := []string{p}
		if r.Synthetic > 0 {
			parts = append(parts, syntheticPart(r.Synthetic))
		}
		return parts
	}
	var parts []string
	na, unr := r.NotApplicable > 0, r.Unreachable > 0
	switch {
	case r.Checked > 0:
		parts = append(parts, fmt.Sprintf("ran %d×", r.Checked))
		if r.Findings > 0 {
			parts = append(parts, fmt.Sprintf("fired %d×", r.Findings))
		} else {
			parts = append(parts, "found nothing")
		}
	case na && !unr:
		// Out of scope by rule weakens nothing: no ⚠.
		parts = append(parts, fmt.Sprintf("ran 0× — its %s out of scope by rule (not-applicable)", count(r.NotApplicable, "encounter was", "encounters were all")))
		na = false
	case unr && !na:
		parts = append(parts, fmt.Sprintf("⚠ ran 0× — %s: it could not see its input, so that is silence, not clean", count(r.Unreachable, "encounter unreachable", "encounters unreachable")))
		unr = false
	default:
		parts = append(parts, "⚠ ran 0× — judged nothing at this seam")
	}
	if r.Checked <= 0 && r.Findings > 0 {
		parts = append(parts, fmt.Sprintf("fired %d×", r.Findings))
	}
	if na {
		parts = append(parts, fmt.Sprintf("%d not-applicable (out of scope by rule)", r.NotApplicable))
	}
	if unr {
		parts = append(parts, fmt.Sprintf("%d unreachable ⚠ silence, not clean", r.Unreachable))
	}
	if r.Synthetic > 0 {
		parts = append(parts, syntheticPart(r.Synthetic))
	}
	if r.LastFiredAt != nil {
		if r.LastFired != "" {
			parts = append(parts, "last fired "+r.LastFired)
		} else {
			parts = append(parts, fmt.Sprintf("last fired at %s ms (not a valid time)", strconv.FormatFloat(*r.LastFiredAt, 'g', -1, 64)))
		}
	}
	return parts
}

func syntheticPart(n int64) string {
	return fmt.Sprintf("%d synthetic canary (quarantined from the counts)", n)
}

// inputNotes words one input's loss accounting: every line is decoded,
// blank, skipped or malformed, and every loss the producer states is
// repeated.
func inputNotes(in *Input, haveStats bool) []string {
	var notes []string
	switch {
	case in.Error != "":
		notes = append(notes, "⚠ "+unreadableSentence(in))
	}
	for _, sr := range in.StoppedRuns {
		notes = append(notes, "⚠ "+stoppedRunText(sr))
	}
	// An input refused before anything decoded has no reading to state.
	if haveStats && (in.Error == "" || in.Lines > 0 || in.Events > 0) {
		var skipped []string
		if in.Blank > 0 {
			skipped = append(skipped, count(in.Blank, "blank line", "blank lines"))
		}
		if in.Malformed > 0 {
			skipped = append(skipped, count(in.Malformed, "malformed", "malformed"))
		}
		unknown := sumCounts(in.UnknownTypes)
		if unknown > 0 {
			skipped = append(skipped, count(unknown, "event of an unknown type", "events of unknown types"))
		}
		var s string
		switch {
		case in.Format == string(recording.FormatEmpty):
			s = "The input is empty: no line, no event"
		case in.Format == string(recording.FormatNDJSON):
			s = fmt.Sprintf("Read %s as %s", count(in.Lines, "line", "lines"), count(in.Events, "event", "events"))
		case in.Error != "":
			s = fmt.Sprintf("Read %s of %s document, holding %s, before it stopped", count(in.Lines, "line", "lines"), withArticle(displayFormat(in.Format)), count(in.Events, "event", "events"))
		default:
			s = fmt.Sprintf("Read %s document of %s holding %s", withArticle(displayFormat(in.Format)), count(in.Lines, "line", "lines"), count(in.Events, "event", "events"))
		}
		switch {
		case len(skipped) > 0:
			s += ": " + strings.Join(skipped, ", ") + "."
		case in.TruncatedTail || in.Format == string(recording.FormatEmpty) || in.Error != "":
			// An input that stopped was not read past the stop: what
			// followed is not "nothing skipped".
			s += "."
		default:
			s += "; nothing was skipped."
		}
		notes = append(notes, s)
		if in.Producer != "" {
			notes = append(notes, producerNote(in.Producer))
		}
		if len(in.Problems) > 0 {
			notes = append(notes, "Problems: "+problemList(in.Problems)+".")
		}
		if unknown > 0 {
			notes = append(notes, "Event types this build does not read, kept and passed over: "+countList(in.UnknownTypes)+".")
		}
		if len(in.WrongTypes) > 0 {
			notes = append(notes, "Fields of the wrong JSON type, read as not recorded: "+countList(in.WrongTypes)+".")
		}
	}
	if in.TruncatedTail {
		notes = append(notes, "⚠ The last line was cut off mid-write (no newline, does not decode): the last events of a run, often its ledger, may be lost.")
	}
	if in.NoEventsKey {
		notes = append(notes, "⚠ The recording has no events key at all: a snapshot saved without its event tail.")
	}
	if d := in.DroppedEvents; d != nil {
		if *d > 0 {
			notes = append(notes, fmt.Sprintf("⚠ The producer states %s dropped from the head of the stream: the run_configured manifest, and findings filed early, are the first casualties.", count(*d, "event was", "events were")))
		} else {
			notes = append(notes, "The producer states no event was dropped.")
		}
	}
	if c := in.Complete; c != nil && !*c {
		notes = append(notes, "⚠ The producer marks this recording incomplete (complete: false): a partial run by its own statement.")
	}
	if n := len(in.HeadMissing); n > 0 {
		notes = append(notes, fmt.Sprintf("⚠ %s without its head (%s): the run_configured manifest, and any finding filed before the cut, may have been lost.",
			count(n, "run starts", "runs start"), nameList(in.HeadMissing, 6)))
	}
	switch {
	case in.Error != "":
	case in.noTail():
		notes = append(notes, noTailNote)
	case in.RunCount == 0:
		notes = append(notes, "⚠ No run of this input is judged: "+noRunJudged(in)+". Not a clean run.")
	default:
		notes = append(notes, count(in.RunCount, "run", "runs")+".")
	}
	return notes
}

// noTailNote is what every format says of an input read whole that holds
// no run.
const noTailNote = "⚠ No run in this input: no event tail to judge (no-tail). No evidence, not a clean run."

// noRunJudged words why an input that had runs has none judged: they were
// stopped at a limit or lost whole.
func noRunJudged(in *Input) string {
	var parts []string
	if n := len(in.StoppedRuns); n > 0 {
		parts = append(parts, count(n, "run was stopped at a limit", "runs were stopped at a limit"))
	}
	lost := map[string]bool{}
	for _, l := range in.LostRuns {
		lost[l.RunID] = true
	}
	if n := len(lost); n > 0 {
		parts = append(parts, count(n, "run was lost whole", "runs were lost whole"))
	}
	return strings.Join(parts, " and ")
}

// withArticle puts "a" or "an" before a format name.
func withArticle(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}

func displayFormat(f string) string {
	if f == "" {
		return "recording"
	}
	return f
}

// problemList quotes the first located problems.
func problemList(ps []recording.Problem) string {
	if len(ps) == 0 {
		return ""
	}
	const shown = 3
	var parts []string
	for i, p := range ps {
		if i == shown {
			break
		}
		if p.Line > 0 {
			parts = append(parts, fmt.Sprintf("line %d: %s", p.Line, p.Message))
		} else {
			parts = append(parts, p.Message)
		}
	}
	s := strings.Join(parts, "; ")
	if len(ps) > shown {
		s += fmt.Sprintf("; %d more", len(ps)-shown)
	}
	return s
}

func sumCounts(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// countList renders a name → count map as "a ×2, b ×1", names sorted.
func countList(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// runNotes words everything about a run beyond its headline.
func runNotes(run *Run) []string {
	notes := excusedNotes(run.Excused)
	rec := run.Recorded
	if run.CheckerDead != "" {
		notes = append(notes, "⚠ Dead checker (dev posture): "+run.CheckerDead+" Every green about that check is decoration, so the run counts as unmeasured.")
	}
	if run.Damaged() && run.HeadlineKind != HeadlineDamaged {
		notes = append(notes, "⚠ Evidence damaged: "+damageText(run)+".")
	}
	if len(run.Copies) > 0 {
		notes = append(notes, copyNote(run))
	}
	if len(run.Conflicts) > 0 {
		notes = append(notes, conflictNote(run))
	}
	// The inputs that share no event with this run hold other parts of it.
	var split []string
	for _, in := range run.AlsoIn {
		if !slices.ContainsFunc(run.Conflicts, func(c RunConflict) bool { return c.Input == in }) {
			split = append(split, in)
		}
	}
	if len(split) > 0 || run.AlsoInMore > 0 {
		where := strings.Join(split, ", ")
		if run.AlsoInMore > 0 {
			more := count(run.AlsoInMore, "more input", "more inputs")
			if where == "" {
				where = more
			} else {
				where += " and " + more
			}
		}
		notes = append(notes, fmt.Sprintf("⚠ Events of this run id also appear in %s: the run is split across inputs, and each part is judged on its own.", where))
	}
	if rec.Synthetic > 0 {
		notes = append(notes, fmt.Sprintf("%s quarantined: listed with a SYNTHETIC mark and never counted. A canary proves a check still catches its own defect; it is not a defect of this run.",
			count(rec.Synthetic, "synthetic canary finding", "synthetic canary findings")))
	}
	if rec.Reconcile {
		s := fmt.Sprintf("The ledger counts %s; the events carry %s. Rows count every encounter, while a defect re-detected on later passes is filed once.",
			count(rec.RowFindings, "failing encounter", "failing encounters"), count(rec.Defects, "distinct defect", "distinct defects"))
		if run.HeadMissing {
			s += " With the run's head missing, part of the difference may also be findings lost with it."
		}
		notes = append(notes, s)
	}
	if rec.EvidenceMissing && run.HeadlineKind != HeadlineEvidenceMissing {
		notes = append(notes, fmt.Sprintf("⚠ Evidence missing on the recorded side: the ledger counts %s and the events carry none of them.",
			count(rec.RowFindings, "failing encounter", "failing encounters")))
	}
	if rec.Dispositions > 1 {
		notes = append(notes, fmt.Sprintf("This run carries %d disposition ledgers; only the last one is read.", rec.Dispositions))
	}
	if rp := run.Replayed; rp != nil {
		notes = append(notes, fmt.Sprintf("Replay: %s, %s; coverage %s.",
			count(rp.Defects, "defect", "defects"), count(rp.Advisories, "advisory", "advisories"), rp.Coverage))
		if run.Drift > 0 {
			notes = append(notes, fmt.Sprintf("⚠ %s: the live run and the replay judged the same run differently.", count(run.Drift, "finding drifts", "findings drift")))
		}
	}
	return notes
}

// producerNote says which agentfootprint release wrote an input, as the
// input states it. The version is the recording's own text, so anything
// not shaped like a version is quoted rather than shown as one.
func producerNote(v string) string {
	if v == "unknown" {
		return "Written by agentfootprint of a version its producer could not read (the envelope says \"unknown\")."
	}
	if len(v) <= 40 && strings.IndexFunc(v, func(r rune) bool {
		return !(r == '.' || r == '-' || r == '+' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
	}) < 0 {
		return "Written by agentfootprint " + v + ", as the envelope states."
	}
	if len(v) > 40 {
		v = v[:40] + "…"
	}
	return fmt.Sprintf("Written by agentfootprint of a version the envelope gives as %q.", v)
}

// maxExcusedNotes bounds the excusals a run's notes spell out.
const maxExcusedNotes = 5

// excusedNotes states each argument the replay passed over because the
// recording excuses it, so that a pass owed to the app's word is never
// read as a pass owed to the evidence.
func excusedNotes(excused []string) []string {
	var notes []string
	for i, x := range excused {
		if i == maxExcusedNotes {
			notes = append(notes, fmt.Sprintf("Excused: %s more, each an argument the app verified.", count(int64(len(excused)-i), "argument", "arguments")))
			break
		}
		notes = append(notes, "Excused: "+x+".")
	}
	return notes
}

// weakened reports whether a side's silence weakens its verdict: a check
// that could not see its input, or one that never ran. A check out of
// scope by rule weakens nothing.
func weakened(s *Side) bool {
	if len(s.NeverRan) > 0 || s.EvidenceMissing {
		return true
	}
	for _, r := range s.Rows {
		if r.Checked <= 0 && r.Unreachable > 0 {
			return true
		}
	}
	return false
}

// unreadableSentence words an input's read error and what of the input is
// judged all the same: every format says it so, and none can say nothing was
// judged beside the runs it judged.
func unreadableSentence(in *Input) string {
	if in.RunCount > 0 {
		return "Unreadable past a point: " + in.Error + ". " + judgedDespite(in)
	}
	return "Unreadable: " + in.Error + ". " + judgedDespite(in)
}

// judgedDespite is what of an unreadable input is judged: the runs read
// before its error, or nothing.
func judgedDespite(in *Input) string {
	switch in.RunCount {
	case 0:
		return "Nothing from this input is judged."
	case 1:
		return "The 1 run read before it is judged; nothing after it is."
	}
	return fmt.Sprintf("The %d runs read before it are judged; nothing after it is.", in.RunCount)
}

// stoppedRunText words a run let go at a limit of its own, for every
// format that states it.
func stoppedRunText(sr recording.StoppedRun) string {
	return fmt.Sprintf("Run stopped at a limit: %s. The run is not judged; the input's other runs were read on and are judged.", sr.Message)
}
