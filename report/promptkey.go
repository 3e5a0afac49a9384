package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

// PromptKey is what pairs a run with its re-recording once the run ids
// differ, as they do on every recording: the user prompt of the run's
// first turn_start, which the scenario's script fixes while agentfootprint
// mints new run and session ids. The key is a digest, so a saved report
// that carries it does not carry the prompt's text. "" when the run has no
// turn_start with a prompt (a run cut off before its head, for example),
// or its prompt is blank or a redaction placeholder: such a run has no key
// and is never paired by one.
func PromptKey(run *recording.Run) string {
	var r promptKeyReader
	for i := range run.Events {
		if r.add(&run.Events[i]) {
			break
		}
	}
	return r.key
}

// promptKeyReader is PromptKey read event by event.
type promptKeyReader struct {
	key  string
	done bool
}

// add reads one event and says whether the key is settled.
func (r *promptKeyReader) add(ev *recording.Event) bool {
	if r.done || ev.Type != recording.TypeTurnStart {
		return r.done
	}
	r.done = true
	if ev.PayloadDropped {
		return true
	}
	prompt, ok := userPrompt(ev)
	// A blank or redacted prompt names no scenario: every run redacted
	// alike would share it, and pair with whichever came first.
	if !ok || strings.TrimSpace(prompt) == "" || replay.IsPlaceholder(prompt) {
		return true
	}
	sum := sha256.Sum256([]byte(prompt))
	r.key = "sha256:" + hex.EncodeToString(sum[:16])
	return true
}

// promptMember is turn_start's userPrompt in the index the loader makes of
// a payload as it validates it.
var promptMember = recording.NewMemberSet("userPrompt")

// userPrompt reads a turn_start's userPrompt as json.Unmarshal into a
// *string does; ok is false when the payload does not decode or the
// prompt is absent, null or not a string. An indexed payload is read at
// the prompt's offsets, any other decoded whole.
func userPrompt(ev *recording.Event) (string, bool) {
	var v [1][]byte
	if ev.Members(promptMember, v[:]) {
		// Absent or null leaves the pointer nil; a number, boolean,
		// object or array is Unmarshal's type error.
		if jsonfast.KindOf(v[0]) != jsonfast.KindString {
			return "", false
		}
		s, err := jsonfast.String(v[0])
		return s, err == nil
	}
	var p struct {
		UserPrompt *string `json:"userPrompt"`
	}
	if json.Unmarshal(ev.Payload, &p) != nil || p.UserPrompt == nil {
		return "", false
	}
	return *p.UserPrompt, true
}
