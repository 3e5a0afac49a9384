package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/fpcheck/fpcheck/checks"
)

// The JUnit XML shapes. Test runners in CI (GitLab's artifacts:reports:junit,
// Jenkins, the JUnit views of most services) read this common subset: a
// testsuites root with totals, a testsuite per input, a testcase per check
// per run, and failure, error and skipped children.

type junitSuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	// Skipped is counted but not written: junit-10.xsd has no skipped
	// attribute on testsuites, and readers that validate refuse one.
	Skipped int          `xml:"-"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
	SystemOut  string           `xml:"system-out,omitempty"`
}

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

func (s *junitSuite) add(c junitCase) {
	s.Tests++
	switch {
	case c.Failure != nil:
		s.Failures++
	case c.Error != nil:
		s.Errors++
	case c.Skipped != nil:
		s.Skipped++
	}
	s.Cases = append(s.Cases, c)
}

func (s *junitSuites) add(suite junitSuite) {
	s.Tests += suite.Tests
	s.Failures += suite.Failures
	s.Errors += suite.Errors
	s.Skipped += suite.Skipped
	s.Suites = append(s.Suites, suite)
}

func (s *junitSuites) write(w io.Writer) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// RenderJUnit writes the report as JUnit XML that validates against the
// Jenkins xunit junit-10.xsd: a testsuite per run (and per input that
// holds none), a testcase per check that was armed, or that a ledger shows
// registered, named "kind@seam". The class name is the input's path
// relative to the working directory (with the run's place in the input when
// it holds several), stable across re-recordings where the run id is not;
// the run id, the input, the verdict and the bound are properties. A check
// fails with the run's failing findings of its kind and seam (or with
// evidence its ledger counts and the events lack); it is skipped, with the
// reason, when it was not measured in the run; it passes when it checked
// something and nothing of it fails the gate. An unmeasured run also has
// an "evidence" testcase, skipped with why. What an input lost apart from
// its runs (junitInputCases) is testcases of the input's first suite,
// beside those of the runs read before it; an input with no run and no such
// loss is one skipped case. A copy of a run judged in another input is a
// suite of its input with no testcase of the run and a copyOf property:
// the run is tested once, where it is judged, and that suite lists its
// copies. Strings from recordings pass through Sanitize: CI pages show
// them.
func RenderJUnit(w io.Writer, r *Report, o RenderOptions) error {
	suites := junitSuites{Name: "fpcheck"}
	rules := o.rules()
	copies := copiesByInput(r)
	for i, idx := range runsByInput(r) {
		in := r.Inputs[i]
		rel := Sanitize(junitName(in.Path, o.Root))
		props := func(extra ...junitProperty) *junitProperties {
			ps := []junitProperty{{Name: "input", Value: rel}}
			if in.Format != "" {
				ps = append(ps, junitProperty{Name: "format", Value: in.Format})
			}
			ps = append(ps, extra...)
			return &junitProperties{Property: append(ps, junitProperty{Name: "bound", Value: Bound})}
		}
		inputCases := junitInputCases(r, &in, rel)
		if len(idx)+len(copies[i]) == 0 {
			suite := junitSuite{Name: rel, Properties: props()}
			if len(in.Notes) > 0 {
				suite.SystemOut = sanitizeLines(in.Notes)
			}
			if len(inputCases) == 0 {
				inputCases = []junitCase{{Name: "evidence", Classname: rel, Skipped: &junitSkipped{
					Message: "no run in this input (no-tail): no evidence, not a clean run"}}}
			}
			for _, c := range inputCases {
				suite.add(c)
			}
			suites.add(suite)
			continue
		}
		held := len(idx) + len(copies[i])
		place := func(n int) (class, name string) {
			if held > 1 {
				return fmt.Sprintf("%s#%d", rel, n+1), fmt.Sprintf("%s run %d of %d", rel, n+1, held)
			}
			return rel, rel
		}
		for n, ri := range idx {
			run := &r.Runs[ri]
			class, name := place(n)
			extra := []junitProperty{
				{Name: "runId", Value: Sanitize(run.RunID)},
				{Name: "verdict", Value: string(run.Verdict)}}
			if len(run.Copies) > 0 {
				var where []string
				for _, c := range run.Copies {
					where = append(where, Sanitize(junitName(c.Input, o.Root)))
				}
				extra = append(extra, junitProperty{Name: "copies", Value: strings.Join(where, ", ")})
			}
			suite := junitSuite{Name: name, Properties: props(extra...)}
			out := []string{run.Headline}
			if n == 0 {
				out = append(append([]string{}, in.Notes...), out...)
			}
			for _, note := range run.Notes {
				if strings.HasPrefix(note, copiesPrefix) || len(run.Conflicts) > 0 && note == conflictNote(run) {
					out = append(out, note)
				}
			}
			suite.SystemOut = sanitizeLines(append(out, Bound))
			if n == 0 {
				for _, c := range inputCases {
					suite.add(c)
				}
			}
			for _, c := range junitRunCases(r, run, rules, class) {
				suite.add(c)
			}
			if run.Verdict == VerdictUnmeasured {
				suite.add(junitCase{Name: "evidence", Classname: class, Skipped: &junitSkipped{
					Message: Sanitize("unmeasured: " + unmeasuredWhy(run))}})
			}
			suites.add(suite)
		}
		// A copy of a run judged in another input is no test here: the
		// suite says where it was counted, so the input is not missing.
		for n, c := range copies[i] {
			_, name := place(len(idx) + n)
			suite := junitSuite{Name: name, Properties: props(
				junitProperty{Name: "runId", Value: Sanitize(c.alone.RunID)},
				junitProperty{Name: "copyOf", Value: Sanitize(junitName(c.judgedIn, o.Root))})}
			suite.SystemOut = sanitizeLines([]string{copyOfSentence(c), Bound})
			if len(idx) == 0 && n == 0 {
				for _, ic := range inputCases {
					suite.add(ic)
				}
			}
			suites.add(suite)
		}
	}
	if suite, ok := junitDeclarations(r, o); ok {
		suites.add(suite)
	}
	return suites.write(w)
}

// junitDeclarations is a suite for the declarations file when it names
// tools no run showed: a testcase each, an error under
// --strict-declarations (which makes the exit 2), else skipped with the
// warning, so a job failed by a typo in a declared name shows why.
func junitDeclarations(r *Report, o RenderOptions) (junitSuite, bool) {
	dr := r.Declarations
	if dr == nil || len(dr.Unseen) == 0 {
		return junitSuite{}, false
	}
	source := junitName(dr.Source, o.Root)
	suite := junitSuite{Name: Sanitize(source)}
	for _, u := range dr.Unseen {
		c := junitCase{Name: Sanitize(u.Name), Classname: Sanitize(source)}
		if dr.Strict {
			c.Error = &junitProblem{Message: "declared tool in no run", Type: "declarations", Text: Sanitize(u.Sentence(source)) + "\n"}
		} else {
			c.Skipped = &junitSkipped{Message: Sanitize(u.Sentence(source))}
		}
		suite.add(c)
	}
	return suite, true
}

// junitInputCases are the testcases of what an input lost, apart from its
// runs: an error for a read error ("read") and for runs stopped at a limit
// ("limit"), which fail the job whatever was judged before them, and for
// runs lost whole ("lost-runs"), skipped instead when an allowance lets
// them pass. They sit beside the testcases of the runs that were read, so
// a partly read input never shows only passing tests.
func junitInputCases(r *Report, in *Input, rel string) []junitCase {
	var out []junitCase
	if in.Error != "" {
		out = append(out, junitCase{Name: "read", Classname: rel, Error: &junitProblem{
			Message: "unreadable input", Type: "unreadable", Text: Sanitize(unreadableSentence(in)) + "\n"}})
	}
	if len(in.StoppedRuns) > 0 {
		var text []string
		for _, sr := range in.StoppedRuns {
			text = append(text, stoppedRunText(sr))
		}
		out = append(out, junitCase{Name: "limit", Classname: rel, Error: &junitProblem{
			Message: count(len(in.StoppedRuns), "run stopped at a limit", "runs stopped at a limit"), Type: "limit", Text: sanitizeLines(text)}})
	}
	if len(in.LostRuns) > 0 {
		c := junitCase{Name: "lost-runs", Classname: rel}
		text := strings.TrimPrefix(lostRunsNote(in.LostRuns), "⚠ ")
		if r.Options.allow(ExitUnmeasured, true) == ExitGreen {
			c.Skipped = &junitSkipped{Message: Sanitize("unmeasured (allowed): " + text)}
		} else {
			c.Error = &junitProblem{Message: "evidence damaged: a run lost whole", Type: "evidence-damaged", Text: Sanitize(text) + "\n"}
		}
		out = append(out, c)
	}
	return out
}

// junitRunCases is one testcase per check of the run that was armed or
// that a ledger shows registered: in registry order, then any other check
// the run's ledgers or findings name. A check the replay registered but
// nothing armed, which checked nothing, is no test of the run.
func junitRunCases(r *Report, run *Run, rules []Rule, class string) []junitCase {
	var keys [][2]string
	seen := map[string]bool{}
	add := func(kind, seam string) {
		k := checks.Key(kind, seam)
		if !seen[k] {
			seen[k] = true
			keys = append(keys, [2]string{kind, seam})
		}
	}
	relevant := map[string]bool{}
	for _, row := range run.Recorded.Rows {
		relevant[checks.Key(row.Check, row.Seam)] = true
	}
	if run.Replayed != nil {
		for _, row := range run.Replayed.Rows {
			if row.Checked > 0 || row.Findings > 0 || declarationsArm(r.Options.Declared, row.Check, row.Seam) {
				relevant[checks.Key(row.Check, row.Seam)] = true
			}
		}
	}
	for _, f := range uniqueAll(run) {
		relevant[checks.Key(f.Kind, f.Seam)] = true
	}
	for _, rule := range rules {
		if relevant[checks.Key(rule.Kind, rule.Seam)] {
			add(rule.Kind, rule.Seam)
		}
	}
	for _, row := range run.Recorded.Rows {
		add(row.Check, row.Seam)
	}
	if run.Replayed != nil {
		for _, row := range run.Replayed.Rows {
			if !relevant[checks.Key(row.Check, row.Seam)] {
				continue
			}
			add(row.Check, row.Seam)
		}
	}
	all := uniqueAll(run)
	for _, f := range all {
		add(f.Kind, f.Seam)
	}
	var out []junitCase
	for _, k := range keys {
		kind, seam := k[0], k[1]
		c := junitCase{Name: Sanitize(checks.Key(kind, seam)), Classname: class}
		var failing, shown []Finding
		for _, f := range all {
			if f.Kind != kind || f.Seam != seam {
				continue
			}
			if r.Fails(f) {
				failing = append(failing, f)
			} else {
				shown = append(shown, f)
			}
		}
		recRow, recOK := sideRow(run.Recorded, kind, seam)
		missing := run.Recorded.EvidenceMissing && recOK && recRow.Findings > 0
		switch {
		case len(failing) > 0 || missing:
			c.Failure = junitFailure(failing, missing, recRow)
		case run.CheckerDead != "":
			c.Skipped = &junitSkipped{Message: Sanitize("unmeasured: dead checker: " + run.CheckerDead)}
		case run.Damaged():
			c.Skipped = &junitSkipped{Message: Sanitize("unmeasured: evidence damaged: " + damageText(run))}
		default:
			if why, measured := checkMeasured(run, kind, seam); !measured {
				c.Skipped = &junitSkipped{Message: Sanitize("unmeasured: " + why)}
			}
		}
		if len(shown) > 0 {
			c.SystemOut = findingLines(shown)
		}
		out = append(out, c)
	}
	return out
}

func junitFailure(failing []Finding, missing bool, row Row) *junitProblem {
	p := &junitProblem{Type: "defect"}
	var parts []string
	defects, advisories := 0, 0
	for _, f := range failing {
		if f.Advisory {
			advisories++
		} else {
			defects++
		}
	}
	if defects > 0 {
		parts = append(parts, count(defects, "defect", "defects"))
	}
	if advisories > 0 {
		parts = append(parts, count(advisories, "advisory", "advisories")+" (failing under --fail-on)")
		if defects == 0 {
			p.Type = "advisory"
		}
	}
	text := findingLines(failing)
	if missing {
		parts = append(parts, "evidence missing")
		if len(failing) == 0 {
			p.Type = "evidence-missing"
		}
		text += fmt.Sprintf("Evidence missing: the ledger counts %s for this check, and the run's events carry none of the findings.\n",
			count(row.Findings, "failing encounter", "failing encounters"))
	}
	p.Message = strings.Join(parts, ", ")
	p.Text = text
	return p
}

// checkMeasured reports whether a check checked something in the run, on
// either side, and otherwise says why it is unmeasured.
func checkMeasured(run *Run, kind, seam string) (string, bool) {
	var why []string
	sides := []struct {
		label string
		side  *Side
	}{{"recorded", run.Recorded}}
	if run.Replayed != nil {
		sides = append(sides, struct {
			label string
			side  *Side
		}{"replayed", run.Replayed})
	}
	for _, s := range sides {
		row, ok := sideRow(s.side, kind, seam)
		switch {
		case ok && row.Checked > 0:
			return "", true
		case ok && row.State == RowNeverRan:
			why = append(why, s.label+": registered but never ran (no encounter of any kind)")
		case ok:
			why = append(why, fmt.Sprintf("%s: checked nothing (%d not-applicable, %d unreachable)", s.label, row.NotApplicable, row.Unreachable))
		case s.side.Coverage.Unmeasured() && len(s.side.Rows) == 0:
			why = append(why, s.label+": "+unmeasuredReason(s.side))
		default:
			why = append(why, s.label+": no ledger row, so this check did not run")
		}
	}
	return strings.Join(why, "; "), false
}

func sideRow(s *Side, kind, seam string) (Row, bool) {
	for _, row := range s.Rows {
		if row.Check == kind && row.Seam == seam {
			return row, true
		}
	}
	return Row{}, false
}

// uniqueAll is every real finding of the run, one per identity, whatever
// the kind filter or limit showed: JUnit judges per check, and a filter
// never changes what is judged.
func uniqueAll(run *Run) []Finding {
	return firstOf(run.everyFinding(), identityOf)
}

// findingLines lists findings one per line for plain-text CI fields.
func findingLines(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(Sanitize(findingOneLine(f)))
		b.WriteByte('\n')
	}
	return b.String()
}

// findingOneLine words a finding in one line: kind, seam, where, message,
// identity and baseline state.
func findingOneLine(f Finding) string {
	var b strings.Builder
	if f.Advisory {
		b.WriteString("ADVISORY ")
	}
	fmt.Fprintf(&b, "%s @%s", orUnrecorded(f.Kind), orUnrecorded(f.Seam))
	if f.Iteration != nil {
		fmt.Fprintf(&b, " · iteration %d", *f.Iteration)
	}
	if rp := RepeatsPhrase(f); rp != "" {
		b.WriteString(" · " + rp)
	} else if f.Line > 0 {
		fmt.Fprintf(&b, " · line %d", f.Line)
	}
	msg := f.Message
	if msg == "" {
		msg = "(no message recorded)"
	}
	b.WriteString(": " + msg)
	b.WriteString(" [identity: " + f.Identity + "]")
	b.WriteString(baselineTag(f))
	return b.String()
}

func orUnrecorded(s string) string {
	if s == "" {
		return "(not recorded)"
	}
	return s
}

func sanitizeLines(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(Sanitize(l))
		b.WriteByte('\n')
	}
	return b.String()
}

// junitName names an input as JUnit's classnames and properties do:
// relative to root when it can be; an input with no file path (stdin, an
// object in a bucket) as the report names it.
func junitName(path, root string) string {
	if rel := displayRel(path, root); rel != "" {
		return rel
	}
	return displayPath(path)
}
