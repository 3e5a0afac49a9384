package report

import (
	"fmt"
	"io"
	"strings"
)

// DiffRenderer writes a diff in one output format. Like Renderer, it only
// words the model and never changes the exit code.
type DiffRenderer interface {
	RenderDiff(w io.Writer, d *Diff) error
}

// DiffRendererFunc adapts a function to DiffRenderer.
type DiffRendererFunc func(w io.Writer, d *Diff) error

// RenderDiff calls f.
func (f DiffRendererFunc) RenderDiff(w io.Writer, d *Diff) error { return f(w, d) }

// NewDiffRenderer returns the diff renderer for a format name; diff renders
// the same formats as analyze. An unknown name is a UsageError.
func NewDiffRenderer(format string, o RenderOptions) (DiffRenderer, error) {
	switch format {
	case FormatText:
		return DiffRendererFunc(func(w io.Writer, d *Diff) error { return RenderDiffText(w, d, o.Text) }), nil
	case FormatJSON:
		return DiffRendererFunc(RenderDiffJSON), nil
	case FormatJSONL:
		return DiffRendererFunc(RenderDiffJSONL), nil
	case FormatSARIF:
		return DiffRendererFunc(func(w io.Writer, d *Diff) error { return RenderDiffSARIF(w, d, o) }), nil
	case FormatJUnit:
		return DiffRendererFunc(func(w io.Writer, d *Diff) error { return RenderDiffJUnit(w, d, o) }), nil
	case FormatMarkdown:
		return DiffRendererFunc(RenderDiffMarkdown), nil
	case FormatGitHub:
		return DiffRendererFunc(func(w io.Writer, d *Diff) error { return RenderDiffGitHub(w, d, o) }), nil
	case FormatShort:
		return DiffRendererFunc(RenderDiffShort), nil
	}
	return nil, unknownFormat(format)
}

// sarifBaselineState maps a finding change to SARIF's baselineState.
func sarifBaselineState(change string) string {
	switch change {
	case ChangeNew:
		return "new"
	case ChangeResolved:
		return "absent"
	}
	return "unchanged"
}

