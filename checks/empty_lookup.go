package checks

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// EmptyLookupCeiling is fpcheck's statement of what empty-lookup can never
// see. Every finding the check files quotes it.
const EmptyLookupCeiling = "An empty result can be perfectly true (the thing may exist and simply have nothing to show right now), and nothing in the record tells that apart from a lookup that could never have matched; this marks a place to look, never a verdict that anything is wrong."

// EmptyLookup is empty-lookup at the write seam: the run produced an
// identifier, and the lookup keyed on it came back empty.
var EmptyLookup = &Check{
	Kind:  KindEmptyLookup,
	Seam:  SeamWrite,
	Title: "a lookup keyed on a run-produced identifier came back empty",
	Doc: `At each tool result (stream.tool_end) of a tool that declares argumentsFrom and has empty lookups switched on (noticeEmptyLookups on the tool, or the dial for every such tool; the tool's own setting wins), the result is read for emptiness, and each identifier-like string argument of the call (the choice seam's rule: at least 4 characters, no white space, a digit, or a letter with one of - _ . : /) is looked up in the results the tool's declared grounds served earlier in what the run can see: this run's tool_end results and the tool-result messages its requests carry, earlier turns included. Lookup is the choice seam's: case-insensitive substring, so the two checks agree on what "this value came from that tool" means. A result carried over from an earlier turn reaches a request by call id alone (context.injected, source tool-result); its tool is the one the recording names for that call id in any event that states it: an earlier run of the same input and conversation (runs sharing a session id, or naming none: its tool_start or history), or this run's own history, even when that history is written after the result being judged (the encounter is then judged at the end of the run). An empty result for an argument a declared ground produced files one advisory per argument; the argument's dot-path is the predicate, and the subjects are the tool and the ground that produced the value.

Empty is decided by structure, never by reading prose: null; a string that is empty or only white space; a list with no items; an empty object; an object whose only list is empty and which holds no other list or object (say {"records": [], "total": 0}); a declared absence (an object with af_absent: true); a semantic envelope (af_semantics: true) with no facts, series or edges. A string result that holds JSON is parsed and judged by the same rules. Text such as "no backup record for 4417-ganymede" is text, not an empty structure, so it is never judged: a tool whose "nothing found" answer should be noticed must return an empty structure.

Fences: an identifier the run did not produce (the user supplied it, or no declared ground's result carries it) files nothing, the encounter passes; a non-empty result passes; a result that is not one of the shapes above (prose, an object with data, a number) is not-applicable; a failed call (tool_end.error) is not-applicable; a result the recording does not carry is unreachable; so is an empty result when no declared ground served anything earlier, or when the value appears only in earlier results whose call id nothing in the recording names with a tool (or names with two different tools).`,
	Ceiling:     EmptyLookupCeiling + " Emptiness is structural: a tool that answers \"nothing found\" in words is never seen here.",
	ArmedBy:     "argumentsFrom on a tool, with noticeEmptyLookups on that tool or in the dials",
	Advisory:    true,
	AdvisoryWhy: "an empty answer can be true, so it marks a place to look, never a verdict",
	Unfed:       "the run recorded no result of a tool whose empty lookups are noticed",
	Armed: func(d *Declarations) bool {
		if d == nil {
			return false
		}
		for i := range d.Tools {
			if d.EmptyLookupsOn(&d.Tools[i]) {
				return true
			}
		}
		return false
	},
	Canary: func() []Finding {
		ground := &ServedResult{Tool: "canary_ground", CallID: "canary-1", Text: "CANARY: 4417-canary (online)"}
		v := WriteView{Iteration: -1, Call: ToolCall{ID: "canary-2", Name: "canary_tool"}, CallRecorded: true,
			Result: json.RawMessage(`[]`), Tool: &ToolDecl{Name: "canary_tool", ArgumentsFrom: []string{"canary_ground"}},
			Keys:          []KeyArgument{{Path: "machine", Value: "4417-canary", ProducedBy: ground}},
			GroundsServed: []string{"canary_ground"}}
		return emptyLookupOf(v).Findings
	},
	OnWrite: func(v WriteView, d *Declarations) Verdict {
		if !v.CallRecorded || v.Tool == nil || !d.EmptyLookupsOn(v.Tool) {
			return Verdict{None: true}
		}
		out := emptyLookupOf(v)
		out.Findings = aboutCalls(stamp(out.Findings, v.Stage), v.Call.ID)
		return out
	},
}

// EmptyLookupsOn reports whether a tool's empty lookups are noticed: it
// declares argumentsFrom, and noticeEmptyLookups is true on the tool, or
// unset there and true in the dials.
func (d *Declarations) EmptyLookupsOn(t *ToolDecl) bool {
	if d == nil || t == nil || len(t.ArgumentsFrom) == 0 {
		return false
	}
	if t.NoticeEmptyLookups != nil {
		return *t.NoticeEmptyLookups
	}
	return d.Dials.NoticeEmptyLookups != nil && *d.Dials.NoticeEmptyLookups
}

