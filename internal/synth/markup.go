package synth

import (
	"strconv"
	"strings"
)

// MarkupPayloads are what a hostile recording puts in its strings to run
// script in a page that pastes them in unescaped. Each sets
// window.__fpPwned, so a browser test can tell whether any ran.
var MarkupPayloads = []string{
	`<script>window.__fpPwned=1</script>`,
	`<img src=x onerror="window.__fpPwned=2">`,
	`"><svg onload=window.__fpPwned=3>`,
	`</title></textarea></style></script><b>bold</b><script>window.__fpPwned=5</script>`,
	`javascript:window.__fpPwned=4`,
	`{{.CSP}} ]]> <!-- --> &amp; &#60; <iframe srcdoc="<script>parent.__fpPwned=6</script>">`,
}

// markupFields are the string fields whose values a report shows: run and
// session ids, stage ids, a finding's subjects, predicate, message and
// witnesses, ledger rows and the posture.
var markupFields = []string{"runId", "sessionId", "runtimeStageId", "id", "predicate", "message", "value", "provenance", "check", "posture"}

// WithMarkup returns an NDJSON recording with a markup payload at the
// start of every value of the fields a report shows. Payloads go only into
// values, never into keys or event types, so the recording still reads as
// it did; the same input always gives the same bytes.
func WithMarkup(ndjson []byte) []byte {
	s := string(ndjson)
	for i, field := range markupFields {
		prefix := `"` + field + `":"`
		q := strconv.Quote(MarkupPayloads[i%len(MarkupPayloads)])
		s = strings.ReplaceAll(s, prefix, prefix+q[1:len(q)-1])
	}
	return []byte(s)
}
