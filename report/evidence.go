package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

// Channels a witness is shown under: the live run's filing, or the
// replay's. A finding both sides filed shows both, neither preferred.
const (
	ChannelRecorded = "recorded"
	ChannelReplayed = "replayed"
)

// EvidenceWitness is one witness of a finding with the channel that
// carried it.
type EvidenceWitness struct {
	Channel string
	checks.Witness
}

// Witnessed lists every witness of the finding, the recorded filing's
// first, then the replay's own when both sides filed it.
func (f Finding) Witnessed() []EvidenceWitness {
	first := ChannelRecorded
	if f.Source == replay.SourceReplayed {
		first = ChannelReplayed
	}
	out := make([]EvidenceWitness, 0, len(f.Witnesses))
	for _, w := range f.Witnesses {
		out = append(out, EvidenceWitness{Channel: first, Witness: w})
	}
	if f.Replay != nil {
		for _, w := range f.Replay.Witnesses {
			out = append(out, EvidenceWitness{Channel: ChannelReplayed, Witness: w})
		}
	}
	return out
}

// Positions are the recording positions of the finding's evidence, both
// channels' together, in recording order, each once.
func (f Finding) Positions() []checks.Position {
	out := append([]checks.Position(nil), f.Evidence...)
	if f.Replay != nil {
		for _, p := range f.Replay.Evidence {
			if !slices.ContainsFunc(out, p.Same) {
				out = append(out, p)
			}
		}
	}
	checks.SortPositions(out)
	return out
}

// Anchor is the one position a finding is reported at (a SARIF region, a
// GitHub annotation's line, the line of --format short): the event that
// carried a recorded finding, else the tool call it judged (the last call
// of its evidence), else its answer or model call, else the first of its
// evidence. ok is false when the finding has no position at all.
func (f Finding) Anchor() (checks.Position, bool) {
	ps := f.Positions()
	for _, want := range []string{checks.EvidenceFinding, checks.EvidenceToolCall, checks.EvidenceAnswer, checks.EvidenceModelCall} {
		// The last of a kind: a check's evidence leads from what grounds
		// the judged call (an earlier call whose result it took) to the
		// call itself.
		for i := len(ps) - 1; i >= 0; i-- {
			if ps[i].What == want {
				return ps[i], true
			}
		}
	}
	if len(ps) > 0 {
		return ps[0], true
	}
	return checks.Position{}, false
}

// AnchorAt is the file and line a finding is reported at, in the input
// that holds its run: its anchor's, else the input and the line of the
// event that carried it; line 0 when the input has no lines. SARIF and the
// GitHub annotations take it from here, so they point at the same line.
func (f Finding) AnchorAt(input string) (string, int64) {
	if p, ok := f.Anchor(); ok {
		return PositionPath(input, p), p.Line
	}
	return input, f.Line
}

// PositionPath is the file a position is in: the input, or its rotated
// sibling.
func PositionPath(input string, p checks.Position) string {
	if p.Rotated {
		return input + ".1"
	}
	return input
}

// maxShown bounds how many characters of a value the human formats show.
const maxShown = 160

// Shorten cuts a value for display to at most max characters, stating the
// length it had: a witness can carry a whole tool result.
func Shorten(s string, max int) string {
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	r := []rune(s)
	keep := max - 1
	if keep < 1 {
		keep = 1
	}
	return string(r[:keep]) + fmt.Sprintf("… (%s characters)", groupDigits(n))
}

