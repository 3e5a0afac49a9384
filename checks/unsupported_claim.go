package checks

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// UnsupportedClaim is unsupported-claim at the claim seam: a typed answer
// field disagrees with the fact the run itself settled.
var UnsupportedClaim = &Check{
	Kind:  KindUnsupportedClaim,
	Seam:  SeamClaim,
	Title: "an answer field contradicts the run's settled fact",
	Doc: `At each final answer, every declared claim (answer field → entity and field) reads its field out of the answer, parsed as JSON, and compares it with the run's settled fact: the latest reading of that entity and field that any tool declared in a semantic envelope (tools.semantics_declared: each facts column other than entity, and each series point, is one reading). The latest reading settles; every earlier reading rides along as a quoted witness, so claiming a superseded value is a contradiction too, and its message says which earlier reading the answer repeated. The predicate is the fact's field, part of the finding's identity: two fields of one entity are two defects.

Values compare under one declared normalization. Text is put in Unicode NFC, trimmed and its white space collapsed; case agrees only for a word of more than three letters written all lower, all upper or with a capital first letter; a number and a plain decimal string compare by value (42.5 and "42.50"); a number with a unit compares only with the same unit, written exactly. What cannot be compared safely is unreachable, never a finding: a list or an object against a single value, a list with a hole in it, a unit against a bare number, units or short words that differ only in case (MW and mW), a mixed-case word, text with a digit in another case, ß against ss, dotted against dotless i (İ against I too: lowered in full, İ is i and a combining dot, not the letters of I), text that differs only in its marks or compatibility forms, currency symbols, digit separators, dot-grouped numbers ("1.250"), and dates or times written differently.

Doubt is not contradiction: an answer of null or "unknown" (in any case) where the run settled a value files an advisory, counted apart, and the encounter passes; both sides declining (an answer of null, "unknown" or a claim that is not known, against a reading that settled the fact only as unknown, in any of those spellings) is doubt on both sides: unreachable, never a pass, since nothing was compared.

Fences: an answer field the answer does not carry is not-applicable; a fact no tool settled is unreachable (uncollected, never an accusation); a fact settled as unknown propagates: unreachable; an answer that is not a JSON object or array makes every claim unreachable. Each declared claim is one encounter per final answer.`,
	Ceiling:      `It compares only the fields a claims contract names, and only in typed answers: prose is never checked. It cannot see an output middleware that denied the answer or a schema that rejected it, since neither is recorded; it judges the final answer as the recording states it.`,
	ArmedBy:      "claims declared: answer fields bound to an entity and a field",
	AdvisoryWhen: "doubt only",
	AdvisoryWhy:  "an answer that declines a verified fact is doubt, not contradiction",
	Armed:        func(d *Declarations) bool { return d != nil && len(d.Claims) > 0 },
	Canary: func() []Finding {
		rows := []ClaimRow{{Entity: "canary-entity", Field: "canary-field", Value: json.RawMessage(`"settled"`), ToolName: "canary", ToolCallID: "canary", Iteration: -1}}
		var fs []Finding
		for _, r := range unsupportedClaimsOf([]ClaimDecl{{AnswerField: "canary", Entity: "canary-entity", Field: "canary-field"}},
			rows, json.RawMessage(`{"canary":"claimed-otherwise"}`), -1) {
			fs = append(fs, r.Findings...)
		}
		return fs
	},
	OnClaim: judgeClaims,
}

// participates is false for a reading that says nothing: absent, or a claim
// object of kind unknown or not-applicable.
func participates(n *jsonNode) bool {
	if n == nil {
		return false
	}
	if n.kind == 'o' {
		if k := n.field("kind"); k != nil && k.kind == 's' && (k.str == "unknown" || k.str == "not-applicable") {
			return false
		}
	}
	return true
}

// comparable unwraps a known claim object to its value.
func comparable(n *jsonNode) *jsonNode {
	if n != nil && n.kind == 'o' {
		if k := n.field("kind"); k != nil && k.kind == 's' && k.str == "known" {
			if v, ok := n.lookup("value"); ok {
				return v
			}
		}
	}
	return n
}

