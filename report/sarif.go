package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fpcheck/fpcheck/recording"
)

// SARIF 2.1.0 constants.
const (
	SARIFVersion = "2.1.0"
	SARIFSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	// InformationURI is where the tool is described.
	InformationURI = "https://github.com/fpcheck/fpcheck"
	// FingerprintKey names the partial fingerprint every result carries:
	// the hex SHA-256 of the finding's identity, which leaves the epoch out,
	// so one defect keeps its fingerprint across iterations, runs and
	// recordings.
	FingerprintKey = "fpcheckIdentity/v1"
	// ruleCoverage is the rule of a diff's coverage regressions.
	ruleCoverage = "coverage-regression"
	checksDocURI = "https://github.com/fpcheck/fpcheck/blob/main/docs/checks.md"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     *jsonList         `json:"results"` // of sarifResult
	Properties  map[string]any    `json:"properties"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Version        string      `json:"version"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      sarifText      `json:"fullDescription"`
	Help                 sarifHelp      `json:"help"`
	HelpURI              string         `json:"helpUri"`
	DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	ExitCode            int                 `json:"exitCode"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations,omitempty"`
	RelatedLocations    []sarifRelated    `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	// OccurrenceCount is set only for a recorded finding filed more than
	// once (SARIF's own field; absent means once).
	OccurrenceCount int                `json:"occurrenceCount,omitempty"`
	BaselineState   string             `json:"baselineState,omitempty"`
	Suppressions    []sarifSuppression `json:"suppressions,omitempty"`
	Properties      map[string]any     `json:"properties"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Status        string `json:"status"`
	Justification string `json:"justification,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

// sarifRelated is one piece of a finding's evidence: the model call, the
// tool call, the result, the eviction.
type sarifRelated struct {
	ID               int           `json:"id"`
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
	Message          sarifText     `json:"message"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine int64 `json:"startLine"`
}

// Fingerprint is the stable hash of a finding identity that SARIF results
// carry under FingerprintKey.
func Fingerprint(identity string) string {
	sum := sha256.Sum256([]byte(identity))
	return hex.EncodeToString(sum[:])
}

// sarifBuilder collects rules and results for one SARIF run.
type sarifBuilder struct {
	o       RenderOptions
	rules   []sarifRule
	byID    map[string]int
	results []sarifResult
	notes   []sarifNotification
}

func newSARIFBuilder(o RenderOptions) *sarifBuilder {
	b := &sarifBuilder{o: o, byID: map[string]int{}}
	for _, r := range o.rules() {
		b.addRule(ruleOf(r))
	}
	return b
}

func (b *sarifBuilder) addRule(r sarifRule) int {
	if i, ok := b.byID[r.ID]; ok {
		return i
	}
	b.byID[r.ID] = len(b.rules)
	b.rules = append(b.rules, r)
	return len(b.rules) - 1
}

func ruleOf(r Rule) sarifRule {
	level, advisory := "error", "no: every finding is a defect"
	switch {
	case r.Advisory:
		level, advisory = "note", "always: every finding is an advisory, counted apart from defects"
	case r.AdvisoryWhen != "":
		advisory = r.AdvisoryWhen + ": those findings are advisories (level note); the others are defects"
	}
	doc := strings.TrimSpace(r.Doc)
	return sarifRule{
		ID:               r.ID(),
		Name:             r.ID(),
		ShortDescription: sarifText{Text: r.Title},
		FullDescription:  sarifText{Text: doc},
		Help: sarifHelp{
			Text: fmt.Sprintf("%s\n\nArmed by: %s\n\nAdvisory: %s\n\nCeiling: %s\n\nA green result means no registered check was violated, not that the run holds no context error.",
				doc, r.ArmedBy, advisory, strings.TrimSpace(r.Ceiling)),
			Markdown: fmt.Sprintf("%s\n\n**Armed by:** %s\n\n**Advisory:** %s\n\n**Ceiling.** %s\n\nA green result means no registered check was violated, not that the run holds no context error.",
				doc, r.ArmedBy, advisory, strings.TrimSpace(r.Ceiling)),
		},
		HelpURI:              checksDocURI,
		DefaultConfiguration: sarifConfig{Level: level},
		Properties:           map[string]any{"kind": r.Kind, "seam": r.Seam, "tags": []string{"context-integrity", r.Seam}},
	}
}

