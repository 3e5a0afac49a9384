package replay

import (
	"github.com/fpcheck/fpcheck/checks"
)

// AnswerValidation is the answer-validation report of one final answer:
// the agent's own answer checks (agent:claims:<field> per declared claim,
// agent:names-and-numbers when the extractor is declared) judged on the
// answer as recorded. Its rows can withhold an answer and never verify
// one: no row is ever checked-pass, and since a recording carries none of
// the application's own comparisons, a report is failed when a row failed
// and unverified otherwise.
type AnswerValidation struct {
	Answer AnswerRef            `json:"answer"`
	Status string               `json:"status"`
	Reason string               `json:"reason,omitempty"`
	Counts ValidationCounts     `json:"counts"`
	Rows   []checks.AnswerCheck `json:"rows"`
}

// AnswerRef says which final answer a validation is about, never what it
// says.
type AnswerRef struct {
	Iteration int64 `json:"iteration"`
	// Stage is the runtimeStageId of the route decision that handed the
	// answer back.
	Stage string `json:"stage"`
	// Recorded is false when the recording carries no text for the answer.
	Recorded bool `json:"recorded"`
	// JSON is true when the answer parses as JSON; the claims rows read
	// only such answers.
	JSON bool `json:"json"`
}

// ValidationCounts counts a validation's rows by disposition.
type ValidationCounts struct {
	Checked       int `json:"checked"`
	Failed        int `json:"failed"`
	Unreachable   int `json:"unreachable"`
	NotApplicable int `json:"notApplicable"`
}

// validateAnswer builds the validation of one final answer when the
// declarations ask for one: claims declared (one row per claim) or the
// names-and-numbers extractor declared (its row).
func validateAnswer(view checks.ClaimView, d *checks.Declarations) (AnswerValidation, bool) {
	if len(d.Claims) == 0 && !d.NamesAndNumbersDeclared() {
		return AnswerValidation{}, false
	}
	av := AnswerValidation{Answer: AnswerRef{Iteration: view.Iteration, Stage: view.Stage, Recorded: view.AnswerKnown,
		JSON: view.AnswerKnown && checks.AnswerIsJSON(view.Answer)}}
	av.Rows = checks.ValidateClaims(d.Claims, view.Rows, view.Answer, view.AnswerKnown)
	if d.NamesAndNumbersDeclared() {
		var g *checks.GroundingIndex
		if view.Frame.Source != checks.FrameFromNothing && view.Frame.Source != "" {
			g = view.Index()
		}
		av.Rows = append(av.Rows, checks.ValidateNamesAndNumbers(view.Answer, view.AnswerKnown, g, d.MinDigits()))
	}
	av.Status, av.Reason = checks.ValidationStatus(av.Rows)
	c := &av.Counts
	c.Checked, c.Failed, c.Unreachable, c.NotApplicable = checks.CountAnswerChecks(av.Rows)
	return av, true
}
