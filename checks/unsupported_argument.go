package checks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
)

// UnsupportedArgument is unsupported-argument at the choice seam: the model
// called a grounded tool with an identifier that nothing the run served
// holds.
var UnsupportedArgument = &Check{
	Kind:  KindUnsupportedArgument,
	Seam:  SeamChoice,
	Title: "a tool called with an identifier nothing served",
	Doc: `After each model response, every call it made to a tool that declares argumentsFrom (stream.tool_start) has each identifier-like string argument looked up, case-insensitively as a substring, in the exact request frame the response was chosen from: the system prompt, the user messages and the tool-result messages. Assistant messages are not ground: they are what the model wrote, and a value read back out of rendered prose can be a fragment of something else. A value found there is grounded and files nothing.

Identifier-like means: after trimming, at least 4 characters, no whitespace, and either a digit anywhere or one of - _ . : / together with a letter. So 4417-ganymede, screen2, rack-a1, 2024-05-01 and api.example.com are checked; yes, latest, Oslo and Bergen are not.

An ungrounded value files one of two findings, because they need different fixes. Self-reference: the value appears in the frame only inside an assistant message; the message names the ground tools (argumentsFrom) to call again. Nowhere: the value appears nowhere in the frame; the message says no ground in the window holds it. The argument's dot-path (machine, filter.hosts.0) is the finding's predicate, so two bad arguments of one call are two findings and the same argument chosen again later in the run is one. Each completed model response is one encounter, its armed calls judged together.

Fences, each silent by design: non-string arguments (numbers, booleans, null) are never checked; strings that are not identifier-like are never checked; a value found anywhere in the system prompt, a user message or any tool result passes, even an unrelated one; a tool that declares no argumentsFrom is never a subject; a response with no call to an armed tool, or whose armed calls carry no identifier-like string, is not-applicable; a value missing from a frame the recording could not rebuild completely is unreachable, never a finding; an argument the live run excused because the app verified its value (integrity.external_ground_used for that call and argument path, agentfootprint 9.72.0) is excused on replay too, and the report names it with the source the app gave.`,
	Ceiling: `It catches fabrication and self-reference, not misattribution: any served string containing the value grounds it. A value the model legitimately composed from several grounds ("host1,host2") contains no single served string and files; such a tool should not declare argumentsFrom. Recordings carry no input schemas, so values a tool's own enum declares are not recognised as served, and tool descriptions are not ground.`,
	ArmedBy: "argumentsFrom declared on at least one tool",
	Armed:   func(d *Declarations) bool { return d.AnyArgumentsFrom() },
	Canary: func() []Finding {
		frame := Frame{
			System: []string{"You triage a fleet of machines."},
			Messages: []Message{
				{Role: RoleAssistant, Content: "The nightly job bkp-4417-ganymede-tier2 finished at 02:14."},
				{Role: RoleUser, Content: "What is the backup status for that machine?"},
			},
		}
		call := ToolCall{ID: "canary-call", Name: "canary_tool", Args: json.RawMessage(`{"machine":"4417-ganymede"}`)}
		fs, _, _ := unsupportedArguments(call, []string{"canary_ground"}, frame, nil, -1)
		return fs
	},
	OnChoice: judgeChoice,
}

// IdentifierLike reports whether a string argument is shaped like an
// identifier the model must have read somewhere: after trimming, at least 4
// characters, no whitespace, and a digit, or one of - _ . : / together with
// a letter. Plain words are not identifiers: substring-grounding them would
// accuse every ordinary word the model chose.
func IdentifierLike(s string) bool {
	t := strings.TrimSpace(s)
	if utf8.RuneCountInString(t) < 4 {
		return false
	}
	digit, letter, sep := false, false, false
	for _, r := range t {
		switch {
		case unicode.IsSpace(r):
			return false
		case unicode.IsDigit(r):
			digit = true
		case unicode.IsLetter(r):
			letter = true
		case strings.ContainsRune("-_.:/", r):
			sep = true
		}
	}
	return digit || (sep && letter)
}

