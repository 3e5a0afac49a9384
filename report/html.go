package report

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// The HTML report is one file with nothing outside it: its style and its
// script are inline, and the Content-Security-Policy admits exactly those two
// by their SHA-256 hashes, so no markup a recording smuggles past the
// escaping could load or run anything. Hashes rather than a nonce keep the
// output deterministic: the same report renders the same bytes.

//go:embed html/report.tmpl
var htmlTemplateText string

//go:embed html/report.css
var htmlStyle string

//go:embed html/report.js
var htmlScript string

// htmlTemplate is parsed the first time a page is written, not when the
// program starts: every invocation of fpcheck (twice, with its supervising
// parent) would otherwise pay the parse, most of them writing no page.
var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		// s makes control and bidirectional characters of a recording
		// string visible; html/template then escapes what is left.
		"s": Sanitize,
	}).Parse(htmlTemplateText))
})

// htmlCSP is the page's policy: nothing may load, and the one style and
// the one script run because their hashes are listed.
var htmlCSP = fmt.Sprintf("default-src 'none'; style-src '%s'; script-src '%s'; img-src 'none'; base-uri 'none'; form-action 'none'",
	cspHash(htmlStyle), cspHash(htmlScript))

func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// Timeline geometry, in SVG user units (pixels at 100% zoom).
const (
	tlLabelWidth = 76
	tlCellWidth  = 10
	tlCellGap    = 2
	tlLaneHeight = 18
	tlLaneGap    = 4
	tlAxisHeight = 16
	// tlRunGap sets the run column apart from the iterations, so that
	// its label and the first iteration's do not run together.
	tlRunGap = 14
	// tlMaxColumns caps the columns one run draws; the page says how many
	// iterations were left out, so a capped timeline never reads as whole.
	tlMaxColumns = 1000
)

// timelineSeams are the lanes, in the order a model call meets them.
var timelineSeams = []string{checks.SeamCompose, checks.SeamWire, checks.SeamChoice, checks.SeamWrite, checks.SeamClaim}

// dispositionOrder is the order a cell stacks its bands: what fails or
// weakens a verdict first.
var dispositionOrder = []checks.Disposition{checks.CheckedFail, checks.Unreachable, checks.CheckedPass, checks.NotApplicable}

func dispositionName(d checks.Disposition) string {
	switch d {
	case checks.CheckedFail:
		return "fired"
	case checks.Unreachable:
		return "unreachable"
	case checks.NotApplicable:
		return "not-applicable"
	}
	return "checked"
}

type htmlPage struct {
	CSP                    string
	Style                  template.CSS
	Script                 template.JS
	ExitCode               int
	ExitMeaning, ExitClass string
	Summary, Bound         string
	Inputs                 []htmlInput
	Runs                   []*htmlRun
	Conversations          []htmlConversation
	Kinds, Seams, Verdicts []string
	Findings               int
	Baseline               []string
	OpenRuns, Lazy         bool
	Dispositions           []string
	FailOn                 string
	KindFilter             string
	AllowUnmeasured        bool
	Limit                  int
	Replayed               bool
	InputsWithNotes        []htmlInput
	UnreadableInputs       []htmlInput
	// Declarations is the declarations file's headline held against the
	// recordings, and Unseen one sentence per declared tool no run
	// showed; DeclarationsFail is set when --strict-declarations makes
	// them fail the gate.
	Declarations     string
	Unseen           []string
	DeclarationsFail bool
	// Skipped are the files a directory walk left out and the paths
	// --exclude kept out, one line each.
	Skipped []string
}

type htmlInput struct {
	Path, Format, Compression       string
	Lines, Events, Blank, Malformed int64
	Runs                            int
	Error                           string
	// Judged says what of an unreadable input is judged all the same.
	Judged string
	// Copies counts the input's runs judged as copies in JudgedIn.
	Copies   int
	JudgedIn string
	// Notes state the input's reading, its problems included.
	Notes []string
}

type htmlConversation struct {
	SessionID string
	Turns     []*htmlRun
}

