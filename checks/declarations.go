package checks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
)

// Declarations arm the checks that need to be told something the recording
// does not say: which tools take their arguments from which other tools,
// which answer fields report which settled facts, which tools each map owns,
// and the opt-in dials. Nothing here is ever inferred from names; an empty
// value is a declaration nobody made.
//
// Every slice keeps the order it was written in, so the replay and its
// output are the same bytes for the same declarations.
type Declarations struct {
	// Source names where the declarations came from, for messages.
	Source string
	Tools  []ToolDecl
	Claims []ClaimDecl
	Maps   []MapDecl
	Dials  Dials
	// Posture is "observe", "dev", or empty when not said.
	Posture string
}

// ToolDecl is what one tool declares. Nil fields were not said.
type ToolDecl struct {
	Name string
	// ArgumentsFrom names the tools whose results ground this tool's
	// arguments (arms dangling-reference and unsupported-argument).
	ArgumentsFrom      []string
	NoticeEmptyLookups *bool
	ResultColumns      []ColumnDecl
}

// ColumnDecl is one declared result column and its type.
type ColumnDecl struct {
	Name     string
	Type     string
	Nullable bool
}

// ClaimDecl binds one answer field to the settled fact it reports.
type ClaimDecl struct {
	AnswerField string
	Entity      string
	Field       string
}

// MapDecl names the tools one map of a .maps() plan owns.
type MapDecl struct {
	ID    string
	Tools []string
}

// Dials are the opt-in switches. Nil and empty fields were not said.
type Dials struct {
	CheckColumnTypes        string
	NoticeEmptyLookups      *bool
	NoticePriorTurnEvidence *bool
	NamesAndNumbers         *NamesAndNumbers
}

// NamesAndNumbers configures the extractor that decides which answer tokens
// are values.
type NamesAndNumbers struct {
	MinDigits *int
}

// Column types a resultColumns entry may name.
var columnTypes = []string{"number", "string", "boolean", "date"}

// Postures.
const (
	PostureObserve = "observe"
	PostureDev     = "dev"
)

// Tool returns the declaration of a tool, or nil.
func (d *Declarations) Tool(name string) *ToolDecl {
	if d == nil {
		return nil
	}
	for i := range d.Tools {
		if d.Tools[i].Name == name {
			return &d.Tools[i]
		}
	}
	return nil
}

// GroundsOf returns the tools a tool declares its arguments come from.
func (d *Declarations) GroundsOf(tool string) []string {
	if t := d.Tool(tool); t != nil {
		return t.ArgumentsFrom
	}
	return nil
}

// AnyArgumentsFrom reports whether any tool declares argumentsFrom.
func (d *Declarations) AnyArgumentsFrom() bool {
	if d == nil {
		return false
	}
	for _, t := range d.Tools {
		if len(t.ArgumentsFrom) > 0 {
			return true
		}
	}
	return false
}

// Map returns the declaration of a map, or nil.
func (d *Declarations) Map(id string) *MapDecl {
	if d == nil {
		return nil
	}
	for i := range d.Maps {
		if d.Maps[i].ID == id {
			return &d.Maps[i]
		}
	}
	return nil
}

// EffectivePosture is the declared posture, observe when none was declared.
func (d *Declarations) EffectivePosture() string {
	if d == nil || d.Posture == "" {
		return PostureObserve
	}
	return d.Posture
}

// DeclarationError refuses a declaration fpcheck cannot honour. Message is
// one sentence naming what is wrong and how to fix it.
type DeclarationError struct {
	// Source is the file (or recording field) the declaration came from.
	Source string
	// Line is the 1-based line of the offending node, 0 when unknown.
	Line int
	// Tool is the tool the declaration is about, when it is about one.
	Tool string
	// Field is the offending field's path, e.g. "argumentsFrom" or
	// "resultColumns.comment.type".
	Field   string
	Message string
}

func (e *DeclarationError) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	if e.Line > 0 {
		b.WriteString(":")
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	b.WriteString(e.Message)
	return b.String()
}