// RenderDiffSARIF writes the diff as SARIF 2.1.0: the head's findings with
// baselineState "new" or "unchanged", the base's resolved findings as
// "absent", each regression as a result of the coverage-regression rule,
// and notifications for unreadable inputs and an unmeasured head.
func RenderDiffSARIF(w io.Writer, d *Diff, o RenderOptions) error {
	b := newSARIFBuilder(o)
	covRule := b.addRule(sarifRule{
		ID:                   ruleCoverage,
		Name:                 ruleCoverage,
		ShortDescription:     sarifText{Text: "the head's integrity evidence is weaker than the base's"},
		FullDescription:      sarifText{Text: "Between the base and the head recordings a check stopped checking, its ledger row vanished, its unreachable encounters grew, a run's coverage state got worse, evidence went missing, or a run or recording vanished. A head that checks less cannot be compared as clean."},
		Help:                 sarifHelp{Text: DiffBound, Markdown: DiffBound},
		HelpURI:              checksDocURI,
		DefaultConfiguration: sarifConfig{Level: "error"},
		Properties:           map[string]any{"tags": []string{"context-integrity", "coverage"}},
	})
	for i := range d.Inputs {
		in := &d.Inputs[i]
		for _, reg := range in.Regressions {
			b.results = append(b.results, regressionResult(b, covRule, in, nil, reg))
		}
		for j := range in.Runs {
			rd := &in.Runs[j]
			for _, fc := range rd.Findings {
				run := rd.Head
				if fc.Change == ChangeResolved {
					run = rd.Base
				}
				res := b.findingResult(run, fc.Finding)
				res.BaselineState = sarifBaselineState(fc.Change)
				res.Properties["change"] = fc.Change
				res.Properties["fails"] = fc.Fails
				b.results = append(b.results, res)
			}
			for _, reg := range rd.Regressions {
				b.results = append(b.results, regressionResult(b, covRule, in, rd, reg))
			}
			if rd.Unmatched {
				b.notes = append(b.notes, sarifNotification{Level: gateLevel(d, "error", "warning"), Message: sarifText{Text: rd.UnmatchedWhy}, Locations: b.location(rd.run().Input, 0)})
			}
			if rd.HeadUnmeasured {
				line := int64(0)
				if rd.Head.LineNumbers {
					line = rd.Head.FirstLine
				}
				b.notes = append(b.notes, sarifNotification{Level: gateLevel(d, "error", "warning"),
					Message:   sarifText{Text: fmt.Sprintf("Head run %s is unmeasured: %s. No evidence its checks ran.", runLabel(rd.Head), rd.HeadUnmeasuredWhy)},
					Locations: b.location(rd.Head.Input, line)})
			}
		}
		for _, side := range []*Input{in.Base, in.Head} {
			if side != nil && side.Error != "" {
				b.notes = append(b.notes, sarifNotification{Level: "error",
					Message:   sarifText{Text: fmt.Sprintf("Unreadable input %s: %s. Nothing from it was compared.", side.Path, side.Error)},
					Locations: b.location(side.Path, 0)})
			}
		}
		for _, l := range in.losses() {
			level := "error"
			if !l.stopped {
				level = gateLevel(d, "error", "warning")
			}
			b.notes = append(b.notes, sarifNotification{Level: level,
				Message:   sarifText{Text: fmt.Sprintf("The %s %s: %s", l.side, l.path, l.sentence)},
				Locations: b.location(l.path, l.line)})
		}
		if in.Head != nil && in.Head.noTail() {
			b.notes = append(b.notes, sarifNotification{Level: gateLevel(d, "error", "warning"),
				Message:   sarifText{Text: fmt.Sprintf("Unmeasured: the head %s holds no run (no-tail).", in.Head.Path)},
				Locations: b.location(in.Head.Path, 0)})
		}
	}
	code := d.ExitCode()
	t := d.Totals
	props := map[string]any{
		"exitCode": code,
		"bound":    DiffBound,
		"summary": map[string]any{
			"newDefects": t.NewDefects, "resolvedDefects": t.ResolvedDefects, "persistingDefects": t.PersistingDefects,
			"newAdvisories": t.NewAdvisories, "resolvedAdvisories": t.ResolvedAdvisories, "persistingAdvisories": t.PersistingAdvisories,
			"baselined": t.Baselined, "failing": t.Failing, "regressions": t.Regressions, "headUnmeasured": t.HeadUnmeasured, "unreadable": t.Unreadable, "stopped": t.Stopped, "declaredUnseen": t.DeclaredUnseen,
			"baseRuns": t.BaseRuns, "headRuns": t.HeadRuns, "matched": t.Matched, "unmatched": t.Unmatched, "baseOnly": t.BaseOnly, "headOnly": t.HeadOnly,
		},
		"scenarios": sarifScenarios(d),
	}
	return b.write(w, code, t.Unreadable > 0 || t.Stopped > 0, props)
}

// gateLevel is the annotation level of what fails a diff as unmeasured (an
// unmeasured head, runs not compared): failing when it fails the exit
// code, passing when --allow-unmeasured lets it pass. A log that shows a
// notice for what failed the job would read as a pass.
func gateLevel(d *Diff, failing, passing string) string {
	if d.Options.AllowUnmeasured {
		return passing
	}
	return failing
}

// sarifScenarios is the per-scenario summary a SARIF diff carries in its
// invocation's properties: each scenario's name, exit code and totals.
func sarifScenarios(d *Diff) []jsonScenario {
	out := []jsonScenario{}
	for i := range d.Inputs {
		in := &d.Inputs[i]
		out = append(out, jsonScenario{Name: in.Name, ExitCode: in.ExitCode(d.Options), Totals: jsonDiffTotalsOf(in.Totals)})
	}
	return out
}

func regressionResult(b *sarifBuilder, ruleIndex int, in *InputDiff, rd *RunDiff, reg Regression) sarifResult {
	props := map[string]any{"regression": reg.Kind, "input": in.Name}
	key := []string{reg.Kind, reg.Check, reg.Side, in.Name}
	path := in.headInputPath()
	if rd != nil {
		props["position"] = rd.Position
		key = append(key, fmt.Sprint(rd.Position))
		if rd.Head != nil {
			props["runId"] = rd.Head.RunID
		} else if rd.Base != nil {
			props["runId"] = rd.Base.RunID
		}
	}
	if reg.Check != "" {
		props["check"] = reg.Check
	}
	if reg.Side != "" {
		props["side"] = reg.Side
	}
	return sarifResult{
		RuleID:              ruleCoverage,
		RuleIndex:           ruleIndex,
		Level:               "error",
		Message:             sarifText{Text: reg.Sentence},
		Locations:           b.location(path, 0),
		PartialFingerprints: map[string]string{FingerprintKey: Fingerprint(strings.Join(key, "\x00"))},
		BaselineState:       "new",
		Properties:          props,
	}
}

