package report

import (
	"fmt"
	"strings"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/replay"
)

// runValidation is the answer validation a run shows: the replay's.
func runValidation(rr RunResult) []replay.AnswerValidation {
	if rr.Replayed == nil {
		return nil
	}
	return rr.Replayed.Validation
}

// ValidationNote is what the text report says under its answer-validation
// heading: agent rows withhold, never verify.
const ValidationNote = "Agent rows can withhold an answer and never verify one: no row is checked-pass, and only an application's own comparison could make a report passed, which a recording does not carry."

// textValidation lists a run's answer validations, one block per final
// answer. Nothing is written for a run that has none.
func textValidation(t *textWriter, run *Run) {
	if len(run.Validation) == 0 {
		return
	}
	t.blank()
	t.lineOnce(2, styleBold, "Answer validation (replayed)")
	t.lineOnce(4, styleDim, ValidationNote)
	for _, v := range run.Validation {
		st := styleDim
		switch v.Status {
		case checks.ValidationFailed:
			st = styleDefects
		case checks.ValidationUnverified:
			st = styleUnmeasured
		}
		t.line(4, st, validationHead(v))
		for _, r := range v.Rows {
			line := fmt.Sprintf("%s %s — %s", rowMark(r.Disposition), r.ID, r.Disposition)
			if r.Reason != "" {
				line += ": " + r.Reason
			}
			t.line(6, stylePlain, line)
		}
	}
}

func validationHead(v replay.AnswerValidation) string {
	var where []string
	if v.Answer.Stage != "" {
		where = append(where, v.Answer.Stage)
	}
	switch {
	case !v.Answer.Recorded:
		where = append(where, "answer not recorded")
	case v.Answer.JSON:
		where = append(where, "JSON")
	default:
		where = append(where, "text")
	}
	head := fmt.Sprintf("answer of iteration %d (%s): %s", v.Answer.Iteration, strings.Join(where, ", "), strings.ToUpper(v.Status))
	var parts []string
	c := v.Counts
	if c.Failed > 0 {
		parts = append(parts, count(c.Failed, "failed", "failed"))
	}
	if c.Unreachable > 0 {
		parts = append(parts, count(c.Unreachable, "unreachable", "unreachable"))
	}
	if c.NotApplicable > 0 {
		parts = append(parts, count(c.NotApplicable, "not applicable", "not applicable"))
	}
	if len(parts) > 0 {
		head += " — " + strings.Join(parts, ", ")
	}
	if v.Reason != "" {
		head += " (" + v.Reason + ")"
	}
	return head
}

func rowMark(disposition string) string {
	switch disposition {
	case checks.CheckedFail.String():
		return "✗"
	case checks.Unreachable.String():
		return "?"
	case checks.CheckedPass.String():
		return "✓"
	}
	return "·"
}

// jsonAnswerValidation is one final answer's validation in the JSON report
// (docs/json-schema.md, "answerValidation").
type jsonAnswerValidation struct {
	Answer jsonAnswerRef        `json:"answer"`
	Status string               `json:"status"`
	Reason *string              `json:"reason"`
	Counts jsonValidationCounts `json:"counts"`
	Rows   []jsonAnswerCheck    `json:"rows"`
}

type jsonAnswerRef struct {
	Iteration int64   `json:"iteration"`
	Stage     *string `json:"stage"`
	Recorded  bool    `json:"recorded"`
	JSON      bool    `json:"json"`
}

type jsonValidationCounts struct {
	Checked       int `json:"checked"`
	Failed        int `json:"failed"`
	Unreachable   int `json:"unreachable"`
	NotApplicable int `json:"notApplicable"`
}

type jsonAnswerCheck struct {
	ID          string  `json:"id"`
	Disposition string  `json:"disposition"`
	Reason      *string `json:"reason"`
}

// jsonValidationOf renders a run's validations; nil (the key left out)
// when the run has none.
func jsonValidationOf(vs []replay.AnswerValidation) []jsonAnswerValidation {
	if len(vs) == 0 {
		return nil
	}
	out := make([]jsonAnswerValidation, 0, len(vs))
	for _, v := range vs {
		jv := jsonAnswerValidation{
			Answer: jsonAnswerRef{Iteration: v.Answer.Iteration, Stage: nullString(v.Answer.Stage), Recorded: v.Answer.Recorded, JSON: v.Answer.JSON},
			Status: v.Status,
			Reason: nullString(v.Reason),
			Counts: jsonValidationCounts(v.Counts),
			Rows:   []jsonAnswerCheck{},
		}
		for _, r := range v.Rows {
			jv.Rows = append(jv.Rows, jsonAnswerCheck{ID: r.ID, Disposition: r.Disposition, Reason: nullString(r.Reason)})
		}
		out = append(out, jv)
	}
	return out
}