// ParseDeclarations reads declarations written in YAML or JSON (JSON is
// YAML). It is strict: an unknown key, a wrong type or a value no check can
// honour is refused with a *DeclarationError naming the line, the field and
// the fix. Empty input declares nothing.
func ParseDeclarations(name string, data []byte) (*Declarations, error) {
	doc, err := readDeclDocument(name, data)
	if err != nil {
		return nil, err
	}
	p := &declParser{source: name}
	d := &Declarations{Source: name}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return d, nil
	}
	root := p.deref(doc.Content[0])
	if isNull(root) {
		return d, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, p.fail(root, "", "", "the declarations must be a mapping with the keys tools, claims, maps, dials and posture; wrap them in one")
	}
	err = p.eachKey(root, "", "", "the top level", []string{"tools", "claims", "maps", "dials", "posture"}, func(key string, k, v *yaml.Node) error {
		switch key {
		case "tools":
			return p.tools(d, v)
		case "claims":
			return p.claims(d, v)
		case "maps":
			return p.maps(d, v)
		case "dials":
			return p.dials(d, v)
		case "posture":
			s, err := p.str(v, "", "posture", "posture")
			if err != nil {
				return err
			}
			if s != PostureObserve && s != PostureDev {
				return p.fail(v, "", "posture", "posture %q is not one fpcheck knows; write observe or dev", s)
			}
			d.Posture = s
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

func yamlErrorLine(msg string) int {
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

type declParser struct {
	source string
	// entries counts the keys and list items read (see spend).
	entries int
}

func (p *declParser) fail(n *yaml.Node, tool, field, format string, args ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &DeclarationError{Source: p.source, Line: line, Tool: tool, Field: field, Message: fmt.Sprintf(format, args...)}
}

// deref follows YAML aliases, which a hand-written file may use to share a
// list between tools.
func (p *declParser) deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 32; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// eachKey walks a mapping in source order, refusing duplicate and unknown
// keys. allowed nil accepts any key (a map of names).
func (p *declParser) eachKey(m *yaml.Node, tool, field, what string, allowed []string, fn func(key string, k, v *yaml.Node) error) error {
	if err := p.spend(m, len(m.Content)/2); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := p.deref(m.Content[i]), p.deref(m.Content[i+1])
		if k.Kind != yaml.ScalarNode || isNull(k) {
			return p.fail(k, tool, field, "%s has a key that is not a plain name; write each key as a name", what)
		}
		key := k.Value
		if seen[key] {
			return p.fail(k, tool, joinField(field, key), "%s says %q twice; keep one entry and delete the other", what, key)
		}
		seen[key] = true
		if allowed != nil && !contains(allowed, key) {
			return p.fail(k, tool, joinField(field, key), "%s has an unknown key %q; the schema knows %s (see docs/declarations.md)", what, key, strings.Join(allowed, ", "))
		}
		if err := fn(key, k, v); err != nil {
			return err
		}
	}
	return nil
}

func joinField(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func (p *declParser) str(n *yaml.Node, tool, field, what string) (string, error) {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		return "", p.fail(n, tool, field, "%s must be a single word or name; write it as a plain string", what)
	}
	return n.Value, nil
}

func (p *declParser) boolean(n *yaml.Node, tool, field, what string) (*bool, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		return nil, p.fail(n, tool, field, "%s must be true or false; write one of the two", what)
	}
	b := n.Value == "true" || n.Value == "True" || n.Value == "TRUE"
	return &b, nil
}

// names reads a non-empty list of non-blank names, keeping the first of any
// repeated name.
func (p *declParser) names(n *yaml.Node, tool, field, what, fixEmpty string) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		if isNull(n) {
			return nil, p.fail(n, tool, field, "%s names nothing; %s", what, fixEmpty)
		}
		return nil, p.fail(n, tool, field, "%s must be a list of tool names; write it as [name, …]", what)
	}
	if len(n.Content) == 0 {
		return nil, p.fail(n, tool, field, "%s names nothing; %s", what, fixEmpty)
	}
	if err := p.spend(n, len(n.Content)); err != nil {
		return nil, err
	}
	var out []string
	// A set, not a search of out: a list of many names must not cost
	// their square.
	seen := make(map[string]bool, len(n.Content))
	for i, c := range n.Content {
		c = p.deref(c)
		switch {
		case c.Kind == yaml.SequenceNode:
			return nil, p.fail(c, tool, field, "%s has a list at position %d, not a tool name; write the names in one list, [a, b], not [[a, b]]", what, i+1)
		case c.Kind == yaml.MappingNode:
			return nil, p.fail(c, tool, field, "%s has a mapping at position %d, not a tool name; write the tool's name there", what, i+1)
		case c.Kind != yaml.ScalarNode || isNull(c) || strings.TrimSpace(c.Value) == "":
			return nil, p.fail(c, tool, field, "%s has a blank entry at position %d; write a tool name there or delete the entry", what, i+1)
		}
		if !seen[c.Value] {
			seen[c.Value] = true
			out = append(out, c.Value)
		}
	}
	return out, nil
}

