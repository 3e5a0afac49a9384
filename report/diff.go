package report

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// DiffSchemaVersion is the version of the diff's JSON document; it changes
// only when a field is renamed, removed or changes meaning.
const DiffSchemaVersion = 1

// Finding changes between a base and a head run, by identity.
const (
	ChangeNew        = "new"
	ChangeResolved   = "resolved"
	ChangePersisting = "persisting"
)

// Check (ledger row) changes. Regressions: a row that stopped checking, a
// row that vanished, a row whose unreachable encounters grew. The others
// are stated, never failing.
const (
	CheckStoppedChecking = "stopped-checking"
	CheckVanished        = "vanished"
	CheckUnreachableGrew = "unreachable-grew"
	CheckCheckedFewer    = "checked-fewer"
	CheckStartedChecking = "started-checking"
	CheckAppeared        = "appeared"
)

// Regression kinds.
const (
	RegressionCoverage        = "coverage"
	RegressionCheck           = "check"
	RegressionEvidenceMissing = "evidence-missing"
	RegressionEvidenceDamaged = "evidence-damaged"
	RegressionRunVanished     = "run-vanished"
	RegressionInputVanished   = "input-vanished"
)

// How runs were matched.
const (
	MatchedByRunID = "run id"
	// MatchedByScenario pairs the one run of a recording with the one run
	// of its counterpart: the recording is the scenario.
	MatchedByScenario = "scenario"
	// MatchedByPrompt pairs runs whose first turn carries the same user
	// prompt (PromptKey): a re-recorded run of a multi-run scenario, whose
	// run id is new.
	MatchedByPrompt = "prompt"
	// MatchedByPromptOrder pairs runs whose conversations, up to and with
	// them, carry the same prompts, like MatchedByPrompt, when another run
	// of a side carries them too: the n-th such run of the base with the
	// n-th of the head, in recording order, which the report says.
	MatchedByPromptOrder = "prompt, in recording order"
	MatchedBaseOnly      = "base only"
	MatchedHeadOnly      = "head only"
)

// DiffOptions gate a diff.
type DiffOptions struct {
	// FailOn is FailOnDefect (the default when empty) or FailOnAdvisory:
	// whether a new advisory fails like a new defect.
	FailOn string
	// AllowUnmeasured turns the unmeasured exit code (an unmeasured head)
	// into a green one.
	AllowUnmeasured bool
}

func (o DiffOptions) failOn() string {
	if o.FailOn == "" {
		return FailOnDefect
	}
	return o.FailOn
}

// ValidateDiffOptions checks the gate level a diff accepts.
func ValidateDiffOptions(o DiffOptions) error {
	switch o.FailOn {
	case "", FailOnDefect, FailOnAdvisory:
		return nil
	}
	return &UsageError{Msg: fmt.Sprintf("fail-on '%s' is not a gate level for diff; use %s or %s.", Sanitize(o.FailOn), FailOnDefect, FailOnAdvisory)}
}

// InputPair matches a base input to a head input by index into each
// report's Inputs; -1 when the input exists on one side only.
type InputPair struct {
	// Name is the key the inputs were matched by: the path relative to
	// its directory, or "" when two files were compared.
	Name       string
	Base, Head int
}

// PairInputs matches inputs by name. With two files (both roots empty)
// the one base input pairs with the one head input. With two directories,
// each input is named by its path relative to its root, slash-separated,
// and inputs of the same name pair; the order is base order, then the
// head's inputs with no base counterpart, in head order.
func PairInputs(baseRoot string, base []string, headRoot string, head []string) []InputPair {
	named := func(root string, paths []string) []Scenario {
		out := make([]Scenario, len(paths))
		for i, p := range paths {
			out[i] = Scenario{Root: root, Path: p}
		}
		return out
	}
	return PairScenarios(named(baseRoot, base), named(headRoot, head))
}

// Scenario is an input as a cohort names it: its path, and the directory
// it was found under (empty for an input named itself).
type Scenario struct{ Root, Path string }

