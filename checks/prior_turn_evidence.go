package checks

import (
	"fmt"
	"strings"
)

// PriorTurnEvidenceCeiling is fpcheck's statement of what prior-turn
// evidence can never see. Every finding the check files quotes it, so the
// bound cannot drift away from the finding it bounds.
const PriorTurnEvidenceCeiling = "An answer that rightly leans on an earlier result cannot be told apart, by evidence alone, from one that has gone stale: this says WHERE the values came from, never whether they were still the ones the reader wanted. It counts only the turns still in the live window, so the distance it names is a floor, and values the run supplied instead of fetching (the prompt, a fact it was handed, a recalled passage) are exempt from grounding and invisible to it. A place to look, never a verdict that anything is wrong."

// answerSubject is the one subject of a prior-turn finding: the answer the
// turn hands back.
var answerSubject = Subject{Kind: "answer", ID: "final"}

// maxListedValues bounds how many values a message names.
const maxListedValues = 5

// PriorTurnEvidence is prior-turn-evidence at the claim seam: the answer is
// grounded, and every value in it was last served in an earlier turn.
var PriorTurnEvidence = &Check{
	Kind:  KindPriorTurnEvidence,
	Seam:  SeamClaim,
	Title: "every value in the answer was served in an earlier turn",
	Doc: `At each final answer, the names-and-numbers extractor picks the answer's values: tokens with a digit that are identifiers (at least four characters, with a letter or one of : _ - / .) or numbers of at least minDigits digits (dials.namesAndNumbers.minDigits, default 4); a number with a short unit glued on counts by its number, a ratio such as 24/7 is prose, and an answer that is a JSON object or array is read by its values, never its field names (any other answer, a bare JSON number or string included, is read as text, as a tool result is). Each value is looked up, token for token, in a grounding index built from the request the answer was chosen from: every tool-result message is indexed (JSON results key by key and leaf by leaf), and each indexed form is stamped with the latest turn that served it. A turn starts at each user message a person wrote; the notes and corrections the library writes in the user's voice ([dropped history …], [compacted history …], [schema check …], [evidence check …]) and messages a context injection delivered are not turns. Values found in the system prompt, a person's message or turn_start.userPrompt are exempt: the run supplied them, so they count for neither side.

When every grounded value's newest source is a turn before the one being answered, one advisory is filed, naming how many values, the turn they came from, how far back it is, and how many tool results this turn served. When this turn served no tool result at all, the message says so in a stronger sentence: the answer was assembled entirely from the conversation. Follow-up runs see earlier turns through the history they carry (the request frame holds the earlier turns' user and tool messages that are still in the window), which is exactly the corpus the live check reads.

Fences: one grounded value from this turn's own results files nothing (the honest follow-up stays quiet); values no tool result carried are the names-and-numbers gate's business, not this check's; an index that is incomplete (its ceiling reached, or a request frame with gaps) is not-applicable; a frame with no person's message, or an answer that states no value the index can ground, is unreachable; an answer that is not recorded is unreachable. The predicate is grounding and the subject the final answer, so a run files at most one such finding.`,
	Ceiling:     PriorTurnEvidenceCeiling,
	Unfed:       "the run recorded no final answer to judge",
	ArmedBy:     "dials.noticePriorTurnEvidence: true beside dials.namesAndNumbers",
	Advisory:    true,
	AdvisoryWhy: "an answer that rightly leans on an earlier result looks the same as a stale one, so it marks a place to look, never a verdict",
	Armed: func(d *Declarations) bool {
		return d != nil && d.Dials.NoticePriorTurnEvidence != nil && *d.Dials.NoticePriorTurnEvidence && d.NamesAndNumbersDeclared()
	},
	Canary: func() []Finding {
		frame := Frame{Source: "canary", Messages: []Message{
			{Role: RoleUser, Content: "What arrays are there?"},
			{Role: RoleTool, Content: `[{"array":"CANARY-0042","capacity_gb":41200}]`},
			{Role: RoleAssistant, Content: "CANARY-0042 holds 41200 GB."},
			{Role: RoleUser, Content: "How is array performance?"},
		}}
		v := priorTurnEvidenceOf(NewGroundingIndex(frame), "CANARY-0042 is at 41200 GB.", DefaultMinDigits, -1)
		return v.Findings
	},
	OnClaim: judgePriorTurn,
}