// argLeaf is one string argument and its dot-path.
type argLeaf struct {
	path, value string
}

// rootPath names an arguments value that is itself a string.
const rootPath = "$"

// stringLeaves walks tool arguments in the order they were written and
// returns every string leaf with its dot-path (machine, filter.hosts.0).
func stringLeaves(raw json.RawMessage) ([]argLeaf, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	if jsonfast.Valid(raw) {
		// Arguments that are one valid value, the usual case, are walked
		// without a decoder; anything else (and the wording of its error)
		// is left to the token walk below.
		var out []argLeaf
		if err := validLeaves(raw, "", &out); err == nil {
			return out, nil
		}
	}
	return decodeLeaves(raw)
}

// validLeaves appends the string leaves of a value jsonfast has validated.
func validLeaves(val []byte, path string, out *[]argLeaf) error {
	var err error
	switch jsonfast.KindOf(val) {
	case jsonfast.KindObject:
		if e := jsonfast.Members(val, func(key []byte, _ bool, v []byte) bool {
			err = validLeaves(v, joinPath(path, string(key)), out)
			return err == nil
		}); e != nil {
			return e
		}
	case jsonfast.KindArray:
		if e := jsonfast.Elements(val, func(i int, v []byte) bool {
			err = validLeaves(v, joinPath(path, strconv.Itoa(i)), out)
			return err == nil
		}); e != nil {
			return e
		}
	case jsonfast.KindString:
		s, e := jsonfast.String(val)
		if e != nil {
			return e
		}
		p := path
		if p == "" {
			p = rootPath
		}
		*out = append(*out, argLeaf{path: p, value: s})
	}
	return err
}

// decodeLeaves is stringLeaves by a token decoder: the reference walk, and
// the one whose errors name what is wrong with unreadable arguments.
func decodeLeaves(raw json.RawMessage) ([]argLeaf, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out []argLeaf
	if err := walkLeaves(dec, "", &out); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the arguments value")
	}
	return out, nil
}

func walkLeaves(dec *json.Decoder, path string, out *[]argLeaf) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				key, _ := kt.(string)
				if err := walkLeaves(dec, joinPath(path, key), out); err != nil {
					return err
				}
			}
		case '[':
			for i := 0; dec.More(); i++ {
				if err := walkLeaves(dec, joinPath(path, strconv.Itoa(i)), out); err != nil {
					return err
				}
			}
		}
		_, err := dec.Token() // the closing delimiter
		return err
	case string:
		p := path
		if p == "" {
			p = rootPath
		}
		*out = append(*out, argLeaf{path: p, value: t})
	}
	return nil
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// groundedness of one value in a frame.
type groundedness int

const (
	groundedInFrame groundedness = iota
	onlyInAssistant
	nowhereInFrame
)

// frameTexts are the texts of one frame as one judgement searches them:
// through the frame's own Texts when it has them, otherwise each lowered
// on first use and at most once, however many values are looked up in it.
type frameTexts struct {
	held             FrameTexts
	nSystem          int
	system, messages *lowerMemo
}

func newFrameTexts(f Frame) *frameTexts {
	if f.Texts != nil {
		return &frameTexts{held: f.Texts}
	}
	msgs := make([]string, len(f.Messages))
	for i, m := range f.Messages {
		msgs[i] = m.Content
	}
	return &frameTexts{nSystem: len(f.System), system: newLowerMemo(f.System), messages: newLowerMemo(msgs)}
}

// holds is FrameTexts.Holds over the frame's texts.
func (ft *frameTexts) holds(i int, needle string) (bool, error) {
	switch {
	case ft.held != nil:
		return ft.held.Holds(i, needle)
	case i < ft.nSystem:
		return strings.Contains(ft.system.at(i), needle), nil
	}
	return strings.Contains(ft.messages.at(i-ft.nSystem), needle), nil
}

