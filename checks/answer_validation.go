package checks

import (
	"encoding/json"
	"fmt"
)

// AnswerCheck is one row of an answer validation: one obligation, how it
// was disposed of, and short diagnostic data. A reason carries counts,
// codes and the answer fields the declarations name, never a value from
// the answer or a tool, nor the entity a claim names.
type AnswerCheck struct {
	ID          string `json:"id"`
	Disposition string `json:"disposition"`
	Reason      string `json:"reason,omitempty"`
}

// Row ids of the agent's own answer checks.
const (
	AnswerCheckClaimsPrefix    = "agent:claims:"
	AnswerCheckNamesAndNumbers = "agent:names-and-numbers"
)

// Statuses of an answer validation.
const (
	ValidationPassed     = "passed"
	ValidationFailed     = "failed"
	ValidationUnverified = "unverified"
)

func answerRow(id string, d Disposition, reason string) AnswerCheck {
	return AnswerCheck{ID: id, Disposition: d.String(), Reason: reason}
}

// ValidateClaims judges one final answer against every declared claim, one
// row per claim (agent:claims:<field>), under the answer-validation rule,
// which can withhold an answer and never verify one:
//
//   - the answer contradicts any reading of the fact the run made:
//     checked-fail, whatever else was read;
//   - it agrees with every reading: not-applicable (agreement is not
//     verification);
//   - no tool result settled the fact, or the answer leaves the field out
//     or declines it (null, "unknown") where the run read a value:
//     not-applicable;
//   - a reading settled the fact only as unknown beside a value the answer
//     does not contradict, both sides decline, a pair cannot be compared
//     safely, or a value is not a well-formed claim: unreachable.
//
// No row is ever checked-pass.
func ValidateClaims(declared []ClaimDecl, rows []ClaimRow, answer string, answerKnown bool) []AnswerCheck {
	out := make([]AnswerCheck, 0, len(declared))
	var parsed *jsonNode
	problem := ""
	a := borrowArena()
	defer a.release()
	switch {
	case !answerKnown:
		problem = "answer-not-recorded"
	default:
		n, err := a.parseText(answer)
		if err != nil || (n.kind != 'o' && n.kind != 'a') {
			problem = "answer-not-json: the answer is not a JSON object or array"
		} else {
			parsed = n
		}
	}
	for _, c := range declared {
		id := AnswerCheckClaimsPrefix + c.AnswerField
		if problem != "" {
			out = append(out, answerRow(id, Unreachable, problem))
			continue
		}
		out = append(out, validateClaim(a, id, c, rows, parsed))
	}
	return out
}

// validateClaim validates one claim; the readings it parses are lent by
// a, as the answer's tree is.
func validateClaim(a *nodeArena, id string, c ClaimDecl, rows []ClaimRow, answer *jsonNode) AnswerCheck {
	claimed := readPath(answer, c.AnswerField)
	if claimed == nil {
		return answerRow(id, NotApplicable, "field-absent: the answer leaves the field out")
	}
	readings := readingsOf(c, rows)
	value, state := readingOf(claimed)
	if state == readingMalformed {
		return answerRow(id, Unreachable, "not-a-claim: the answer's value says known and carries no value")
	}
	if len(readings) == 0 {
		return answerRow(id, NotApplicable, "no-reading: no tool result this run settled the fact")
	}
	var values, unknown, malformed int
	var contradicted int
	why := ""
	for _, r := range readings {
		n, err := a.parse(r.Value)
		if err != nil {
			malformed++
			continue
		}
		rv, st := readingOf(n)
		switch st {
		case readingMalformed:
			malformed++
			continue
		case readingUnknown:
			unknown++
			continue
		}
		values++
		if state == readingUnknown {
			continue
		}
		cmp := compareNodes(value, rv)
		switch cmp.Outcome {
		case Contradicts:
			contradicted++
		case Incomparable:
			if why == "" {
				why = cmp.Why
			}
		}
	}
	n := len(readings)
	switch {
	case state == readingUnknown && values > 0:
		return answerRow(id, NotApplicable, fmt.Sprintf("declined: the answer declines the fact where the run read %d %s", values, plural(values, "value", "values")))
	case state == readingUnknown:
		return answerRow(id, Unreachable, "doubt-on-both-sides: the answer declines the fact and no reading states it")
	case contradicted > 0:
		return answerRow(id, CheckedFail, fmt.Sprintf("contradicts-reading: the answer contradicts %d of %d %s of the fact", contradicted, n, plural(n, "reading", "readings")))
	case malformed > 0:
		return answerRow(id, Unreachable, fmt.Sprintf("not-a-claim: %d of %d %s of the fact %s not a well-formed value", malformed, n, plural(n, "reading", "readings"), plural(malformed, "is", "are")))
	case unknown > 0:
		return answerRow(id, Unreachable, fmt.Sprintf("reading-unknown: %d of %d %s settled the fact only as unknown", unknown, n, plural(n, "reading", "readings")))
	case why != "":
		return answerRow(id, Unreachable, "cannot-compare: "+why)
	}
	return answerRow(id, NotApplicable, fmt.Sprintf("agrees: the answer agrees with %d %s of the fact; agreement is not verification", n, plural(n, "reading", "readings")))
}