// ScenarioName is the name inputs pair by: the path relative to its root,
// slash-separated, or the file's base name when it has no root.
func ScenarioName(root, p string) string {
	if root == "" {
		return path.Base(strings.ReplaceAll(p, `\`, "/"))
	}
	return relName(root, p)
}

// PairScenarios is PairInputs for inputs that each carry their own root,
// as the inputs of saved reports do.
func PairScenarios(base, head []Scenario) []InputPair {
	if len(base) == 1 && len(head) == 1 && base[0].Root == "" && head[0].Root == "" {
		return []InputPair{{Base: 0, Head: 0}}
	}
	headIdx := map[string]int{}
	for j, s := range head {
		n := ScenarioName(s.Root, s.Path)
		if _, ok := headIdx[n]; !ok {
			headIdx[n] = j
		}
	}
	var pairs []InputPair
	used := map[int]bool{}
	for i, s := range base {
		n := ScenarioName(s.Root, s.Path)
		j, ok := headIdx[n]
		if ok && !used[j] {
			used[j] = true
			pairs = append(pairs, InputPair{Name: n, Base: i, Head: j})
			continue
		}
		pairs = append(pairs, InputPair{Name: n, Base: i, Head: -1})
	}
	for j, s := range head {
		if !used[j] {
			pairs = append(pairs, InputPair{Name: ScenarioName(s.Root, s.Path), Base: -1, Head: j})
		}
	}
	return pairs
}

// relName is p relative to root, slash-separated; both are paths as
// Expand returns them, so root is a prefix of p.
func relName(root, p string) string {
	r := strings.ReplaceAll(root, `\`, "/")
	q := strings.ReplaceAll(p, `\`, "/")
	r = strings.TrimSuffix(path.Clean(r), "/")
	q = path.Clean(q)
	if r == "." {
		return q
	}
	if rest, ok := strings.CutPrefix(q, r+"/"); ok {
		return rest
	}
	return q
}

// Diff is what changed between two sets of recordings of the same
// scenarios: per matched run, findings new, resolved and persisting (by
// epoch-free identity), coverage that got worse and checks that stopped
// checking; and whether the head is measured at all.
type Diff struct {
	SchemaVersion      int
	Options            DiffOptions
	BaseName, HeadName string
	Base, Head         *Report
	Inputs             []InputDiff
	Totals             DiffTotals
	// HeadEmpty is true when the head holds no recording at all (every
	// file its walk found was skipped): it is counted unmeasured, since a
	// diff with nothing on the head side compared nothing.
	HeadEmpty bool
}

// DiffTotals count the diff's outcome.
type DiffTotals struct {
	NewDefects, ResolvedDefects, PersistingDefects          int
	NewAdvisories, ResolvedAdvisories, PersistingAdvisories int
	// Baselined counts head findings a baseline entry accepts (new or
	// persisting); Failing counts the findings that fail the diff's gate.
	Baselined, Failing int
	Regressions        int
	// HeadUnmeasured counts head runs (and head inputs with no run) that
	// prove nothing about their checks having run.
	HeadUnmeasured int
	// Unreadable counts inputs, on either side, that could not be read.
	Unreadable int
	// Stopped counts inputs, on either side, with a run stopped at a
	// limit: not read whole, so not compared whole (exit 2, as analyze).
	Stopped int
	// DeclaredUnseen counts the declared tools no run of either side
	// offered or called, when --strict-declarations makes each a usage
	// error (exit 2, as analyze); 0 otherwise. Only the diff's own totals
	// hold it: the declarations are the invocation's, no scenario's.
	DeclaredUnseen int
	// BaseRuns and HeadRuns count each side's runs; Matched the pairs
	// compared. Unmatched counts the runs, on either side, left unpaired
	// in a scenario that also left runs of the other side unpaired: they
	// were not compared, which proves nothing either way. BaseOnly and
	// HeadOnly count the other unpaired runs (evidence that vanished, and
	// runs the head added).
	BaseRuns, HeadRuns, Matched   int
	Unmatched, BaseOnly, HeadOnly int
}

// add sums two totals.
func (t *DiffTotals) add(o DiffTotals) {
	t.NewDefects += o.NewDefects
	t.ResolvedDefects += o.ResolvedDefects
	t.PersistingDefects += o.PersistingDefects
	t.NewAdvisories += o.NewAdvisories
	t.ResolvedAdvisories += o.ResolvedAdvisories
	t.PersistingAdvisories += o.PersistingAdvisories
	t.Baselined += o.Baselined
	t.Failing += o.Failing
	t.Regressions += o.Regressions
	t.HeadUnmeasured += o.HeadUnmeasured
	t.Unreadable += o.Unreadable
	t.Stopped += o.Stopped
	t.BaseRuns += o.BaseRuns
	t.HeadRuns += o.HeadRuns
	t.Matched += o.Matched
	t.Unmatched += o.Unmatched
	t.BaseOnly += o.BaseOnly
	t.HeadOnly += o.HeadOnly
}

// InputDiff is one scenario: the inputs of one name on each side (the
// path relative to each side's root) and their runs, paired.
type InputDiff struct {
	Name        string
	Base, Head  *Input
	Runs        []RunDiff
	Regressions []Regression
	// Totals count this scenario alone; the diff's Totals are their sum.
	Totals DiffTotals
}

// RunDiff is one matched pair of runs (or a run on one side only).
type RunDiff struct {
	// Position is the pair's 1-based place in its input's list.
	Position    int
	MatchedBy   string
	Base, Head  *Run
	Findings    []FindingChange
	Coverage    []CoverageChange
	Checks      []CheckChange
	Regressions []Regression
	// HeadUnmeasured is true when the head run proves nothing about its
	// checks having run; HeadUnmeasuredWhy says why.
	HeadUnmeasured    bool
	HeadUnmeasuredWhy string
	// Unmatched is true for a run left unpaired while its scenario left
	// runs of the other side unpaired too: it was not compared, and
	// UnmatchedWhy says so. Such a run fails a diff as unmeasured, never
	// as a regression or a green.
	Unmatched    bool
	UnmatchedWhy string
}

// FindingChange is one finding identity's fate.
type FindingChange struct {
	Change string
	// Finding is the head's for new and persisting, the base's for
	// resolved.
	Finding Finding
	// Fails is true when the change fails the gate: a new defect (or a new
	// advisory under fail-on advisory) the baseline does not accept, or a
	// finding whose baseline entry has expired.
	Fails bool
}

// CoverageChange is a side's coverage state in base and head.
type CoverageChange struct {
	Side       string
	Base, Head Coverage
	Worse      bool
}

// CheckChange is one ledger row that changed in a way worth stating.
type CheckChange struct {
	Side       string
	Kind, Seam string
	Base, Head *Row
	Change     string
	Regression bool
	Sentence   string
}

// Regression is one reason the head's evidence is weaker than the base's.
type Regression struct {
	Kind string
	// Check is "kind @seam" when the regression is about one check.
	Check    string
	Side     string
	Sentence string
}

// coverageRank orders coverage states from the least evidence to the
// most; a head state of lower rank than the base's is worse. The four
// absences between no-tail and partial are one rank: moving among them
// changes what is missing, not how much.
func coverageRank(c Coverage) int {
	switch c {
	case CoverageFull:
		return 3
	case CoveragePartial:
		return 2
	case CoverageNoTail, "":
		return 0
	}
	return 1
}

// runUnmeasured is the gate's notion of an unmeasured run, before a defect
// outranks it: no side proves the checks ran, or a checker is dead.
func runUnmeasured(run *Run) (bool, string) {
	if run.CheckerDead != "" {
		return true, "dead checker: " + run.CheckerDead
	}
	if run.Recorded.Unmeasured && (run.Replayed == nil || run.Replayed.Unmeasured) {
		return true, unmeasuredReason(run.Recorded)
	}
	// Lost lines could have held the run's only finding, whatever its
	// ledger says.
	if run.Damaged() {
		return true, "evidence damaged: " + damageText(run)
	}
	return false, ""
}

// NewDiff compares two reports built from the base and head inputs, paired
// by pairs: each pair is a scenario. Runs of a scenario are matched by run
// id where both sides carry the same id (the same recording, replayed
// again), then by the prompt of their first turn (PromptKey, in recording
// order among runs of the same prompt), then, when each side holds one run
// and nothing else, by scenario; a run left over is listed as such, never
// paired by position. Findings are compared by identity and class across
// the whole scenario: a defect one run of the base carried and another run
// of the head carries persists, an advisory the head files as a defect is
// a new defect.
// Reports should be built without a kind filter or a limit; the diff reads
// every finding either way.
func NewDiff(base, head *Report, pairs []InputPair, o DiffOptions) *Diff {
	d := &Diff{SchemaVersion: DiffSchemaVersion, Options: o, Base: base, Head: head}
	baseRuns, headRuns := inputRuns(base), inputRuns(head)
	for _, p := range pairs {
		id := InputDiff{Name: p.Name}
		var bRuns, hRuns []*Run
		if p.Base >= 0 {
			id.Base = &base.Inputs[p.Base]
			bRuns = baseRuns[p.Base]
		}
		if p.Head >= 0 {
			id.Head = &head.Inputs[p.Head]
			hRuns = headRuns[p.Head]
		}
		if id.Name == "" {
			switch {
			case id.Base != nil && id.Head != nil && id.Base.Path != id.Head.Path:
				id.Name = id.Base.Path + " → " + id.Head.Path
			case id.Head != nil:
				id.Name = id.Head.Path
			case id.Base != nil:
				id.Name = id.Base.Path
			}
		}
		if id.Base != nil && id.Head == nil {
			id.Regressions = append(id.Regressions, Regression{Kind: RegressionInputVanished,
				Sentence: fmt.Sprintf("The head has no recording named %s: the evidence of its %s vanished.", id.Name, count(len(bRuns), "run", "runs"))})
		}
		scene := scenarioFindings{base: identities(bRuns), head: identities(hRuns)}
		matches := matchRuns(bRuns, hRuns)
		// Runs left unpaired on both sides may be the same runs under
		// keys that changed: not compared, so neither vanished nor new.
		unmatched := slices.ContainsFunc(matches, func(m runMatch) bool { return m.how == MatchedHeadOnly }) &&
			slices.ContainsFunc(matches, func(m runMatch) bool { return m.how == MatchedBaseOnly })
		for i, m := range matches {
			rd := diffRun(m.base, m.head, scene, o)
			if id.Head == nil {
				// The vanished recording is the one regression; its
				// runs vanishing with it is the same fact.
				rd.Regressions = nil
			}
			if unmatched && (m.base == nil || m.head == nil) {
				rd.Regressions = nil
				rd.Unmatched = true
				rd.UnmatchedWhy = unmatchedWhy(m)
			}
			rd.Position = i + 1
			rd.MatchedBy = m.how
			id.Runs = append(id.Runs, rd)
		}
		id.Totals = id.totals()
		d.Totals.add(id.Totals)
		d.Inputs = append(d.Inputs, id)
	}
	if len(head.Inputs) == 0 {
		d.HeadEmpty = true
		d.Totals.HeadUnmeasured++
	}
	return d
}

// unmatchedWhy words why a run of a scenario that left runs unpaired on
// both sides was not compared.
func unmatchedWhy(m runMatch) string {
	if m.base != nil {
		return fmt.Sprintf("Base run %s was not compared: no head run of this scenario carries its run id or its first turn's prompt, and runs are never paired by position. Whether its evidence held in the head is not known, so the diff cannot say the head is no worse.", runLabel(m.base))
	}
	return fmt.Sprintf("Head run %s was not compared: no base run of this scenario carries its run id or its first turn's prompt, and runs are never paired by position. Its coverage has nothing to be held against.", runLabel(m.head))
}

// scenarioFindings are the finding identities, with their class, of a
// scenario's runs on each side: a finding is new only when no run of the
// base carried it as a finding of its class.
type scenarioFindings struct{ base, head map[string]bool }

func identities(runs []*Run) map[string]bool {
	out := map[string]bool{}
	for _, r := range runs {
		for _, f := range classedFindings(r) {
			out[f.classKey()] = true
		}
	}
	return out
}

// classedFindings is every real finding of the run, one per identity and
// class: an advisory and a defect of one identity are two findings to the
// gate, so a diff holds each against the other side's.
func classedFindings(run *Run) []Finding {
	return firstOf(run.everyFinding(), Finding.classKey)
}

// firstOf is the real findings of fs, the first of each key, with
// synthetic canaries left out.
func firstOf(fs []Finding, key func(Finding) string) []Finding {
	var out []Finding
	seen := map[string]bool{}
	for _, f := range fs {
		if k := key(f); !f.Synthetic && !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	return out
}

// everyFinding is the run's findings whatever the kind filter or limit
// showed.
func (r *Run) everyFinding() []Finding {
	if r.allFindings != nil {
		return r.allFindings
	}
	return r.Findings
}

func identityOf(f Finding) string { return f.Identity }

// runMatch is one pair of runs; either may be nil.
type runMatch struct {
	base, head *Run
	how        string
}

// matchRuns pairs runs: by run id, then by prompt key (each in order of
// occurrence among runs of the same key), then, when each side holds
// exactly one run, the two by scenario; any other run is unmatched.
// conversationKeys are the runs' prompt keys, each preceded by the keys
// of the earlier turns of its conversation (the runs before it with its
// session id): two conversations that share a follow-up prompt keep their
// turns apart, where the prompt alone would pair one's turn with the
// other's in recording order. A run without a prompt key has none; one
// without a session id is keyed by its own prompt.
func conversationKeys(runs []*Run) []string {
	keys := make([]string, len(runs))
	chain := map[string]string{}
	for i, r := range runs {
		if r.SessionID == "" {
			keys[i] = r.PromptKey
			continue
		}
		// A turn without a key breaks its conversation's chain: what
		// follows it cannot be told from the same turns after another.
		prev, broken := chain[r.SessionID], chain[r.SessionID] == "\x00"
		switch {
		case r.PromptKey == "" || broken:
			chain[r.SessionID] = "\x00"
		case prev == "":
			keys[i] = r.PromptKey
			chain[r.SessionID] = keys[i]
		default:
			keys[i] = prev + ">" + r.PromptKey
			chain[r.SessionID] = keys[i]
		}
	}
	return keys
}

func matchRuns(base, head []*Run) []runMatch {
	pairOf := make([]int, len(base))
	how := make([]string, len(base))
	for i := range pairOf {
		pairOf[i] = -1
	}
	usedHead := make([]bool, len(head))
	// byKey pairs the runs still unpaired whose key agrees, the n-th run
	// of a key in the base with the n-th of it in the head; a pair of a key
	// more than one run of a side holds is labelled repeated.
	byKey := func(bkeys, hkeys []string, label, repeated string) {
		occurrence := func(keys []string, skip func(int) bool) ([]string, map[string]int) {
			seen := map[string]int{}
			out := make([]string, len(keys))
			for i, k := range keys {
				if k == "" || skip(i) {
					continue
				}
				out[i] = k + "\x00" + strconv.Itoa(seen[k])
				seen[k]++
			}
			return out, seen
		}
		bk, bn := occurrence(bkeys, func(i int) bool { return pairOf[i] >= 0 })
		hk, hn := occurrence(hkeys, func(j int) bool { return usedHead[j] })
		headOf := map[string]int{}
		for j, k := range hk {
			if k != "" {
				headOf[k] = j
			}
		}
		for i, k := range bk {
			if j, ok := headOf[k]; ok && k != "" {
				pairOf[i], how[i], usedHead[j] = j, label, true
				if bn[bkeys[i]] > 1 || hn[hkeys[j]] > 1 {
					how[i] = repeated
				}
			}
		}
	}
	runIDs := func(runs []*Run) []string {
		keys := make([]string, len(runs))
		for i, r := range runs {
			keys[i] = r.RunID
		}
		return keys
	}
	byKey(runIDs(base), runIDs(head), MatchedByRunID, MatchedByRunID)
	byKey(conversationKeys(base), conversationKeys(head), MatchedByPrompt, MatchedByPromptOrder)
	// A recording of one run is the scenario's run, whatever its prompt
	// became; with more runs, what keys leave over is never paired by
	// position, which would compare unrelated runs without a word.
	if len(base) == 1 && len(head) == 1 && pairOf[0] < 0 {
		pairOf[0], how[0], usedHead[0] = 0, MatchedByScenario, true
	}
	var out []runMatch
	for i, b := range base {
		if pairOf[i] >= 0 {
			out = append(out, runMatch{b, head[pairOf[i]], how[i]})
		} else {
			out = append(out, runMatch{b, nil, MatchedBaseOnly})
		}
	}
	for j, h := range head {
		if !usedHead[j] {
			out = append(out, runMatch{nil, h, MatchedHeadOnly})
		}
	}
	return out
}

// diffRun compares one pair of runs; a finding's fate is its identity's in
// the whole scenario.
func diffRun(base, head *Run, scene scenarioFindings, o DiffOptions) RunDiff {
	rd := RunDiff{Base: base, Head: head}
	advisoryFails := o.failOn() == FailOnAdvisory
	var baseF, headF []Finding
	if base != nil {
		baseF = classedFindings(base)
	}
	if head != nil {
		headF = classedFindings(head)
		rd.HeadUnmeasured, rd.HeadUnmeasuredWhy = runUnmeasured(head)
	}
	var persisting []FindingChange
	for _, f := range headF {
		gated := !f.Advisory || advisoryFails
		expired := f.Baseline != nil && f.Baseline.Expired
		accepted := f.Baseline != nil && !f.Baseline.Expired
		// An advisory that became a defect is a new defect, and a defect
		// that became an advisory a resolved defect beside a new advisory.
		if scene.base[f.classKey()] {
			persisting = append(persisting, FindingChange{Change: ChangePersisting, Finding: f, Fails: gated && expired})
			continue
		}
		rd.Findings = append(rd.Findings, FindingChange{Change: ChangeNew, Finding: f, Fails: gated && !accepted})
	}
	rd.Findings = append(rd.Findings, persisting...)
	for _, f := range baseF {
		if !scene.head[f.classKey()] {
			rd.Findings = append(rd.Findings, FindingChange{Change: ChangeResolved, Finding: f})
		}
	}

	switch {
	case base != nil && head == nil:
		rd.Regressions = append(rd.Regressions, Regression{Kind: RegressionRunVanished,
			Sentence: fmt.Sprintf("Base run %s has no counterpart in the head: its checks' evidence vanished.", runLabel(base))})
	case base != nil && head != nil:
		diffSide(&rd, "recorded", base.Recorded, head.Recorded)
		switch {
		case base.Replayed != nil && head.Replayed != nil:
			diffSide(&rd, "replayed", base.Replayed, head.Replayed)
		case base.Replayed != nil:
			// What only the base's replay found would otherwise read as
			// resolved.
			rd.Regressions = append(rd.Regressions, Regression{Kind: RegressionCoverage, Side: "replayed",
				Sentence: fmt.Sprintf("Coverage (replayed) got worse: %s in the base, no replay at all in the head, so what the base's replay found is not known to be resolved.", base.Replayed.Coverage)})
		}
		if head.Recorded.EvidenceMissing && !base.Recorded.EvidenceMissing {
			rd.Regressions = append(rd.Regressions, Regression{Kind: RegressionEvidenceMissing, Side: "recorded",
				Sentence: fmt.Sprintf("Evidence missing in the head: its ledger counts %s and its events carry none of the findings.",
					count(head.Recorded.RowFindings, "failing encounter", "failing encounters"))})
		}
		if head.Damaged() && !base.Damaged() {
			rd.Regressions = append(rd.Regressions, Regression{Kind: RegressionEvidenceDamaged,
				Sentence: fmt.Sprintf("Evidence damaged in the head, not in the base: %s. Lost lines could have held a finding the base's run did not have.", damageText(head))})
		}
	}
	return rd
}

// diffSide compares one side's coverage state and ledger rows.
func diffSide(rd *RunDiff, side string, base, head *Side) {
	if base.Coverage != head.Coverage {
		worse := coverageRank(head.Coverage) < coverageRank(base.Coverage)
		rd.Coverage = append(rd.Coverage, CoverageChange{Side: side, Base: base.Coverage, Head: head.Coverage, Worse: worse})
		if worse {
			rd.Regressions = append(rd.Regressions, Regression{Kind: RegressionCoverage, Side: side,
				Sentence: fmt.Sprintf("Coverage (%s) got worse: %s in the base, %s in the head.", side, base.Coverage, head.Coverage)})
		}
	}
	headRows := map[string]*Row{}
	for i := range head.Rows {
		r := &head.Rows[i]
		if _, ok := headRows[r.Key()]; !ok {
			headRows[r.Key()] = r
		}
	}
	baseKeys := map[string]bool{}
	add := func(c CheckChange) {
		rd.Checks = append(rd.Checks, c)
		if c.Regression {
			rd.Regressions = append(rd.Regressions, Regression{Kind: RegressionCheck, Check: rowKey(c.Kind, c.Seam), Side: side, Sentence: c.Sentence})
		}
	}
	for i := range base.Rows {
		b := &base.Rows[i]
		key := b.Key()
		if baseKeys[key] {
			continue
		}
		baseKeys[key] = true
		h, ok := headRows[key]
		c := CheckChange{Side: side, Kind: b.Check, Seam: b.Seam, Base: b, Head: h}
		switch {
		case !ok:
			c.Change, c.Regression = CheckVanished, true
			c.Sentence = fmt.Sprintf("%s (%s): its ledger row vanished — registered in the base (checked %d), absent from the head.", key, side, b.Checked)
			add(c)
			continue
		case b.Checked > 0 && h.Checked <= 0:
			c.Change, c.Regression = CheckStoppedChecking, true
			c.Sentence = fmt.Sprintf("%s (%s) stopped checking: checked %d in the base, 0 in the head (%d not-applicable, %d unreachable).", key, side, b.Checked, h.NotApplicable, h.Unreachable)
			add(c)
		case b.Checked <= 0 && h.Checked > 0:
			c.Change = CheckStartedChecking
			c.Sentence = fmt.Sprintf("%s (%s) started checking: checked 0 in the base, %d in the head.", key, side, h.Checked)
			add(c)
		}
		if b.Checked > 0 && h.Checked > 0 && h.Checked < b.Checked {
			add(CheckChange{Side: side, Kind: b.Check, Seam: b.Seam, Base: b, Head: h, Change: CheckCheckedFewer, Regression: true,
				Sentence: fmt.Sprintf("%s (%s) judged fewer encounters: checked %d in the base, %d in the head — what it no longer reached went unjudged.", key, side, b.Checked, h.Checked)})
		}
		if h.Unreachable > b.Unreachable {
			c := CheckChange{Side: side, Kind: b.Check, Seam: b.Seam, Base: b, Head: h, Change: CheckUnreachableGrew, Regression: true,
				Sentence: fmt.Sprintf("%s (%s): unreachable encounters grew from %d to %d — more of what it should judge went unseen.", key, side, b.Unreachable, h.Unreachable)}
			add(c)
		}
	}
	for i := range head.Rows {
		h := &head.Rows[i]
		if baseKeys[h.Key()] {
			continue
		}
		baseKeys[h.Key()] = true
		add(CheckChange{Side: side, Kind: h.Check, Seam: h.Seam, Head: h, Change: CheckAppeared,
			Sentence: fmt.Sprintf("%s (%s) appeared in the head (checked %d); the base had no row for it.", h.Key(), side, h.Checked)})
	}
}

// totals count one scenario.
func (in *InputDiff) totals() DiffTotals {
	var t DiffTotals
	for _, side := range []*Input{in.Base, in.Head} {
		if side != nil && side.Error != "" {
			t.Unreadable++
		}
		if side != nil && len(side.StoppedRuns) > 0 {
			t.Stopped++
		}
	}
	// A head that lost a run whole is damaged, as analyze counts it; one
	// that holds no run at all proves nothing.
	if in.Head != nil && (in.Head.noTail() || len(in.Head.LostRuns) > 0) {
		t.HeadUnmeasured++
	}
	t.Regressions += len(in.Regressions)
	for _, rd := range in.Runs {
		t.Regressions += len(rd.Regressions)
		if rd.Base != nil {
			t.BaseRuns++
		}
		if rd.Head != nil {
			t.HeadRuns++
		}
		switch {
		case rd.Unmatched:
			t.Unmatched++
		case rd.Base != nil && rd.Head != nil:
			t.Matched++
		case rd.Base != nil:
			t.BaseOnly++
		default:
			t.HeadOnly++
		}
		if rd.HeadUnmeasured {
			t.HeadUnmeasured++
		}
		for _, fc := range rd.Findings {
			adv := fc.Finding.Advisory
			switch fc.Change {
			case ChangeNew:
				if adv {
					t.NewAdvisories++
				} else {
					t.NewDefects++
				}
			case ChangeResolved:
				if adv {
					t.ResolvedAdvisories++
				} else {
					t.ResolvedDefects++
				}
			case ChangePersisting:
				if adv {
					t.PersistingAdvisories++
				} else {
					t.PersistingDefects++
				}
			}
			if fc.Change != ChangeResolved && fc.Finding.Baseline != nil && !fc.Finding.Baseline.Expired {
				t.Baselined++
			}
			if fc.Fails {
				t.Failing++
			}
		}
	}
	return t
}

// ExitCode is the diff's one exit code, the same for every format:
//   - 2 when an input on either side could not be read;
//   - 1 when the head carries a failing finding (a new defect the baseline
//     does not accept, a new advisory under fail-on advisory, or a
//     finding whose baseline entry expired) or a regression (coverage
//     worse, a check that stopped checking, a row that vanished, grown
//     unreachable encounters, evidence newly missing, a run or recording
//     that vanished);
//   - 3 when the head is unmeasured (a head run that proves nothing about
//     its checks having run, damaged evidence, or a head input with no
//     run) or runs were not compared (a scenario left runs unpaired on
//     both sides), unless AllowUnmeasured;
//   - 0 otherwise: nothing new fails, nothing regressed, every run was
//     compared and the head is measured. Persisting and resolved findings
//     never fail a diff.
//
// Codes combine by the same precedence as analyze: 2 > 1 > 3 > 0.
func (d *Diff) ExitCode() int { return d.Totals.exitCode(d.Options) }

// ExitCode is the exit code the scenario alone would give.
func (in *InputDiff) ExitCode(o DiffOptions) int { return in.Totals.exitCode(o) }

func (t DiffTotals) exitCode(o DiffOptions) int {
	switch {
	case t.Unreadable > 0 || t.Stopped > 0 || t.DeclaredUnseen > 0:
		return ExitUnreadable
	case t.Failing > 0 || t.Regressions > 0:
		return ExitDefects
	case (t.HeadUnmeasured > 0 || t.Unmatched > 0) && !o.AllowUnmeasured:
		return ExitUnmeasured
	}
	return ExitGreen
}

// exitMeaning words an exit code of these totals.
func (t DiffTotals) exitMeaning(code int) string {
	switch code {
	case ExitDefects:
		return "new defect or regression"
	case ExitUnreadable:
		return unreadableMeaning(t.Unreadable, t.Stopped, t.DeclaredUnseen)
	case ExitUnmeasured:
		switch {
		case t.HeadUnmeasured > 0 && t.Unmatched > 0:
			return "head unmeasured, runs not compared"
		case t.Unmatched > 0:
			return "runs not compared"
		}
		return "head unmeasured"
	}
	return "no regression"
}

// DiffBound is what a diff without regression does and does not prove.
const DiffBound = "Bound: no regression means no registered check found a new defect and no check's coverage shrank between these recordings; it does not mean the head holds no context error."

// summaryLine words the totals in one line.
func (t DiffTotals) summaryLine() string {
	parts := []string{
		fmt.Sprintf("defects: %d new, %d resolved, %d persisting", t.NewDefects, t.ResolvedDefects, t.PersistingDefects),
		fmt.Sprintf("advisories: %d new, %d resolved, %d persisting", t.NewAdvisories, t.ResolvedAdvisories, t.PersistingAdvisories),
		count(t.Regressions, "regression", "regressions"),
	}
	if t.Baselined > 0 {
		parts = append(parts, fmt.Sprintf("%d baselined", t.Baselined))
	}
	if t.Failing > 0 {
		parts = append(parts, fmt.Sprintf("%d failing", t.Failing))
	}
	if t.HeadUnmeasured > 0 {
		parts = append(parts, fmt.Sprintf("%d unmeasured in the head", t.HeadUnmeasured))
	}
	if t.Unmatched > 0 {
		parts = append(parts, count(t.Unmatched, "run not compared", "runs not compared"))
	}
	if t.Unreadable > 0 {
		parts = append(parts, fmt.Sprintf("%d unreadable", t.Unreadable))
	}
	if t.Stopped > 0 {
		parts = append(parts, fmt.Sprintf("%d with a run stopped at a limit", t.Stopped))
	}
	return strings.Join(parts, "; ")
}

// resultLine is the diff's closing line, after label ("RESULT",
// "fpcheck diff:"): the exit code, its meaning and the totals.
func (d *Diff) resultLine(label string) string {
	code := d.ExitCode()
	return fmt.Sprintf("%s exit %d (%s) — %s.", label, code, d.Totals.exitMeaning(code), d.Totals.summaryLine())
}

// StderrLine is the diff's result line as it goes to stderr when stdout
// carries a machine format: what the CI log shows of a diff.
func (d *Diff) StderrLine() string { return Sanitize(d.resultLine("fpcheck diff:")) }

// summaryLine words one scenario's runs and how they paired, then its
// totals.
func (in *InputDiff) summaryLine() string {
	t := in.Totals
	runs := fmt.Sprintf("%s in the base, %d in the head", count(t.BaseRuns, "run", "runs"), t.HeadRuns)
	var paired []string
	if t.Matched > 0 {
		by := map[string]int{}
		for _, rd := range in.Runs {
			if rd.Base != nil && rd.Head != nil {
				by[rd.MatchedBy]++
			}
		}
		var ways []string
		for _, how := range []string{MatchedByRunID, MatchedByPrompt, MatchedByPromptOrder, MatchedByScenario} {
			if by[how] > 0 {
				ways = append(ways, fmt.Sprintf("%d by %s", by[how], how))
			}
		}
		paired = append(paired, fmt.Sprintf("%d compared (%s)", t.Matched, strings.Join(ways, ", ")))
	}
	for _, c := range []struct {
		n    int
		what string
	}{{t.Unmatched, "not compared"}, {t.BaseOnly, "base only"}, {t.HeadOnly, "head only"}} {
		if c.n > 0 {
			paired = append(paired, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	if len(paired) > 0 {
		runs += ": " + strings.Join(paired, ", ")
	}
	return runs + " · " + t.summaryLine()
}

// allRegressions lists every regression of the diff in order.
func (d *Diff) allRegressions() []Regression {
	var out []Regression
	for _, in := range d.Inputs {
		out = append(out, in.Regressions...)
		for _, rd := range in.Runs {
			out = append(out, rd.Regressions...)
		}
	}
	return out
}

// runPairLabel names a run pair: "run-a → run-b", with "—" for a missing
// side.
func runPairLabel(rd *RunDiff) string {
	name := func(r *Run) string {
		if r == nil {
			return "—"
		}
		return runLabel(r)
	}
	if rd.Base != nil && rd.Head != nil && rd.Base.RunID == rd.Head.RunID {
		return name(rd.Head)
	}
	return name(rd.Base) + " → " + name(rd.Head)
}

// run is the pair's head run, or its base run when the head has none.
func (rd *RunDiff) run() *Run {
	if rd.Head != nil {
		return rd.Head
	}
	return rd.Base
}

// sideLoss is what one side of a scenario lost apart from its runs and
// its read error: a run stopped at a limit (either side; exit 2) or runs
// lost whole (the head's; unmeasured). Every diff format states each.
type sideLoss struct {
	side, path string
	line       int64
	// kind is the short format's kind@seam; sentence the words every
	// format uses.
	kind, sentence string
	stopped        bool
}

// losses are the scenario's side losses, base first.
func (in *InputDiff) losses() []sideLoss {
	var out []sideLoss
	for _, side := range []struct {
		label string
		in    *Input
	}{{"base", in.Base}, {"head", in.Head}} {
		if side.in == nil {
			continue
		}
		for _, sr := range side.in.StoppedRuns {
			out = append(out, sideLoss{side: side.label, path: side.in.Path, line: sr.Line, kind: "stopped@run",
				sentence: fmt.Sprintf("Run stopped at a limit: %s. The run is not compared.", sr.Message), stopped: true})
		}
		if side.label == "head" && len(side.in.LostRuns) > 0 {
			out = append(out, sideLoss{side: side.label, path: side.in.Path, line: lostRunLine(side.in.LostRuns), kind: "lost@input",
				sentence: strings.TrimPrefix(lostRunsNote(side.in.LostRuns), "⚠ ")})
		}
	}
	return out
}

// headInputPath names the head's input of a pair for locations, falling
// back to the base's.
func (in *InputDiff) headInputPath() string {
	if in.Head != nil {
		return in.Head.Path
	}
	if in.Base != nil {
		return in.Base.Path
	}
	return ""
}

// checkKeys lists, in order, the checks a run pair's findings, rows and
// regressions name.
func (rd *RunDiff) checkKeys(rules []Rule) [][2]string {
	var keys [][2]string
	seen := map[string]bool{}
	add := func(kind, seam string) {
		k := rowKey(kind, seam)
		if !seen[k] {
			seen[k] = true
			keys = append(keys, [2]string{kind, seam})
		}
	}
	for _, r := range rules {
		add(r.Kind, r.Seam)
	}
	for _, run := range []*Run{rd.Base, rd.Head} {
		if run == nil {
			continue
		}
		for _, row := range run.Recorded.Rows {
			add(row.Check, row.Seam)
		}
		if run.Replayed != nil {
			for _, row := range run.Replayed.Rows {
				add(row.Check, row.Seam)
			}
		}
	}
	for _, fc := range rd.Findings {
		add(fc.Finding.Kind, fc.Finding.Seam)
	}
	return slices.Clip(keys)
}
