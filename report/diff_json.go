package report

import (
	"io"
)

// The diff's JSON document, documented in docs/json-schema.md ("diff");
// keep the two in step. As with the report, every key is always present and
// an absent fact is null.

type jsonDiff struct {
	SchemaVersion int              `json:"schemaVersion"`
	Report        string           `json:"report"`
	Base          string           `json:"base"`
	Head          string           `json:"head"`
	Inputs        []jsonInputDiff  `json:"inputs"`
	Totals        jsonDiffTotals   `json:"totals"`
	Regressions   []jsonRegression `json:"regressions"`
	Options       jsonDiffOptions  `json:"options"`
	Baseline      *jsonBaseline    `json:"baseline"`
	Bound         string           `json:"bound"`
	ExitCode      int              `json:"exitCode"`
}

type jsonDiffOptions struct {
	FailOn          string `json:"failOn"`
	AllowUnmeasured bool   `json:"allowUnmeasured"`
}

type jsonDiffTotals struct {
	NewDefects           int `json:"newDefects"`
	ResolvedDefects      int `json:"resolvedDefects"`
	PersistingDefects    int `json:"persistingDefects"`
	NewAdvisories        int `json:"newAdvisories"`
	ResolvedAdvisories   int `json:"resolvedAdvisories"`
	PersistingAdvisories int `json:"persistingAdvisories"`
	Baselined            int `json:"baselined"`
	Failing              int `json:"failing"`
	Regressions          int `json:"regressions"`
	HeadUnmeasured       int `json:"headUnmeasured"`
	Unreadable           int `json:"unreadable"`
	Stopped              int `json:"stopped"`
	DeclaredUnseen       int `json:"declaredUnseen"`
	BaseRuns             int `json:"baseRuns"`
	HeadRuns             int `json:"headRuns"`
	Matched              int `json:"matched"`
	Unmatched            int `json:"unmatched"`
	BaseOnly             int `json:"baseOnly"`
	HeadOnly             int `json:"headOnly"`
}

// jsonScenario is one scenario's summary, as SARIF's properties carry it.
type jsonScenario struct {
	Name     string         `json:"name"`
	ExitCode int            `json:"exitCode"`
	Totals   jsonDiffTotals `json:"totals"`
}

func jsonDiffTotalsOf(t DiffTotals) jsonDiffTotals {
	return jsonDiffTotals{
		NewDefects: t.NewDefects, ResolvedDefects: t.ResolvedDefects, PersistingDefects: t.PersistingDefects,
		NewAdvisories: t.NewAdvisories, ResolvedAdvisories: t.ResolvedAdvisories, PersistingAdvisories: t.PersistingAdvisories,
		Baselined: t.Baselined, Failing: t.Failing, Regressions: t.Regressions, HeadUnmeasured: t.HeadUnmeasured, Unreadable: t.Unreadable, Stopped: t.Stopped, DeclaredUnseen: t.DeclaredUnseen,
		BaseRuns: t.BaseRuns, HeadRuns: t.HeadRuns, Matched: t.Matched, Unmatched: t.Unmatched, BaseOnly: t.BaseOnly, HeadOnly: t.HeadOnly,
	}
}

type jsonInputDiff struct {
	Name        string           `json:"name"`
	Base        *string          `json:"base"`
	Head        *string          `json:"head"`
	BaseError   *string          `json:"baseError"`
	HeadError   *string          `json:"headError"`
	Runs        []jsonRunDiff    `json:"runs"`
	Regressions []jsonRegression `json:"regressions"`
	// Totals and ExitCode are the scenario's alone.
	Totals   jsonDiffTotals `json:"totals"`
	ExitCode int            `json:"exitCode"`
}

type jsonRunDiff struct {
	Position          int                 `json:"position"`
	MatchedBy         string              `json:"matchedBy"`
	Base              *jsonRunRef         `json:"base"`
	Head              *jsonRunRef         `json:"head"`
	Findings          []jsonFindingChange `json:"findings"`
	Coverage          []jsonCoverage      `json:"coverage"`
	Checks            []jsonCheckChange   `json:"checks"`
	Regressions       []jsonRegression    `json:"regressions"`
	HeadUnmeasured    bool                `json:"headUnmeasured"`
	HeadUnmeasuredWhy *string             `json:"headUnmeasuredWhy"`
	Unmatched         bool                `json:"unmatched"`
	UnmatchedWhy      *string             `json:"unmatchedWhy"`
}

type jsonRunRef struct {
	Input            string    `json:"input"`
	RunID            string    `json:"runId"`
	PromptKey        *string   `json:"promptKey"`
	Verdict          Verdict   `json:"verdict"`
	Coverage         Coverage  `json:"coverage"`
	ReplayedCoverage *Coverage `json:"replayedCoverage"`
	Defects          int       `json:"defects"`
	Advisories       int       `json:"advisories"`
}

type jsonFindingChange struct {
	Change      string        `json:"change"`
	Fails       bool          `json:"fails"`
	Kind        string        `json:"kind"`
	Seam        string        `json:"seam"`
	Subjects    []jsonSubject `json:"subjects"`
	Predicate   *string       `json:"predicate"`
	Advisory    bool          `json:"advisory"`
	Identity    string        `json:"identity"`
	Fingerprint string        `json:"fingerprint"`
	Message     string        `json:"message"`
	Iteration   *int64        `json:"iteration"`
	Line        *int64        `json:"line"`
	Source      string        `json:"source"`
	Baseline    *jsonMark     `json:"baseline"`
}

type jsonCoverage struct {
	Side  string   `json:"side"`
	Base  Coverage `json:"base"`
	Head  Coverage `json:"head"`
	Worse bool     `json:"worse"`
}

