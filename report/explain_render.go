package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fpcheck/fpcheck/checks"
)

// foldContext is how many characters explain keeps around each match of a
// long message.
const foldContext = 120

// RenderExplainText writes one explanation for a reader.
func RenderExplainText(w io.Writer, x *Explanation, o TextOptions) error {
	t := newTextWriter(w, o)
	f := x.Finding
	t.line(0, styleBold, fmt.Sprintf("fpcheck explain · finding %d of run %s · %s", x.Number, orNone(x.RunID), displayPath(x.Input)))
	t.blank()
	head := fmt.Sprintf("[%d] %s @%s", x.Number, orUnrecorded(f.Kind), orUnrecorded(f.Seam))
	if f.Iteration != nil {
		head += fmt.Sprintf(" · iteration %d", *f.Iteration)
	}
	switch {
	case f.Synthetic:
		head += " · SYNTHETIC canary"
	case f.Advisory:
		head += " · ADVISORY"
	default:
		head += " · DEFECT"
	}
	t.hang(0, 4, styleDefects, head)
	t.line(2, stylePlain, orText(f.Message, "(no message recorded)"))
	t.line(2, styleDim, "identity: "+f.Identity)
	t.line(2, styleDim, "fingerprint: "+x.Fingerprint)

	t.blank()
	t.line(0, styleBold, "WITNESSES")
	ws := f.Witnessed()
	if len(ws) == 0 {
		t.line(2, stylePlain, "⚠ none: "+witnessLine(f))
	}
	for _, w := range ws {
		t.hang(2, 6, stylePlain, WitnessText(w))
	}

	t.blank()
	t.line(0, styleBold, "EVIDENCE in the recording")
	ps := f.Positions()
	if len(ps) == 0 {
		t.line(2, stylePlain, "no recording position could be pinned down")
	}
	for _, p := range ps {
		t.line(2, stylePlain, PositionText(x.Run, p)+" · "+p.Event)
	}

	t.blank()
	explainFrame(t, x)

	for _, c := range x.Calls {
		t.blank()
		head := "CALL " + orText(c.Name, "(tool not recorded)") + " (call " + c.ID + ")"
		if c.At != nil {
			head += " · " + x.Run.Ref(*c.At)
		}
		t.line(0, styleBold, head)
		if c.At != nil {
			t.hang(2, 6, stylePlain, "arguments: "+Shorten(string(c.Args), 4*foldContext))
		} else {
			t.line(2, stylePlain, "arguments: no tool_start is recorded for this call")
		}
		switch {
		case c.ResultAt == nil:
			t.line(2, stylePlain, "result: none recorded")
		case !c.ResultKnown:
			t.line(2, stylePlain, "result: the tool_end at "+x.Run.Ref(*c.ResultAt)+" carries no result")
		default:
			label := "result (" + x.Run.Ref(*c.ResultAt) + ")"
			if c.Error {
				label += ", an error"
			}
			t.rich(2, 6, label+": ", Fold(c.Result, Matches(c.Result, x.Needles), foldContext))
		}
	}

	for _, g := range x.Grounds {
		t.blank()
		t.line(0, styleBold, fmt.Sprintf("GROUND %s ('%s' declares argumentsFrom: %s)", g.Tool, g.Of, g.Tool))
		if x.Frame != nil {
			in := false
			for _, r := range g.Results {
				in = in || r.InFrame
			}
			if !in {
				t.line(2, stylePlain, fmt.Sprintf("no %s result is in the frame the model chose from", g.Tool))
			}
		}
		if len(g.Results) == 0 {
			t.line(2, stylePlain, fmt.Sprintf("no %s result is recorded in this conversation up to this run", g.Tool))
		}
		for _, r := range g.Results {
			where := "run " + r.RunID + " · call " + r.CallID + " · result " + x.Run.Ref(r.At)
			if r.InFrame {
				where += " · in the frame"
			}
			segs := Fold(r.Text, Matches(r.Text, x.Needles), foldContext/2)
			if v := groundVerdict(r, x.Needles); v != "" {
				segs = append(segs, Segment{Text: " — " + v})
			}
			t.rich(2, 6, where+": ", segs)
		}
	}

	t.blank()
	t.line(0, styleBold, "CONCLUSIONS")
	t.hang(2, 6, stylePlain, "live run: "+orText(x.Recorded, "the recording carries no verdict on it"))
	if x.Replayed != "" {
		t.hang(2, 6, stylePlain, "replay: "+x.Replayed)
	}

	t.blank()
	t.line(0, styleBold, "CEILING of "+x.Check.ID()+" (what it can never see)")
	t.line(2, stylePlain, orText(strings.TrimSpace(x.Check.Ceiling), "this build registers no check for this kind and seam"))
	t.blank()
	t.line(0, styleBold, "ARMED BY")
	t.line(2, stylePlain, orText(x.Check.ArmedBy, "not known to this build"))
	for _, a := range x.Armed {
		t.line(2, stylePlain, a)
	}
	return t.err
}