// RenderDiffJUnit writes the diff as JUnit XML: a testsuite per input pair;
// per run pair a testcase per check (failing on a failing finding change
// or a regression of that check, skipped when the head did not measure it)
// and a "coverage" testcase that fails on the run's other regressions.
func RenderDiffJUnit(w io.Writer, d *Diff, o RenderOptions) error {
	suites := junitSuites{Name: "fpcheck diff"}
	rules := o.rules()
	for i := range d.Inputs {
		in := &d.Inputs[i]
		t := in.Totals
		suite := junitSuite{Name: Sanitize(displayPath(in.Name)), Properties: &junitProperties{Property: []junitProperty{
			{Name: "exitCode", Value: fmt.Sprint(in.ExitCode(d.Options))},
			{Name: "summary", Value: Sanitize(in.summaryLine())},
			{Name: "compared", Value: fmt.Sprint(t.Matched)},
			{Name: "notCompared", Value: fmt.Sprint(t.Unmatched)},
		}}}
		for _, side := range []struct {
			label string
			in    *Input
		}{{"base", in.Base}, {"head", in.Head}} {
			if side.in != nil && side.in.Error != "" {
				suite.add(junitCase{Name: "read " + side.label, Classname: Sanitize(side.in.Path), Error: &junitProblem{
					Message: "unreadable input", Type: "unreadable", Text: Sanitize(side.in.Error) + "\n"}})
			}
		}
		if len(in.Regressions) > 0 {
			suite.add(junitCase{Name: "recording", Classname: Sanitize(in.Name), Failure: regressionFailure(in.Regressions)})
		}
		for _, l := range in.losses() {
			c := junitCase{Name: l.kind + " " + l.side, Classname: Sanitize(l.path)}
			switch {
			case l.stopped:
				c.Error = &junitProblem{Message: "run stopped at a limit", Type: "limit", Text: Sanitize(l.sentence) + "\n"}
			case d.Options.AllowUnmeasured:
				c.Skipped = &junitSkipped{Message: Sanitize("unmeasured (allowed): " + l.sentence)}
			default:
				c.Error = &junitProblem{Message: "evidence damaged: a run lost whole", Type: "evidence-damaged", Text: Sanitize(l.sentence) + "\n"}
			}
			suite.add(c)
		}
		if in.Head != nil && in.Head.noTail() {
			suite.add(junitCase{Name: "evidence", Classname: Sanitize(in.Head.Path), Skipped: &junitSkipped{Message: "the head holds no run (no-tail): unmeasured"}})
		}
		for j := range in.Runs {
			for _, c := range junitDiffRunCases(&in.Runs[j], rules) {
				suite.add(c)
			}
		}
		suites.add(suite)
	}
	return suites.write(w)
}