type htmlRun struct {
	Index                   int
	Anchor                  string
	Input, RunID, SessionID string
	Turn, Turns             int
	Events                  int
	Verdict, VerdictClass   string
	Headline                string
	Unmeasured              string
	Notes                   []string
	RecordedCoverage        string
	ReplayedCoverage        string
	Defects, Advisories     int
	Drift                   int
	Baselined               int
	Findings                []*htmlFinding
	Omitted                 int
	Timeline                htmlTimeline
	Sides                   []htmlSide
	Validation              []string
}

type htmlSide struct {
	Name, Ledger string
	Rows         []htmlRow
}

type htmlRow struct {
	Check, Seam, State               string
	Checked, Findings, NotApplicable int64
	Unreachable, Synthetic           int64
	LastFired                        string
	Warn                             bool
}

type htmlFinding struct {
	Anchor         string
	Number         int
	Kind, Seam     string
	Verdict, Class string
	Source, Why    string
	Iteration      string
	Line           string
	// Repeats words a recorded finding filed more than once; empty
	// otherwise.
	Repeats         string
	Message         string
	Identity        string
	Baseline        string
	Drift           bool
	Subjects        []string
	Witnesses       []htmlWitness
	WitnessesAbsent bool
	Ceiling, Title  string
	FiledAt         string
	Explain         *htmlExplain
}

type htmlWitness struct {
	// Channel is the side whose filing carried the witness.
	Channel                          string
	Subject, Predicate, Value, Epoch string
	Stratum, Provenance, Step        string
	Synthetic                        bool
}

// htmlTimeline is one run's seam timeline, laid out for SVG.
type htmlTimeline struct {
	// Source says whose encounters are drawn: "replay", or "" when no
	// side placed any (the findings are drawn alone).
	Source        string
	Missing       string
	Width, Height int
	Lanes         []htmlLane
	Ticks         []htmlTick
	Cells         []htmlCell
	Markers       []htmlMarker
	Columns       int
	Dropped       int
	// LaneX, LaneWidth, LaneHeight and CellWidth place the lane
	// backgrounds and the cells' bands.
	LaneX, LaneWidth, LaneHeight, CellWidth, EmptyX int
}

type htmlLane struct {
	// Empty is true for a lane no encounter reached: its checks never
	// ran, which the lane says rather than leaving blank.
	Empty                                  bool
	Seam                                   string
	Y, TextY                               int
	Checked, Fired, NotApplicable, Unreach int64
}

type htmlTick struct {
	X, Y  int
	Label string
}

type htmlCell struct {
	Seam, Iteration                        string
	X, Y                                   int
	Checked, Fired, NotApplicable, Unreach int64
	Bands                                  []htmlBand
	Title                                  string
}

type htmlBand struct {
	Class string
	Y, H  int
}

type htmlMarker struct {
	X, Y int
	// Path draws the marker, a diamond centred on X, Y.
	Path    string
	Href    string
	Label   string
	Kind    string
	Seam    string
	Verdict string
}

// RenderHTML writes the report as one self-contained HTML page: the result
// and the bound, the inputs and runs, per run a seam timeline with its
// findings, and the findings whole, filterable by kind, seam and verdict.
func RenderHTML(w io.Writer, r *Report, o RenderOptions) error {
	return htmlTemplate().Execute(w, buildHTMLPage(r, o))
}

