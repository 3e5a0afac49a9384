package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// A finding panel of the HTML report shows what `fpcheck explain` shows:
// the finding's evidence in the recording, the frame the model chose from
// with the values the finding names marked, the calls, the grounds' results
// and both sides' conclusions. It is built from the same Explanation.

type htmlExplain struct {
	Command   string
	Positions []string
	// Error says why the frame could not be rebuilt; Unkept that the
	// run's events were not kept to rebuild it from.
	Error, Unkept string
	Needles       string
	Frame         *htmlFrame
	Calls         []htmlCall
	Grounds       []htmlGround
	Recorded      string
	Replayed      string
	ArmedBy       string
	Armed         []string
}

type htmlFrame struct {
	Head     string
	Complete bool
	Gaps     []string
	Messages []htmlMessage
}

type htmlMessage struct {
	Role, Head string
	// Holds names the marked values the message holds; Own is true when
	// they sit in the model's own earlier answer.
	Holds string
	Own   bool
	Segs  []htmlSeg
}

// htmlSeg is one piece of a folded text: plain, a marked match, or a run
// of characters folded away and stated by its length.
type htmlSeg struct {
	Text   string
	Match  bool
	Folded string
}

type htmlCall struct {
	Head, Args string
	Result     []htmlSeg
	Note       string
}

type htmlGround struct {
	Head    string
	Notes   []string
	Results []htmlGroundResult
}

type htmlGroundResult struct {
	Where, Verdict string
	Segs           []htmlSeg
}

func htmlSegs(segs []Segment) []htmlSeg {
	out := make([]htmlSeg, len(segs))
	for i, s := range segs {
		out[i] = htmlSeg{Text: s.Text, Match: s.Match}
		if s.Folded > 0 {
			out[i] = htmlSeg{Folded: fmt.Sprintf("[… %s characters …]", groupDigits(s.Folded))}
		}
	}
	return out
}

// explainPanel builds finding i of run k's explanation for its panel.
func explainPanel(r *Report, k, i int, earlier []*recording.Run) *htmlExplain {
	run := &r.Runs[k]
	f := run.Findings[i]
	he := &htmlExplain{Command: r.ExplainCommand(run, i)}
	for _, p := range f.Positions() {
		he.Positions = append(he.Positions, PositionText(run, p)+" · "+p.Event)
	}
	in := ExplainInput{}
	if src := run.explain; src != nil {
		in.Run, in.Decl, in.Earlier = src.Run, src.Decl, earlier
	} else {
		he.Unkept = "The run's events were not kept with this report, so the frame, the calls and the grounds cannot be shown here; `fpcheck explain` reads them from the recording."
	}
	x, err := r.Explain(run, i, in)
	if err != nil {
		he.Error = err.Error()
		return he
	}
	he.Recorded, he.Replayed = x.Recorded, x.Replayed
	he.ArmedBy, he.Armed = x.Check.ArmedBy, x.Armed
	he.Needles = quotedList(x.Needles)
	if fr := x.Frame; fr != nil {
		hf := &htmlFrame{Complete: len(fr.Gaps) == 0, Gaps: fr.Gaps,
			Head: fmt.Sprintf("The frame the model chose from: iteration %d, %s", fr.Iteration, fr.Source)}
		for _, m := range fr.Messages {
			hm := htmlMessage{Role: m.Role, Head: m.Role + " [" + strconv.Itoa(m.Index) + "]", Segs: htmlSegs(Fold(m.Content, m.Matches, foldContext))}
			if m.Role == checks.RoleTool {
				hm.Head += " " + orText(m.ToolName, "(tool not named)") + " call " + orText(m.ToolCallID, "?")
			}
			if m.Delivered {
				hm.Head += " (delivered by a context injection)"
			}
			if len(m.Matches) > 0 {
				hm.Holds = quotedList(needlesIn(m.Matches))
				hm.Own = m.Role == checks.RoleAssistant
			}
			hf.Messages = append(hf.Messages, hm)
		}
		he.Frame = hf
	}
	for _, c := range x.Calls {
		hc := htmlCall{Head: "Call " + orText(c.Name, "(tool not recorded)") + " (call " + c.ID + ")"}
		if c.At != nil {
			hc.Head += " · " + run.Ref(*c.At)
			hc.Args = Shorten(string(c.Args), 4*foldContext)
		} else {
			hc.Note = "no tool_start is recorded for this call, so its arguments are unknown"
		}
		switch {
		case c.ResultAt == nil:
			hc.Note = strings.TrimPrefix(hc.Note+"; no result is recorded", "; ")
		case !c.ResultKnown:
			hc.Note = strings.TrimPrefix(hc.Note+"; the tool_end at "+run.Ref(*c.ResultAt)+" carries no result", "; ")
		default:
			hc.Result = htmlSegs(Fold(c.Result, Matches(c.Result, x.Needles), foldContext))
			hc.Head += " · result " + run.Ref(*c.ResultAt)
			if c.Error {
				hc.Head += ", an error"
			}
		}
		he.Calls = append(he.Calls, hc)
	}
	for _, g := range x.Grounds {
		hg := htmlGround{Head: fmt.Sprintf("Ground %s ('%s' declares argumentsFrom: %s)", g.Tool, g.Of, g.Tool)}
		inFrame := false
		for _, res := range g.Results {
			inFrame = inFrame || res.InFrame
		}
		if x.Frame != nil && !inFrame {
			hg.Notes = append(hg.Notes, fmt.Sprintf("No %s result is in the frame the model chose from.", g.Tool))
		}
		if len(g.Results) == 0 {
			hg.Notes = append(hg.Notes, fmt.Sprintf("No %s result is recorded in this conversation up to this run.", g.Tool))
		}
		for _, res := range g.Results {
			where := "run " + res.RunID + " · call " + res.CallID + " · result " + run.Ref(res.At)
			if res.InFrame {
				where += " · in the frame"
			}
			hg.Results = append(hg.Results, htmlGroundResult{Where: where, Verdict: groundVerdict(res, x.Needles),
				Segs: htmlSegs(Fold(res.Text, Matches(res.Text, x.Needles), foldContext/2))})
		}
		he.Grounds = append(he.Grounds, hg)
	}
	return he
}