func groupDigits(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// WitnessValue is a witness value as the human formats show it: a string
// as itself in quotes, anything else as its JSON, shortened either way.
func WitnessValue(v json.RawMessage) string {
	if len(v) == 0 {
		return "(no value)"
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return strconv.Quote(Shorten(s, maxShown))
	}
	return Shorten(string(v), maxShown)
}

// WitnessText is one witness in one line: subject, predicate, value, and
// where it came from.
func WitnessText(w EvidenceWitness) string {
	var b strings.Builder
	b.WriteString(w.Channel)
	b.WriteString(" · ")
	b.WriteString(w.Subject.Kind)
	if w.Subject.ID != "" {
		b.WriteString(":" + w.Subject.ID)
	}
	if w.Predicate != "" {
		b.WriteString(" " + w.Predicate)
	}
	b.WriteString(" = " + WitnessValue(w.Value))
	var tags []string
	if w.Stratum != "" {
		tags = append(tags, w.Stratum)
	}
	if w.Epoch != nil {
		tags = append(tags, "epoch "+strconv.FormatInt(*w.Epoch, 10))
	}
	if w.RuntimeStageID != "" {
		tags = append(tags, "step "+w.RuntimeStageID)
	}
	if w.Synthetic {
		tags = append(tags, "synthetic")
	}
	if len(tags) > 0 {
		b.WriteString(" (" + strings.Join(tags, ", ") + ")")
	}
	if w.Provenance != "" {
		b.WriteString(" — " + Shorten(w.Provenance, maxShown))
	}
	return b.String()
}

// Pointer is a position as a JSON pointer into the run's recording
// document.
func (run *Run) Pointer(p checks.Position) string {
	base := run.EventsPointer
	if base == "" {
		base = "/events"
	}
	return base + "/" + strconv.FormatInt(p.Index, 10)
}

// Ref is a position as a reader looks for it: "line N" in a stream (of
// the rotated file, when it is there), the JSON pointer in a document.
func (run *Run) Ref(p checks.Position) string {
	if run.EventsPointer != "" || p.Line == 0 {
		return run.Pointer(p)
	}
	return p.Ref()
}

// PositionText names one position: what it is, where, and the call.
func PositionText(run *Run, p checks.Position) string {
	s := p.What + " " + run.Ref(p)
	var tags []string
	if p.ToolCallID != "" {
		tags = append(tags, "call "+p.ToolCallID)
	}
	if p.Iteration != nil {
		tags = append(tags, "iteration "+strconv.FormatInt(*p.Iteration, 10))
	}
	if len(tags) > 0 {
		s += " (" + strings.Join(tags, ", ") + ")"
	}
	return s
}

// RepeatsPhrase words how often a recorded finding was filed, when more
// than once: "recorded 200,000 times, lines 4…200003". Empty otherwise.
func RepeatsPhrase(f Finding) string {
	if f.Events() == 1 {
		return ""
	}
	s := "recorded " + groupDigits(f.Events()) + " times"
	if f.Line > 0 && f.LastLine > 0 {
		s += fmt.Sprintf(", lines %d…%d", f.Line, f.LastLine)
	}
	return s
}

// PositionsLine is every position of a finding in one line.
func PositionsLine(run *Run, f Finding) string {
	ps := f.Positions()
	if len(ps) == 0 {
		return "evidence: no recording position could be pinned down"
	}
	// In a stream every position is a line: said once, the parts stay
	// short enough for one line of a report.
	lines := run.EventsPointer == ""
	for _, p := range ps {
		lines = lines && p.Line > 0 && !p.Rotated
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		if lines {
			parts[i] = p.What + " " + strconv.FormatInt(p.Line, 10)
		} else {
			parts[i] = p.What + " " + run.Ref(p)
		}
		if p.ToolCallID != "" && (p.What == checks.EvidenceToolCall || p.What == checks.EvidenceResult || p.What == checks.EvidenceEviction) {
			parts[i] += " (" + p.ToolCallID + ")"
		}
	}
	if lines {
		return "lines: " + strings.Join(parts, " · ")
	}
	return "evidence: " + strings.Join(parts, " · ")
}

// FindingRef is how explain names a finding of a run: its number in the
// run's listing when the listing is the whole one, otherwise the first 12
// hex digits of its SARIF fingerprint, which no filter changes.
func (r *Report) FindingRef(run *Run, i int) string {
	if r.Options.Kind == "" && i >= 0 && i < len(run.Findings) {
		return strconv.Itoa(i + 1)
	}
	return Fingerprint(run.Findings[i].Identity)[:12]
}

// ExplainCommand is the command that shows finding i of a run whole, with
// the flags the report was made with that change what a replay judges.
func (r *Report) ExplainCommand(run *Run, i int) string {
	return strings.Join(r.ExplainArgs(run, i), " ")
}

// ExplainArgs is ExplainCommand's words, each quoted for a shell
// (ShellWord). A run read from standard input is named by explain's
// placeholder: explain reads its recording again, and standard input cannot
// be read twice. A run id a terminal cannot show as it is (a control
// character, bytes that are not UTF-8) is left out when the finding's
// fingerprint names the finding alone in its input: the command then works
// in any shell, and shows no id that reads as another.
func (r *Report) ExplainArgs(run *Run, i int) []string {
	args := []string{"fpcheck", "explain"}
	for _, a := range r.Options.ExplainFlags {
		args = append(args, ShellWord(a))
	}
	if run.Input == recording.StdinName {
		args = append(args, "RECORDING")
	} else {
		args = append(args, ShellWord(run.Input))
	}
	if run.RunID != "" && !printsAsIs(run.RunID) {
		if ref, ok := r.fingerprintAlone(run, i); ok {
			return append(args, ref)
		}
	}
	if run.RunID != "" {
		args = append(args, "--run", ShellWord(run.RunID))
	}
	return append(args, r.FindingRef(run, i))
}

// fingerprintAlone is finding i's fingerprint as FindingRef shortens it,
// and whether it names no other finding explain lists for the run's input:
// the runs judged in it and those judged elsewhere as its copies.
func (r *Report) fingerprintAlone(run *Run, i int) (string, bool) {
	ref := Fingerprint(run.Findings[i].Identity)[:12]
	n := 0
	for k := range r.Runs {
		other := &r.Runs[k]
		if other.Input != run.Input && !slices.ContainsFunc(other.Copies, func(c RunCopy) bool { return c.Input == run.Input }) {
			continue
		}
		for _, f := range other.everyFinding() {
			if strings.HasPrefix(Fingerprint(f.Identity), ref) {
				n++
			}
		}
	}
	return ref, n == 1
}

// ShellWord quotes an argument so that a shell reads it back as it is and
// a terminal shows it as it is: as ShellQuote does when Sanitize leaves it
// unchanged, else in bash's $'…' (bash and zsh read it), with every
// character Sanitize would change written as the \xNN escapes of its bytes.
func ShellWord(s string) string {
	if printsAsIs(s) {
		return ShellQuote(s)
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch c := s[i : i+size]; {
		case c == "'" || c == `\`:
			b.WriteString(`\` + c)
		case r == utf8.RuneError && size <= 1 || Sanitize(c) != c,
			c == "[" && strings.HasSuffix(s[:i], "##"):
			// The '[' of "##[" too, which the log guard would change
			// inside the quotes (LogSafe).
			for j := range size {
				fmt.Fprintf(&b, `\x%02x`, s[i+j])
			}
		default:
			b.WriteString(c)
		}
		i += size
	}
	b.WriteByte('\'')
	return b.String()
}

// printsAsIs reports whether s reaches a terminal and a CI log as it is:
// Sanitize leaves it alone, and it holds no "##[" for the log guard to
// change (LogSafe), so a command that names it can be pasted back.
func printsAsIs(s string) bool {
	return Sanitize(s) == s && !strings.Contains(s, "##[")
}

// ShellQuote quotes an argument for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	plain := true
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_./:@%+=,-", c)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