func renderTo(b *strings.Builder, n *jsonNode) {
	switch n.kind {
	case 'o':
		keys := n.keyList()
		SortUTF16(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(jsonValue(k))
			b.WriteByte(':')
			renderTo(b, n.field(k))
		}
		b.WriteByte('}')
	case 'a':
		b.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				b.WriteByte(',')
			}
			renderTo(b, it)
		}
		b.WriteByte(']')
	case 's':
		b.Write(jsonValue(n.str))
	case 'n':
		b.WriteString(jsNumber(n.num))
	case 'b':
		b.WriteString(strconv.FormatBool(n.b))
	default:
		b.WriteString("null")
	}
}

// jsNumber formats a number the way JavaScript prints it.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return "null"
	case f == 0:
		return "0"
	}
	abs := math.Abs(f)
	if abs >= 1e-6 && abs < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	sign := exp[0]
	digits := strings.TrimLeft(exp[1:], "0")
	return mant + "e" + string(sign) + digits
}

// readPath reads a dot path out of an answer; nil means absent.
func readPath(n *jsonNode, path string) *jsonNode {
	cur := n
	for _, step := range strings.Split(path, ".") {
		switch {
		case cur == nil:
			return nil
		case cur.kind == 'o':
			cur = cur.field(step)
		case cur.kind == 'a':
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 || i >= len(cur.items) || strconv.Itoa(i) != step {
				return nil
			}
			cur = cur.items[i]
		default:
			return nil
		}
	}
	return cur
}

func rawOf(n *jsonNode) json.RawMessage {
	var b strings.Builder
	writeInOrder(&b, n)
	return json.RawMessage(b.String())
}

// writeInOrder renders a value with its keys in written order, as a
// message quotes it.
func writeInOrder(b *strings.Builder, n *jsonNode) {
	switch n.kind {
	case 'o':
		b.WriteByte('{')
		for i, m := range n.members {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(jsonValue(m.key))
			b.WriteByte(':')
			writeInOrder(b, m.val)
		}
		b.WriteByte('}')
	case 'a':
		b.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				b.WriteByte(',')
			}
			writeInOrder(b, it)
		}
		b.WriteByte(']')
	default:
		renderTo(b, n)
	}
}

func ledgerProvenance(r ClaimRow, withMeasured bool) string {
	s := fmt.Sprintf("%s (call %s, iteration %d)", r.ToolName, r.ToolCallID, r.Iteration)
	if withMeasured && r.MeasuredAt != "" {
		s += ", measured_at " + r.MeasuredAt
	}
	return s
}

// unsupportedClaimsOf is the pure judge: one verdict per declared claim, in
// declaration order.
func unsupportedClaimsOf(declared []ClaimDecl, rows []ClaimRow, answer json.RawMessage, epoch int64) []Verdict {
	out := make([]Verdict, 0, len(declared))
	a := borrowArena()
	defer a.release()
	parsed, err := a.parse(answer)
	if err != nil || (parsed.kind != 'o' && parsed.kind != 'a') {
		for _, c := range declared {
			out = append(out, UnreachableBecause(fmt.Sprintf("the final answer of iteration %d is not a JSON object, so claim '%s' cannot be read from it", epoch, c.AnswerField)))
		}
		return out
	}
	for _, c := range declared {
		out = append(out, judgeOneClaim(a, c, rows, parsed, epoch))
	}
	return out
}