// explainFrame writes the rebuilt frame, each message folded around the
// values the finding names, which are marked.
func explainFrame(t *textWriter, x *Explanation) {
	fr := x.Frame
	if fr == nil {
		t.line(0, styleBold, "FRAME")
		t.line(2, stylePlain, "no model call of this finding's iteration was rebuilt, so there is no frame to show")
		return
	}
	state := "complete"
	if len(fr.Gaps) > 0 {
		state = "⚠ incomplete"
	}
	t.hang(0, 4, styleBold, fmt.Sprintf("FRAME the model chose from (iteration %d, %s, %s)", fr.Iteration, fr.Source, state))
	for _, g := range fr.Gaps {
		t.hang(2, 6, stylePlain, "⚠ "+g)
	}
	if len(x.Needles) > 0 {
		mark := "marked »like this«"
		if t.styles != nil {
			mark = "highlighted"
		}
		t.hang(2, 6, styleDim, "looking for "+quotedList(x.Needles)+", "+mark+" where it appears")
	}
	for _, m := range fr.Messages {
		head := m.Role + " [" + strconv.Itoa(m.Index) + "]"
		if m.Role == checks.RoleTool {
			head += " " + orText(m.ToolName, "(tool not named)") + " call " + orText(m.ToolCallID, "?")
		}
		if m.Delivered {
			head += " (delivered by a context injection)"
		}
		if len(m.Matches) > 0 {
			head += " ◀ holds " + quotedList(needlesIn(m.Matches))
			if m.Role == checks.RoleAssistant {
				head += ": the model's own earlier answer"
			}
		}
		t.line(2, styleBold, head)
		t.rich(4, 4, "", Fold(m.Content, m.Matches, foldContext))
	}
}

func needlesIn(ms []Match) []string {
	var out []string
	for _, m := range ms {
		if !containsString(out, m.Needle) {
			out = append(out, m.Needle)
		}
	}
	return out
}

// groundVerdict says which of the values looked for a ground's result
// holds; empty when nothing was looked for, so that no sentence ends in an
// empty list.
func groundVerdict(r GroundResult, needles []string) string {
	switch {
	case len(r.Holds) > 0:
		return "holds " + quotedList(r.Holds)
	case len(needles) > 0:
		return "does not hold " + quotedList(needles)
	}
	return ""
}

// quotedList quotes values as the witnesses show them: a long one is
// clipped where it is quoted, never where it is looked for.
func quotedList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(Shorten(s, maxShown))
	}
	return strings.Join(q, ", ")
}

func orText(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

func orNone(s string) string { return orText(s, "(no run id)") }

// rich writes a prefix and folded segments as one wrapped paragraph:
// every piece sanitized, matches highlighted (or bracketed »like this«
// without colour), folded runs stated by their length.
func (t *textWriter) rich(indent, hang int, prefix string, segs []Segment) {
	var b strings.Builder
	b.WriteString(Sanitize(prefix))
	hl, styled := t.styles[styleMatch]
	for _, s := range segs {
		switch {
		case s.Folded > 0:
			b.WriteString(fmt.Sprintf("[… %s characters …]", groupDigits(s.Folded)))
		case s.Match && styled:
			for i, w := range strings.Split(Sanitize(s.Text), " ") {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(hl.Render(w))
			}
		case s.Match:
			b.WriteString("»" + Sanitize(s.Text) + "«")
		default:
			b.WriteString(Sanitize(s.Text))
		}
	}
	for i, seg := range wrap(b.String(), indent, hang, t.width) {
		pad := indent
		if i > 0 {
			pad = hang
		}
		t.writeAt(pad, seg)
	}
}

// The JSON explanation (fpcheck explain --format json), documented in
// docs/json-schema.md.
type jsonExplanation struct {
	SchemaVersion int                `json:"schemaVersion"`
	Input         string             `json:"input"`
	RunID         string             `json:"runId"`
	Number        int                `json:"number"`
	Fingerprint   string             `json:"fingerprint"`
	Command       string             `json:"command"`
	Finding       jsonFinding        `json:"finding"`
	Needles       []string           `json:"needles"`
	Frame         *jsonFrame         `json:"frame"`
	Calls         []jsonCall         `json:"calls"`
	Grounds       []jsonGround       `json:"grounds"`
	Conclusions   jsonConclusions    `json:"conclusions"`
	Check         jsonExplainedCheck `json:"check"`
}

type jsonFrame struct {
	Iteration int64         `json:"iteration"`
	Source    string        `json:"source"`
	Complete  bool          `json:"complete"`
	Gaps      []string      `json:"gaps"`
	Messages  []jsonMessage `json:"messages"`
}

type jsonMessage struct {
	Role       string      `json:"role"`
	Index      int         `json:"index"`
	ToolCallID *string     `json:"toolCallId"`
	ToolName   *string     `json:"toolName"`
	Delivered  bool        `json:"delivered"`
	Content    string      `json:"content"`
	Matches    []jsonMatch `json:"matches"`
}

type jsonMatch struct {
	Start  int    `json:"start"`
	End    int    `json:"end"`
	Needle string `json:"needle"`
}

type jsonCall struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Args     json.RawMessage `json:"args"`
	At       *jsonPosition   `json:"at"`
	Result   *string         `json:"result"`
	ResultAt *jsonPosition   `json:"resultAt"`
	Error    bool            `json:"error"`
}