// LookupReading is what the structure of a tool result says about
// emptiness.
type LookupReading struct {
	// Judged is false when the result has no shape emptiness can be read
	// from (prose, a number, an object with data).
	Judged bool
	Empty  bool
	// Shape words the result for messages ("a list with no items").
	Shape string
}

// ReadLookupResult reads a tool_end result's emptiness from its structure.
// A string that holds JSON (after trimming, it opens with [ or { or is
// null) is parsed and read the same way; any other non-empty string is
// prose and is not judged.
func ReadLookupResult(result json.RawMessage) LookupReading {
	r := parseResult(result)
	n := r.node
	if n == nil {
		return LookupReading{}
	}
	if n.kind == 's' {
		t := r.trimmed
		if t == "" {
			return LookupReading{Judged: true, Empty: true, Shape: "an empty string"}
		}
		if !strings.HasPrefix(t, "[") && !strings.HasPrefix(t, "{") && t != "null" {
			return LookupReading{}
		}
		if r.inner == nil {
			return LookupReading{}
		}
		n = r.inner
	}
	switch n.kind {
	case 'z':
		return LookupReading{Judged: true, Empty: true, Shape: "null"}
	case 'a':
		if len(n.items) == 0 {
			return LookupReading{Judged: true, Empty: true, Shape: "a list with no items"}
		}
		return LookupReading{Judged: true, Shape: fmt.Sprintf("a list of %d %s", len(n.items), plural(len(n.items), "item", "items"))}
	case 'o':
		return readLookupObject(n)
	}
	return LookupReading{}
}

func readLookupObject(n *jsonNode) LookupReading {
	if len(n.members) == 0 {
		return LookupReading{Judged: true, Empty: true, Shape: "an empty object"}
	}
	if a := n.field("af_absent"); a != nil && a.kind == 'b' && a.b {
		return LookupReading{Judged: true, Empty: true, Shape: "a declared absence (af_absent)"}
	}
	if s := n.field("af_semantics"); s != nil && s.kind == 'b' && s.b {
		for _, k := range []string{"facts", "series", "edges"} {
			if v := n.field(k); v != nil && !(v.kind == 'a' && len(v.items) == 0) && v.kind != 'z' {
				return LookupReading{Judged: true, Shape: "a semantic envelope that settles something"}
			}
		}
		return LookupReading{Judged: true, Empty: true, Shape: "a semantic envelope with no facts, series or edges"}
	}
	list := ""
	var items []*jsonNode
	for _, m := range n.members {
		switch m.val.kind {
		case 'a':
			if list != "" {
				return LookupReading{}
			}
			list, items = m.key, m.val.items
		case 'o':
			return LookupReading{}
		}
	}
	if list == "" {
		return LookupReading{}
	}
	if len(items) > 0 {
		return LookupReading{Judged: true, Shape: fmt.Sprintf("an object whose list '%s' holds %d %s", list, len(items), plural(len(items), "item", "items"))}
	}
	return LookupReading{Judged: true, Empty: true, Shape: fmt.Sprintf("an object whose only list, '%s', is empty", list)}
}

// KeyArguments reads a call's identifier-like string arguments and finds,
// for each, the earliest served result of a declared ground whose text
// carries it (case-insensitive substring, the choice seam's rule).
func KeyArguments(args json.RawMessage, grounds []string, served []ServedResult) ([]KeyArgument, error) {
	all := make([]string, len(served))
	for i := range served {
		all[i] = served[i].Text
	}
	return KeyArgumentsIn(args, grounds, servedSlice{served, newLowerMemo(all)})
}

// ServedTexts are the results a run served, in order, as KeyArgumentsIn
// searches them. A run keeps its results compactly (each distinct text
// once, lowered, perhaps spilled to a file), so they are handed over as
// this, never as a slice of texts.
type ServedTexts interface {
	// Result is the i-th result. Its Text may be empty: the judges read
	// only its tool and call.
	Result(i int) ServedResult
	// Holding calls yield with the index of each result whose lowered
	// text holds needle (lowered), in order, until yield returns false.
	// Results of a named tool that is not one of the grounds may be left
	// out: they decide nothing; so may the results after the first one of
	// a ground, where a lookup stops. An error means a text could not be
	// read back, and nothing can be said of the value.
	Holding(needle string, yield func(i int) bool) error
}

type servedSlice struct {
	served []ServedResult
	low    *lowerMemo
}

func (s servedSlice) Result(i int) ServedResult { return s.served[i] }
func (s servedSlice) Holding(needle string, yield func(i int) bool) error {
	for i := range s.served {
		if strings.Contains(s.low.at(i), needle) && !yield(i) {
			break
		}
	}
	return nil
}

