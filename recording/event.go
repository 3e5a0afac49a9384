package recording

import "encoding/json"

// Event is one agentfootprint event, {type, payload, meta}. The payload stays
// raw: each consumer decodes only the payload types it needs.
type Event struct {
	Type    string
	Payload json.RawMessage
	Meta    Meta
	// Line is the 1-based line of the input the event starts on, or 0 when
	// the format does not tell (events inside a compact recording JSON
	// document, or inside an artifact's recording text).
	Line int64
	// Index is the event's 0-based position in its input: among the
	// decoded events of an NDJSON stream, or in the events array of a
	// recording document.
	Index int64
	// Rotated is true when the event was read from the rotated sibling
	// "<path>.1" of a rotated pair; Line then counts lines of that file.
	Rotated bool
	// PayloadDropped is true when the payload was read but not kept
	// because Options.PayloadFilter said its consumer does not read it.
	PayloadDropped bool

	// PayloadIndex is where the decoder found the payload's members, for
	// Members; the zero value is no index.
	PayloadIndex PayloadIndex
}

// Meta is the event's meta object. Strings and numbers a producer did not
// write (or wrote with the wrong JSON type) are left zero; a wrong type is
// reported on the input, never fatal. Consecutive events with equal
// SubflowPath or CompositionPath share one slice: read them, never write.
type Meta struct {
	WallClockMs     float64
	RunOffsetMs     float64
	RuntimeStageID  string
	SubflowPath     []string
	CompositionPath []string
	RunID           string
	SessionID       string
	Principal       string
	Tenant          string
	TraceID         string
	CorrelationID   string
	// TurnIndex and IterIndex are declared by agentfootprint but never set
	// on Agent runs; nil when absent.
	TurnIndex *float64
	IterIndex *float64
}

// Event types the loader and the checks care about by name.
const (
	TypeRunConfigured   = "agentfootprint.agent.run_configured"
	TypeTurnStart       = "agentfootprint.agent.turn_start"
	TypeTurnEnd         = "agentfootprint.agent.turn_end"
	TypeIterationStart  = "agentfootprint.agent.iteration_start"
	TypeIterationEnd    = "agentfootprint.agent.iteration_end"
	TypeRouteDecided    = "agentfootprint.agent.route_decided"
	TypeContextError    = "agentfootprint.integrity.context_error"
	TypeDisposition     = "agentfootprint.integrity.disposition"
	TypeLLMStart        = "agentfootprint.stream.llm_start"
	TypeLLMEnd          = "agentfootprint.stream.llm_end"
	TypeToolStart       = "agentfootprint.stream.tool_start"
	TypeToolEnd         = "agentfootprint.stream.tool_end"
	TypeToken           = "agentfootprint.stream.token"
	TypeContextInjected = "agentfootprint.context.injected"
	TypeSlotComposed    = "agentfootprint.context.slot_composed"
	TypeContextEvicted  = "agentfootprint.context.evicted"
	TypeContextEval     = "agentfootprint.context.evaluated"
	TypeMapParked       = "agentfootprint.map.parked"
	TypeMapEngaged      = "agentfootprint.map.engaged"
	TypeGraphDeclared   = "agentfootprint.skill.graph_declared"
	TypeSkillActivated  = "agentfootprint.skill.activated"
	TypeSemantics       = "agentfootprint.tools.semantics_declared"
)

// ConsumerScope is the runId agentfootprint stamps on events emitted outside
// any run; such events are not a run.
const ConsumerScope = "consumer-scope"

