package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// BaselineVersion is the version of the baseline file format. A file with
// any other version is refused rather than guessed at, but for the one
// before it, which a refresh reads (ParsePreviousBaseline).
const BaselineVersion = 2

// classlessVersion is the version whose entries did not say which class of
// their identity (defect or advisory) they accept.
const classlessVersion = 1

// HeadlineBaselined: every finding the run would list is accepted by the
// baseline, so nothing the run filed fails the gate.
const HeadlineBaselined HeadlineKind = "baselined"

// Baseline is a set of accepted findings, keyed by identity. An accepted
// finding is still listed, marked as baselined, and does not fail the gate;
// once its entry expires it fails again. The identity is epoch-free, so one
// entry accepts the same defect at any iteration, in any run.
type Baseline struct {
	// Path names the file the baseline was read from ("" when built in
	// memory); reports use it to say which file accepted what.
	Path    string
	Entries []BaselineEntry
}

// BaselineEntry is one accepted finding.
type BaselineEntry struct {
	// Identity is Finding.Identity(): kind, seam, sorted subjects and
	// predicate.
	Identity string `json:"identity"`
	// Kind and Seam repeat the start of the identity so that the file reads
	// well; they must agree with it.
	Kind string `json:"kind"`
	Seam string `json:"seam"`
	// Advisory says which finding of the identity the entry accepts: the
	// advisory (true) or the defect (false). The identity leaves the class
	// out, so a doubt and a contradiction about the same subjects share
	// it; accepting the doubt must not accept the contradiction.
	Advisory bool `json:"advisory"`
	// Reason says why the finding was accepted; free text.
	Reason string `json:"reason"`
	// Expires is a date, YYYY-MM-DD, from which the acceptance no longer
	// holds: on that day (UTC) and after, the finding fails again. Empty
	// means it never expires.
	Expires string `json:"expires"`
}

// BaselineMark is how the baseline judged one listed finding.
type BaselineMark struct {
	Reason  string
	Expires string
	// Expired is true when the entry's date has passed: the finding is not
	// accepted any more and fails as if it had no entry.
	Expired bool
}

// BaselineReport is what a baseline did to a whole report.
type BaselineReport struct {
	Path    string
	Entries int
	// Accepted counts distinct identities the baseline accepted in this
	// report (each counts once, however many runs carry it).
	Accepted int
	// Expired are the entries that matched a finding but have expired, so
	// the finding fails again; sorted by identity.
	Expired []BaselineEntry
	// Stale are the entries that matched no finding of the report: the
	// defect is gone (or was never in these recordings), and the entry can
	// be removed. Sorted by identity. Stale entries never fail.
	Stale []BaselineEntry
}

// BaselineError is a baseline file fpcheck cannot honour: missing,
// malformed, of another version, or with an entry it cannot read. The CLI
// exits 2 with its message.
type BaselineError struct {
	Path string
	Msg  string
}

func (e *BaselineError) Error() string {
	if e.Path == "" {
		return "baseline: " + e.Msg
	}
	return "baseline " + Sanitize(e.Path) + ": " + e.Msg
}

// baselineFile is the on-disk shape.
type baselineFile struct {
	Version *int             `json:"version"`
	Entries *[]BaselineEntry `json:"entries"`
}

// baselineFileIn is the on-disk shape as it is read: a field an entry
// leaves out is told from one it states empty.
type baselineFileIn struct {
	Version *int            `json:"version"`
	Entries *[]baselineRead `json:"entries"`
}

type baselineRead struct {
	Identity string  `json:"identity"`
	Kind     *string `json:"kind"`
	Seam     *string `json:"seam"`
	Advisory *bool   `json:"advisory"`
	Reason   *string `json:"reason"`
	Expires  *string `json:"expires"`
}