func junitDiffRunCases(rd *RunDiff, rules []Rule) []junitCase {
	class := Sanitize(runPairLabel(rd))
	var out []junitCase
	var runRegs []Regression
	for _, reg := range rd.Regressions {
		if reg.Check == "" {
			runRegs = append(runRegs, reg)
		}
	}
	cov := junitCase{Name: "coverage", Classname: class}
	switch {
	case len(runRegs) > 0:
		cov.Failure = regressionFailure(runRegs)
	case rd.Unmatched:
		cov.Skipped = &junitSkipped{Message: Sanitize(rd.UnmatchedWhy)}
	case rd.HeadUnmeasured:
		cov.Skipped = &junitSkipped{Message: Sanitize("head unmeasured: " + rd.HeadUnmeasuredWhy)}
	}
	out = append(out, cov)
	if rd.Head == nil {
		return out
	}
	for _, k := range rd.checkKeys(rules) {
		kind, seam := k[0], k[1]
		key := rowKey(kind, seam)
		c := junitCase{Name: Sanitize(kind + "@" + seam), Classname: class}
		var failing, other []Finding
		for _, fc := range rd.Findings {
			if fc.Finding.Kind != kind || fc.Finding.Seam != seam {
				continue
			}
			f := fc.Finding
			f.Message = strings.ToUpper(fc.Change) + ": " + f.Message
			if fc.Fails {
				failing = append(failing, f)
			} else {
				other = append(other, f)
			}
		}
		var regs []Regression
		for _, reg := range rd.Regressions {
			if reg.Check == key {
				regs = append(regs, reg)
			}
		}
		switch {
		case len(failing) > 0 || len(regs) > 0:
			p := &junitProblem{Type: "regression", Text: findingLines(failing)}
			var parts []string
			if len(failing) > 0 {
				parts = append(parts, count(len(failing), "failing finding", "failing findings"))
			}
			if len(regs) > 0 {
				parts = append(parts, count(len(regs), "coverage regression", "coverage regressions"))
				for _, reg := range regs {
					p.Text += Sanitize(reg.Sentence) + "\n"
				}
			}
			p.Message = strings.Join(parts, ", ")
			c.Failure = p
		case rd.Unmatched:
			c.Skipped = &junitSkipped{Message: "not compared: the run has no counterpart in the base"}
		default:
			if why, measured := checkMeasured(rd.Head, kind, seam); !measured {
				c.Skipped = &junitSkipped{Message: Sanitize("unmeasured in the head: " + why)}
			}
		}
		if len(other) > 0 {
			c.SystemOut = findingLines(other)
		}
		out = append(out, c)
	}
	return out
}

func regressionFailure(regs []Regression) *junitProblem {
	p := &junitProblem{Type: "regression", Message: count(len(regs), "regression", "regressions")}
	for _, r := range regs {
		p.Text += Sanitize(r.Sentence) + "\n"
	}
	return p
}