func (p *declParser) tools(d *Declarations, v *yaml.Node) error {
	if isNull(v) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		return p.fail(v, "", "tools", "tools must be a mapping from tool name to its declaration; write name: { argumentsFrom: [...] }")
	}
	return p.eachKey(v, "", "tools", "tools", nil, func(name string, k, tv *yaml.Node) error {
		if strings.TrimSpace(name) == "" {
			return p.fail(k, "", "tools", "tools has an entry with a blank name; write the tool's name as the key")
		}
		t := ToolDecl{Name: name}
		what := fmt.Sprintf("tool %q", name)
		if !isNull(tv) {
			if tv.Kind != yaml.MappingNode {
				return p.fail(tv, name, "", "%s must be a mapping of its declarations; write %s: { argumentsFrom: [...] }", what, name)
			}
			err := p.eachKey(tv, name, "", what, []string{"argumentsFrom", "noticeEmptyLookups", "resultColumns"}, func(key string, fk, fv *yaml.Node) error {
				switch key {
				case "argumentsFrom":
					grounds, err := p.names(fv, name, key, what+" field argumentsFrom",
						"list at least one tool whose results ground its arguments, or delete the field to say it has no grounds")
					if err != nil {
						return err
					}
					if contains(grounds, name) {
						return p.fail(fv, name, key, "%s field argumentsFrom names the tool itself; a tool cannot ground its own arguments, so list the tool whose results it reads", what)
					}
					t.ArgumentsFrom = grounds
				case "noticeEmptyLookups":
					b, err := p.boolean(fv, name, key, what+" field noticeEmptyLookups")
					if err != nil {
						return err
					}
					t.NoticeEmptyLookups = b
				case "resultColumns":
					cols, err := p.columns(fv, name, what)
					if err != nil {
						return err
					}
					t.ResultColumns = cols
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		d.Tools = append(d.Tools, t)
		return nil
	})
}

func (p *declParser) columns(v *yaml.Node, tool, what string) ([]ColumnDecl, error) {
	if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
		return nil, p.fail(v, tool, "resultColumns", "%s field resultColumns names no column; map each column to number, string, boolean or date, or delete the field", what)
	}
	var cols []ColumnDecl
	err := p.eachKey(v, tool, "resultColumns", what+" field resultColumns", nil, func(col string, k, cv *yaml.Node) error {
		field := "resultColumns." + col
		if strings.TrimSpace(col) == "" {
			return p.fail(k, tool, "resultColumns", "%s field resultColumns has a column with a blank name; write the column's name as the key", what)
		}
		c := ColumnDecl{Name: col}
		typeNode := cv
		switch {
		case cv.Kind == yaml.MappingNode:
			typeNode = nil
			err := p.eachKey(cv, tool, field, fmt.Sprintf("%s column %q", what, col), []string{"type", "nullable"}, func(key string, _, fv *yaml.Node) error {
				switch key {
				case "type":
					typeNode = fv
				case "nullable":
					b, err := p.boolean(fv, tool, field+".nullable", fmt.Sprintf("%s column %q field nullable", what, col))
					if err != nil {
						return err
					}
					c.Nullable = *b
				}
				return nil
			})
			if err != nil {
				return err
			}
			if typeNode == nil {
				return p.fail(cv, tool, field+".type", "%s column %q declares no type; add type: number, string, boolean or date", what, col)
			}
		case cv.Kind != yaml.ScalarNode || isNull(cv):
			return p.fail(cv, tool, field, "%s column %q must be a type or { type, nullable }; write number, string, boolean or date", what, col)
		}
		ty, err := p.str(typeNode, tool, field, fmt.Sprintf("%s column %q type", what, col))
		if err != nil {
			return err
		}
		if !contains(columnTypes, ty) {
			return p.fail(typeNode, tool, field, "%s column %q has type %q, which no check can verify; use number, string, boolean or date", what, col, ty)
		}
		c.Type = ty
		cols = append(cols, c)
		return nil
	})
	return cols, err
}

func (p *declParser) claims(d *Declarations, v *yaml.Node) error {
	if isNull(v) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		return p.fail(v, "", "claims", "claims must be a mapping from answer field to { entity, field }; write nav_count: { entity: screen2, field: nav }")
	}
	return p.eachKey(v, "", "claims", "claims", nil, func(answer string, k, cv *yaml.Node) error {
		what := fmt.Sprintf("claim %q", answer)
		if strings.TrimSpace(answer) == "" {
			return p.fail(k, "", "claims", "claims has an entry with a blank answer field; write the answer field's name as the key")
		}
		if cv.Kind != yaml.MappingNode {
			return p.fail(cv, "", "claims."+answer, "%s must be { entity, field }; write the entity and the field of the fact it reports", what)
		}
		c := ClaimDecl{AnswerField: answer}
		err := p.eachKey(cv, "", "claims."+answer, what, []string{"entity", "field"}, func(key string, _, fv *yaml.Node) error {
			s, err := p.str(fv, "", "claims."+answer+"."+key, what+" field "+key)
			if err != nil {
				return err
			}
			if key == "entity" {
				c.Entity = s
			} else {
				c.Field = s
			}
			return nil
		})
		if err != nil {
			return err
		}
		if strings.TrimSpace(c.Entity) == "" {
			return p.fail(cv, "", "claims."+answer+".entity", "%s has a blank entity; name the entity whose settled fact this answer field reports", what)
		}
		if strings.TrimSpace(c.Field) == "" {
			return p.fail(cv, "", "claims."+answer+".field", "%s has a blank field; name the fact's field this answer field reports", what)
		}
		d.Claims = append(d.Claims, c)
		return nil
	})
}

func (p *declParser) maps(d *Declarations, v *yaml.Node) error {
	if isNull(v) {
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		return p.fail(v, "", "maps", "maps must be a list of { id, tools }; write - { id: billing, tools: [charge_card] }")
	}
	if err := p.spend(v, len(v.Content)); err != nil {
		return err
	}
	ids := make(map[string]bool, len(v.Content))
	for i, mv := range v.Content {
		mv = p.deref(mv)
		what := fmt.Sprintf("map #%d", i+1)
		if mv.Kind != yaml.MappingNode {
			return p.fail(mv, "", "maps", "%s must be { id, tools }; write the map's id and the tools it owns", what)
		}
		m := MapDecl{}
		var toolsNode *yaml.Node
		err := p.eachKey(mv, "", "maps", what, []string{"id", "tools"}, func(key string, _, fv *yaml.Node) error {
			if key == "id" {
				s, err := p.str(fv, "", "maps.id", what+" field id")
				if err != nil {
					return err
				}
				m.ID = s
				return nil
			}
			toolsNode = fv
			return nil
		})
		if err != nil {
			return err
		}
		if strings.TrimSpace(m.ID) == "" {
			return p.fail(mv, "", "maps.id", "%s has no id; give it the id its .maps() plan uses (skill-map for a skill graph)", what)
		}
		what = fmt.Sprintf("map %q", m.ID)
		if ids[m.ID] {
			return p.fail(mv, "", "maps.id", "%s is declared twice; merge the two entries into one", what)
		}
		ids[m.ID] = true
		if toolsNode == nil {
			return p.fail(mv, "", "maps.tools", "%s lists no tools; list the tools it owns, or delete the map", what)
		}
		tools, err := p.names(toolsNode, "", "maps.tools", what+" field tools", "list the tools it owns, or delete the map")
		if err != nil {
			return err
		}
		m.Tools = tools
		d.Maps = append(d.Maps, m)
	}
	return nil
}

func (p *declParser) dials(d *Declarations, v *yaml.Node) error {
	if isNull(v) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		return p.fail(v, "", "dials", "dials must be a mapping of dial names to values; write checkColumnTypes: warn")
	}
	return p.eachKey(v, "", "dials", "dials", []string{"checkColumnTypes", "noticeEmptyLookups", "noticePriorTurnEvidence", "namesAndNumbers"}, func(key string, _, fv *yaml.Node) error {
		what := "dial " + key
		switch key {
		case "checkColumnTypes":
			s, err := p.str(fv, "", "dials."+key, what)
			if err != nil {
				return err
			}
			if s != "off" && s != "warn" && s != "enforce" {
				return p.fail(fv, "", "dials."+key, "dial checkColumnTypes is %q, which is not a setting; write off, warn or enforce", s)
			}
			d.Dials.CheckColumnTypes = s
		case "noticeEmptyLookups":
			b, err := p.boolean(fv, "", "dials."+key, what)
			if err != nil {
				return err
			}
			d.Dials.NoticeEmptyLookups = b
		case "noticePriorTurnEvidence":
			b, err := p.boolean(fv, "", "dials."+key, what)
			if err != nil {
				return err
			}
			d.Dials.NoticePriorTurnEvidence = b
		case "namesAndNumbers":
			if fv.Kind != yaml.MappingNode {
				return p.fail(fv, "", "dials."+key, "dial namesAndNumbers must be a mapping; write namesAndNumbers: { minDigits: 4 }")
			}
			nn := &NamesAndNumbers{}
			err := p.eachKey(fv, "", "dials."+key, what, []string{"minDigits"}, func(_ string, _, mv *yaml.Node) error {
				n, err := strconv.Atoi(mv.Value)
				if mv.Kind != yaml.ScalarNode || mv.Tag != "!!int" || err != nil || n < 1 {
					return p.fail(mv, "", "dials.namesAndNumbers.minDigits", "dial namesAndNumbers field minDigits must be a whole number of at least 1; write minDigits: 4")
				}
				nn.MinDigits = &n
				return nil
			})
			if err != nil {
				return err
			}
			d.Dials.NamesAndNumbers = nn
		}
		return nil
	})
}

