package checks

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// jsonValue renders a witness value. HTML escaping is off so a value reads
// the same in the JSON report as in the recording it came from.
func jsonValue(v any) json.RawMessage {
	if s, ok := v.(string); ok && plainJSONText(s) {
		// What the encoder writes for text it need not escape, without
		// the encoder: witnesses quote many such values.
		out := make([]byte, 0, len(s)+2)
		out = append(out, '"')
		out = append(out, s...)
		return append(out, '"')
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return json.RawMessage("null")
	}
	return json.RawMessage(bytes.TrimRight(b.Bytes(), "\n"))
}

// plainJSONText reports whether s is printable ASCII without a quote or a
// backslash: text a JSON string holds as it is.
func plainJSONText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

func epochPtr(e int64) *int64 { return &e }

// asserted builds one asserted witness at an epoch.
func asserted(subject Subject, predicate string, value any, epoch int64, provenance string) Witness {
	return Witness{
		Subject:    subject,
		Predicate:  predicate,
		Value:      jsonValue(value),
		Epoch:      epochPtr(epoch),
		Stratum:    StratumAsserted,
		Provenance: provenance,
	}
}

// finding builds a replayed finding; the epoch is the iteration it was
// detected on, as agentfootprint stamps it.
func finding(kind, seam string, subjects []Subject, predicate string, witnesses []Witness, epoch int64, message string) Finding {
	return Finding{
		Kind:              kind,
		Seam:              seam,
		Subjects:          subjects,
		Witnesses:         witnesses,
		WitnessesRecorded: true,
		Predicate:         predicate,
		Epoch:             epochPtr(epoch),
		Iteration:         epochPtr(epoch),
		Message:           message,
	}
}

// bareFinding is the finding a judge files in place of the whole one when
// filed (a view's Filed; nil knows of none) says the run's ledger holds
// one of its identity already: the ledger drops it as it would the whole
// one, reading only its identity and flags, so the witnesses and message
// are not worded for nothing. ok is false when the finding is to be built
// whole.
func bareFinding(filed func(identity string) bool, kind, seam string, subjects []Subject, predicate string, epoch int64) (f Finding, ok bool) {
	if filed == nil || !filed(Identity(kind, seam, subjects, predicate)) {
		return Finding{}, false
	}
	return finding(kind, seam, subjects, predicate, nil, epoch, ""), true
}

func toolSubject(name string) Subject { return Subject{Kind: "tool", ID: name} }

// nameList renders names for a message: a, b, c.
func nameList(names []string) string { return strings.Join(names, ", ") }

// plural picks the singular or plural form for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// stamp sets where a finding was filed.
func stamp(fs []Finding, stage string) []Finding {
	for i := range fs {
		fs[i].FiledAt = stage
	}
	return fs
}

// aboutCalls names the tool calls findings are about, when the recording
// names them.
func aboutCalls(fs []Finding, ids ...string) []Finding {
	var named []string
	for _, id := range ids {
		if id != "" && !slices.Contains(named, id) {
			named = append(named, id)
		}
	}
	if len(named) == 0 {
		return fs
	}
	for i := range fs {
		fs[i].CallIDs = append(slices.Clip(named), fs[i].CallIDs...)
	}
	return fs
}

// smallSet is the most names looked up by a scan rather than a set made
// for the lookups.
const smallSet = 16

// setOf builds a membership set.
func setOf(names []string) map[string]bool {
	s := make(map[string]bool, len(names))
	for _, n := range names {
		s[n] = true
	}
	return s
}