// RenderDiffMarkdown writes the diff as GitHub-flavoured markdown: the
// result line, a table per run pair, then the changes of every run pair
// that has any, and the bound.
func RenderDiffMarkdown(w io.Writer, d *Diff) error {
	m := &mdWriter{w: w}
	code := d.ExitCode()
	m.line("## fpcheck diff")
	m.line("")
	m.line(fmt.Sprintf("**%s Exit %d — %s.** Base %s → head %s: %s.", exitMark(code), code, d.Totals.exitMeaning(code),
		MarkdownEscape(displayPath(d.BaseName)), MarkdownEscape(displayPath(d.HeadName)), MarkdownEscape(d.Totals.summaryLine())))
	m.line("")
	if len(d.Inputs) > 1 {
		m.line("| scenario | exit | runs (base → head) | compared | not compared | new | resolved | persisting | regressions |")
		m.line("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
		for i := range d.Inputs {
			in := &d.Inputs[i]
			t := in.Totals
			c := in.ExitCode(d.Options)
			m.line(fmt.Sprintf("| %s | %s %d | %d → %d | %d | %d | %d | %d | %d | %d |", MarkdownEscape(displayPath(in.Name)), exitMark(c), c,
				t.BaseRuns, t.HeadRuns, t.Matched, t.Unmatched, t.NewDefects+t.NewAdvisories, t.ResolvedDefects+t.ResolvedAdvisories,
				t.PersistingDefects+t.PersistingAdvisories, t.Regressions))
		}
		m.line("")
	}
	m.line("| input | run | coverage (base → head) | new | resolved | persisting | regressions | head |")
	m.line("| --- | --- | --- | ---: | ---: | ---: | ---: | --- |")
	for i := range d.Inputs {
		in := &d.Inputs[i]
		name := MarkdownEscape(displayPath(in.Name))
		switch {
		case in.Base != nil && in.Base.Error != "", in.Head != nil && in.Head.Error != "":
			m.line(fmt.Sprintf("| %s | — | — | — | — | — | — | ⛔ unreadable |", name))
		case len(in.Runs) == 0:
			head := "—"
			switch {
			case in.Head != nil && in.Head.noTail():
				head = "⚠️ no run"
			case in.Head != nil:
				head = "⚠️ not judged (" + noRunJudged(in.Head) + ")"
			}
			m.line(fmt.Sprintf("| %s | — | — | — | — | — | %d | %s |", name, len(in.Regressions), head))
		}
		for j := range in.Runs {
			rd := &in.Runs[j]
			n, r, p := 0, 0, 0
			for _, fc := range rd.Findings {
				switch fc.Change {
				case ChangeNew:
					n++
				case ChangeResolved:
					r++
				default:
					p++
				}
			}
			cov := "—"
			if rd.Base != nil && rd.Head != nil {
				cov = fmt.Sprintf("%s → %s", rd.Base.Recorded.Coverage, rd.Head.Recorded.Coverage)
			}
			regs := len(rd.Regressions)
			if j == 0 {
				regs += len(in.Regressions)
			}
			head := "✅ measured"
			switch {
			case rd.Unmatched:
				head = "⚠️ not compared"
			case rd.Head == nil:
				head = "— (base only)"
			case rd.HeadUnmeasured:
				head = "⚠️ unmeasured"
			}
			m.line(fmt.Sprintf("| %s | %s | %s | %d | %d | %d | %d | %s |", name, MarkdownEscape(runPairLabel(rd)), cov, n, r, p, regs, head))
		}
	}
	for i := range d.Inputs {
		in := &d.Inputs[i]
		for _, side := range []*Input{in.Base, in.Head} {
			if side != nil && side.Error != "" {
				m.line("")
				m.line("⛔ Unreadable " + MarkdownEscape(side.Path) + ": " + MarkdownEscape(side.Error))
			}
		}
		for _, l := range in.losses() {
			mark := "⚠️"
			if l.stopped {
				mark = "⛔"
			}
			m.line("")
			m.line(mark + " The " + l.side + " " + MarkdownEscape(l.path) + ": " + MarkdownEscape(l.sentence))
		}
		for _, reg := range in.Regressions {
			m.line("")
			m.line("⚠️ **Regression** — " + MarkdownEscape(reg.Sentence))
		}
		for j := range in.Runs {
			rd := &in.Runs[j]
			if len(rd.Findings) == 0 && len(rd.Regressions) == 0 && !rd.HeadUnmeasured && !rd.Unmatched {
				continue
			}
			m.line("")
			m.line(fmt.Sprintf("### %s · run %d · %s", MarkdownEscape(displayPath(in.Name)), rd.Position, MarkdownEscape(runPairLabel(rd))))
			m.line("")
			for _, fc := range rd.Findings {
				m.line("- " + mdFindingChange(fc))
			}
			for _, reg := range rd.Regressions {
				m.line("- ⚠️ **regression** — " + MarkdownEscape(reg.Sentence))
			}
			if rd.Unmatched {
				m.line("- ⚠️ **not compared** — " + MarkdownEscape(rd.UnmatchedWhy))
			}
			if rd.HeadUnmeasured {
				m.line("- ⚠️ **head unmeasured** — " + MarkdownEscape(rd.HeadUnmeasuredWhy))
			}
		}
	}
	if br := d.Head.Baseline; br != nil {
		head, lines := baselineSentences(br)
		m.line("")
		m.line("### Baseline")
		m.line("")
		m.line(MarkdownEscape(head))
		for _, l := range lines {
			m.line("- " + MarkdownEscape(l))
		}
	}
	m.line("")
	m.line("> " + MarkdownEscape(DiffBound))
	return m.err
}

func mdFindingChange(fc FindingChange) string {
	f := fc.Finding
	mark := map[string]string{ChangeNew: "🆕 new", ChangeResolved: "✔️ resolved", ChangePersisting: "↔️ persisting"}[fc.Change]
	what := "defect"
	if f.Advisory {
		what = "advisory"
	}
	s := fmt.Sprintf("%s %s **%s**", mark, what, MarkdownEscape(orUnrecorded(f.Kind)+" @"+orUnrecorded(f.Seam)))
	if fc.Fails {
		s = "❌ " + s
	}
	msg := f.Message
	if msg == "" {
		msg = "(no message recorded)"
	}
	s += " — " + MarkdownEscape(msg)
	if fc.Change != ChangeResolved {
		if tag := baselineTag(f); tag != "" {
			s += " _" + MarkdownEscape(strings.TrimPrefix(tag, " · ")) + "_"
		}
	}
	return s
}

// RenderDiffGitHub writes the diff as workflow commands: an ::error per
// failing finding change and per regression, a ::warning per new advisory
// that does not fail, a ::notice per resolved finding and per unmeasured
// head run, then a plain closing line.
func RenderDiffGitHub(w io.Writer, d *Diff, o RenderOptions) error {
	var b strings.Builder
	if d.HeadEmpty {
		ghCommand(&b, gateLevel(d, "error", "notice"), "", 0, "fpcheck diff: head unmeasured", Sanitize(d.HeadName+" holds no recording: every file found was skipped."))
	}
	for i := range d.Inputs {
		in := &d.Inputs[i]
		file := Sanitize(displayRel(in.headInputPath(), o.Root))
		for _, side := range []*Input{in.Base, in.Head} {
			if side != nil && side.Error != "" {
				ghCommand(&b, "error", Sanitize(displayRel(side.Path, o.Root)), 0, "fpcheck diff: unreadable input", Sanitize("Unreadable: "+side.Error))
			}
		}
		for _, l := range in.losses() {
			level, title := "error", "fpcheck diff: run stopped at a limit"
			if !l.stopped {
				level, title = gateLevel(d, "error", "notice"), "fpcheck diff: evidence damaged"
			}
			ghCommand(&b, level, Sanitize(displayRel(l.path, o.Root)), l.line, title, Sanitize("The "+l.side+": "+l.sentence))
		}
		for _, reg := range in.Regressions {
			ghCommand(&b, "error", file, 0, "fpcheck diff: regression", Sanitize(reg.Sentence))
		}
		if in.Head != nil && in.Head.noTail() {
			ghCommand(&b, gateLevel(d, "error", "notice"), file, 0, "fpcheck diff: head unmeasured", Sanitize(in.Head.Path+" holds no run (no-tail)."))
		}
		for j := range in.Runs {
			rd := &in.Runs[j]
			for _, fc := range rd.Findings {
				f := fc.Finding
				run := rd.Head
				if fc.Change == ChangeResolved {
					run = rd.Base
				}
				cmd := "notice"
				switch {
				case fc.Fails:
					cmd = "error"
				case fc.Change == ChangeNew && !(f.Baseline != nil && !f.Baseline.Expired):
					cmd = "warning"
				case fc.Change == ChangePersisting:
					continue
				case fc.Change == ChangeNew:
					continue
				}
				what := "defect"
				if f.Advisory {
					what = "advisory"
				}
				title := fmt.Sprintf("fpcheck diff: %s %s %s @%s", fc.Change, what, orUnrecorded(f.Kind), orUnrecorded(f.Seam))
				msg := f.Message
				if msg == "" {
					msg = "(no message recorded)"
				}
				ghCommand(&b, cmd, Sanitize(displayRel(run.Input, o.Root)), f.Line, Sanitize(title),
					Sanitize(msg)+"\n"+Sanitize("run "+runLabel(run)+" · identity "+f.Identity))
			}
			for _, reg := range rd.Regressions {
				ghCommand(&b, "error", file, 0, "fpcheck diff: regression", Sanitize(reg.Sentence))
			}
			if rd.Unmatched {
				ghCommand(&b, gateLevel(d, "error", "notice"), Sanitize(displayRel(rd.run().Input, o.Root)), 0, "fpcheck diff: run not compared", Sanitize(rd.UnmatchedWhy))
			}
			if rd.HeadUnmeasured {
				ghCommand(&b, gateLevel(d, "error", "notice"), Sanitize(displayRel(rd.Head.Input, o.Root)), 0, "fpcheck diff: head unmeasured",
					Sanitize(fmt.Sprintf("Head run %s is unmeasured: %s.", runLabel(rd.Head), rd.HeadUnmeasuredWhy)))
			}
		}
	}
	if len(d.Inputs) > 1 {
		for i := range d.Inputs {
			in := &d.Inputs[i]
			b.WriteString(Sanitize(fmt.Sprintf("fpcheck diff: scenario %s: exit %d — %s.", displayPath(in.Name), in.ExitCode(d.Options), in.summaryLine())) + "\n")
		}
	}
	// The result line carries the bound, as analyze's does: a log reader
	// who sees "no regression" sees what it covers.
	b.WriteString(Sanitize(d.resultLine("fpcheck diff:")+" "+DiffBound) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}