func buildHTMLPage(r *Report, o RenderOptions) *htmlPage {
	s := r.Summarize()
	p := &htmlPage{
		CSP:             htmlCSP,
		Style:           template.CSS(htmlStyle),
		Script:          template.JS(htmlScript),
		ExitCode:        s.ExitCode,
		ExitMeaning:     s.exitMeaning(),
		ExitClass:       exitClass(s.ExitCode),
		Summary:         mdSummaryLine(r, s),
		Bound:           Bound,
		FailOn:          r.Options.failOn(),
		KindFilter:      r.Options.Kind,
		AllowUnmeasured: r.Options.AllowUnmeasured,
		Limit:           r.Options.Limit,
		// A long list of runs opens none of them, and draws a run's
		// timeline and ledgers only when it is opened: the page stays
		// quick, and the runs table is the way in.
		OpenRuns: len(r.Runs) <= htmlOpenRuns,
		Lazy:     len(r.Runs) > htmlOpenRuns,
	}
	for _, d := range dispositionOrder {
		p.Dispositions = append(p.Dispositions, dispositionName(d))
	}
	if dr := r.Declarations; dr != nil {
		p.Declarations, p.DeclarationsFail = dr.Headline(), dr.Strict && len(dr.Unseen) > 0
		for _, u := range dr.Unseen {
			p.Unseen = append(p.Unseen, u.Sentence(dr.Source)+".")
		}
	}
	for _, sk := range r.Skipped {
		p.Skipped = append(p.Skipped, sk.Line())
	}
	summaries := r.InputSummaries()
	for i, in := range r.Inputs {
		hi := htmlInput{Path: displayPath(in.Path), Format: in.Format, Compression: in.Compression,
			Lines: in.Lines, Events: in.Events, Blank: in.Blank, Malformed: in.Malformed,
			Runs: in.RunCount, Error: in.Error, Notes: in.Notes, Copies: in.Copies}
		if i < len(summaries) {
			hi.JudgedIn = strings.Join(mapSlice(summaries[i].JudgedIn, displayPath), ", ")
		}
		p.Inputs = append(p.Inputs, hi)
		if in.Error != "" {
			hi.Judged = judgedDespite(&in)
			p.UnreadableInputs = append(p.UnreadableInputs, hi)
		} else if inputLossy(&in) {
			p.InputsWithNotes = append(p.InputsWithNotes, hi)
		}
	}
	rules := map[string]Rule{}
	for _, rule := range o.rules() {
		rules[rule.ID()] = rule
	}
	kinds, seams, verdicts := map[string]bool{}, map[string]bool{}, map[string]bool{}
	earlier := map[string][]*recording.Run{}
	for i := range r.Runs {
		run := &r.Runs[i]
		key := run.Input + "\x00" + run.SessionID
		hr := htmlRunOf(r, run, i, rules, earlier[key])
		if run.explain != nil && run.SessionID != "" {
			earlier[key] = append(earlier[key], run.explain.Run)
		}
		if run.Replayed != nil {
			p.Replayed = true
		}
		for _, f := range hr.Findings {
			kinds[f.Kind], seams[f.Seam], verdicts[f.Verdict] = true, true, true
		}
		p.Findings += len(hr.Findings)
		p.Runs = append(p.Runs, hr)
	}
	p.Kinds, p.Seams, p.Verdicts = sortedKeys(kinds), sortedKeys(seams), sortedKeys(verdicts)
	bySession := map[string][]*htmlRun{}
	for _, hr := range p.Runs {
		if hr.SessionID != "" {
			bySession[hr.SessionID] = append(bySession[hr.SessionID], hr)
		}
	}
	for _, c := range r.Conversations {
		hc := htmlConversation{SessionID: c.SessionID}
		ids := map[string]bool{}
		for _, id := range c.RunIDs {
			ids[id] = true
		}
		for _, hr := range bySession[c.SessionID] {
			if ids[hr.RunID] {
				hc.Turns = append(hc.Turns, hr)
			}
		}
		slices.SortStableFunc(hc.Turns, func(a, b *htmlRun) int { return a.Turn - b.Turn })
		p.Conversations = append(p.Conversations, hc)
	}
	if br := r.Baseline; br != nil {
		head, lines := baselineSentences(br)
		p.Baseline = append([]string{head}, lines...)
	}
	return p
}

// htmlOpenRuns is the most runs a page shows open and drawn from the start.
const htmlOpenRuns = 20

// inputLossy reports whether an input's notes say more than its row in the
// inputs table: something skipped, lost, cut off or doubted. A clean
// input's notes only repeat its counts, and a thousand of them would bury
// the one that matters.
func inputLossy(in *Input) bool {
	if in.Blank > 0 || in.Malformed > 0 || len(in.UnknownTypes) > 0 || len(in.WrongTypes) > 0 || in.TruncatedTail ||
		in.NoEventsKey || len(in.Problems) > 0 || len(in.HeadMissing) > 0 || in.Coverage != "" {
		return true
	}
	if (in.DroppedEvents != nil && *in.DroppedEvents != 0) || (in.Complete != nil && !*in.Complete) {
		return true
	}
	for _, n := range in.Notes {
		if strings.HasPrefix(n, "⚠") {
			return true
		}
	}
	return false
}