// missing names the first field the entry leaves out, "" for none: each
// is stated, as baseline write writes them, so that an entry is never
// read as meaning what its writer left unsaid ("" states no reason, or
// no expiry).
func (r baselineRead) missing() string {
	for _, f := range []struct {
		name string
		set  bool
	}{{"kind", r.Kind != nil}, {"seam", r.Seam != nil}, {"reason", r.Reason != nil}, {"expires", r.Expires != nil}} {
		if !f.set {
			return f.name
		}
	}
	return ""
}

// classKey is what a baseline entry accepts and a diff matches a finding
// by: its identity and its class. The gate counts defects and advisories
// apart, so the advisory and the defect of one identity are two findings.
func classKey(identity string, advisory bool) string {
	if advisory {
		return identity + "\x00advisory"
	}
	return identity
}

func (f Finding) classKey() string       { return classKey(f.Identity, f.Advisory) }
func (e BaselineEntry) classKey() string { return classKey(e.Identity, e.Advisory) }

// className words a class for a message.
func className(advisory bool) string {
	if advisory {
		return "advisory"
	}
	return "defect"
}

// ParseBaseline reads a baseline file's bytes. Unknown fields are refused: a
// misspelt "expires" would otherwise accept a finding for ever. Entries must
// state every field, have an identity, a valid expiry date when one is
// given, a kind and seam that agree with the identity, and no identity may
// appear twice in one class.
func ParseBaseline(path string, data []byte) (*Baseline, error) {
	return parseBaseline(path, data, false)
}

// ParsePreviousBaseline reads the baseline a refresh starts from, whose
// reasons and expiry dates a new baseline keeps (BaselineOptions.Previous).
// It also reads a file of the version before classes were stated: its
// entries lend their reason and expiry to the finding of their identity in
// whichever class it has now, which the refresh then accepts, as it
// accepts every finding of the report. Such a file accepts nothing as a
// --baseline: which class its writer accepted is unknown.
func ParsePreviousBaseline(path string, data []byte) (*Baseline, error) {
	return parseBaseline(path, data, true)
}

func parseBaseline(path string, data []byte, previous bool) (*Baseline, error) {
	fail := func(format string, a ...any) error {
		return &BaselineError{Path: path, Msg: fmt.Sprintf(format, a...)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f baselineFileIn
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fail("the file is empty; write one with 'fpcheck baseline write RECORDING...'")
		}
		return nil, fail("not a baseline file: %v", err)
	}
	if dec.More() {
		return nil, fail("not a baseline file: more than one JSON value")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fail("not a baseline file: trailing data after the JSON object")
	}
	classless := false
	switch {
	case f.Version == nil:
		return nil, fail("no \"version\" field; this build reads version %d", BaselineVersion)
	case f.Entries == nil:
		return nil, fail("no \"entries\" list (an empty baseline is \"entries\": [])")
	case *f.Version == classlessVersion && !previous:
		return nil, fail("version %d, written by an earlier fpcheck: its entries do not say whether they accept the defect or the advisory of their identity, which the two share, so it accepts nothing here; refresh it once with 'fpcheck baseline write --baseline %s RECORDING... -o %s', which keeps its reasons and expiry dates", *f.Version, ShellWord(path), ShellWord(path))
	case *f.Version == classlessVersion:
		classless = true
	case *f.Version != BaselineVersion:
		return nil, fail("version %d is not one this build reads (it reads version %d)", *f.Version, BaselineVersion)
	}
	b := &Baseline{Path: path, Entries: make([]BaselineEntry, 0, len(*f.Entries))}
	seen := map[string]int{}
	for i, r := range *f.Entries {
		n := i + 1
		if r.Identity == "" {
			return nil, fail("entry %d has no identity", n)
		}
		if classless {
			if exp := deref(r.Expires); exp != "" {
				if _, err := time.Parse(time.DateOnly, exp); err != nil {
					return nil, fail("entry %d: expires %q is not a date of the form YYYY-MM-DD", n, Sanitize(exp))
				}
			}
			if prev, ok := seen[r.Identity]; ok {
				return nil, fail("entries %d and %d name the same identity %q; keep one", prev, n, Sanitize(r.Identity))
			}
			seen[r.Identity] = n
			// Both classes of the identity take its reason and expiry.
			for _, advisory := range []bool{false, true} {
				b.Entries = append(b.Entries, BaselineEntry{Identity: r.Identity, Advisory: advisory, Reason: deref(r.Reason), Expires: deref(r.Expires)})
			}
			continue
		}
		if r.Advisory == nil {
			return nil, fail("entry %d has no \"advisory\": say whether it accepts the advisory (true) or the defect (false) of its identity, which the two share", n)
		}
		if f := r.missing(); f != "" {
			return nil, fail("entry %d has no %q; every entry states identity, kind, seam, advisory, reason and expires (\"\" for no reason, or no expiry), as 'fpcheck baseline write' writes them", n, f)
		}
		e := BaselineEntry{Identity: r.Identity, Kind: *r.Kind, Seam: *r.Seam, Advisory: *r.Advisory, Reason: *r.Reason, Expires: *r.Expires}
		b.Entries = append(b.Entries, e)
		if prev, ok := seen[e.classKey()]; ok {
			return nil, fail("entries %d and %d accept the same %s, identity %q; keep one", prev, n, className(e.Advisory), Sanitize(e.Identity))
		}
		seen[e.classKey()] = n
		if e.Expires != "" {
			if _, err := time.Parse(time.DateOnly, e.Expires); err != nil {
				return nil, fail("entry %d: expires %q is not a date of the form YYYY-MM-DD", n, Sanitize(e.Expires))
			}
		}
		if !strings.HasPrefix(e.Identity, e.Kind+" @"+e.Seam+" [") {
			return nil, fail("entry %d: kind %q and seam %q do not match its identity %q", n, Sanitize(e.Kind), Sanitize(e.Seam), Sanitize(e.Identity))
		}
	}
	return b, nil
}

