package checks

import (
	"encoding/json"
)

// Check is one check's descriptor: its name (kind and seam), its
// documentation, what arms it, the canary that proves it can still catch its
// own defect, and the hook the replay engine calls at each encounter of its
// seam. Exactly one hook is set, the one of the check's seam, so a check can
// never be handed a view of a seam it does not judge.
type Check struct {
	Kind, Seam string
	// Title is one line: lowercase, no period, at most 60 characters.
	Title string
	// Doc says what the check catches and which situations it deliberately
	// leaves silent (its fences), in paragraphs separated by blank lines.
	Doc string
	// Ceiling is the check's stated bound: what it can never see.
	Ceiling string
	// ArmedBy names, in words, the declaration that arms the check.
	ArmedBy string
	// Advisory is true when every finding the check files is an advisory.
	Advisory bool
	// AdvisoryWhen says, for a check that files advisories only in some
	// situations, which ones ("doubt only").
	AdvisoryWhen string
	// AdvisoryWhy says, in the check's own words, why its advisories are
	// counted apart from defects; reports quote it beside the count.
	AdvisoryWhy string
	// Armed reports whether the declarations arm the check. An unarmed
	// check still has a ledger row: it files one not-applicable at run
	// start and is never handed a view.
	Armed func(*Declarations) bool
	// Unfed, when set, is the reason an armed check notes one
	// not-applicable in a run that ends without handing it a single
	// encounter (no result of a tool it judges, no final answer): meeting
	// no subject is a fact about the run, and a row left at zero would
	// read as a checker that never ran.
	Unfed string
	// Canary runs the check's pure judge on a synthetic contradiction. It
	// must return at least one finding; one that returns none proves the
	// check dead.
	Canary func() []Finding

	OnCompose func(ComposeView, *Declarations) Verdict
	OnWire    func(WireView, *Declarations) Verdict
	OnChoice  func(ChoiceView, *Declarations) Verdict
	// OnClaim returns one verdict per encounter at a final answer (for
	// unsupported-claim, one per declared claim).
	OnClaim func(ClaimView, *Declarations) []Verdict
	// OnWrite is handed every tool result; a check returns a None verdict
	// for a result that is not its encounter (a tool it does not judge).
	OnWrite func(WriteView, *Declarations) Verdict
}

// Key is the check's ledger key, "kind@seam".
func (c *Check) Key() string { return Key(c.Kind, c.Seam) }

// Key builds the "kind@seam" key rows, reasons and checks are filed under.
// The key of a registered check is the one string registeredKeys holds:
// every run looks its checks up by key, and a million runs building their
// own copies is a million garbage strings per lookup site.
func Key(kind, seam string) string {
	if k, ok := registeredKeys[[2]string{kind, seam}]; ok {
		return k
	}
	return kind + "@" + seam
}

// registeredKeys maps each check of Registry to its key. It is built once
// and only read afterwards, so runs judged at once share it unlocked; only
// registered checks are held, so recorded kinds cannot grow it.
var registeredKeys = func() map[[2]string]string {
	m := make(map[[2]string]string, len(Registry))
	for _, c := range Registry {
		m[[2]string{c.Kind, c.Seam}] = c.Kind + "@" + c.Seam
	}
	return m
}()

// Verdict is what one encounter of a check concluded.
type Verdict struct {
	// None means the event was not an encounter of this check at all;
	// nothing is noted on the ledger.
	None bool
	// Disposition is noted on the ledger. A verdict that carries a
	// finding that is not an advisory is always noted checked-fail,
	// whatever this says.
	Disposition Disposition
	// Findings are filed in order; the ledger keeps the first filing of
	// each identity in the run.
	Findings []Finding
	// Reasons name the input that was missing, when the disposition is
	// unreachable or when part of the encounter could not be judged. A
	// check that reads the run's evictions leaves out the doubts its
	// earlier verdicts already named (see Named), so an unreachable
	// verdict of such a check may carry none of its own.
	Reasons []string
	// Named is set by a check that reads the run's evictions: which of the
	// doubts they raised this verdict's reasons name. The engine records it
	// (EvictionLedger.Named) and the check's next view leaves those doubts
	// out: the ledger keeps each reason once, so naming them again would
	// change nothing but cost time that grows with the run. Nil when the
	// verdict names none.
	Named *DoubtsNamed
	// Excused says, one sentence each, what the check would have judged
	// but the recording excuses (an argument the app verified, see
	// ChoiceView.Excused); the report lists them so an excusal is never
	// silent.
	Excused []string
}

// Pass notes a checked encounter that found nothing.
func Pass() Verdict { return Verdict{Disposition: CheckedPass} }

// Fail files findings.
func Fail(fs ...Finding) Verdict { return Verdict{Disposition: CheckedFail, Findings: fs} }