type jsonRowCounts struct {
	Checked       int64 `json:"checked"`
	Findings      int64 `json:"findings"`
	NotApplicable int64 `json:"notApplicable"`
	Unreachable   int64 `json:"unreachable"`
}

type jsonCheckChange struct {
	Side       string         `json:"side"`
	Check      string         `json:"check"`
	Seam       string         `json:"seam"`
	Change     string         `json:"change"`
	Regression bool           `json:"regression"`
	Base       *jsonRowCounts `json:"base"`
	Head       *jsonRowCounts `json:"head"`
	Sentence   string         `json:"sentence"`
}

type jsonRegression struct {
	Kind     string  `json:"kind"`
	Check    *string `json:"check"`
	Side     *string `json:"side"`
	Sentence string  `json:"sentence"`
}

// RenderDiffJSON writes the diff as versioned JSON ("report": "diff"):
// deterministic bytes, two-space indent, no HTML escaping, a final newline.
func RenderDiffJSON(w io.Writer, d *Diff) error {
	return encodeJSON(w, jsonDiffOf(d))
}

// jsonDiffOf is the diff's JSON document.
func jsonDiffOf(d *Diff) jsonDiff {
	out := jsonDiff{
		SchemaVersion: d.SchemaVersion,
		Report:        "diff",
		Base:          d.BaseName,
		Head:          d.HeadName,
		Inputs:        []jsonInputDiff{},
		Regressions:   jsonRegressions(d.allRegressions()),
		Options:       jsonDiffOptions{FailOn: d.Options.failOn(), AllowUnmeasured: d.Options.AllowUnmeasured},
		Baseline:      jsonBaselineOf(d.Head.Baseline),
		Bound:         DiffBound,
		ExitCode:      d.ExitCode(),
	}
	out.Totals = jsonDiffTotalsOf(d.Totals)
	for _, in := range d.Inputs {
		ji := jsonInputDiff{Name: in.Name, Runs: []jsonRunDiff{}, Regressions: jsonRegressions(in.Regressions),
			Totals: jsonDiffTotalsOf(in.Totals), ExitCode: in.ExitCode(d.Options)}
		if in.Base != nil {
			ji.Base, ji.BaseError = &in.Base.Path, nullString(in.Base.Error)
		}
		if in.Head != nil {
			ji.Head, ji.HeadError = &in.Head.Path, nullString(in.Head.Error)
		}
		for i := range in.Runs {
			ji.Runs = append(ji.Runs, jsonRunDiffOf(&in.Runs[i]))
		}
		out.Inputs = append(out.Inputs, ji)
	}
	return out
}

func jsonRunDiffOf(rd *RunDiff) jsonRunDiff {
	jr := jsonRunDiff{
		Position:          rd.Position,
		MatchedBy:         rd.MatchedBy,
		Base:              jsonRunRefOf(rd.Base),
		Head:              jsonRunRefOf(rd.Head),
		Findings:          []jsonFindingChange{},
		Coverage:          []jsonCoverage{},
		Checks:            []jsonCheckChange{},
		Regressions:       jsonRegressions(rd.Regressions),
		HeadUnmeasured:    rd.HeadUnmeasured,
		HeadUnmeasuredWhy: nullString(rd.HeadUnmeasuredWhy),
		Unmatched:         rd.Unmatched,
		UnmatchedWhy:      nullString(rd.UnmatchedWhy),
	}
	for _, fc := range rd.Findings {
		f := fc.Finding
		jf := jsonFindingChange{
			Change: fc.Change, Fails: fc.Fails, Kind: f.Kind, Seam: f.Seam, Subjects: []jsonSubject{},
			Predicate: nullString(f.Predicate), Advisory: f.Advisory, Identity: f.Identity, Fingerprint: Fingerprint(f.Identity),
			Message: f.Message, Iteration: f.Iteration, Source: f.Source, Baseline: jsonMarkOf(f.Baseline),
		}
		if f.Line > 0 {
			line := f.Line
			jf.Line = &line
		}
		for _, s := range f.Subjects {
			jf.Subjects = append(jf.Subjects, jsonSubject{Kind: s.Kind, ID: s.ID})
		}
		jr.Findings = append(jr.Findings, jf)
	}
	for _, c := range rd.Coverage {
		jr.Coverage = append(jr.Coverage, jsonCoverage{Side: c.Side, Base: c.Base, Head: c.Head, Worse: c.Worse})
	}
	for _, c := range rd.Checks {
		jr.Checks = append(jr.Checks, jsonCheckChange{Side: c.Side, Check: c.Kind, Seam: c.Seam, Change: c.Change, Regression: c.Regression,
			Base: jsonRowCountsOf(c.Base), Head: jsonRowCountsOf(c.Head), Sentence: c.Sentence})
	}
	return jr
}

func jsonRunRefOf(r *Run) *jsonRunRef {
	if r == nil {
		return nil
	}
	ref := &jsonRunRef{Input: r.Input, RunID: r.RunID, PromptKey: nullString(r.PromptKey), Verdict: r.Verdict, Coverage: r.Recorded.Coverage, Defects: r.Defects, Advisories: r.Advisories}
	if r.Replayed != nil {
		c := r.Replayed.Coverage
		ref.ReplayedCoverage = &c
	}
	return ref
}

func jsonRowCountsOf(r *Row) *jsonRowCounts {
	if r == nil {
		return nil
	}
	return &jsonRowCounts{Checked: r.Checked, Findings: r.Findings, NotApplicable: r.NotApplicable, Unreachable: r.Unreachable}
}

func jsonRegressions(rs []Regression) []jsonRegression {
	out := []jsonRegression{}
	for _, r := range rs {
		out = append(out, jsonRegression{Kind: r.Kind, Check: nullString(r.Check), Side: nullString(r.Side), Sentence: r.Sentence})
	}
	return out
}
