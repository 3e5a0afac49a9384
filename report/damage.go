package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

// damageOrder is the order a run's damage is stated in: what the reader
// saw first, then what the producer says, then what the replay found.
var damageOrder = []DamageCause{DamageMalformed, DamageCutOff, DamageUnread, DamageDropped, DamageIncomplete, DamageCappedHead, DamageUnusable, DamageLedgerCount, DamageLostFinding}

// sortDamage puts damage in cause order, keeping the order of one cause's
// entries; nil stays nil.
func sortDamage(ds []Damage) []Damage {
	if len(ds) == 0 {
		return nil
	}
	out := slices.Clone(ds)
	slices.SortStableFunc(out, func(a, b Damage) int {
		return cmp.Compare(slices.Index(damageOrder, a.Cause), slices.Index(damageOrder, b.Cause))
	})
	return out
}

// inputDamage is the damage an input's loss accounting charges to one of
// its runs: the lost lines that name the run, the lost lines that name no
// run (they may be anyone's), and what the producer states about the whole
// recording. Lines naming another run of the input are that run's alone.
func inputDamage(st *recording.Stats, rr RunResult) []Damage {
	var out []Damage
	if st != nil {
		for _, l := range st.Losses {
			if l.RunID != "" && l.RunID != rr.RunID {
				continue
			}
			cause, lost := DamageMalformed, l.Count
			switch l.Kind {
			case "cut off":
				cause = DamageCutOff
			case "unread":
				// What the input held past the stop is not known.
				cause, lost = DamageUnread, 0
			}
			out = append(out, Damage{Cause: cause, Lost: lost, Lines: slices.Clone(l.Lines), Charged: l.RunID != ""})
		}
		// Malformed lines the losses do not account for (a reader that
		// counts without locating) may be anyone's.
		var located int64
		for _, l := range st.Losses {
			if l.Kind == "malformed" {
				located += l.Count
			}
		}
		if rest := st.Malformed - located; rest > 0 {
			out = append(out, Damage{Cause: DamageMalformed, Lost: rest})
		}
		// A document stopped by a read error is an unreadable input, exit
		// 2 already; its cut-off is not counted twice.
		if st.TruncatedTail && !slices.ContainsFunc(st.Losses, func(l recording.Loss) bool { return l.Kind == "cut off" }) {
			out = append(out, Damage{Cause: DamageCutOff})
		}
		if d := st.DroppedEvents; d != nil && *d > 0 {
			out = append(out, Damage{Cause: DamageDropped, Lost: *d})
		}
		if c := st.Complete; c != nil && !*c {
			out = append(out, Damage{Cause: DamageIncomplete})
		}
		if f := st.FirstRetainedEventIndex; f != nil && *f > 0 {
			out = append(out, Damage{Cause: DamageCappedHead, Lost: *f, Detail: "first-retained"})
		}
		for _, u := range st.Unusable {
			d := Damage{Cause: DamageUnusable, Detail: u.Field + " " + u.Problem}
			if u.Line > 0 {
				d.Lines = []int64{u.Line}
			}
			out = append(out, d)
		}
	}
	if rr.HeadMissing && !slices.ContainsFunc(out, func(d Damage) bool { return d.Cause == DamageCappedHead }) {
		out = append(out, Damage{Cause: DamageCappedHead, Charged: true})
	}
	return out
}

// ledgerDamage is the damage the recorded ledger itself carries: counts
// that are no counts and repeated keys (replay.LedgerDamage), each charged
// to the run at the disposition's line. A ledger read leniently would have
// taken them for 0, and a lost finding for none.
func ledgerDamage(ev *replay.Evidence) []Damage {
	if ev == nil || ev.Disposition == nil {
		return nil
	}
	var out []Damage
	for _, d := range ev.Disposition.Damage {
		dm := Damage{Cause: DamageLedgerCount, Charged: true, Detail: d.Field + " " + d.Problem}
		if d.Line > 0 {
			dm.Lines = []int64{d.Line}
		}
		out = append(out, dm)
	}
	return out
}

// lostRuns are the losses naming a run id of which the input holds no
// event: a run lost whole, which no run of the report can carry.
func lostRuns(st *recording.Stats, ids map[string]bool) []recording.Loss {
	if st == nil {
		return nil
	}
	var out []recording.Loss
	for _, l := range st.Losses {
		if l.RunID != "" && !ids[l.RunID] {
			out = append(out, l)
		}
	}
	return out
}