// judgeOneClaim judges one claim; the readings it parses are lent by a,
// as the answer's tree is, and nothing of them outlives the verdict.
func judgeOneClaim(a *nodeArena, c ClaimDecl, rows []ClaimRow, answer *jsonNode, epoch int64) Verdict {
	claimed := readPath(answer, c.AnswerField)
	if claimed == nil {
		return NotApplicableVerdict()
	}
	matching := readingsOf(c, rows)
	if len(matching) == 0 {
		return UnreachableBecause(fmt.Sprintf("no tool settled %s(%s) before the answer of iteration %d, so claim '%s' has nothing to be checked against", c.Field, c.Entity, epoch, c.AnswerField))
	}
	settledRow := matching[len(matching)-1]
	settledNode, err := a.parse(settledRow.Value)
	if err != nil {
		return UnreachableBecause(fmt.Sprintf("the settled reading of %s(%s) (%s) is not readable JSON, so claim '%s' cannot be checked", c.Field, c.Entity, ledgerProvenance(settledRow, true), c.AnswerField))
	}
	settled, state := readingOf(settledNode)
	switch state {
	case readingMalformed:
		return UnreachableBecause(fmt.Sprintf("the settled reading of %s(%s) (%s) says known but carries no value, so claim '%s' cannot be checked", c.Field, c.Entity, ledgerProvenance(settledRow, true), c.AnswerField))
	case readingUnknown:
		// Both sides declining the fact is not agreement: nothing was
		// compared, so it must never count as a checked pass.
		if _, st := readingOf(claimed); st == readingUnknown {
			return UnreachableBecause(fmt.Sprintf("the answer's '%s' (%s) declines the fact and the settled reading of %s(%s) is unknown too (%s): doubt on both sides, so nothing was compared",
				c.AnswerField, clip(string(rawOf(claimed))), c.Field, c.Entity, ledgerProvenance(settledRow, true)))
		}
		return UnreachableBecause(fmt.Sprintf("the settled reading of %s(%s) is unknown (%s), and an unknown fact propagates: claim '%s' has nothing to be checked against", c.Field, c.Entity, ledgerProvenance(settledRow, true), c.AnswerField))
	}
	subject := Subject{Kind: "entity", ID: c.Entity}
	settledWitness := Witness{Subject: subject, Predicate: c.Field, Value: rawOf(settled), Epoch: epochPtr(epoch),
		Stratum: StratumAsserted, Provenance: ledgerProvenance(settledRow, true)}

	if isDoubt(claimed) {
		f := finding(KindUnsupportedClaim, SeamClaim, []Subject{subject}, c.Field, []Witness{settledWitness}, epoch,
			fmt.Sprintf("The answer's '%s' says %s while the run verified %s(%s) = %s (%s); declining to state a verified fact is doubt, not contradiction, so it is filed as an advisory: state the verified value if the answer should carry it.",
				c.AnswerField, rawOf(claimed), c.Field, c.Entity, rawOf(settled), ledgerProvenance(settledRow, true)))
		f.Advisory = true
		f = aboutCalls([]Finding{f}, settledRow.ToolCallID)[0]
		// An advisory never counts as a failed encounter.
		return Verdict{Disposition: CheckedPass, Findings: []Finding{f}}
	}
	if !participates(claimed) {
		return Pass()
	}
	claimedValue := comparable(claimed)
	cmp := compareNodes(claimedValue, settled)
	switch cmp.Outcome {
	case Agrees:
		return Pass()
	case Incomparable:
		return UnreachableBecause(fmt.Sprintf("the answer's '%s' (%s) and the settled %s(%s) = %s (%s) cannot be compared safely: %s",
			c.AnswerField, clip(string(rawOf(claimed))), c.Field, c.Entity, clip(string(rawOf(settled))), ledgerProvenance(settledRow, true), cmp.Why))
	}
	witnesses := []Witness{settledWitness,
		{Subject: subject, Predicate: c.Field, Value: rawOf(claimed), Epoch: epochPtr(epoch), Stratum: StratumAsserted,
			Provenance: fmt.Sprintf("answer field '%s'", c.AnswerField)}}
	superseded := ""
	for _, r := range matching[:len(matching)-1] {
		v := r.Value
		if n, err := a.parse(r.Value); err == nil {
			v = rawOf(n)
			if earlier, st := readingOf(n); st == readingValue && superseded == "" && compareNodes(claimedValue, earlier).Outcome == Agrees {
				superseded = ledgerProvenance(r, false)
			}
		}
		witnesses = append(witnesses, Witness{Subject: subject, Predicate: c.Field, Value: v, Stratum: StratumQuoted,
			Provenance: ledgerProvenance(r, false)})
	}
	msg := fmt.Sprintf("The answer's '%s' claims %s, but the run's settled fact %s(%s) is %s (%s); correct the answer to the settled value, or fetch the fact again if it has changed.",
		c.AnswerField, rawOf(claimed), c.Field, c.Entity, rawOf(settled), ledgerProvenance(settledRow, true))
	if superseded != "" {
		msg = fmt.Sprintf("The answer's '%s' claims %s, which is an earlier reading (%s) that the run's settled fact %s(%s) = %s (%s) superseded; report the latest reading, or fetch the fact again if it has changed.",
			c.AnswerField, rawOf(claimed), superseded, c.Field, c.Entity, rawOf(settled), ledgerProvenance(settledRow, true))
	}
	ids := []string{settledRow.ToolCallID}
	for _, r := range matching[:len(matching)-1] {
		ids = append(ids, r.ToolCallID)
	}
	return Fail(aboutCalls([]Finding{finding(KindUnsupportedClaim, SeamClaim, []Subject{subject}, c.Field, witnesses, epoch, msg)}, ids...)...)
}