// findingRuleID names the rule of a finding, minting a rule for a kind and
// seam this build registers no check for (a recording from another build),
// so that every result's ruleId is among the rules.
func (b *sarifBuilder) findingRule(f Finding) (string, int) {
	kind, seam := f.Kind, f.Seam
	if kind == "" {
		kind = "unrecorded"
	}
	if seam == "" {
		seam = "unrecorded"
	}
	id := kind + "@" + seam
	if i, ok := b.byID[id]; ok {
		return id, i
	}
	text := fmt.Sprintf("The recording carries a finding of kind '%s' at seam '%s'. No check in this build registers that kind and seam, so fpcheck reports the finding as recorded and cannot replay it.", kind, seam)
	return id, b.addRule(sarifRule{
		ID:                   id,
		Name:                 id,
		ShortDescription:     sarifText{Text: "a recorded finding no registered check of this build files"},
		FullDescription:      sarifText{Text: text},
		Help:                 sarifHelp{Text: text, Markdown: text},
		HelpURI:              checksDocURI,
		DefaultConfiguration: sarifConfig{Level: "error"},
		Properties:           map[string]any{"kind": f.Kind, "seam": f.Seam, "tags": []string{"context-integrity", "unregistered"}},
	})
}

// location names an input (and a line, when known) relative to the root.
func (b *sarifBuilder) location(path string, line int64) []sarifLocation {
	uri, base, ok := artifactURI(path, b.o.Root)
	if !ok {
		return nil
	}
	loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: uri, URIBaseID: base}}}
	if line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: line}
	}
	return []sarifLocation{loc}
}

// anchorLocation is where a result is reported: the finding's anchor (the
// event that carried it, or the tool call it judged), with its line when
// the input has lines; replayed findings get a region too.
func (b *sarifBuilder) anchorLocation(run *Run, f Finding) []sarifLocation {
	return b.location(f.AnchorAt(run.Input))
}

// relatedLocations are every position of the finding's evidence; in a
// recording document, whose events have no lines, the message carries the
// JSON pointer.
func (b *sarifBuilder) relatedLocations(run *Run, f Finding) []sarifRelated {
	var out []sarifRelated
	for _, p := range f.Positions() {
		locs := b.location(PositionPath(run.Input, p), p.Line)
		if len(locs) == 0 {
			continue
		}
		msg := PositionText(run, p) + ": " + p.Event
		out = append(out, sarifRelated{ID: len(out), PhysicalLocation: locs[0].PhysicalLocation, Message: sarifText{Text: msg}})
	}
	return out
}

// findingResult is one SARIF result for a finding of a run.
func (b *sarifBuilder) findingResult(run *Run, f Finding) sarifResult {
	id, idx := b.findingRule(f)
	level := "error"
	if f.Advisory {
		level = "note"
	}
	msg := f.Message
	if msg == "" {
		msg = fmt.Sprintf("A %s finding with no message recorded (identity %s).", id, f.Identity)
	}
	props := map[string]any{
		"identity": f.Identity,
		"input":    run.Input,
		"runId":    run.RunID,
		"source":   f.Source,
		"advisory": f.Advisory,
	}
	if f.Iteration != nil {
		props["iteration"] = *f.Iteration
	}
	if f.FiledAt != "" {
		props["filedAt"] = f.FiledAt
	}
	if f.Drift {
		props["drift"] = true
	}
	if f.Repeats > 0 && f.LastLine > 0 {
		props["lastLine"] = f.LastLine
	}
	res := sarifResult{
		RuleID:              id,
		RuleIndex:           idx,
		Level:               level,
		Message:             sarifText{Text: msg},
		Locations:           b.anchorLocation(run, f),
		RelatedLocations:    b.relatedLocations(run, f),
		PartialFingerprints: map[string]string{FingerprintKey: Fingerprint(f.Identity)},
		Properties:          props,
	}
	if f.Repeats > 0 {
		res.OccurrenceCount = f.Events()
	}
	if m := f.Baseline; m != nil {
		if m.Expired {
			props["baselineExpired"] = m.Expires
		} else {
			res.Suppressions = []sarifSuppression{{Kind: "external", Status: "accepted", Justification: m.Reason}}
		}
	}
	return res
}