// locate finds a lowered value in a frame whose texts ft holds, and the
// model's own answers that hold it (by message index) when only they do.
func locate(needle string, frame Frame, ft *frameTexts) (groundedness, []int, error) {
	for i := range frame.System {
		has, err := ft.holds(i, needle)
		if err != nil {
			return 0, nil, err
		}
		if has {
			return groundedInFrame, nil, nil
		}
	}
	var inAssistant []int
	for i, m := range frame.Messages {
		has, err := ft.holds(len(frame.System)+i, needle)
		if err != nil {
			return 0, nil, err
		}
		if !has {
			continue
		}
		if m.Role == RoleAssistant {
			inAssistant = append(inAssistant, i)
			continue
		}
		return groundedInFrame, nil, nil
	}
	if len(inAssistant) > 0 {
		return onlyInAssistant, inAssistant, nil
	}
	return nowhereInFrame, nil, nil
}

// maxQuoted bounds how much of a value a message quotes.
const maxQuoted = 80

func clip(s string) string {
	if utf8.RuneCountInString(s) <= maxQuoted {
		return s
	}
	r := []rune(s)
	return string(r[:maxQuoted-1]) + "…"
}

// unsupportedArguments is the pure judge for one call: the findings it
// files, the arguments it could not judge (with why), and how many
// identifier-like arguments it looked at. ft holds the frame's texts (nil:
// made here), shared by the calls of one response.
func unsupportedArguments(call ToolCall, grounds []string, frame Frame, ft *frameTexts, epoch int64) (fs []Finding, unjudged []string, judged int) {
	fs, unjudged, _, judged = excusedArguments(call, grounds, frame, ft, epoch, nil, nil)
	return fs, unjudged, judged
}

// excusedArguments is unsupportedArguments with the arguments the live run
// excused (see ChoiceView.Excused) passed over, each named in excused: an
// excused argument was looked at, and the app's word stands for its
// ground.
func excusedArguments(call ToolCall, grounds []string, frame Frame, ft *frameTexts, epoch int64, excuses map[string]string, filed func(string) bool) (fs []Finding, unjudged, excused []string, judged int) {
	leaves, err := stringLeaves(call.Args)
	if err != nil {
		return nil, []string{fmt.Sprintf("the arguments of call %s to '%s' are not readable JSON (%v)", orUnknown(call.ID), call.Name, err)}, nil, 0
	}
	for _, leaf := range leaves {
		if !IdentifierLike(leaf.value) {
			continue
		}
		judged++
		value := strings.TrimSpace(leaf.value)
		if source, ok := excuses[ExcuseKey(call.ID, leaf.path)]; ok && call.ID != "" {
			excused = append(excused, fmt.Sprintf("'%s' argument %s = \"%s\" (call %s) is excused: the app verified it (external ground %s), as the live run recorded",
				call.Name, leaf.path, clip(value), call.ID, quoteSource(source)))
			continue
		}
		if ft == nil {
			ft = newFrameTexts(frame)
		}
		where, answers, err := locate(strings.ToLower(value), frame, ft)
		if err != nil {
			unjudged = append(unjudged, fmt.Sprintf("'%s' argument %s = \"%s\" (call %s) cannot be looked up in the iteration %d frame: %v",
				call.Name, leaf.path, clip(value), orUnknown(call.ID), frame.Iteration, err))
			continue
		}
		if where == groundedInFrame {
			continue
		}
		if !frame.Complete() {
			unjudged = append(unjudged, fmt.Sprintf("'%s' argument %s = \"%s\" (call %s) is not in what the recording kept of the iteration %d frame, and that frame is incomplete: %s",
				call.Name, leaf.path, clip(value), orUnknown(call.ID), frame.Iteration, strings.Join(frame.Gaps, "; ")))
			continue
		}
		fs = append(fs, aboutCalls([]Finding{argumentFinding(call, leaf, value, grounds, frame, where, answers, epoch, filed)}, call.ID)...)
	}
	return fs, unjudged, excused, judged
}

// quoteSource shows the app's label for a ground; the label is the
// recording's text, so it is quoted and clipped.
func quoteSource(s string) string {
	if s == "" {
		return "(no source stated)"
	}
	return strconv.Quote(clip(s))
}