// ValidateNamesAndNumbers judges one final answer's values against the
// grounding index (agent:names-and-numbers): a value no tool result carried
// and the run did not supply is checked-fail; a value not found while the
// index is incomplete, or an answer longer than the extractor reads, is
// unreachable; a clean answer is not-applicable (finding a value clears
// it, and never verifies the answer).
func ValidateNamesAndNumbers(answer string, answerKnown bool, g *GroundingIndex, minDigits int) AnswerCheck {
	id := AnswerCheckNamesAndNumbers
	switch {
	case !answerKnown:
		return answerRow(id, Unreachable, "answer-not-recorded")
	case g == nil:
		return answerRow(id, Unreachable, "no-index: no request frame is recorded for the answer")
	}
	values, unread := ExtractValues(answer, minDigits)
	r := g.Read(values)
	total := len(values)
	switch {
	case len(r.Ungrounded) > 0 && g.Truncated:
		return answerRow(id, Unreachable, fmt.Sprintf("index-incomplete: %d of %d %s not found while the index was incomplete", len(r.Ungrounded), total, plural(total, "value", "values")))
	case len(r.Ungrounded) > 0:
		return answerRow(id, CheckedFail, fmt.Sprintf("unsupported-values: %d of %d %s no tool result carried", len(r.Ungrounded), total, plural(total, "value", "values")))
	case unread > 0:
		return answerRow(id, Unreachable, fmt.Sprintf("answer-past-ceiling: %d more %s never looked up", unread, plural(unread, "token was", "tokens were")))
	}
	return answerRow(id, NotApplicable, fmt.Sprintf("clean: %d %s found, %d supplied by the run", total-r.Exempt, plural(total-r.Exempt, "value", "values"), r.Exempt))
}

// ValidationStatus derives a report's status from its rows: failed when a
// row failed; passed only with a comparison of the application's own,
// which agent rows never are, so a report of agent rows alone is
// unverified. The reason names what a failed report could not reach as
// well, or why an unverified one could not pass.
func ValidationStatus(rows []AnswerCheck) (status, reason string) {
	failed, unreachable := 0, 0
	for _, r := range rows {
		switch r.Disposition {
		case CheckedFail.String():
			failed++
		case Unreachable.String():
			unreachable++
		}
	}
	switch {
	case failed > 0 && unreachable > 0:
		return ValidationFailed, "unreachable-checks"
	case failed > 0:
		return ValidationFailed, ""
	case unreachable > 0:
		return ValidationUnverified, "unreachable-checks"
	}
	return ValidationUnverified, "no-app-checks: only the application's own comparisons can pass an answer, and a recording carries none"
}

// CountAnswerChecks counts rows by disposition, as a validation report
// states them.
func CountAnswerChecks(rows []AnswerCheck) (checked, failed, unreachable, notApplicable int) {
	for _, r := range rows {
		switch r.Disposition {
		case CheckedPass.String():
			checked++
		case CheckedFail.String():
			checked++
			failed++
		case Unreachable.String():
			unreachable++
		case NotApplicable.String():
			notApplicable++
		}
	}
	return
}

// AnswerIsJSON reports whether a final answer parses as JSON (the claims
// rows read it as typed; anything else is read as text).
func AnswerIsJSON(answer string) bool { return json.Valid([]byte(answer)) }
