package report

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

// Explanation is one finding shown whole: the finding and its witnesses,
// the request frame the model chose from rebuilt by role with the values
// the finding names marked where they appear, the calls it is about with
// their arguments and results, the results of the declared grounds, what
// the live run and the replay each concluded, the check's ceiling and the
// declaration that armed it. `fpcheck explain` prints it; the HTML report
// shows the same content.
type Explanation struct {
	Input, RunID string
	// Number is the finding's number in the run's listing (1-based).
	Number      int
	Finding     Finding
	Fingerprint string
	// Command is the explain command that shows this finding.
	Command string
	// Run is the run the finding belongs to, for its positions.
	Run *Run
	// Needles are the values the frame is searched for: the string
	// values the finding's witnesses assert, each once.
	Needles []string
	// Frame is the frame of the model call the finding is about; nil when
	// the finding names no model call the replay rebuilt.
	Frame *FrameView
	// Calls are the tool calls the finding is about, in recording order.
	Calls []CallView
	// Grounds are the declared grounds of the tool the finding is about,
	// with every result of theirs the conversation recorded.
	Grounds []GroundView
	// Recorded and Replayed say what each side concluded about the
	// finding; Replayed is empty when the run was not replayed.
	Recorded, Replayed string
	// Check is the check that files the finding's kind at its seam; its
	// Title, Ceiling and ArmedBy are empty for a kind this build does not
	// register.
	Check Rule
	// Armed names the declarations that armed the check, as declared.
	Armed []string
}

// FrameView is a rebuilt request frame as a reader sees it: the system
// prompt pieces, then the messages, each with where the needles are.
type FrameView struct {
	Iteration int64
	// Source names what the messages were rebuilt from.
	Source string
	// Gaps name what could not be rebuilt; a frame without gaps is the
	// request the model saw, as far as the recording states it.
	Gaps     []string
	Messages []FrameMessage
}

// Roles of a FrameMessage beyond the chat roles.
const RoleSystem = "system"

// FrameMessage is one piece of a frame: a system prompt piece (role
// system) or a message.
type FrameMessage struct {
	Role string
	// Index is the piece's 0-based position among the system pieces, or
	// the message's among the messages.
	Index      int
	ToolCallID string
	ToolName   string
	Delivered  bool
	Content    string
	// Matches are where the needles appear in Content, in order.
	Matches []Match
}

// Match is one occurrence of a needle in a text, as byte offsets.
type Match struct {
	Start, End int
	Needle     string
}

// CallView is one tool call with its arguments and its result.
type CallView struct {
	ID, Name string
	Args     json.RawMessage
	// At and ResultAt are the positions of the tool_start and tool_end;
	// ResultAt is nil when no result is recorded.
	At, ResultAt *checks.Position
	Result       string
	ResultKnown  bool
	Error        bool
}

// GroundView is one declared ground of the tool a finding is about.
type GroundView struct {
	Tool string
	// Of is the tool that declares it (argumentsFrom).
	Of      string
	Results []GroundResult
}

// GroundResult is one result of a ground tool the conversation recorded.
type GroundResult struct {
	RunID  string
	CallID string
	At     checks.Position
	Text   string
	// Holds names the needles the result contains.
	Holds []string
	// InFrame is true when the result is among the frame's messages.
	InFrame bool
}

// ExplainInput is what Explain reads besides the report: the finding's
// run as loaded, the earlier runs of its conversation in the same input,
// and the declarations the report was made with.
type ExplainInput struct {
	Run     *recording.Run
	Earlier []*recording.Run
	Decl    *checks.Declarations
	// Rules describe the registered checks; nil means checks.Registry's.
	Rules []Rule
}