func lostRunsNote(ls []recording.Loss) string {
	var parts []string
	var n int64
	for _, l := range ls {
		n += l.Count
		parts = append(parts, fmt.Sprintf("%s (%s)", l.RunID, lineList(l.Lines, l.Count)))
	}
	return fmt.Sprintf("⚠ Evidence damaged: %s that did not decode %s a run of which no event was read: %s. A run lost whole cannot be judged; the input counts as unmeasured.",
		count(n, "line", "lines"), nameOrNames(len(ls)), strings.Join(parts, ", "))
}

func nameOrNames(n int) string {
	if n == 1 {
		return "names"
	}
	return "name"
}

// lineList words the positions of a loss: "line 7", "lines 7, 9 and 3
// more".
func lineList(lines []int64, total int64) string {
	if len(lines) == 0 {
		return "not located"
	}
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = fmt.Sprint(l)
	}
	s := "line " + parts[0]
	if len(parts) > 1 {
		s = "lines " + strings.Join(parts, ", ")
	}
	if more := total - int64(len(lines)); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// damagePhrase words one cause of damage as a clause.
func damagePhrase(d Damage) string {
	switch d.Cause {
	case DamageMalformed:
		whose := "naming no run, so possibly this run's"
		if d.Charged {
			whose = "naming this run"
		}
		return fmt.Sprintf("%s did not decode (%s), %s", count(d.Lost, "line", "lines"), lineList(d.Lines, d.Lost), whose)
	case DamageCutOff:
		if len(d.Lines) > 0 {
			return fmt.Sprintf("the last line (%s) was cut off mid-write", lineList(d.Lines, d.Lost))
		}
		return "the input was cut off mid-write"
	case DamageUnread:
		if len(d.Lines) > 0 {
			return fmt.Sprintf("the input could not be read past %s, before this run was read whole", lineList(d.Lines, int64(len(d.Lines))))
		}
		return "the input could not be read to its end, before this run was read whole"
	case DamageDropped:
		return fmt.Sprintf("the producer states %s dropped from the head of the stream", count(d.Lost, "event was", "events were"))
	case DamageIncomplete:
		return "the producer marks the recording incomplete (complete: false)"
	case DamageCappedHead:
		if d.Lost > 0 {
			return fmt.Sprintf("the recording starts at stream event #%d: %s before it %s not kept", d.Lost, count(d.Lost, "event", "events"), wasWere(d.Lost))
		}
		return "the run starts without its head (its first event is neither run_configured nor turn_start): the run_configured manifest, and any finding filed before the cut, may have been lost"
	case DamageUnusable:
		s := "a statement of the producer about what the run lost cannot be read"
		if len(d.Lines) > 0 {
			s += " (" + lineList(d.Lines, int64(len(d.Lines))) + ")"
		}
		return s + ": " + d.Detail
	case DamageLedgerCount:
		s := "a ledger count is unusable"
		if len(d.Lines) > 0 {
			s += " (" + lineList(d.Lines, int64(len(d.Lines))) + ")"
		}
		if d.Detail != "" {
			s += ": " + d.Detail
		}
		return s
	case DamageLostFinding:
		return d.Detail
	}
	return string(d.Cause)
}

func wasWere(n int64) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

// damageText words all of a run's damage in one clause list.
func damageText(run *Run) string {
	parts := make([]string, len(run.Damage))
	for i, d := range run.Damage {
		parts[i] = damagePhrase(d)
	}
	return strings.Join(parts, "; ")
}

// damageHeadline words a damaged run that would otherwise read as a green:
// the damage first, then what survived, which is no longer a green.
func damageHeadline(run *Run, survived string) string {
	return fmt.Sprintf("⚠ EVIDENCE DAMAGED — %s. Lost lines could have held this run's only finding, so what survived is not a bounded green. What survived says: %s",
		damageText(run), survived)
}

// damageLine is where an annotation about a damaged run points: the first
// lost line, or else def.
func damageLine(run *Run, def int64) int64 {
	for _, d := range run.Damage {
		if len(d.Lines) > 0 {
			return d.Lines[0]
		}
	}
	return def
}

// lostRunLine is the first located line of an input's lost runs; 0 when
// none is located.
func lostRunLine(ls []recording.Loss) int64 {
	for _, l := range ls {
		if len(l.Lines) > 0 {
			return l.Lines[0]
		}
	}
	return 0
}