// NotApplicableVerdict notes a not-applicable encounter.
func NotApplicableVerdict() Verdict { return Verdict{Disposition: NotApplicable} }

// UnreachableBecause notes an unreachable encounter and names why.
func UnreachableBecause(reasons ...string) Verdict {
	return Verdict{Disposition: Unreachable, Reasons: reasons}
}

// Roles of the messages of a request frame.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one message of a rebuilt request frame.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// ToolCallID is the call a tool result answers, when known.
	ToolCallID string `json:"toolCallId,omitempty"`
	// ToolName is the tool that produced a tool result; empty when the
	// recording does not say.
	ToolName string `json:"toolName,omitempty"`
	// Delivered is true for a user-role message a context injection put in
	// the request (its messages-slot source is neither empty nor "user"):
	// the library wrote it, not a person.
	Delivered bool `json:"delivered,omitempty"`
}

// Frame is the request one model call was handed, rebuilt from the
// recording: the system prompt pieces and the messages, by role.
type Frame struct {
	Iteration int64
	System    []string
	Messages  []Message
	// Source names what the messages were rebuilt from.
	Source string
	// Gaps name what could not be rebuilt. A frame without gaps is exactly
	// the request the model saw, as far as the recording states it.
	Gaps []string
	// Texts, when set, answers lookups in the frame's texts lowered. A run
	// carries most of one request into the next, so a replay keeps each
	// distinct text lowered once for the whole run and remembers what was
	// found in it, instead of every judgement lowering the frame again.
	// Nil: a judgement lowers the texts it searches.
	Texts FrameTexts
}

// FrameTexts is a frame's texts as lookups search them: text i is system
// prompt piece i, and past the pieces, text len(System)+j is message j.
type FrameTexts interface {
	// Holds reports whether text i, lowered (Lower), holds needle (lowered).
	// An error means the text could not be read back, and nothing can be
	// said of the value.
	Holds(i int, needle string) (bool, error)
}

// Complete reports whether the frame has no gaps.
func (f Frame) Complete() bool { return len(f.Gaps) == 0 }

// Sources of a rebuilt frame's messages.
const (
	FrameFromInjected   = "context.injected"
	FrameFromHistory    = "iteration_end.history"
	FrameFromUserPrompt = "turn_start.userPrompt"
	FrameFromNothing    = "nothing recorded"
)

// CallView is one model call as the seams see it.
type CallView struct {
	Iteration int64
	// Stage is the runtimeStageId of the call's llm_start.
	Stage    string
	Provider string
	// Served is the tool names offered on the call (llm_start.tools), in
	// request order.
	Served []string
	// ServedGap is non-empty when the served list is not recorded.
	ServedGap string
	Frame     Frame
}

// Eviction is one message a window strategy removed (context.evicted),
// joined by content hash to the message it stands for.
type Eviction struct {
	Hash string
	// Iteration is the iteration at whose head the message was evicted.
	Iteration int64
	// Candidates are the distinct messages the hash can stand for: one
	// when the join is exact, several when it is ambiguous, none when the
	// run recorded no message with that hash.
	Candidates []Message
}

// Ambiguous reports whether the hash stands for more than one message.
func (e Eviction) Ambiguous() bool { return len(e.Candidates) > 1 }

// Resolved reports whether the hash was joined to any message at all.
func (e Eviction) Resolved() bool { return len(e.Candidates) > 0 }

// ComposeView is the compose seam of one model call: the tools served, the
// maps parked for it, and what the messages evicted so far in the run
// dropped.
type ComposeView struct {
	Call CallView
	// ToolsStage is the runtimeStageId of the call's tools-slot pass, or
	// the llm_start stage when the recording has none.
	ToolsStage string
	// Parked are the ids of the maps parked for this call, in the order
	// they were parked.
	Parked []string
	// Evictions are the run's messages-slot evictions so far, each folded
	// once into what it dropped (see EvictionLedger): a run's evictions
	// grow with it, and re-reading them all on every call would make a
	// long run cost the square of its length. The zero value holds none.
	Evictions EvictionView
	// HistoryGap is non-empty when the run's earlier events are missing
	// (a capped or rotated head), so parks and evictions before the first
	// recorded event are unknown.
	HistoryGap string
	// Filed reports whether the run's ledger holds a finding of an
	// identity already (nil: none is known); see bareFinding.
	Filed func(identity string) bool
}

// WireView is the wire seam of one completed model call: the composed tool
// names against the manifest the provider stated for the serialized body.
type WireView struct {
	Call CallView
	// Stage is the runtimeStageId of the call's llm_end.
	Stage string
	// ManifestStated is false when llm_end carries no wireManifest.
	ManifestStated bool
	Manifest       []string
	// ManifestGap is non-empty when a manifest was written but cannot be
	// read.
	ManifestGap string
}

// ToolCall is one tool call the model made (stream.tool_start).
type ToolCall struct {
	ID    string
	Name  string
	Args  json.RawMessage
	Stage string
}