// Explain builds the explanation of finding i of run.
func (r *Report) Explain(run *Run, i int, in ExplainInput) (*Explanation, error) {
	f := run.Findings[i]
	x := &Explanation{
		Input: run.Input, RunID: run.RunID, Number: i + 1, Finding: f,
		Fingerprint: Fingerprint(f.Identity), Command: r.ExplainCommand(run, i), Run: run,
	}
	x.Needles = needlesOf(f)
	for _, rule := range (RenderOptions{Rules: in.Rules}).rules() {
		if rule.Kind == f.Kind && rule.Seam == f.Seam {
			x.Check = rule
		}
	}
	if x.Check.Kind == "" {
		x.Check = Rule{Kind: f.Kind, Seam: f.Seam}
	}
	x.Recorded, x.Replayed = conclusions(run, f)
	if in.Run == nil {
		return x, nil
	}
	decl, err := replay.EffectiveDeclarations(in.Run, in.Decl)
	if err != nil {
		return nil, err
	}
	x.Armed = armedBy(f, decl)
	frames, err := replay.Frames(in.Run, in.Decl)
	if err != nil {
		return nil, err
	}
	if cf := frameOf(frames, f); cf != nil {
		x.Frame = frameView(cf.Frame, x.Needles)
	}
	x.Calls = callsOf(in.Run, f)
	x.Grounds = groundsOf(f, decl, in, x.Needles, x.Frame)
	return x, nil
}

