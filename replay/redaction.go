package replay

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/fpcheck/fpcheck/checks"
)

// Redacted content is never judged. Under a redaction policy (9.140.0)
// agentfootprint writes a placeholder wherever the policy selected a value
// — the person's message, the model's words, tool arguments and results,
// injected context — while ids, counts, kinds and tool names stay. A check
// that reads content would judge the placeholder: find no identifier in a
// redacted argument and pass, or miss a ground in a redacted result and
// file. So an encounter whose content holds a placeholder is unreachable,
// with the reason named, and the structure-only checks (wire, compose)
// run as before. The library reads a placeholder as kept out only when
// the snapshot carries its marker; fpcheck, which must never judge a
// placeholder as content, takes the placeholder alone as reason enough,
// so a tool that really returned the word costs a measurement, never a
// false finding or a false pass.

// placeholders are the values footprintjs serves a selected value as.
var placeholders = map[string]bool{"REDACTED": true, "[REDACTED]": true}

// IsPlaceholder reports a string that is a redaction placeholder.
func IsPlaceholder(s string) bool { return placeholders[strings.TrimSpace(s)] }

// holdsPlaceholder reports whether a JSON value is, or holds as any
// string member or element, a placeholder.
func holdsPlaceholder(raw json.RawMessage) bool {
	if !bytes.Contains(raw, []byte("REDACTED")) {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			// Object keys come through as strings too; a key named
			// REDACTED is structure, but reading it as a placeholder only
			// costs a measurement.
			if IsPlaceholder(t) {
				return true
			}
		}
		if depth == 0 && !dec.More() {
			return false
		}
	}
}

// redactions names what of one encounter's content is redacted, once
// each, in a stable order.
type redactions map[string]bool

func (r redactions) reason(marked bool) string {
	if len(r) == 0 {
		return ""
	}
	what := make([]string, 0, len(r))
	for w := range r {
		what = append(what, w)
	}
	sort.Strings(what)
	list := what[0]
	if n := len(what); n > 1 {
		list = strings.Join(what[:n-1], ", ") + " and " + what[n-1]
	}
	s := "the recording redacts " + list
	if marked {
		return s + " (the run was served under a redaction policy: its snapshot carries the agentfootprint.redaction marker), so a placeholder stands where the content was"
	}
	return s + ": a placeholder (REDACTED) stands where the content was"
}

func (r redactions) frame(f checks.Frame) {
	for _, s := range f.System {
		if IsPlaceholder(s) {
			r["the system prompt"] = true
		}
	}
	for _, m := range f.Messages {
		if !IsPlaceholder(m.Content) {
			continue
		}
		switch m.Role {
		case checks.RoleTool:
			r["tool results"] = true
		case checks.RoleUser:
			r["the person's messages"] = true
		case checks.RoleAssistant:
			r["the model's words"] = true
		default:
			r["messages"] = true
		}
	}
}

func (r redactions) args(calls ...checks.ToolCall) {
	for _, c := range calls {
		if holdsPlaceholder(c.Args) {
			r["tool arguments"] = true
		}
	}
}

// readsOf is what a check reads of its views, whichever way the engine
// runs: a reason names only content the check reads, so it is the same
// on every path (an engine that builds everything fills parts of a view
// no check of the run reads).
func readsOf(c *checks.Check) needs {
	if n, ok := checkNeeds[c]; ok {
		return n
	}
	return allNeeds
}

// redactedChoice says why c cannot judge a choice encounter, or "".
func redactedChoice(c *checks.Check, v checks.ChoiceView, marked bool) string {
	r := redactions{}
	r.args(v.Calls...)
	if readsOf(c).frame {
		r.frame(v.Call.Frame)
	}
	return r.reason(marked)
}

// redactedClaim says why c cannot judge a claim encounter, or "".
func redactedClaim(c *checks.Check, v checks.ClaimView, marked bool) string {
	n := readsOf(c)
	r := redactions{}
	if v.AnswerKnown && IsPlaceholder(v.Answer) {
		r["the answer"] = true
	}
	if n.claimRows {
		for _, row := range v.Rows {
			if holdsPlaceholder(row.Value) {
				r["the facts tools settled"] = true
			}
		}
	}
	if n.frame {
		r.frame(v.Frame)
	}
	return r.reason(marked)
}

// redactedWrite says why c cannot judge a write encounter, or "".
func redactedWrite(c *checks.Check, v checks.WriteView, marked bool) string {
	r := redactions{}
	if holdsPlaceholder(v.Result) {
		r["tool results"] = true
	}
	if readsOf(c).served {
		r.args(v.Call)
	}
	return r.reason(marked)
}