// RecordingDeclarationsSource names the recording field producers may put
// declarations in.
const RecordingDeclarationsSource = "agent.run_configured.payload.integrity"

// recordingKeys are the members of an agent.run_configured payload that
// FromRecording reads: integrity, then those that say the payload is a
// producer's configuration rather than the integrity object itself.
var recordingKeys = [...]string{"integrity", "agentId", "llm", "reactMode", "memories"}

// FromRecording reads the declarations a producer put in a run's
// agent.run_configured payload under "integrity", in the same schema as a
// declarations file. It accepts the whole run_configured payload or the
// integrity object itself: a payload is recognised by its integrity key or,
// without one, by the manifest keys every run_configured payload carries
// (agentId, llm, reactMode, memories). It returns nil, nil when nothing is
// declared, which is what agentfootprint 9.62.0 always writes.
func FromRecording(payload json.RawMessage) (*Declarations, error) {
	// Picked, not decoded into a map: a run's configuration is read for
	// every run, and a million small runs each paid for a map of every
	// member of theirs. The picker keeps the last of repeated keys and
	// matches them decoded, as the map did.
	var fields [len(recordingKeys)][]byte
	if _, err := jsonfast.Fields(payload, recordingKeys[:], fields[:]); err != nil {
		// Not an object: nothing declared to read; the loader reports the
		// payload's shape.
		return nil, nil
	}
	body := []byte(payload)
	if integrity := fields[0]; integrity != nil {
		body = integrity
	} else {
		for _, v := range fields[1:] {
			if v != nil {
				return nil, nil
			}
		}
	}
	trimmed := strings.TrimSpace(string(body))
	if trimmed == "" || trimmed == "null" {
		return nil, nil
	}
	if !strings.HasPrefix(trimmed, "{") {
		return nil, &DeclarationError{Source: RecordingDeclarationsSource,
			Message: "the recording's integrity declarations are not an object; the producer must write them in the declarations schema (see docs/declarations.md)"}
	}
	return ParseDeclarations(RecordingDeclarationsSource, body)
}