// inputNotifications states, as tool execution notifications, what the
// results cannot: inputs that could not be read, inputs with no run and
// unmeasured runs. A SARIF consumer that shows only results would
// otherwise read those as clean.
func (b *sarifBuilder) inputNotifications(r *Report) {
	copies := copiesByInput(r)
	for i, idx := range runsByInput(r) {
		in := r.Inputs[i]
		for _, c := range copies[i] {
			b.notes = append(b.notes, sarifNotification{Level: "note",
				Message:   sarifText{Text: copyOfSentence(c)},
				Locations: b.location(c.Input, c.line())})
		}
		switch {
		case in.Error != "":
			b.notes = append(b.notes, sarifNotification{Level: "error",
				Message:   sarifText{Text: fmt.Sprintf("Unreadable input %s: %s. %s", in.Path, in.Error, judgedDespite(&in))},
				Locations: b.location(in.Path, 0)})
		case in.noTail():
			b.notes = append(b.notes, sarifNotification{Level: "warning",
				Message:   sarifText{Text: fmt.Sprintf("Unmeasured: %s holds no run (no-tail). No evidence, not a clean run.", in.Path)},
				Locations: b.location(in.Path, 0)})
		}
		if len(in.LostRuns) > 0 {
			b.notes = append(b.notes, sarifNotification{Level: b.failLevel(r.Options.inputCode(&in)),
				Message:   sarifText{Text: in.Path + ": " + strings.TrimPrefix(lostRunsNote(in.LostRuns), "⚠ ")},
				Locations: b.location(in.Path, lostRunLine(in.LostRuns))})
		}
		for _, sr := range in.StoppedRuns {
			b.notes = append(b.notes, sarifNotification{Level: "error",
				Message:   sarifText{Text: stoppedRunText(sr)},
				Locations: b.location(in.Path, sr.Line)})
		}
		for _, ri := range idx {
			run := &r.Runs[ri]
			line := int64(0)
			if run.LineNumbers {
				line = run.FirstLine
			}
			if len(run.Conflicts) > 0 {
				b.notes = append(b.notes, sarifNotification{Level: "warning",
					Message:   sarifText{Text: fmt.Sprintf("Run %s: %s", runLabel(run), strings.TrimPrefix(conflictNote(run), "⚠ "))},
					Locations: b.location(run.Input, line)})
			}
			switch {
			case run.Verdict == VerdictUnmeasured:
				b.notes = append(b.notes, sarifNotification{Level: b.failLevel(r.Options.runCode(run)),
					Message:   sarifText{Text: fmt.Sprintf("Unmeasured run %s: %s. No evidence its checks ran, not a clean run.", runLabel(run), unmeasuredWhy(run))},
					Locations: b.location(run.Input, damageLine(run, line))})
			case run.Damaged():
				b.notes = append(b.notes, sarifNotification{Level: "warning",
					Message:   sarifText{Text: fmt.Sprintf("Evidence damaged for run %s: %s.", runLabel(run), damageText(run))},
					Locations: b.location(run.Input, damageLine(run, line))})
			}
		}
	}
	if dr := r.Declarations; dr != nil {
		level := "warning"
		if dr.Strict {
			level = "error"
		}
		for _, u := range dr.Unseen {
			b.notes = append(b.notes, sarifNotification{Level: level,
				Message:   sarifText{Text: u.Sentence(dr.Source) + "."},
				Locations: b.location(dr.Source, int64(u.Line))})
		}
	}
	if br := r.Baseline; br != nil {
		for _, e := range br.Expired {
			b.notes = append(b.notes, sarifNotification{Level: "warning", Message: sarifText{Text: fmt.Sprintf("Baseline entry expired on %s; its finding fails again: %s%s", e.Expires, e.class(), e.Identity)}})
		}
		for _, e := range br.Stale {
			b.notes = append(b.notes, sarifNotification{Level: "note", Message: sarifText{Text: "Stale baseline entry (no longer found; remove it): " + e.class() + e.Identity}})
		}
	}
}

// failLevel is "error" for a notification about something that fails the
// exit code, "warning" for one an allowance let pass.
func (b *sarifBuilder) failLevel(code int) string {
	if code == ExitGreen {
		return "warning"
	}
	return "error"
}

