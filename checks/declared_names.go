package checks

import (
	"go.yaml.in/yaml/v3"
)

// NamedTool is one place the declarations name a tool: what a report holds
// against the tools the recordings show, so that a typo in a name, which
// quietly disarms a check, is told like a typo in a key.
type NamedTool struct {
	Name string
	// Field says where: "tools" (the tool's own entry),
	// "tools.NAME.argumentsFrom" or "maps.ID.tools".
	Field string
	// Line is the 1-based line in the declarations file; 0 when unknown.
	Line int
}

// ToolNames lists each tool the declarations name once, at the first place
// it is named, in declaration order: each tool's own entry, then the tools
// its arguments come from, then each map's tools. Once, because a YAML
// alias names a list again wherever it is used: a few kilobytes of them
// name one tool hundreds of thousands of times, and a report that told
// each would say the same sentence as often.
func (d *Declarations) ToolNames() []NamedTool {
	if d == nil {
		return nil
	}
	var out []NamedTool
	seen := map[string]bool{}
	add := func(name, field string) {
		if !seen[name] {
			seen[name] = true
			out = append(out, NamedTool{Name: name, Field: field})
		}
	}
	for _, t := range d.Tools {
		add(t.Name, "tools")
		for _, g := range t.ArgumentsFrom {
			add(g, "tools."+t.Name+".argumentsFrom")
		}
	}
	for _, m := range d.Maps {
		for _, t := range m.Tools {
			add(t, "maps."+m.ID+".tools")
		}
	}
	return out
}

// PlaceToolNames puts each of names on its line in data, the declarations
// file ParseDeclarations read them from. A name it cannot place keeps line
// 0: the place is a help for the reader, never a judgement.
func PlaceToolNames(names []NamedTool, data []byte) []NamedTool {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return names
	}
	root := derefNode(doc.Content[0])
	out := make([]NamedTool, len(names))
	for i, n := range names {
		n.Line = placeName(root, n)
		out[i] = n
	}
	return out
}

func placeName(root *yaml.Node, n NamedTool) int {
	tools := mapValue(root, "tools")
	switch {
	case n.Field == "tools":
		if k := mapKey(tools, n.Name); k != nil {
			return k.Line
		}
	case len(n.Field) > len("tools..argumentsFrom") && n.Field[:6] == "tools.":
		tool := n.Field[len("tools.") : len(n.Field)-len(".argumentsFrom")]
		if line := seqLine(mapValue(mapValue(tools, tool), "argumentsFrom"), n.Name); line > 0 {
			return line
		}
	case len(n.Field) > len("maps..tools") && n.Field[:5] == "maps.":
		id := n.Field[len("maps.") : len(n.Field)-len(".tools")]
		maps := mapValue(root, "maps")
		if maps == nil || maps.Kind != yaml.SequenceNode {
			return 0
		}
		for _, m := range maps.Content {
			m = derefNode(m)
			if v := mapValue(m, "id"); v != nil && v.Value == id {
				return seqLine(mapValue(m, "tools"), n.Name)
			}
		}
	}
	return 0
}

func derefNode(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// mapEntry returns the key and value nodes of key in mapping m, or nils.
func mapEntry(m *yaml.Node, key string) (k, v *yaml.Node) {
	if m = derefNode(m); m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], derefNode(m.Content[i+1])
		}
	}
	return nil, nil
}

func mapKey(m *yaml.Node, key string) *yaml.Node {
	k, _ := mapEntry(m, key)
	return k
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	_, v := mapEntry(m, key)
	return v
}

func seqLine(s *yaml.Node, name string) int {
	if s == nil || s.Kind != yaml.SequenceNode {
		return 0
	}
	for _, c := range s.Content {
		if c = derefNode(c); c.Value == name {
			return c.Line
		}
	}
	return s.Line
}