type jsonGround struct {
	Tool    string             `json:"tool"`
	Of      string             `json:"of"`
	Results []jsonGroundResult `json:"results"`
}

type jsonGroundResult struct {
	RunID   string       `json:"runId"`
	CallID  string       `json:"callId"`
	At      jsonPosition `json:"at"`
	Text    string       `json:"text"`
	Holds   []string     `json:"holds"`
	InFrame bool         `json:"inFrame"`
}

type jsonConclusions struct {
	Recorded string  `json:"recorded"`
	Replayed *string `json:"replayed"`
}

type jsonExplainedCheck struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Ceiling string   `json:"ceiling"`
	ArmedBy string   `json:"armedBy"`
	Armed   []string `json:"armed"`
}

// RenderExplainJSON writes one explanation as JSON: deterministic, no HTML
// escaping, every string as recorded.
func RenderExplainJSON(w io.Writer, x *Explanation) error {
	run := *x.Run
	run.Findings = []Finding{x.Finding}
	jr := jsonRunOf(&Report{}, run)
	jf := jr.Findings[0]
	jf.Explain = x.Command
	out := jsonExplanation{
		SchemaVersion: SchemaVersion, Input: x.Input, RunID: x.RunID, Number: x.Number,
		Fingerprint: x.Fingerprint, Command: x.Command, Finding: jf, Needles: nonNil(x.Needles),
		Calls: []jsonCall{}, Grounds: []jsonGround{},
		Conclusions: jsonConclusions{Recorded: x.Recorded, Replayed: nullString(x.Replayed)},
		Check: jsonExplainedCheck{ID: x.Check.ID(), Title: x.Check.Title, Ceiling: strings.TrimSpace(x.Check.Ceiling),
			ArmedBy: x.Check.ArmedBy, Armed: nonNil(x.Armed)},
	}
	if fr := x.Frame; fr != nil {
		jfr := &jsonFrame{Iteration: fr.Iteration, Source: fr.Source, Complete: len(fr.Gaps) == 0, Gaps: nonNil(fr.Gaps), Messages: []jsonMessage{}}
		for _, m := range fr.Messages {
			jm := jsonMessage{Role: m.Role, Index: m.Index, ToolCallID: nullString(m.ToolCallID), ToolName: nullString(m.ToolName),
				Delivered: m.Delivered, Content: m.Content, Matches: []jsonMatch{}}
			for _, mt := range m.Matches {
				jm.Matches = append(jm.Matches, jsonMatch{Start: mt.Start, End: mt.End, Needle: mt.Needle})
			}
			jfr.Messages = append(jfr.Messages, jm)
		}
		out.Frame = jfr
	}
	for _, c := range x.Calls {
		jc := jsonCall{ID: c.ID, Name: c.Name, Args: c.Args, Error: c.Error}
		if len(jc.Args) == 0 || !json.Valid(jc.Args) {
			jc.Args = json.RawMessage("null")
		}
		if c.At != nil {
			p := jsonPositionOf(x.Run, *c.At)
			jc.At = &p
		}
		if c.ResultAt != nil {
			p := jsonPositionOf(x.Run, *c.ResultAt)
			jc.ResultAt = &p
		}
		if c.ResultKnown {
			res := c.Result
			jc.Result = &res
		}
		out.Calls = append(out.Calls, jc)
	}
	for _, g := range x.Grounds {
		jg := jsonGround{Tool: g.Tool, Of: g.Of, Results: []jsonGroundResult{}}
		for _, r := range g.Results {
			jg.Results = append(jg.Results, jsonGroundResult{RunID: r.RunID, CallID: r.CallID, At: jsonPositionOf(x.Run, r.At),
				Text: r.Text, Holds: nonNil(r.Holds), InFrame: r.InFrame})
		}
		out.Grounds = append(out.Grounds, jg)
	}
	return encodeJSON(w, out)
}
