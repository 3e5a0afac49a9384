package report

import (
	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

// SchemaVersion is the version of the JSON report; it changes only when a
// field is renamed, removed or changes meaning (adding fields does not).
const SchemaVersion = 1

// Coverage is what a run's evidence proves about which checks ran. Every
// value but CoverageFull and CoveragePartial is an absence, and each absence
// is a different fact with its own sentence; none of them reads as health.
type Coverage string

// Coverage states, from the least evidence to the most.
const (
	// CoverageNoTail: no events at all (an input with no run, a recording
	// saved without its event tail).
	CoverageNoTail Coverage = "no-tail"
	// CoverageNoIntegrityEvents: events, but neither a finding nor a ledger.
	CoverageNoIntegrityEvents Coverage = "no-integrity-events"
	// CoverageNoDisposition: findings, but no ledger saying which checks ran.
	CoverageNoDisposition Coverage = "no-disposition"
	// CoverageNoCheckRegistered: a ledger whose rows are empty, absent or
	// not a list.
	CoverageNoCheckRegistered Coverage = "no-check-registered"
	// CoverageNothingChecked: rows, but no check reached a checked
	// encounter.
	CoverageNothingChecked Coverage = "nothing-checked"
	// CoveragePartial: some registered checks checked something, some did
	// not (they are named).
	CoveragePartial Coverage = "partial"
	// CoverageFull: every registered check checked something.
	CoverageFull Coverage = "full"
)

// Unmeasured reports whether the state proves nothing about the run's
// checks having run.
func (c Coverage) Unmeasured() bool {
	switch c {
	case CoveragePartial, CoverageFull:
		return false
	}
	return true
}

// Verdict is a run's outcome under the report's gate.
type Verdict string

// Verdicts.
const (
	// VerdictGreen is bounded: no registered check was violated, which is
	// not the same as "no context error exists".
	VerdictGreen Verdict = "green"
	// VerdictDefects: a defect at or above the gate level, or evidence
	// missing.
	VerdictDefects Verdict = "defects"
	// VerdictUnmeasured: nothing proves the checks ran. The verdict stays
	// unmeasured under AllowUnmeasured; only the exit code changes.
	VerdictUnmeasured Verdict = "unmeasured"
)

// DamageCause names one way a run's input may have lost events of the run.
type DamageCause string

// Damage causes. Each is a loss the run cannot rule out; none says the lost
// events held a finding, and none says they did not.
const (
	// DamageMalformed: lines (or events elements) that did not decode.
	DamageMalformed DamageCause = "malformed"
	// DamageCutOff: the last line was cut off mid-write.
	DamageCutOff DamageCause = "cut-off"
	// DamageUnread: the input could not be read past a point before the
	// run was read whole (an unreadable input's runs in progress).
	DamageUnread DamageCause = "unread"
	// DamageDropped: the producer states it dropped events from the head
	// of the stream (droppedEvents > 0).
	DamageDropped DamageCause = "dropped"
	// DamageIncomplete: the producer marks the recording complete: false.
	DamageIncomplete DamageCause = "incomplete"
	// DamageCappedHead: the recording starts past the stream's first event
	// (firstRetainedEventIndex > 0), or the run starts without its head.
	DamageCappedHead DamageCause = "capped-head"
	// DamageUnusable: a statement the producer makes about the run's
	// losses (the envelope's droppedEvents, complete,
	// firstRetainedEventIndex) that is there but cannot be read, so what
	// it says is unknown.
	DamageUnusable DamageCause = "unusable-statement"
	// DamageLedgerCount: a ledger count the report cannot use (negative,
	// not an integer, beyond what the run could have met).
	DamageLedgerCount DamageCause = "ledger-count"
	// DamageLostFinding: the recording proves the live run filed a finding
	// it does not hold (a result refused under enforce, and no column
	// finding about its tool).
	DamageLostFinding DamageCause = "lost-finding"
)

// Damage is one cause of damage to a run's evidence, located where the
// input allows. A run with any damage has the state "evidence damaged": it
// is not a bounded green, whatever its ledger says, because the lost lines
// could have held its only finding.
type Damage struct {
	Cause DamageCause
	// Lost is how many lines or events were lost; 0 when the input does not
	// say (a run without its head).
	Lost int64
	// Lines are the first positions of the loss: input lines for NDJSON,
	// the line an element starts on for a document; nil when not located.
	Lines []int64
	// Charged is true when the lost lines still name this run id, so the
	// loss is this run's alone; false when it is charged to every run of
	// the input because nothing says whose it was.
	Charged bool
	// Detail is an optional fact the cause's sentence adds (which count a
	// ledger row got wrong, for example).
	Detail string
}

// RowState classifies one ledger row.
type RowState string

// Row states.
const (
	// RowChecked: the check judged at least one encounter.
	RowChecked RowState = "checked"
	// RowSilent: checked nothing, but met encounters it could not judge
	// (not-applicable or unreachable). Silent, not clean.
	RowSilent RowState = "silent"
	// RowNeverRan: registered, and no encounter of any kind.
	RowNeverRan RowState = "never-ran"
)

// HeadlineKind names which case a run's headline words.
type HeadlineKind string

// Headline kinds, in the order they are tried.
const (
	// HeadlineFindings: findings to list.
	HeadlineFindings HeadlineKind = "findings"
	// HeadlineEvidenceMissing: the ledger counts findings the events lack.
	HeadlineEvidenceMissing HeadlineKind = "evidence-missing"
	// HeadlineFiltered: the kind filter hid every finding of the run.
	HeadlineFiltered HeadlineKind = "filtered"
	// HeadlineAbsence: nothing to list; the coverage state speaks.
	HeadlineAbsence HeadlineKind = "absence"
	// HeadlineDamaged: nothing to list, and the run's input lost lines
	// that may have been its own; the damage speaks first.
	HeadlineDamaged HeadlineKind = "damaged"
)

// Report is the one model every renderer reads. Build fills it; renderers
// never re-derive a judgement, they only word it.
type Report struct {
	SchemaVersion int
	Options       Options
	Inputs        []Input
	// Runs are in input order, then in the order each run first appears.
	Runs []Run
	// Conversations group the runs that share a session id.
	Conversations []Conversation
	// Baseline is what Options.Baseline did; nil without a baseline.
	Baseline *BaselineReport
	// Sources are the inputs Build judged, as read; the JSON report carries
	// them so that it can be read back and judged again (saved.go). Nil
	// when BuildTaking made the report, which taken says.
	Sources []InputResult
	taken   bool
	// Provenance is how Sources were produced; the CLI sets it.
	Provenance Provenance
	// Declarations holds the declarations file against the recordings;
	// nil without one.
	Declarations *DeclarationsReport
	// Skipped are the files a directory walk found that are not
	// recordings (InputResult.NotRecording), in input order, then the
	// paths --exclude kept out (Exclude); they are in no other field and
	// count for nothing.
	Skipped []SkippedInput
}

// SkippedInput is a file a directory walk found that is not a recording,
// or a path an --exclude pattern kept out.
type SkippedInput struct {
	Path string
	// Why is what the file is instead, or which pattern excluded it.
	Why string
	// Pattern is the --exclude pattern that matched; empty for a file
	// skipped as no recording.
	Pattern string
}

// Input is one input's loss accounting: what was read, what was skipped and
// what the producer says it lost.
type Input struct {
	Path        string
	Format      string
	Compression string
	Lines       int64
	Events      int64
	Blank       int64
	Malformed   int64
	// UnknownTypes counts events of types this build does not read, by
	// type; never nil.
	UnknownTypes map[string]int64
	// WrongTypes counts event fields of the wrong JSON type, by field;
	// never nil.
	WrongTypes    map[string]int64
	TruncatedTail bool
	// DroppedEvents and Complete are the producer's own statements; nil
	// when the format carries none.
	DroppedEvents *int64
	Complete      *bool
	// NoEventsKey is true when a recording document has no events key at
	// all.
	NoEventsKey bool
	// Producer is the agentfootprint version the recording states it was
	// written by (an envelope's producer.agentfootprintVersion); empty
	// when it states none.
	Producer string
	// Problems are the first problems the reader located, by line; never
	// nil.
	Problems []recording.Problem
	// Error is why the input could not be read; empty when it was.
	Error string
	// ErrorLine is the 1-based line Error is on; 0 when it is not known
	// (and in a report read back from JSON, which does not carry it).
	ErrorLine int64
	// StoppedRuns are the runs let go unjudged at a limit of their own,
	// while the input's other runs were read and judged (exit 2).
	StoppedRuns []recording.StoppedRun
	// RunCount is the number of runs read from the input.
	RunCount int
	// HeadMissing lists the runs of this input whose head was lost.
	HeadMissing []string
	// Coverage is CoverageNoTail for a readable input with no run (none
	// read, none stopped at a limit, none lost whole), and empty otherwise
	// (runs carry their own coverage).
	Coverage Coverage
	// LostRuns are losses that name a run id of which no event was read:
	// a whole run lost. They make the input unmeasured (exit 3 unless
	// AllowDamaged or AllowUnmeasured).
	LostRuns []recording.Loss
	// Notes are the loss-accounting sentences, in reading order.
	Notes []string
	// Copies counts the runs of this input that are copies of a run judged
	// in another input (Run.Copies); they are left out of Report.Runs, so
	// RunCount - Copies of the input's runs are there.
	Copies int
}

// noTail reports whether the input was read and holds no run at all. An
// input whose runs were all stopped at a limit or lost whole had runs: it
// is not judged, but it is not an input without events.
func (in *Input) noTail() bool {
	return in.Error == "" && in.RunCount == 0 && len(in.StoppedRuns) == 0 && len(in.LostRuns) == 0
}

// Run is one run's report: the recorded evidence (and, once a replay exists,
// the replayed evidence), the listed findings, the verdict and the sentences
// that state them.
type Run struct {
	// Excused says what the replay passed over because the recording
	// excuses it (replay.Evidence.Excused); stated in the run's notes.
	Excused   []string
	Input     string
	RunID     string
	SessionID string
	// PromptKey is RunResult.PromptKey: what a diff pairs runs by once
	// their run ids differ.
	PromptKey   string
	Events      int
	HeadMissing bool
	FirstLine   int64
	// LineNumbers is true when FirstLine is an input line (NDJSON); false
	// when it is an event position.
	LineNumbers bool
	// EventsPointer is the JSON pointer of the events array in a recording
	// document ("/events", or "/recording/events" in an envelope); empty
	// for a stream, whose events have lines. In an artifact it points into
	// the recording document held as text in payload.value.
	EventsPointer string
	// Turn and Turns place the run in its conversation (1-based); both 0
	// when the run names no session.
	Turn, Turns int
	// AlsoIn names other inputs carrying events of the same run id (a run
	// split across files, for example by rotation), at most alsoInListed
	// of them in input order; AlsoInMore counts the others.
	AlsoIn     []string
	AlsoInMore int
	// Copies are the other inputs holding a copy of this run (copies.go):
	// the run is counted and judged once, here, on the most complete copy.
	Copies []RunCopy
	// Conflicts are inputs that hold the run id and share events with this
	// run but are no copy of it; each side is judged on its own.
	Conflicts []RunConflict

	// Recorded is never nil in a built report; runs that say the same
	// share it.
	Recorded *Side
	// Replayed is nil until a replay produced evidence for the run.
	Replayed *Side

	// Defects and Advisories count distinct identities across both sides;
	// Drift counts findings the two sides disagree on (0 without a replay).
	Defects, Advisories, Drift int
	// Baselined counts the distinct identities a baseline accepted; they
	// are left out of Defects and Advisories (see baseline.go).
	Baselined int
	// explain is RunResult.Explain: what the HTML report explains the
	// run's findings from; nil when it was not kept.
	explain *ExplainSource
	// allFindings is every finding of the run, before the kind filter and
	// the limit; baselineHits are the identities, with their class
	// (classKey), a baseline entry named.
	// Baselines and diffs judge what was found, not what was shown.
	allFindings  []Finding
	baselineHits []string

	// Findings are the listed findings: real ones in filing order (replayed-
	// only ones after the recorded ones), then synthetic canaries, filtered
	// by Options.Kind and capped by Options.Limit.
	Findings []Finding
	// Matching counts the findings that passed the kind filter, before the
	// limit; Omitted = Matching - len(Findings).
	Matching, Omitted int
	// OtherKinds lists, in filing order, the kinds of the real findings a
	// kind filter hid, when it hid every one of them.
	OtherKinds []string

	Verdict Verdict
	// Headline is the one sentence that states the run's outcome, and
	// HeadlineKind which case it words.
	Headline     string
	HeadlineKind HeadlineKind
	// Notes are further sentences (head missing, quarantine, reconciliation,
	// several ledgers, …) in display order.
	Notes []string
	// CheckerDead carries RunResult.CheckerDead: the run is unmeasured.
	CheckerDead string
	// Validation is the answer validation of each final answer of the run,
	// in answer order; nil when the declarations asked for none.
	Validation []replay.AnswerValidation
	// Damage lists why the run's evidence may be incomplete, in a fixed
	// cause order; nil when nothing was lost. A damaged run without a
	// proven defect is unmeasured (see DamagedOnly).
	Damage []Damage
	// DamagedOnly is true when the run is unmeasured for its damage alone:
	// without it the run would be a bounded green. AllowDamaged turns the
	// exit code of such a run to 0; the verdict stays unmeasured.
	DamagedOnly bool
}

// Damaged reports whether the run's evidence is damaged.
func (r *Run) Damaged() bool { return len(r.Damage) > 0 }

// Side is one source of a run's integrity evidence, recorded or replayed,
// with everything the report concludes from it.
type Side struct {
	Coverage Coverage
	// Defects and Advisories count distinct identities among the real
	// (non-synthetic) findings; DefectEvents and AdvisoryEvents count the
	// finding events themselves. In a 9.62.0 run each identity is filed once
	// per run, so the two agree; a damaged or foreign tail can differ.
	Defects, Advisories           int
	DefectEvents, AdvisoryEvents  int
	Synthetic                     int
	EvidenceMissing               bool
	IntegrityEvents, Dispositions int
	// HasDisposition is false when no ledger was recorded; Posture and
	// WorkExisted are meaningful only when it is true.
	HasDisposition bool
	Posture        string
	WorkExisted    bool
	RowsMalformed  bool
	// Rows is nil when the ledger carried no rows array; empty when it
	// registered no check.
	Rows []Row
	// Sums over the rows.
	RowFindings, Checked, NotApplicable, Unreachable int64
	// Checking counts rows with checked > 0.
	Checking int
	// Silent names ("kind @seam") the rows that checked nothing; NeverRan
	// the rows with no encounter at all (a subset of Silent).
	Silent, NeverRan []string
	// Reconcile is true when the rows count more failing encounters than
	// the events carry defects: re-detections of one defect, or (with a
	// missing head) lost findings.
	Reconcile bool
	// Unmeasured is true when this side proves nothing about the checks
	// having run: an absence state, or a registered check that never ran.
	Unmeasured bool
	// Ledger is the sentence heading the rows (or standing for them).
	Ledger string
	// Encounters place the side's encounters at iterations, for the HTML
	// timeline: replayed sides only, and only when the replay was asked to
	// keep them (replay.Options.Encounters); nil otherwise. A recorded
	// ledger counts its encounters without saying where they happened.
	Encounters []checks.Encounter
}

// Row is one ledger row with its classification.
type Row struct {
	checks.Row
	State RowState
	// LastFired is LastFiredAt as UTC ISO-8601 with milliseconds; empty
	// when the row never fired.
	LastFired string
	// Parts are the row's facts as short phrases, in display order.
	Parts []string
	// ToolsAbsent names the declared tools that arm the row's check when
	// none of them appeared in the run (replayed rows only): the row did not
	// judge and pass, it had nothing of its own to judge. Nil otherwise.
	ToolsAbsent []string
}

// Key names the row as "kind @seam", with "?" for what was not recorded.
func (r Row) Key() string { return rowKey(r.Check, r.Seam) }

// Finding is one listed finding.
type Finding struct {
	checks.Finding
	Identity string
	// Source is replay.SourceRecorded, SourceReplayed or SourceBoth.
	Source string
	// Why explains a one-sided finding when replayed evidence exists.
	Why string
	// Drift is true when both sides could judge the finding and disagree.
	Drift bool
	// Baseline is what the baseline says of the finding; nil when no
	// baseline entry names it.
	Baseline *BaselineMark
	// Replay is the replay's own filing of the same identity when both
	// sides filed it (Source both): its witnesses and positions are shown
	// beside the recorded ones. Nil otherwise (for a replayed-only finding
	// the embedded Finding is the replay's).
	Replay *checks.Finding
}

// Conversation is the runs that share a session id: the turns of one
// conversation, in report order.
type Conversation struct {
	SessionID string
	RunIDs    []string
}

// InputResult is what the CLI read from one input.
type InputResult struct {
	Stats *recording.Stats
	Runs  []RunResult
	// Err is set when the input could not be read; the report still states
	// it, other inputs are still reported, and the exit code is 2.
	Err error
	// Path names the input when Stats is nil.
	Path string
	// Index is the input's position among all the inputs the arguments
	// named (before any sharding); Root is the directory argument it was
	// found under, empty for an input named itself. Both survive a saved
	// report, so shards merge in the order of one invocation and cohorts
	// pair by the path relative to their root.
	Index int
	Root  string
	// NotRecording is true for a file a directory walk found that is not
	// an agentfootprint recording at all (a JSON schema beside the runs, a
	// notes file): the report skips it with a line saying so, and the exit
	// code does not count it. A file named itself is never skipped.
	NotRecording bool
}

// RunResult is one run's evidence as handed to Build. The JSON tags are
// its form in a saved report's evidence section (saved.go).
type RunResult struct {
	Input     string `json:"input"`
	RunID     string `json:"runId"`
	SessionID string `json:"sessionId"`
	// PromptKey is the run's turn prompt as diff pairs re-recorded runs by
	// (see PromptKey); empty when the run carries no turn_start prompt.
	PromptKey   string `json:"promptKey"`
	Events      int    `json:"events"`
	HeadMissing bool   `json:"headMissing"`
	FirstLine   int64  `json:"firstLine"`
	// Recorded is what the recording carries.
	Recorded *replay.Evidence `json:"recorded"`
	// Replayed is nil until replay exists for the run.
	Replayed *replay.Evidence `json:"replayed"`
	// CheckerDead is the dev-posture liveness failure of the replay (a
	// registered check that noted nothing in a run that did work), empty
	// when none.
	CheckerDead string `json:"checkerDead"`
	// Damage is damage found past loading (an unusable ledger count, for
	// example); Build adds the input's losses that reach the run.
	Damage []Damage `json:"damage"`
	// Tools are the tools the run offered or called that the declarations
	// name or nearly name (see RelevantTools), when ToolsRead: the run's
	// tools were read for them (a run read without declarations, or from
	// an older saved report, was not).
	Tools     []string `json:"tools"`
	ToolsRead bool     `json:"toolsRead"`
	// Print tells a copy of the run in another input from a part of it
	// (copies.go); nil in a report saved before it existed, and a run
	// without one is never taken for a copy.
	Print *RunPrint `json:"print"`
	// Explain is the run as loaded, kept for a report that shows each
	// finding whole (the HTML report); nil otherwise, and never saved.
	Explain *ExplainSource `json:"-"`
}

// ExplainSource is what a finding's explanation reads besides the report:
// the run's events as loaded, with every payload, and the declarations the
// report was made with.
type ExplainSource struct {
	Run  *recording.Run
	Decl *checks.Declarations
}
