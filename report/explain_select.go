package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// FindingAt is one listed finding of a report: its run and its place in
// the run's listing.
type FindingAt struct {
	Run     int // index into Report.Runs
	Finding int // index into the run's Findings
}

// minFingerprint is the shortest fingerprint prefix explain accepts.
const minFingerprint = 8

// SelectFinding finds a listed finding by what a reader copied from a
// report: its number in the run's listing (with runID naming the run, or a
// report of one run with findings), its identity, or its SARIF fingerprint
// or a prefix of it of at least 8 hex digits. runID, when not empty,
// narrows the search to that run. An answer that is not exactly one
// finding is a UsageError naming why.
func (r *Report) SelectFinding(runID, ref string) (FindingAt, error) {
	runs, err := r.runsNamed(runID)
	if err != nil {
		return FindingAt{}, err
	}
	// A number is shorter than any fingerprint explain accepts.
	if n, err := strconv.Atoi(ref); err == nil && len(ref) < minFingerprint && !strings.HasPrefix(ref, "+") && !strings.HasPrefix(ref, "-") {
		var withFindings []int
		for _, i := range runs {
			if len(r.Runs[i].Findings) > 0 {
				withFindings = append(withFindings, i)
			}
		}
		switch {
		case len(withFindings) == 0:
			return FindingAt{}, &UsageError{Msg: "no run of this recording lists a finding, so there is no finding " + Sanitize(ref) + " to explain"}
		case len(withFindings) > 1:
			return FindingAt{}, &UsageError{Msg: fmt.Sprintf("finding %s: %d runs list findings; name the run with --run (one of: %s), or give the finding's fingerprint",
				Sanitize(ref), len(withFindings), r.runIDList(withFindings))}
		}
		run := &r.Runs[withFindings[0]]
		if n < 1 || n > len(run.Findings) {
			return FindingAt{}, &UsageError{Msg: fmt.Sprintf("run %s lists %s; there is no finding %d", Sanitize(run.RunID), count(len(run.Findings), "finding", "findings"), n)}
		}
		return FindingAt{Run: withFindings[0], Finding: n - 1}, nil
	}
	var hits []FindingAt
	hexRef := strings.ToLower(ref)
	byPrint := len(hexRef) >= minFingerprint && isHex(hexRef)
	for _, i := range runs {
		for j, f := range r.Runs[i].Findings {
			if f.Identity == ref || byPrint && strings.HasPrefix(Fingerprint(f.Identity), hexRef) {
				hits = append(hits, FindingAt{Run: i, Finding: j})
			}
		}
	}
	switch {
	case len(hits) == 1:
		return hits[0], nil
	case len(hits) > 1:
		var ids []int
		for _, h := range hits {
			ids = append(ids, h.Run)
		}
		return FindingAt{}, &UsageError{Msg: fmt.Sprintf("%s names %d listed findings (the same identity in several runs, or a short fingerprint); name the run with --run (one of: %s)",
			Sanitize(ref), len(hits), r.runIDList(ids))}
	}
	if !byPrint && isHex(hexRef) && len(hexRef) < minFingerprint {
		return FindingAt{}, &UsageError{Msg: fmt.Sprintf("%s is too short for a fingerprint: give at least %d hex digits", Sanitize(ref), minFingerprint)}
	}
	return FindingAt{}, &UsageError{Msg: fmt.Sprintf("no listed finding is %s: give its number in the report, its identity, or its fingerprint (run explain without a finding to list them)", Sanitize(ref))}
}

// runsNamed are the report's runs with the given id, or all of them.
func (r *Report) runsNamed(runID string) ([]int, error) {
	var out []int
	for i := range r.Runs {
		if runID == "" || r.Runs[i].RunID == runID {
			out = append(out, i)
		}
	}
	if len(out) == 0 && runID != "" {
		var all []int
		for i := range r.Runs {
			all = append(all, i)
		}
		return nil, &UsageError{Msg: fmt.Sprintf("no run %s in this recording; its runs: %s", ShellWord(runID), r.runIDList(all))}
	}
	return out, nil
}

// runIDList names runs as --run takes them (ShellWord): two ids a terminal
// would show alike, one with a control character and one with its escape
// typed out, read apart.
func (r *Report) runIDList(idx []int) string {
	var ids []string
	for _, i := range idx {
		id := "(no run id)"
		if r.Runs[i].RunID != "" {
			id = ShellWord(r.Runs[i].RunID)
		}
		if !containsString(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return "(none)"
	}
	return strings.Join(ids, ", ")
}

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return s != ""
}

// RenderFindingList writes every listed finding of the report's runs (or
// of one run) with the command that explains it: what explain shows when
// it is given no finding.
func RenderFindingList(w io.Writer, r *Report, runID string, o TextOptions) error {
	t := newTextWriter(w, o)
	runs, err := r.runsNamed(runID)
	if err != nil {
		return err
	}
	n := 0
	for _, i := range runs {
		run := &r.Runs[i]
		if len(run.Findings) == 0 {
			continue
		}
		if n > 0 {
			t.blank()
		}
		t.line(0, styleBold, "RUN "+orNone(run.RunID)+" · "+displayPath(run.Input))
		for j, f := range run.Findings {
			n++
			t.hang(2, 6, stylePlain, fmt.Sprintf("[%d] %s @%s — %s", j+1, orUnrecorded(f.Kind), orUnrecorded(f.Seam), Shorten(orText(f.Message, "(no message recorded)"), 100)))
			t.command(6, "", r.ExplainArgs(run, j))
		}
	}
	if n == 0 {
		t.line(0, stylePlain, "No run of this recording lists a finding: there is nothing to explain. (`fpcheck analyze` says whether that is a bounded green or an absence of evidence.)")
	}
	return t.err
}