// write writes the log. incomplete is true when fpcheck could not read
// all it was given (an unreadable input, a run stopped at a limit): the
// invocation did not execute successfully, whatever it judged.
func (b *sarifBuilder) write(w io.Writer, exitCode int, incomplete bool, props map[string]any) error {
	s := newJSONStream(w)
	results := b.results
	log := sarifLog{
		Schema:  SARIFSchema,
		Version: SARIFVersion,
		Runs: []sarifRun{{
			Tool: sarifTool{Driver: sarifDriver{Name: "fpcheck", InformationURI: InformationURI, Version: b.version(), Rules: b.rules}},
			Invocations: []sarifInvocation{{
				ExecutionSuccessful: !incomplete,
				ExitCode:            exitCode,
				Notifications:       nonNil(b.notes),
			}},
			Results:    s.list(len(results), func(i int) any { return results[i] }),
			Properties: props,
		}},
	}
	return s.encode(log)
}

func (b *sarifBuilder) version() string {
	if b.o.ToolVersion == "" {
		return "devel"
	}
	return b.o.ToolVersion
}

// RenderSARIF writes the report as a SARIF 2.1.0 log with one run: a rule
// per registered check (kind@seam), a result per listed real finding of
// each run (one per identity; level error for a defect, note for an
// advisory; an accepted finding carries an accepted suppression), and tool
// execution notifications for unreadable inputs and unmeasured runs. The
// run's properties carry the same counts as the text report.
func RenderSARIF(w io.Writer, r *Report, o RenderOptions) error {
	b := newSARIFBuilder(o)
	for i := range r.Runs {
		run := &r.Runs[i]
		for _, f := range uniqueFindings(run) {
			b.results = append(b.results, b.findingResult(run, f))
		}
	}
	b.inputNotifications(r)
	s := r.Summarize()
	props := map[string]any{
		"exitCode": s.ExitCode,
		"bound":    Bound,
		"summary":  summaryProps(r, s),
	}
	return b.write(w, s.ExitCode, s.incomplete(), props)
}

// summaryProps are the report's counts, as the text report's closing line
// states them.
func summaryProps(r *Report, s Summary) map[string]any {
	defects, advisories, baselined := 0, 0, 0
	for _, run := range r.Runs {
		defects += run.Defects
		advisories += run.Advisories
		baselined += run.Baselined
	}
	return map[string]any{
		"inputs": s.Inputs, "unreadable": s.Unreadable, "emptyInputs": s.Empty,
		"runs": s.Runs, "green": s.Green, "withDefects": s.Defects, "unmeasured": s.Unmeasured,
		"damaged": s.Damaged, "lostRuns": s.LostRuns, "copies": s.Copies,
		"defects": defects, "advisories": advisories, "baselined": baselined,
	}
}

// artifactURI names an input as a SARIF artifact URI: relative (to the
// %SRCROOT% base) when it lies beneath root or was given relative, else an
// absolute file URI. Standard input has no location.
func artifactURI(path, root string) (uri, base string, ok bool) {
	if isURL(path) {
		// An object in a bucket is named by its own URL.
		return path, "", true
	}
	rel, abs, ok := relPath(path, root)
	if !ok {
		return "", "", false
	}
	if rel != "" {
		return (&url.URL{Path: rel}).String(), "%SRCROOT%", true
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive path
	}
	return (&url.URL{Scheme: "file", Path: p}).String(), "", true
}

// isURL reports an input read from object storage (s3://, gs://, …),
// which has no path on this machine.
func isURL(path string) bool {
	scheme, _, ok := strings.Cut(path, "://")
	return ok && scheme != "" && !strings.ContainsAny(scheme, `/\.`)
}

// relPath returns an input's path relative to root, slash-separated, when
// it can be said relative; otherwise abs is its absolute path. ok is false
// for standard input.
func relPath(path, root string) (rel, abs string, ok bool) {
	if path == "" || path == "-" || path == recording.StdinName || isURL(path) {
		return "", "", false
	}
	if !filepath.IsAbs(path) {
		if root == "" {
			return filepath.ToSlash(filepath.Clean(path)), "", true
		}
		path = filepath.Join(root, path)
	}
	if root != "" {
		if r, err := filepath.Rel(root, path); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(r), "", true
		}
	}
	return "", path, true
}

// displayRel names an input for annotations: relative to root when it can
// be, else as given.
func displayRel(path, root string) string {
	rel, abs, ok := relPath(path, root)
	switch {
	case !ok:
		return ""
	case rel != "":
		return rel
	}
	return abs
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