// argumentFinding is the finding of one ungrounded argument; answers are
// the model's own messages that hold it, when only they do.
func argumentFinding(call ToolCall, leaf argLeaf, value string, grounds []string, frame Frame, where groundedness, answers []int, epoch int64, filed func(string) bool) Finding {
	subject := toolSubject(call.Name)
	if f, ok := bareFinding(filed, KindUnsupportedArgument, SeamChoice, []Subject{subject}, leaf.path, epoch); ok {
		return f
	}
	users, tools, assistants := 0, 0, 0
	for _, m := range frame.Messages {
		switch m.Role {
		case RoleUser:
			users++
		case RoleTool:
			tools++
		case RoleAssistant:
			assistants++
		}
	}
	frameProvenance := fmt.Sprintf("frame of iteration %d (%s): %d system prompt %s, %d user, %d tool and %d assistant %s",
		frame.Iteration, frame.Source, len(frame.System), plural(len(frame.System), "piece", "pieces"), users, tools, assistants, plural(assistants, "message", "messages"))
	verdict := "found nowhere in the frame the model chose from"
	if where == onlyInAssistant {
		verdict = "found only in the model's own earlier answer"
		// Which answer: the message a reader opens to see where the model
		// read it back from.
		at := make([]string, len(answers))
		for j, i := range answers {
			at[j] = strconv.Itoa(i)
		}
		frameProvenance += fmt.Sprintf("; the value is in assistant %s %s (0-based, of %d)", plural(len(at), "message", "messages"), nameList(at), len(frame.Messages))
	} else {
		frameProvenance += "; no message, system prompt piece or tool result of it holds the value"
	}
	witnesses := []Witness{
		asserted(subject, leaf.path, leaf.value, epoch, fmt.Sprintf("stream.tool_start %s: argument %s as the model chose it", orUnknown(call.ID), leaf.path)),
		asserted(subject, leaf.path, verdict, epoch, frameProvenance),
	}
	refetch := strings.Join(grounds, " or ")
	var msg string
	if where == onlyInAssistant {
		msg = fmt.Sprintf("'%s' was called with %s = \"%s\", and in the frame the model chose from that value appears only inside its own earlier answer, which is rendered text rather than evidence; call %s again and use a value it returns.",
			call.Name, leaf.path, clip(value), refetch)
	} else {
		msg = fmt.Sprintf("'%s' was called with %s = \"%s\", but no ground in the window holds it: no system prompt, user message or tool result of the frame the model chose from contains it; get the real value from %s or from the user instead of trusting this one.",
			call.Name, leaf.path, clip(value), refetch)
	}
	return finding(KindUnsupportedArgument, SeamChoice, []Subject{subject}, leaf.path, witnesses, epoch, msg)
}

func judgeChoice(v ChoiceView, d *Declarations) Verdict {
	var fs []Finding
	var reasons, excused []string
	armed, judged := 0, 0
	var ft *frameTexts
	for _, call := range v.Calls {
		grounds := d.GroundsOf(call.Name)
		if len(grounds) == 0 {
			continue
		}
		armed++
		if ft == nil {
			ft = newFrameTexts(v.Call.Frame)
		}
		f, why, ex, n := excusedArguments(call, grounds, v.Call.Frame, ft, v.Call.Iteration, v.Excused, v.Filed)
		fs = append(fs, f...)
		reasons = append(reasons, why...)
		excused = append(excused, ex...)
		judged += n
	}
	var out Verdict
	switch {
	case armed == 0:
		out = NotApplicableVerdict()
	case len(fs) > 0:
		out = Verdict{Disposition: CheckedFail, Findings: stamp(fs, v.Stage), Reasons: reasons}
	case len(reasons) > 0:
		out = UnreachableBecause(reasons...)
	case judged == 0:
		out = NotApplicableVerdict()
	default:
		out = Pass()
	}
	out.Excused = excused
	return out
}