func exitClass(code int) string {
	switch code {
	case ExitDefects:
		return "defects"
	case ExitUnreadable:
		return "unreadable"
	case ExitUnmeasured:
		return "unmeasured"
	}
	return "green"
}

// htmlRunOf lays out run i; earlier are the runs of its conversation
// before it in its input, as loaded, which its findings' grounds are
// looked up in.
func htmlRunOf(r *Report, run *Run, i int, rules map[string]Rule, earlier []*recording.Run) *htmlRun {
	hr := &htmlRun{
		Index:      i + 1,
		Anchor:     "run-" + strconv.Itoa(i+1),
		Input:      displayPath(run.Input),
		RunID:      runLabel(run),
		SessionID:  run.SessionID,
		Turn:       run.Turn,
		Turns:      run.Turns,
		Events:     run.Events,
		Verdict:    string(run.Verdict),
		Headline:   run.Headline,
		Notes:      run.Notes,
		Defects:    run.Defects,
		Advisories: run.Advisories,
		Drift:      run.Drift,
		Baselined:  run.Baselined,
		Omitted:    run.Omitted,
	}
	hr.VerdictClass = hr.Verdict
	if run.Verdict == VerdictUnmeasured {
		hr.Unmeasured = unmeasuredWhy(run)
		if r.Options.AllowUnmeasured {
			hr.Verdict += " (allowed)"
		}
	}
	hr.RecordedCoverage, hr.ReplayedCoverage = coverageCell(run)
	for n, f := range run.Findings {
		hf := htmlFindingOf(r, f, i+1, n+1, rules)
		hf.Explain = explainPanel(r, i, n, earlier)
		hr.Findings = append(hr.Findings, hf)
	}
	hr.Sides = append(hr.Sides, htmlSideOf("Recorded", run.Recorded))
	if run.Replayed != nil {
		hr.Sides = append(hr.Sides, htmlSideOf("Replayed", run.Replayed))
	}
	for _, v := range run.Validation {
		line := fmt.Sprintf("answer of iteration %d: %s", v.Answer.Iteration, v.Status)
		if v.Reason != "" {
			line += " (" + v.Reason + ")"
		}
		hr.Validation = append(hr.Validation, line)
	}
	hr.Timeline = buildTimeline(run, hr.Findings)
	return hr
}

func htmlSideOf(name string, s *Side) htmlSide {
	hs := htmlSide{Name: name, Ledger: s.Ledger}
	for _, row := range s.Rows {
		hs.Rows = append(hs.Rows, htmlRow{Check: orUnrecorded(row.Check), Seam: orUnrecorded(row.Seam), State: string(row.State),
			Checked: row.Checked, Findings: row.Findings, NotApplicable: row.NotApplicable, Unreachable: row.Unreachable,
			Synthetic: row.Synthetic, LastFired: row.LastFired,
			Warn: row.State == RowNeverRan || row.Unreachable > 0})
	}
	return hs
}

// findingVerdict is what a finding is under the gate, the value the
// verdict filter selects on.
func findingVerdict(r *Report, f Finding) string {
	switch {
	case f.Synthetic:
		return "canary"
	case f.Baseline != nil && !f.Baseline.Expired:
		return "baselined"
	case f.Advisory && !r.Fails(f):
		return "advisory"
	case f.Advisory:
		return "failing advisory"
	}
	return "defect"
}