// Merge combines declarations read from a recording with declarations from a
// file. Per field, the file wins; the recording fills only what the file
// does not say. Tools merge field by field (argumentsFrom,
// noticeEmptyLookups, resultColumns); a claim is one binding per answer
// field and a map one ownership list per id, so the file's entry replaces
// the recording's whole; each dial and the posture merge on their own.
// Entries only the file names come first, in file order, then entries only
// the recording names, in recording order. Either argument may be nil; the
// result never is.
func Merge(fromRecording, fromFile *Declarations) *Declarations {
	rec, file := fromRecording, fromFile
	if rec == nil {
		rec = &Declarations{}
	}
	if file == nil {
		file = &Declarations{}
	}
	out := &Declarations{Source: mergedSource(fromRecording, fromFile)}
	for _, ft := range file.Tools {
		t := ft
		t.ArgumentsFrom = cloneStrings(ft.ArgumentsFrom)
		t.ResultColumns = append([]ColumnDecl(nil), ft.ResultColumns...)
		if rt := rec.Tool(ft.Name); rt != nil {
			if t.ArgumentsFrom == nil {
				t.ArgumentsFrom = cloneStrings(rt.ArgumentsFrom)
			}
			if t.NoticeEmptyLookups == nil {
				t.NoticeEmptyLookups = rt.NoticeEmptyLookups
			}
			if len(t.ResultColumns) == 0 {
				t.ResultColumns = append([]ColumnDecl(nil), rt.ResultColumns...)
			}
		}
		if len(t.ResultColumns) == 0 {
			t.ResultColumns = nil
		}
		out.Tools = append(out.Tools, t)
	}
	for _, rt := range rec.Tools {
		if file.Tool(rt.Name) == nil {
			t := rt
			t.ArgumentsFrom = cloneStrings(rt.ArgumentsFrom)
			t.ResultColumns = append([]ColumnDecl(nil), rt.ResultColumns...)
			if len(t.ResultColumns) == 0 {
				t.ResultColumns = nil
			}
			out.Tools = append(out.Tools, t)
		}
	}
	out.Claims = append(out.Claims, file.Claims...)
	for _, rc := range rec.Claims {
		if !hasClaim(file.Claims, rc.AnswerField) {
			out.Claims = append(out.Claims, rc)
		}
	}
	for _, fm := range file.Maps {
		out.Maps = append(out.Maps, MapDecl{ID: fm.ID, Tools: cloneStrings(fm.Tools)})
	}
	for _, rm := range rec.Maps {
		if file.Map(rm.ID) == nil {
			out.Maps = append(out.Maps, MapDecl{ID: rm.ID, Tools: cloneStrings(rm.Tools)})
		}
	}
	out.Dials = file.Dials
	if out.Dials.CheckColumnTypes == "" {
		out.Dials.CheckColumnTypes = rec.Dials.CheckColumnTypes
	}
	if out.Dials.NoticeEmptyLookups == nil {
		out.Dials.NoticeEmptyLookups = rec.Dials.NoticeEmptyLookups
	}
	if out.Dials.NoticePriorTurnEvidence == nil {
		out.Dials.NoticePriorTurnEvidence = rec.Dials.NoticePriorTurnEvidence
	}
	switch {
	case out.Dials.NamesAndNumbers == nil:
		out.Dials.NamesAndNumbers = rec.Dials.NamesAndNumbers
	case out.Dials.NamesAndNumbers.MinDigits == nil && rec.Dials.NamesAndNumbers != nil:
		out.Dials.NamesAndNumbers = &NamesAndNumbers{MinDigits: rec.Dials.NamesAndNumbers.MinDigits}
	}
	out.Posture = file.Posture
	if out.Posture == "" {
		out.Posture = rec.Posture
	}
	return out
}

func mergedSource(rec, file *Declarations) string {
	switch {
	case rec != nil && file != nil:
		return file.Source + " over " + rec.Source
	case file != nil:
		return file.Source
	case rec != nil:
		return rec.Source
	}
	return "no declarations"
}

func hasClaim(cs []ClaimDecl, answer string) bool {
	for _, c := range cs {
		if c.AnswerField == answer {
			return true
		}
	}
	return false
}

func cloneStrings(ss []string) []string {
	if ss == nil {
		return nil
	}
	return append([]string(nil), ss...)
}