// Encode writes the baseline as its versioned JSON file: entries sorted by
// identity, two-space indent, no HTML escaping, a final newline. The same
// baseline always gives the same bytes.
func (b *Baseline) Encode(w io.Writer) error {
	entries := slices.Clone(b.Entries)
	if entries == nil {
		entries = []BaselineEntry{}
	}
	sortEntries(entries)
	v := BaselineVersion
	return encodeJSON(w, baselineFile{Version: &v, Entries: &entries})
}

func sortEntries(es []BaselineEntry) {
	slices.SortFunc(es, func(a, b BaselineEntry) int {
		if c := strings.Compare(a.Identity, b.Identity); c != 0 {
			return c
		}
		return cmpBool(a.Advisory, b.Advisory)
	})
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// BaselineOptions shape a baseline written from a report.
type BaselineOptions struct {
	// Reason and Expires are given to every new entry.
	Reason, Expires string
	// Previous, when set, lends its reason and expiry to the entries that
	// are still found, so rewriting a baseline keeps what people wrote.
	// Its stale entries are dropped.
	Previous *Baseline
}

// NewBaseline accepts every real finding of the report, defects and
// advisories alike, each in its class, whatever the kind filter or limit
// showed. Synthetic canaries are never baselined: they are not defects of
// the run.
func NewBaseline(r *Report, o BaselineOptions) *Baseline {
	prev := map[string]BaselineEntry{}
	if o.Previous != nil {
		for _, e := range o.Previous.Entries {
			prev[e.classKey()] = e
		}
	}
	seen := map[string]bool{}
	b := &Baseline{Entries: []BaselineEntry{}}
	for _, run := range r.Runs {
		for _, f := range run.allFindings {
			if f.Synthetic || seen[f.classKey()] {
				continue
			}
			seen[f.classKey()] = true
			e := BaselineEntry{Identity: f.Identity, Kind: f.Kind, Seam: f.Seam, Advisory: f.Advisory, Reason: o.Reason, Expires: o.Expires}
			if p, ok := prev[f.classKey()]; ok {
				e.Reason, e.Expires = p.Reason, p.Expires
			}
			b.Entries = append(b.Entries, e)
		}
	}
	sortEntries(b.Entries)
	return b
}

// expired reports whether the entry no longer holds on the given day. Dates
// of the form YYYY-MM-DD order as strings; an empty today judges nothing
// expired (the CLI always passes the current UTC date).
func (e BaselineEntry) expired(today string) bool {
	return e.Expires != "" && today != "" && today >= e.Expires
}

// applyBaseline runs at the end of buildRun. It keeps the run's full
// finding list (which the kind filter and the limit do not shorten) for
// baselines and diffs and, when a baseline is given, marks the findings it
// names, takes the accepted identities out of the counts, and judges the
// verdict and headline again without them. Without a baseline the run is
// left exactly as built.
func applyBaseline(run *Run, all []Finding, opts Options) {
	run.allFindings = all
	if opts.Baseline == nil {
		return
	}
	idx := make(map[string]BaselineEntry, len(opts.Baseline.Entries))
	for _, e := range opts.Baseline.Entries {
		idx[e.classKey()] = e
	}
	accepted := map[string]bool{}
	mark := func(f *Finding) {
		e, ok := idx[f.classKey()]
		if !ok || f.Synthetic {
			return
		}
		f.Baseline = &BaselineMark{Reason: e.Reason, Expires: e.Expires, Expired: e.expired(opts.Today)}
		if !slices.Contains(run.baselineHits, f.classKey()) {
			run.baselineHits = append(run.baselineHits, f.classKey())
		}
		if !f.Baseline.Expired {
			accepted[f.classKey()] = true
		}
	}
	for i := range all {
		mark(&all[i])
	}
	for i := range run.Findings {
		mark(&run.Findings[i])
	}
	if len(accepted) == 0 {
		return
	}
	run.Baselined = len(accepted)

	defects, advisories, drift := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var lc listCounts
	matchingIndex := 0
	for _, f := range all {
		matches := opts.Kind == "" || f.Kind == opts.Kind
		shown := matches && (opts.Limit == 0 || matchingIndex < opts.Limit)
		if matches {
			matchingIndex++
		}
		if f.Synthetic {
			continue
		}
		lc.real++
		if accepted[f.classKey()] {
			continue
		}
		if f.Advisory {
			advisories[f.Identity] = true
		} else {
			defects[f.Identity] = true
		}
		if f.Drift {
			drift[f.Identity] = true
		}
		if !matches {
			continue
		}
		lc.count(f)
		if shown {
			lc.shown++
		}
	}
	run.Defects, run.Advisories, run.Drift = len(defects), len(advisories), len(drift)
	run.Verdict = gate(run, opts)
	if run.HeadlineKind == HeadlineFindings {
		run.HeadlineKind, run.Headline = headline(run, opts, lc)
	}
	baselineHeadline(run, opts)
}

// baselineHeadline says, in the headline, that accepted findings are
// listed: the counts in the headline already leave them out.
func baselineHeadline(run *Run, opts Options) {
	listed := 0
	for _, f := range run.allFindings {
		if f.Baseline != nil && !f.Baseline.Expired && (opts.Kind == "" || f.Kind == opts.Kind) {
			listed++
		}
	}
	if listed == 0 {
		return
	}
	accepted := count(listed, "finding accepted by the baseline", "findings accepted by the baseline")
	switch run.HeadlineKind {
	case HeadlineFindings:
		run.Headline += fmt.Sprintf(" Also listed: %s, marked BASELINED; %s not fail the gate.", accepted, doDoes(listed))
	case HeadlineEvidenceMissing:
	default:
		run.HeadlineKind = HeadlineBaselined
		run.Headline = fmt.Sprintf("BASELINED ONLY — no finding beyond the baseline: the run's %s, listed and marked BASELINED, %s not fail the gate. Remove an entry from the baseline to make its finding fail again.", accepted, doDoes(listed))
	}
}

func doDoes(n int) string {
	if n == 1 {
		return "it does"
	}
	return "they do"
}

// baselineNotes words the expired entries a run's findings matched.
func baselineNotes(run *Run) []string {
	var notes []string
	for _, f := range run.allFindings {
		if f.Baseline != nil && f.Baseline.Expired {
			notes = append(notes, fmt.Sprintf("⚠ The baseline entry for %q expired on %s: the finding is no longer accepted and fails again.", f.Identity, f.Baseline.Expires))
		}
	}
	return notes
}

// summarizeBaseline states what the baseline did across the report.
func summarizeBaseline(b *Baseline, today string, runs []Run) *BaselineReport {
	if b == nil {
		return nil
	}
	hit := map[string]bool{}
	accepted := map[string]bool{}
	for _, run := range runs {
		for _, id := range run.baselineHits {
			hit[id] = true
		}
		for _, f := range run.allFindings {
			if f.Baseline != nil && !f.Baseline.Expired {
				accepted[f.classKey()] = true
			}
		}
	}
	br := &BaselineReport{Path: b.Path, Entries: len(b.Entries), Accepted: len(accepted), Expired: []BaselineEntry{}, Stale: []BaselineEntry{}}
	for _, e := range b.Entries {
		switch {
		case !hit[e.classKey()]:
			br.Stale = append(br.Stale, e)
		case e.expired(today):
			br.Expired = append(br.Expired, e)
		}
	}
	sortEntries(br.Stale)
	sortEntries(br.Expired)
	return br
}

// baselineSentences word a BaselineReport for the text and markdown
// formats: a heading sentence, then one line per expired and stale entry.
func baselineSentences(br *BaselineReport) (string, []string) {
	path := br.Path
	if path == "" {
		path = "(in memory)"
	}
	head := fmt.Sprintf("BASELINE %s: %s; %s in this report", path,
		count(br.Entries, "entry", "entries"), count(br.Accepted, "finding accepted", "findings accepted"))
	if n := len(br.Expired); n > 0 {
		head += fmt.Sprintf(", %s (its finding fails again)", count(n, "entry expired", "entries expired"))
	}
	if n := len(br.Stale); n > 0 {
		head += fmt.Sprintf(", %s (no longer found: remove %s)", count(n, "stale entry", "stale entries"), itThem(n))
	}
	head += "."
	var lines []string
	for _, e := range br.Expired {
		lines = append(lines, fmt.Sprintf("⚠ expired on %s: %s%q%s", e.Expires, e.class(), e.Identity, reasonSuffix(e.Reason)))
	}
	for _, e := range br.Stale {
		lines = append(lines, fmt.Sprintf("stale: %s%q%s", e.class(), e.Identity, reasonSuffix(e.Reason)))
	}
	return head, lines
}

// class is what a report names before an entry's identity: nothing for
// an entry that accepts the defect, "advisory " for one that accepts the
// advisory, since the defect of the same identity may be the finding in
// the report beside it.
func (e BaselineEntry) class() string {
	if e.Advisory {
		return "advisory "
	}
	return ""
}

func itThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

func reasonSuffix(reason string) string {
	if reason == "" {
		return ""
	}
	return " — accepted because: " + reason
}

// JSON shapes of the baseline's facts; the report's JSON carries them only
// when a baseline was given, so a report without one is unchanged.

type jsonBaseline struct {
	Path     string          `json:"path"`
	Entries  int             `json:"entries"`
	Accepted int             `json:"accepted"`
	Expired  []BaselineEntry `json:"expired"`
	Stale    []BaselineEntry `json:"stale"`
}

type jsonMark struct {
	Reason  string `json:"reason"`
	Expires string `json:"expires"`
	Expired bool   `json:"expired"`
}

func jsonBaselineOf(br *BaselineReport) *jsonBaseline {
	if br == nil {
		return nil
	}
	return &jsonBaseline{Path: br.Path, Entries: br.Entries, Accepted: br.Accepted, Expired: nonNil(br.Expired), Stale: nonNil(br.Stale)}
}

func jsonMarkOf(m *BaselineMark) *jsonMark {
	if m == nil {
		return nil
	}
	return &jsonMark{Reason: m.Reason, Expires: m.Expires, Expired: m.Expired}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