// Run is the events of one meta.runId, in input order.
type Run struct {
	// Input is the display path of the input the run came from.
	Input     string
	ID        string
	SessionID string
	Events    []Event
	// HeadMissing is true when the run's first event is neither
	// agent.run_configured nor agent.turn_start: a capped or rotated-away
	// head.
	HeadMissing bool
	// FirstLine is where the run's first event stands: its input line in a
	// stream, its 1-based position in the events array of a document (a
	// pretty-printed document's lines included); runs are reported in this
	// order.
	FirstLine int64
	// Segment is 0 for a run's events up to its integrity.disposition. Events
	// of the same runId read after that disposition (which should be the
	// last event of a run) are handed over as a further run with Segment 1,
	// 2, … rather than merged into a run already handed over.
	Segment int
	// Seq is the run's place among the runs of its input, counted from 0
	// in the order of their first events: where it stands in a report,
	// whatever order runs are handed over in (see Options.Release).
	Seq int
	// Snapshot holds what the loader extracted from the recording's engine
	// snapshot. Only the last run of a recording document carries it (the
	// snapshot is that run's only); nil for NDJSON and for every other run.
	Snapshot *SnapshotFacts
}

// RunFold is one run folded as its events are read (Options.Fold).
type RunFold interface {
	// Add folds the run's next event. The event and its payload's bytes
	// are the loader's only during the call: whatever the fold keeps it
	// copies. An error stops the input, as a callback's does.
	Add(ev *Event) error
	// Kept is what the fold holds so far, in bytes, for MaxRunBytes.
	Kept() int64
	// End is called once, when the run is handed over; an error stops
	// the input, as a callback's does.
	End() error
	// Drop lets a fold go without ending it: its run passed a limit of
	// its own and is never handed over.
	Drop()
}

// BookFold is a RunFold that tells which events read what the earlier
// runs of its group leave behind (the book of call names): a run that waits
// for them may fold the events before the first that does
// (Options.StartLate).
type BookFold interface {
	RunFold
	// AsksBook reports whether folding ev may read what the earlier runs
	// of the group leave; asked between calls to Add, before ev is added.
	AsksBook(ev *Event) bool
}

// DefaultLateFoldBytes is how much a late run collects before its fold is
// started, and DefaultLateInFlight how many runs may be in flight before a
// new one starts late (Options.StartLate).
const (
	DefaultLateFoldBytes = 64 << 10
	DefaultLateInFlight  = 1024
)

// SnapshotFacts is the part of a recording's engine snapshot a replay needs.
// The loader streams past the rest of the snapshot without keeping it.
type SnapshotFacts struct {
	// ParkedToolNames is the union, in first-seen document order, of
	// sharedState.parkedToolNames and every value written to the path
	// "parkedToolNames" in commitLog[].overwrite.
	ParkedToolNames []string
	// ParkedStated is true when the snapshot holds parkedToolNames at all
	// (only agents with .maps() write it), so an empty list is a stated
	// "nothing parked" rather than "not recorded".
	ParkedStated bool
	// Redacted is true when the snapshot's recorders hold the row
	// agentfootprint.redaction (9.140.0 and later): the run was served
	// under a redaction policy, so a placeholder in it stands for a value
	// the policy kept out.
	Redacted bool `json:",omitempty"`
}

// RedactionMarkerID is the id of the snapshot recorder row that marks a
// run served under a redaction policy.
const RedactionMarkerID = "agentfootprint.redaction"

// Format names the four recording formats fpcheck reads.
type Format string

const (
	FormatNDJSON    Format = "ndjson"    // A: fileObservability event stream
	FormatRecording Format = "recording" // B: {snapshot, events, structure}
	FormatEnvelope  Format = "envelope"  // C: agentfootprint.recording.v1
	FormatArtifact  Format = "artifact"  // D: recording stored as an artifact
	FormatEmpty     Format = "empty"     // no bytes at all
)

// Problem is one thing wrong with an input, located by line where known.
type Problem struct {
	Line    int64  `json:"line"`
	Message string `json:"message"`
}