func htmlFindingOf(r *Report, f Finding, run, n int, rules map[string]Rule) *htmlFinding {
	hf := &htmlFinding{
		Anchor:   fmt.Sprintf("f-%d-%d", run, n),
		Number:   n,
		Kind:     orUnrecorded(f.Kind),
		Seam:     orUnrecorded(f.Seam),
		Verdict:  findingVerdict(r, f),
		Source:   f.Source,
		Why:      f.Why,
		Message:  f.Message,
		Identity: f.Identity,
		Drift:    f.Drift,
		FiledAt:  f.FiledAt,
	}
	hf.Class = strings.ReplaceAll(hf.Verdict, " ", "-")
	if hf.Message == "" {
		hf.Message = "(no message recorded)"
	}
	if f.Iteration != nil {
		hf.Iteration = strconv.FormatInt(*f.Iteration, 10)
	}
	if f.Line > 0 {
		hf.Line = strconv.FormatInt(f.Line, 10)
	}
	hf.Repeats = RepeatsPhrase(f)
	if tag := baselineTag(f); tag != "" {
		hf.Baseline = strings.TrimPrefix(tag, " · ")
	}
	for _, s := range f.Subjects {
		hf.Subjects = append(hf.Subjects, s.String())
	}
	ws := f.Witnessed()
	hf.WitnessesAbsent = !f.WitnessesRecorded && f.Source != "replayed" && len(ws) == 0
	for _, w := range ws {
		hw := htmlWitness{Channel: w.Channel, Subject: w.Subject.String(), Predicate: w.Predicate, Value: WitnessValue(w.Value),
			Stratum: w.Stratum, Provenance: w.Provenance, Step: w.RuntimeStageID, Synthetic: w.Synthetic}
		if w.Epoch != nil {
			hw.Epoch = strconv.FormatInt(*w.Epoch, 10)
		}
		hf.Witnesses = append(hf.Witnesses, hw)
	}
	if rule, ok := rules[checks.Key(f.Kind, f.Seam)]; ok {
		hf.Title, hf.Ceiling = rule.Title, rule.Ceiling
	}
	return hf
}