// KeyArgumentsIn is KeyArguments over results held by the caller. A match
// in a result of a named tool that is not a declared ground decides
// nothing, so a holder may skip those results.
func KeyArgumentsIn(args json.RawMessage, grounds []string, served ServedTexts) ([]KeyArgument, error) {
	leaves, err := stringLeaves(args)
	if err != nil {
		return nil, err
	}
	// A tool names a few grounds: a scan of them costs less than a set
	// made for every call.
	var isGround func(string) bool
	if len(grounds) <= smallSet {
		isGround = func(t string) bool { return slices.Contains(grounds, t) }
	} else {
		set := setOf(grounds)
		isGround = func(t string) bool { return set[t] }
	}
	var out []KeyArgument
	for _, leaf := range leaves {
		if !IdentifierLike(leaf.value) {
			continue
		}
		value := strings.TrimSpace(leaf.value)
		needle := strings.ToLower(value)
		k := KeyArgument{Path: leaf.path, Value: value}
		err := served.Holding(needle, func(i int) bool {
			s := served.Result(i)
			switch {
			case s.Tool == "":
				k.InUnnamedResult = true
			case isGround(s.Tool):
				k.ProducedBy = &s
				return false
			}
			return true
		})
		if err != nil {
			return nil, err
		}
		if k.ProducedBy != nil {
			k.InUnnamedResult = false
		}
		out = append(out, k)
	}
	return out, nil
}

// emptyLookupOf is the pure judge of one result of an armed tool.
func emptyLookupOf(v WriteView) Verdict {
	call := orUnknown(v.Call.ID)
	if v.Result == nil {
		return UnreachableBecause(fmt.Sprintf("tool_end of call %s to '%s' carries no result", call, v.Call.Name))
	}
	if v.Error {
		return NotApplicableVerdict()
	}
	var reading LookupReading
	if v.Lookup != nil {
		reading = *v.Lookup
	} else {
		reading = ReadLookupResult(v.Result)
	}
	if !reading.Judged {
		return NotApplicableVerdict()
	}
	if !reading.Empty {
		return Pass()
	}
	if v.KeysProblem != "" {
		return UnreachableBecause(v.KeysProblem)
	}
	if len(v.GroundsServed) == 0 {
		if why := unnamedKeys(v); len(why) > 0 {
			return UnreachableBecause(why...)
		}
		return UnreachableBecause(fmt.Sprintf("call %s to '%s' came back empty, but none of its declared grounds (%s) served a result earlier in what the run can see, so nothing says where its arguments came from",
			call, v.Call.Name, nameList(v.Tool.ArgumentsFrom)))
	}
	consumer := toolSubject(v.Call.Name)
	var fs []Finding
	unnamed := unnamedKeys(v)
	for _, k := range v.Keys {
		if k.ProducedBy == nil {
			continue
		}
		ground := k.ProducedBy
		producer := toolSubject(ground.Tool)
		witnesses := []Witness{
			asserted(consumer, k.Path, k.Value, v.Iteration, fmt.Sprintf("stream.tool_start %s: argument %s as the model chose it", call, k.Path)),
			asserted(producer, k.Path, "served this value earlier in the run", v.Iteration,
				fmt.Sprintf("result of '%s' (call %s), a declared ground of '%s' (argumentsFrom)", ground.Tool, orUnknown(ground.CallID), v.Call.Name)),
			asserted(consumer, k.Path, "came back empty: "+reading.Shape, v.Iteration, fmt.Sprintf("stream.tool_end %s: the result as the tool returned it", call)),
		}
		f := finding(KindEmptyLookup, SeamWrite, []Subject{consumer, producer}, k.Path, witnesses, v.Iteration,
			fmt.Sprintf("'%s' was called with %s = \"%s\", a value this run itself produced (in a result of '%s', call %s, which '%s' declares its arguments come from), and the lookup came back empty (%s): worth a look, because the run had the identifier. %s Call id %s.",
				v.Call.Name, k.Path, clip(k.Value), ground.Tool, orUnknown(ground.CallID), v.Call.Name, reading.Shape, EmptyLookupCeiling, call))
		f.Advisory = true
		if ground.CallID != "" {
			f.CallIDs = []string{ground.CallID}
		}
		fs = append(fs, f)
	}
	switch {
	case len(fs) > 0:
		return Verdict{Disposition: CheckedFail, Findings: fs, Reasons: unnamed}
	case len(unnamed) > 0:
		return UnreachableBecause(unnamed...)
	}
	return Pass()
}

// unnamedKeys names the key arguments found only in results whose tool
// nothing in the recording names: whether a declared ground produced them
// cannot be told.
func unnamedKeys(v WriteView) []string {
	var out []string
	for _, k := range v.Keys {
		if k.ProducedBy == nil && k.InUnnamedResult {
			out = append(out, fmt.Sprintf("'%s' argument %s = \"%s\" (call %s) appears only in earlier results whose tool the recording does not name", v.Call.Name, k.Path, clip(k.Value), orUnknown(v.Call.ID)))
		}
	}
	return out
}