func judgePriorTurn(v ClaimView, d *Declarations) []Verdict {
	if !v.AnswerKnown {
		return []Verdict{UnreachableBecause(fmt.Sprintf("the final answer of iteration %d is not recorded", v.Iteration))}
	}
	if v.Frame.Source == FrameFromNothing || v.Frame.Source == "" {
		return []Verdict{UnreachableBecause(fmt.Sprintf("no request frame is recorded for the final answer of iteration %d, so nothing says which turn served its values", v.Iteration))}
	}
	verdict := priorTurnEvidenceOf(v.Index(), v.Answer, d.MinDigits(), v.Iteration)
	verdict.Findings = stamp(verdict.Findings, v.Stage)
	return []Verdict{verdict}
}

// priorTurnEvidenceOf is the pure judge of one answer against its grounding
// index.
func priorTurnEvidenceOf(g *GroundingIndex, answer string, minDigits int, epoch int64) Verdict {
	if g.Truncated {
		return Verdict{Disposition: NotApplicable, Reasons: []string{fmt.Sprintf("the grounding index of the answer of iteration %d is incomplete (%s), and an incomplete index cannot say which turn last served a value", epoch, g.Why)}}
	}
	if g.CurrentTurn == 0 {
		return UnreachableBecause(fmt.Sprintf("the request the answer of iteration %d was chosen from carries no message a person wrote, so there is no turn boundary to be before", epoch))
	}
	values, _ := ExtractValues(answer, minDigits)
	r := g.Read(values)
	if r.FromThisTurn+r.FromPriorTurns == 0 {
		return UnreachableBecause(fmt.Sprintf("the answer of iteration %d states no value a tool result in its request grounds", epoch))
	}
	if r.FromThisTurn > 0 {
		return Pass()
	}
	back := r.CurrentTurn - r.LatestPriorTurn
	fetchedNothing := r.ToolResultsThisTurn == 0
	turnSubject := Subject{Kind: "turn", ID: fmt.Sprint(r.LatestPriorTurn)}
	witnesses := []Witness{
		asserted(answerSubject, "grounding", fmt.Sprintf("%d grounded %s, none served by this turn", r.FromPriorTurns, plural(r.FromPriorTurns, "value", "values")), epoch,
			fmt.Sprintf("grounding index over the tool results of the answer's request (%s), each value stamped with the latest turn that served it", g.Source)),
		asserted(turnSubject, "grounding", "served the newest result the answer drew on", epoch,
			fmt.Sprintf("turn %d of the %d person %s still in the window, at least %d %s before the one being answered", r.LatestPriorTurn, r.CurrentTurn, plural(r.CurrentTurn, "turn", "turns"), back, plural(back, "turn", "turns"))),
	}
	toolWitness := asserted(answerSubject, "tool-results-this-turn", r.ToolResultsThisTurn, epoch,
		"this turn served tool results, and none of them carries a value the answer states")
	if fetchedNothing {
		toolWitness.Provenance = "this turn served no tool result at all, so every value in the answer came from the conversation"
	}
	witnesses = append(witnesses, toolWitness)

	var b strings.Builder
	fmt.Fprintf(&b, "The final answer states %d %s the run can ground (%s), and every one was last served in turn %d or earlier, at least %d %s before turn %d, the one being answered, which contributed none of them. ",
		r.FromPriorTurns, plural(r.FromPriorTurns, "value", "values"), listValues(r.PriorValues), r.LatestPriorTurn, back, plural(back, "turn", "turns"), r.CurrentTurn)
	if fetchedNothing {
		b.WriteString("This turn called no tool and served no result, so the answer was assembled entirely from the conversation. ")
	} else {
		fmt.Fprintf(&b, "This turn served %d tool %s and the answer states no value from any of them. ", r.ToolResultsThisTurn, plural(r.ToolResultsThisTurn, "result", "results"))
	}
	b.WriteString(PriorTurnEvidenceCeiling)
	f := finding(KindPriorTurnEvidence, SeamClaim, []Subject{answerSubject}, "grounding", witnesses, epoch, b.String())
	f.Advisory = true
	return Verdict{Disposition: CheckedFail, Findings: []Finding{f}}
}

// listValues names up to maxListedValues values for a message.
func listValues(vs []string) string {
	if len(vs) <= maxListedValues {
		return strings.Join(vs, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(vs[:maxListedValues], ", "), len(vs)-maxListedValues)
}