// buildTimeline lays out a run's seam timeline: one column per iteration
// some encounter or finding names (with a leading "run" column for what no
// iteration was given for), one lane per seam, each cell banded by the
// dispositions met there, and each listed finding a marker in its cell.
func buildTimeline(run *Run, findings []*htmlFinding) htmlTimeline {
	var tl htmlTimeline
	var enc []checks.Encounter
	if run.Replayed != nil && run.Replayed.Encounters != nil {
		enc = run.Replayed.Encounters
		tl.Source = "replay"
	} else {
		tl.Missing = "No side of this run placed its encounters at iterations (a recorded ledger, like a saved report, only counts them), so only the findings are drawn."
	}
	type cellKey struct {
		col  string
		seam string
	}
	counts := map[cellKey]*[4]int64{}
	byCheck := map[cellKey]map[string]*[4]int64{}
	colSet := map[string]bool{}
	var iters []int64
	addCol := func(placed bool, it int64) string {
		if !placed {
			colSet["run"] = true
			return "run"
		}
		k := strconv.FormatInt(it, 10)
		if !colSet[k] {
			colSet[k] = true
			iters = append(iters, it)
		}
		return k
	}
	seams := slices.Clone(timelineSeams)
	for _, e := range enc {
		seam := e.Seam
		if !slices.Contains(seams, seam) {
			seams = append(seams, seam)
		}
		k := cellKey{addCol(e.Placed, e.Iteration), seam}
		if counts[k] == nil {
			counts[k] = &[4]int64{}
			byCheck[k] = map[string]*[4]int64{}
		}
		counts[k][e.Disposition] += e.Count
		if byCheck[k][e.Check] == nil {
			byCheck[k][e.Check] = &[4]int64{}
		}
		byCheck[k][e.Check][e.Disposition] += e.Count
	}
	markerCols := make([]string, len(findings))
	for i, f := range findings {
		if !slices.Contains(seams, f.Seam) {
			seams = append(seams, f.Seam)
		}
		if f.Iteration == "" {
			markerCols[i] = addCol(false, 0)
			continue
		}
		it, _ := strconv.ParseInt(f.Iteration, 10, 64)
		markerCols[i] = addCol(true, it)
	}
	slices.Sort(iters)
	var cols []string
	if colSet["run"] {
		cols = append(cols, "run")
	}
	for _, it := range iters {
		cols = append(cols, strconv.FormatInt(it, 10))
	}
	if len(cols) > tlMaxColumns {
		tl.Dropped = len(cols) - tlMaxColumns
		cols = cols[:tlMaxColumns]
	}
	tl.Columns = len(cols)
	colX := map[string]int{}
	x := tlLabelWidth
	for _, c := range cols {
		colX[c] = x
		x += tlCellWidth + tlCellGap
		if c == "run" {
			x += tlRunGap
		}
	}
	laneY := map[string]int{}
	for i, seam := range seams {
		y := tlAxisHeight + i*(tlLaneHeight+tlLaneGap)
		laneY[seam] = y
		lane := htmlLane{Seam: seam, Y: y, TextY: y + tlLaneHeight - 5}
		for _, c := range cols {
			if n := counts[cellKey{c, seam}]; n != nil {
				lane.Checked += n[checks.CheckedPass]
				lane.Fired += n[checks.CheckedFail]
				lane.NotApplicable += n[checks.NotApplicable]
				lane.Unreach += n[checks.Unreachable]
			}
		}
		lane.Empty = tl.Source != "" && lane.Checked+lane.Fired+lane.NotApplicable+lane.Unreach == 0
		tl.Lanes = append(tl.Lanes, lane)
	}
	// Room for a lane to say it had no encounter, however few columns.
	tl.Width = max(x+4, tlLabelWidth+84)
	tl.LaneX, tl.LaneWidth, tl.LaneHeight, tl.CellWidth, tl.EmptyX = tlLabelWidth-2, tl.Width-tlLabelWidth, tlLaneHeight, tlCellWidth, tlLabelWidth+2
	tl.Height = tlAxisHeight + len(seams)*(tlLaneHeight+tlLaneGap)
	for i, c := range cols {
		// Every column is labelled when there is room; past 30, the run
		// column, the first and last iterations and every tenth between
		// keep the axis legible at 200 columns.
		it, err := strconv.ParseInt(c, 10, 64)
		first := i == 0 || (i == 1 && cols[0] == "run")
		if len(cols) <= 30 || c == "run" || first || i == len(cols)-1 || (err == nil && it%10 == 0) {
			tl.Ticks = append(tl.Ticks, htmlTick{X: colX[c] + tlCellWidth/2, Y: tlAxisHeight - 5, Label: c})
		}
	}
	for _, c := range cols {
		for _, seam := range seams {
			n := counts[cellKey{c, seam}]
			if n == nil {
				continue
			}
			cell := htmlCell{Seam: seam, Iteration: c, X: colX[c], Y: laneY[seam],
				Checked: n[checks.CheckedPass], Fired: n[checks.CheckedFail], NotApplicable: n[checks.NotApplicable], Unreach: n[checks.Unreachable]}
			var present []checks.Disposition
			for _, d := range dispositionOrder {
				if n[d] > 0 {
					present = append(present, d)
				}
			}
			h := tlLaneHeight / len(present)
			for j, d := range present {
				band := htmlBand{Class: "d-" + dispositionName(d), Y: cell.Y + j*h, H: h}
				if j == len(present)-1 {
					band.H = tlLaneHeight - j*h
				}
				cell.Bands = append(cell.Bands, band)
			}
			cell.Title = cellTitle(c, seam, byCheck[cellKey{c, seam}])
			tl.Cells = append(tl.Cells, cell)
		}
	}
	stack := map[cellKey]int{}
	for i, f := range findings {
		x, ok := colX[markerCols[i]]
		if !ok {
			continue
		}
		k := cellKey{markerCols[i], f.Seam}
		off := stack[k] % 3
		stack[k]++
		mx, my := x+tlCellWidth/2, laneY[f.Seam]+tlLaneHeight/2+(off-1)*3
		tl.Markers = append(tl.Markers, htmlMarker{X: mx, Y: my, Path: fmt.Sprintf("M%d %dl5 5l-5 5l-5 -5z", mx, my-5), Href: "#" + f.Anchor,
			Label: fmt.Sprintf("finding %d: %s @%s, %s", f.Number, f.Kind, f.Seam, f.Verdict), Kind: f.Kind, Seam: f.Seam, Verdict: f.Verdict})
	}
	return tl
}

// cellTitle words a cell's encounters check by check, for its tooltip.
func cellTitle(col, seam string, byCheck map[string]*[4]int64) string {
	where := "iteration " + col
	if col == "run" {
		where = "no iteration (registration or end of run)"
	}
	var parts []string
	for _, check := range sortedKeys(byCheck) {
		n := byCheck[check]
		var ds []string
		for _, d := range dispositionOrder {
			if n[d] > 0 {
				ds = append(ds, fmt.Sprintf("%d %s", n[d], dispositionName(d)))
			}
		}
		parts = append(parts, check+": "+strings.Join(ds, ", "))
	}
	return fmt.Sprintf("%s, %s seam — %s", where, seam, strings.Join(parts, "; "))
}