// ChoiceView is the choice seam of one model response: the tool calls it
// made and the exact frame they were chosen from.
type ChoiceView struct {
	Call CallView
	// Stage is the runtimeStageId of the call's llm_end.
	Stage string
	Calls []ToolCall
	// Excused holds the arguments the live run excused because the app
	// had verified their values (integrity.external_ground_used, 9.72.0),
	// by ExcuseKey(call id, path), each with the source label the app
	// gave. The replay excuses exactly those, as the live check did.
	Excused map[string]string
	// Filed is as ComposeView's.
	Filed func(identity string) bool
}

// ExcuseKey keys ChoiceView.Excused: one argument of one call.
func ExcuseKey(callID, path string) string { return callID + "\x00" + path }

// ClaimRow is one settled reading of the claim ledger, flattened from a
// tools.semantics_declared envelope.
type ClaimRow struct {
	Entity, Field string
	Value         json.RawMessage
	ToolName      string
	ToolCallID    string
	Iteration     int64
	MeasuredAt    string
}

// ClaimView is the claim seam of one final answer.
type ClaimView struct {
	Iteration int64
	// Stage is the runtimeStageId of the route decision that handed back
	// the answer.
	Stage string
	// Answer is the final answer text; AnswerKnown is false when the
	// recording does not carry it.
	Answer      string
	AnswerKnown bool
	Rows        []ClaimRow
	// RowsGap is non-empty when earlier events (and the readings they
	// settled) are missing.
	RowsGap string
	// Frame is the request the answer was chosen from (the final model
	// call's), the conversation as the live window held it: the corpus of
	// the grounding index. Its Source is FrameFromNothing when no model
	// call was recorded before the answer.
	Frame Frame
	// UserPrompt is turn_start.userPrompt, the person's message of this
	// run; empty when not recorded. Values in it are exempt from grounding.
	UserPrompt string
	// Grounding, when set, gives the grounding index of Frame and
	// UserPrompt, built once for every reader of the answer (see Index).
	Grounding func() *GroundingIndex
}

// Index is the grounding index of the answer's frame and user prompt: the
// one Grounding shares, or one built for the caller.
func (v ClaimView) Index() *GroundingIndex {
	if v.Grounding != nil {
		return v.Grounding()
	}
	return NewGroundingIndex(v.Frame, v.UserPrompt)
}

// ServedResult is one tool result the run served before a write-seam
// encounter: a tool_end result of the run, or a tool-result message of a
// request frame (which also carries earlier turns of the conversation).
type ServedResult struct {
	// Tool is the tool that produced it; empty when the recording does not
	// name it (a message carried over from an earlier run, known only by
	// its call id).
	Tool   string
	CallID string
	// Text is the result as text: a string result as written, anything
	// else as its JSON.
	Text string
}

// KeyArgument is one identifier-like string argument of a tool call, and
// where the run produced it.
type KeyArgument struct {
	// Path is the argument's dot-path (machine, filter.hosts.0).
	Path  string
	Value string
	// ProducedBy is the earliest result of one of the tool's declared
	// grounds (argumentsFrom) whose text carries the value, compared as
	// the choice seam does (case-insensitive substring); nil when none.
	ProducedBy *ServedResult
	// InUnnamedResult is true when the value appears only in earlier
	// results the recording names no tool for, so whether a declared
	// ground produced it cannot be told.
	InUnnamedResult bool
}

// WriteView is the write seam of one tool result (stream.tool_end): the
// result value, the tool's declarations, and whether its key arguments
// were produced by the run.
type WriteView struct {
	Iteration int64
	// Stage is the runtimeStageId of the tool_end.
	Stage string
	// Call is the tool_start the result answers; CallRecorded is false when
	// the recording holds none (the tool is then unknown).
	Call         ToolCall
	CallRecorded bool
	// Result is tool_end.result as recorded; nil when the event carries no
	// result key at all.
	Result json.RawMessage
	// Error is true when the result is not what the tool answered:
	// tool_end.error, or (releases after 9.62.0) a status of failure,
	// denied, pending or absent, or notExecuted.
	Error bool
	// Tool is the called tool's declaration; nil when none.
	Tool *ToolDecl
	// Keys are the call's identifier-like string arguments, filled for a
	// tool that declares argumentsFrom, where they are read: when Lookup
	// says the result is an empty lookup, or Lookup is nil.
	Keys []KeyArgument
	// KeysProblem is non-empty when the arguments could not be read.
	KeysProblem string
	// GroundsServed names the declared grounds that served at least one
	// result earlier in what the run can see.
	GroundsServed []string
	// HistoryGap is non-empty when the run's earlier events are missing.
	HistoryGap string
	// Lookup is ReadLookupResult(Result) when the caller read it already;
	// nil otherwise.
	Lookup *LookupReading
}