// needlesOf are the string values a finding's witnesses assert that are
// worth looking for in a frame: at least 4 characters, each once. A long
// value is looked for whole: the finding may say it sits in the frame, and
// only how it is quoted is clipped (quotedList).
func needlesOf(f Finding) []string {
	var out []string
	for _, w := range f.Witnessed() {
		var s string
		if json.Unmarshal(w.Value, &s) != nil {
			continue
		}
		s = strings.TrimSpace(s)
		if len([]rune(s)) < 4 || strings.ContainsAny(s, " \t\n") && !checks.IdentifierLike(s) {
			continue
		}
		if !containsString(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// frameOf is the call frame the finding is about: the model call of its
// iteration; for a finding about a final answer, the call it was chosen
// from.
func frameOf(frames []replay.CallFrame, f Finding) *replay.CallFrame {
	it := f.Iteration
	if it == nil {
		it = f.Epoch
	}
	if f.Seam == checks.SeamClaim {
		for i := len(frames) - 1; i >= 0; i-- {
			if frames[i].AnswerKnown && (it == nil || frames[i].Iteration <= *it) {
				return &frames[i]
			}
		}
	}
	if it == nil {
		return nil
	}
	for i := range frames {
		if frames[i].Iteration == *it {
			return &frames[i]
		}
	}
	return nil
}

func frameView(fr checks.Frame, needles []string) *FrameView {
	v := &FrameView{Iteration: fr.Iteration, Source: fr.Source, Gaps: fr.Gaps}
	for i, s := range fr.System {
		v.Messages = append(v.Messages, FrameMessage{Role: RoleSystem, Index: i, Content: s, Matches: Matches(s, needles)})
	}
	for i, m := range fr.Messages {
		v.Messages = append(v.Messages, FrameMessage{Role: m.Role, Index: i, ToolCallID: m.ToolCallID, ToolName: m.ToolName,
			Delivered: m.Delivered, Content: m.Content, Matches: Matches(m.Content, needles)})
	}
	return v
}

// Matches finds every needle in text, case-insensitively as the choice
// seam compares, in order of position; overlapping matches keep the first.
func Matches(text string, needles []string) []Match {
	if len(needles) == 0 || text == "" {
		return nil
	}
	hay, fold := strings.ToLower(text), true
	if len(hay) != len(text) {
		// Case folding changed the length: offsets would not line up, so
		// match the text as written.
		hay, fold = text, false
	}
	var out []Match
	for _, n := range needles {
		ln := n
		if fold {
			ln = strings.ToLower(n)
		}
		for from := 0; ln != ""; {
			j := strings.Index(hay[from:], ln)
			if j < 0 {
				break
			}
			out = append(out, Match{Start: from + j, End: from + j + len(ln), Needle: n})
			from += j + len(ln)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Start < out[b].Start })
	kept := out[:0]
	end := -1
	for _, m := range out {
		if m.Start >= end {
			kept = append(kept, m)
			end = m.End
		}
	}
	return kept
}

// callsOf reads the calls the finding is about from the run's events.
func callsOf(run *recording.Run, f Finding) []CallView {
	var ids []string
	for _, id := range f.CallIDs {
		if !containsString(ids, id) {
			ids = append(ids, id)
		}
	}
	if f.Replay != nil {
		for _, id := range f.Replay.CallIDs {
			if !containsString(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	positions := f.Positions()
	for _, p := range positions {
		if p.ToolCallID != "" && p.What != checks.EvidenceEviction && !containsString(ids, p.ToolCallID) {
			ids = append(ids, p.ToolCallID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	byID := map[string]*CallView{}
	var out []*CallView
	for i := range run.Events {
		ev := &run.Events[i]
		if ev.Type != recording.TypeToolStart && ev.Type != recording.TypeToolEnd {
			continue
		}
		var p struct {
			ToolName   string          `json:"toolName"`
			ToolCallID string          `json:"toolCallId"`
			Iteration  *int64          `json:"iteration"`
			Args       json.RawMessage `json:"args"`
			Result     json.RawMessage `json:"result"`
			Error      *bool           `json:"error"`
		}
		if json.Unmarshal(ev.Payload, &p) != nil || !containsString(ids, p.ToolCallID) {
			continue
		}
		// The call and iteration, as the finding's own positions name them
		// (a tool_start states no iteration; the replay knows it).
		pos := eventPosition(ev)
		pos.ToolCallID, pos.Iteration = p.ToolCallID, p.Iteration
		if pos.Iteration == nil {
			pos.Iteration = iterationAt(positions, ev)
		}
		c := byID[p.ToolCallID]
		if c == nil {
			c = &CallView{ID: p.ToolCallID}
			byID[p.ToolCallID] = c
			out = append(out, c)
		}
		if ev.Type == recording.TypeToolStart && c.At == nil {
			pos.What = checks.EvidenceToolCall
			c.At, c.Name, c.Args = &pos, p.ToolName, p.Args
		}
		if ev.Type == recording.TypeToolEnd && c.ResultAt == nil {
			pos.What = checks.EvidenceResult
			c.ResultAt = &pos
			if len(p.Result) > 0 {
				c.Result, c.ResultKnown = resultString(p.Result), true
			}
			c.Error = p.Error != nil && *p.Error
		}
	}
	views := make([]CallView, len(out))
	for i, c := range out {
		views[i] = *c
	}
	return views
}

// iterationAt is the iteration a finding's own evidence (its positions)
// gives the event, nil when it holds no position of it.
func iterationAt(positions []checks.Position, ev *recording.Event) *int64 {
	for _, p := range positions {
		if p.Index == ev.Index && p.Rotated == ev.Rotated && p.Iteration != nil {
			return p.Iteration
		}
	}
	return nil
}

func eventPosition(ev *recording.Event) checks.Position {
	return checks.Position{Event: ev.Type, Line: ev.Line, Index: ev.Index, Rotated: ev.Rotated}
}

// resultString is a result as text: a JSON string's content, anything
// else as its JSON.
func resultString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// groundsOf lists, for a finding about a tool that declares argumentsFrom,
// every result of each ground the conversation recorded up to the
// finding's run: the one the value should have come from, whether or not
// it ever held it.
func groundsOf(f Finding, decl *checks.Declarations, in ExplainInput, needles []string, frame *FrameView) []GroundView {
	if len(f.Subjects) == 0 || f.Subjects[0].Kind != "tool" {
		return nil
	}
	tool := f.Subjects[0].ID
	grounds := decl.GroundsOf(tool)
	if len(grounds) == 0 {
		return nil
	}
	inFrame := map[string]bool{}
	if frame != nil {
		for _, m := range frame.Messages {
			if m.Role == checks.RoleTool && m.ToolCallID != "" {
				inFrame[m.ToolCallID] = true
			}
		}
	}
	runs := append(append([]*recording.Run(nil), in.Earlier...), in.Run)
	out := make([]GroundView, 0, len(grounds))
	for _, g := range grounds {
		gv := GroundView{Tool: g, Of: tool}
		for _, run := range runs {
			names := map[string]bool{}
			for i := range run.Events {
				ev := &run.Events[i]
				var p struct {
					ToolName   string          `json:"toolName"`
					ToolCallID string          `json:"toolCallId"`
					Result     json.RawMessage `json:"result"`
				}
				if ev.Type != recording.TypeToolStart && ev.Type != recording.TypeToolEnd {
					continue
				}
				if json.Unmarshal(ev.Payload, &p) != nil || p.ToolCallID == "" {
					continue
				}
				if ev.Type == recording.TypeToolStart {
					if p.ToolName == g {
						names[p.ToolCallID] = true
					}
					continue
				}
				if !names[p.ToolCallID] || len(p.Result) == 0 {
					continue
				}
				text := resultString(p.Result)
				pos := eventPosition(ev)
				pos.What, pos.ToolCallID = checks.EvidenceResult, p.ToolCallID
				gr := GroundResult{RunID: run.ID, CallID: p.ToolCallID, At: pos, Text: text, InFrame: inFrame[p.ToolCallID] && run == in.Run}
				for _, m := range Matches(text, needles) {
					if !containsString(gr.Holds, m.Needle) {
						gr.Holds = append(gr.Holds, m.Needle)
					}
				}
				delete(names, p.ToolCallID)
				gv.Results = append(gv.Results, gr)
			}
		}
		out = append(out, gv)
	}
	return out
}

// conclusions words what each side concluded about the finding.
func conclusions(run *Run, f Finding) (recorded, replayed string) {
	filed := "filed it"
	if f.Line > 0 {
		filed = fmt.Sprintf("filed it (context_error at line %d)", f.Line)
	}
	switch f.Source {
	case replay.SourceBoth:
		recorded, replayed = "the live run "+filed, "the replay filed it too"
	case replay.SourceRecorded:
		recorded = "the live run " + filed
		if run.Replayed != nil {
			replayed = "the replay did not: " + f.Why
		}
	case replay.SourceReplayed:
		recorded = "the live run did not: " + f.Why
		replayed = "the replay filed it"
		if f.FiledAt != "" {
			replayed += " at " + f.FiledAt
		}
	}
	if f.Drift {
		replayed += " (drift: both sides judged, and they disagree)"
	}
	return recorded, replayed
}

// armedBy names the declarations that arm the finding's check, as the
// effective declarations state them.
func armedBy(f Finding, decl *checks.Declarations) []string {
	if decl == nil {
		return nil
	}
	src := decl.Source
	if src == "" {
		src = "the declarations"
	}
	var out []string
	if len(f.Subjects) > 0 && f.Subjects[0].Kind == "tool" {
		if t := decl.Tool(f.Subjects[0].ID); t != nil {
			if len(t.ArgumentsFrom) > 0 {
				out = append(out, fmt.Sprintf("tools.%s.argumentsFrom: [%s] (%s)", t.Name, strings.Join(t.ArgumentsFrom, ", "), src))
			}
			if len(t.ResultColumns) > 0 {
				var cols []string
				for _, c := range t.ResultColumns {
					cols = append(cols, c.Name+": "+c.Type)
				}
				out = append(out, fmt.Sprintf("tools.%s.resultColumns: {%s} (%s)", t.Name, strings.Join(cols, ", "), src))
			}
			if t.NoticeEmptyLookups != nil {
				out = append(out, fmt.Sprintf("tools.%s.noticeEmptyLookups: %v (%s)", t.Name, *t.NoticeEmptyLookups, src))
			}
		}
	}
	for _, c := range decl.Claims {
		if f.Kind == checks.KindUnsupportedClaim && c.Field == f.Predicate {
			out = append(out, fmt.Sprintf("claims: %s ← %s(%s) (%s)", c.AnswerField, c.Field, c.Entity, src))
		}
	}
	return out
}