// Stats is the loss accounting of one input: every line is decoded, blank,
// skipped or malformed, and what the producer says about its own losses is
// carried through.
type Stats struct {
	// Path is the input as named to the loader ("<stdin>" for "-").
	Path        string `json:"path"`
	Format      Format `json:"format"`
	Compression string `json:"compression"` // "none", "zstd" or "gzip"
	// Rotated names the rotated sibling "<path>.1" read before Path, or is
	// empty when there was none (or it was not read).
	Rotated string `json:"rotated,omitempty"`
	// Lines is the number of lines read (NDJSON, both files of a rotated
	// pair) or of the document; of a document that stopped before its
	// end, the line where it stopped.
	Lines int64 `json:"lines"`
	// Events counts every event decoded, including Orphans and
	// ConsumerScope events, which are not put in a run.
	Events int64 `json:"events"`
	Blank  int64 `json:"blank"`
	// Malformed counts lines (or array elements) that did not decode to an
	// event object; the first few are quoted in Problems.
	Malformed int64 `json:"malformed"`
	// UnknownTypes counts events whose type this build does not know, by
	// type; they are kept and passed on, never an error.
	UnknownTypes map[string]int64 `json:"unknownTypes"`
	// TruncatedTail is true when the last line has no newline and does not
	// decode: a writer killed mid-line.
	TruncatedTail bool `json:"truncatedTail"`
	// WrongTypes counts event fields that held the wrong JSON type, by
	// dotted field name (meta.runId, payload.iteration, …).
	WrongTypes map[string]int64 `json:"wrongTypes"`
	// Orphans counts events without a usable meta.runId: decoded and
	// counted, but in no run.
	Orphans int64 `json:"orphans"`
	// ConsumerScope counts events with runId "consumer-scope": emitted
	// outside any run, so in no run.
	ConsumerScope int64 `json:"consumerScope"`
	// InvalidUTF8 counts lines (or events) whose strings held invalid UTF-8,
	// decoded with U+FFFD in its place.
	InvalidUTF8 int64 `json:"invalidUTF8"`
	// DroppedEvents and Complete are the envelope's statements; nil when the
	// format carries none.
	DroppedEvents *int64 `json:"droppedEvents"`
	Complete      *bool  `json:"complete"`
	// FirstRetainedEventIndex is the envelope's stream position of its
	// first event; nil when not stated.
	FirstRetainedEventIndex *int64 `json:"firstRetainedEventIndex,omitempty"`
	// Producer is the envelope's producer.agentfootprintVersion, when stated.
	Producer string `json:"producer,omitempty"`
	// Packed is true when the recording was stored packed
	// (agentfootprint.recording.packed.v1) and read through its expansion.
	Packed bool `json:"packed,omitempty"`
	// HasEvents is false when a recording carries no events key at all
	// (a snapshot saved without its tail).
	HasEvents bool      `json:"hasEvents"`
	Problems  []Problem `json:"problems"`
	// StoppedRuns are the runs that passed a limit of their own
	// (--max-events-per-run, --max-run-bytes) and were let go unjudged
	// while the input's other runs were read on, in input order.
	StoppedRuns []StoppedRun `json:"stoppedRuns,omitempty"`
	// Losses group the malformed and cut-off lines by the run id they
	// still carry, so that a report can charge each loss to its run; nil
	// when nothing was lost.
	Losses []Loss `json:"losses,omitempty"`
	// Unusable are the envelope's statements about its run that are there
	// but cannot be read (a droppedEvents of 1e300, a complete of
	// "false"); nil when there are none. What the producer said about the
	// run's losses is unknown, so a report counts the runs as damaged.
	Unusable []Unusable `json:"unusable,omitempty"`
}

// Unusable is one statement of the producer that cannot be read: its
// field ("run.droppedEvents"), the line it is on (0 when not known) and
// why, completing a sentence about the field (`is "5", not a count …`).
type Unusable struct {
	Field   string `json:"field"`
	Line    int64  `json:"line"`
	Problem string `json:"problem"`
}

// StoppedRun is a run let go at a limit of its own: its id, the line of
// the event that crossed the limit, and the message naming the file, the
// line, the limit and the flag that raises it.
type StoppedRun struct {
	RunID   string `json:"runId"`
	Line    int64  `json:"line"`
	Message string `json:"message"`
}