// readingsOf returns the readings of one declared claim's fact, in the order
// the run settled them.
func readingsOf(c ClaimDecl, rows []ClaimRow) []ClaimRow {
	var out []ClaimRow
	for _, r := range rows {
		if r.Entity == c.Entity && r.Field == c.Field {
			out = append(out, r)
		}
	}
	return out
}

func judgeClaims(v ClaimView, d *Declarations) []Verdict {
	if !v.AnswerKnown {
		out := make([]Verdict, 0, len(d.Claims))
		for range d.Claims {
			out = append(out, UnreachableBecause(fmt.Sprintf("the final answer of iteration %d is not recorded", v.Iteration)))
		}
		return out
	}
	verdicts := unsupportedClaimsOf(d.Claims, v.Rows, json.RawMessage(v.Answer), v.Iteration)
	for i := range verdicts {
		verdicts[i].Findings = stamp(verdicts[i].Findings, v.Stage)
		if v.RowsGap != "" && verdicts[i].Disposition == Unreachable {
			verdicts[i].Reasons = append(verdicts[i].Reasons, v.RowsGap)
		}
	}
	return verdicts
}

// ClaimRowsOf flattens one semantic envelope (tools.semantics_declared's
// semantics) into claim readings: each facts column other than entity, then
// each series point, in the order written.
func ClaimRowsOf(semantics json.RawMessage, toolName, toolCallID string, iteration int64) []ClaimRow {
	a := borrowArena()
	defer a.release()
	env, err := a.parse(semantics)
	if err != nil || env.kind != 'o' {
		return nil
	}
	measured := ""
	if p := env.field("provenance"); p != nil && p.kind == 'o' {
		measured = stringOfScalar(p.field("measured_at"))
	}
	var rows []ClaimRow
	row := func(entity, field string, value *jsonNode, at string) {
		rows = append(rows, ClaimRow{Entity: entity, Field: field, Value: rawOf(value), ToolName: toolName, ToolCallID: toolCallID, Iteration: iteration, MeasuredAt: at})
	}
	if facts := env.field("facts"); facts != nil && facts.kind == 'a' {
		for _, f := range facts.items {
			if f.kind != 'o' {
				continue
			}
			entity := stringOnly(f.field("entity"))
			for _, m := range f.members {
				if m.key != "entity" {
					row(entity, m.key, m.val, measured)
				}
			}
		}
	}
	if series := env.field("series"); series != nil && series.kind == 'a' {
		for _, p := range series.items {
			if p.kind != 'o' {
				continue
			}
			at := measured
			if t := p.field("t"); t != nil {
				at = stringOfScalar(t)
			}
			value := p.field("value")
			if value == nil {
				value = &jsonNode{kind: 'z'}
			}
			row(stringOnly(p.field("entity")), stringOnly(p.field("metric")), value, at)
		}
	}
	return rows
}

// stringOnly reads a string; anything else can never equal a declared
// (string) entity or field, so it reads as "".
func stringOnly(n *jsonNode) string {
	if n != nil && n.kind == 's' {
		return n.str
	}
	return ""
}

// stringOfScalar renders a scalar the way JavaScript's String() would, for
// the strings and numbers that appear as entities and clock words.
func stringOfScalar(n *jsonNode) string {
	if n == nil {
		return ""
	}
	switch n.kind {
	case 's':
		return n.str
	case 'n':
		return jsNumber(n.num)
	case 'b':
		return strconv.FormatBool(n.b)
	}
	return ""
}
