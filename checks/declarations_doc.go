package checks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxDeclEntries bounds the entries (keys and list items) the declarations
// may expand to, YAML aliases counted each time they are used. A real file
// has a few hundred; an alias to a list of aliases to a list of aliases
// multiplies a few kilobytes into billions.
const maxDeclEntries = 1_000_000

// readDeclDocument reads the one document of a declarations file as a YAML
// node tree. JSON is YAML, but the YAML parser refuses a JSON key longer
// than 1,024 characters (a YAML implicit key limit JSON does not have), so
// valid JSON the YAML parser refuses is read as JSON. A later document that
// says anything is refused, not ignored: what it says would silently not
// count.
func readDeclDocument(name string, data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	err := dec.Decode(&doc)
	switch {
	case errors.Is(err, io.EOF):
		return &doc, nil
	case err != nil:
		if json.Valid(data) {
			doc, jerr := jsonDocument(data)
			if jerr != nil {
				return nil, &DeclarationError{Source: name, Message: fmt.Sprintf("the declarations are JSON fpcheck cannot read (%v)", jerr)}
			}
			return doc, nil
		}
		return nil, syntaxError(name, data, err)
	}
	// Every later document is read to the end of the file: one that says
	// nothing (only comments, or null) is let be, as an empty file is, and
	// the first that says something is refused, however many empty ones
	// come before it.
	for {
		var next yaml.Node
		switch err := dec.Decode(&next); {
		case errors.Is(err, io.EOF):
			return &doc, nil
		case err != nil:
			return nil, syntaxError(name, data, err)
		case len(next.Content) > 0 && !isNull(next.Content[0]):
			return nil, &DeclarationError{Source: name, Line: next.Content[0].Line,
				Message: "a second YAML document starts here, and fpcheck reads one; merge the two into one document (delete the --- between them)"}
		}
	}
}

// syntaxError is the error of declarations the YAML parser refused with
// err. Its message leaves out the line when it is the first. A tab in the
// indentation of the line it names is the usual cause, and its message
// ("found character that cannot start any token") does not say so.
func syntaxError(name string, data []byte, err error) error {
	what := strings.TrimPrefix(err.Error(), "yaml: ")
	line := yamlErrorLine(err.Error())
	if at := max(line, 1); tabIndented(data, at) {
		return &DeclarationError{Source: name, Line: at,
			Message: fmt.Sprintf("the line is indented with a tab, and YAML indents with spaces only; replace the tab with spaces (the parser says: %s)", what)}
	}
	return &DeclarationError{Source: name, Line: line,
		Message: fmt.Sprintf("the declarations are neither valid YAML nor valid JSON (%s); fix the syntax there", what)}
}

// tabIndented reports whether line n (from 1) of data has a tab before
// its first character that is not a space or a tab.
func tabIndented(data []byte, n int) bool {
	for i := 1; i < n; i++ {
		at := bytes.IndexByte(data, '\n')
		if at < 0 {
			return false
		}
		data = data[at+1:]
	}
	for _, c := range data {
		switch c {
		case '\t':
			return true
		case ' ':
			continue
		}
		return false
	}
	return false
}

// jsonDocument builds the node tree of valid JSON, with the line of each
// value, in the shape the YAML parser gives it.
func jsonDocument(data []byte) (*yaml.Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	lines := newLineIndex(data)
	var value func() (*yaml.Node, error)
	value = func() (*yaml.Node, error) {
		at := valueStart(data, dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		n := &yaml.Node{Line: lines.line(at), Column: 1}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' {
				n.Kind, n.Tag = yaml.MappingNode, "!!map"
			} else {
				n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
			}
			for dec.More() {
				if t == '{' {
					k, err := value()
					if err != nil {
						return nil, err
					}
					n.Content = append(n.Content, k)
				}
				v, err := value()
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
		case string:
			n.Kind, n.Tag, n.Value, n.Style = yaml.ScalarNode, "!!str", t, yaml.DoubleQuotedStyle
		case json.Number:
			n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!int", t.String()
			if strings.ContainsAny(n.Value, ".eE") {
				n.Tag = "!!float"
			}
		case bool:
			n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!bool", fmt.Sprint(t)
		case nil:
			n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!null", "null"
		}
		return n, nil
	}
	root, err := value()
	if err != nil {
		return nil, err
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: 1, Column: 1, Content: []*yaml.Node{root}}, nil
}

// valueStart is the offset of the next token at or after off: past
// whitespace and the separators the decoder has not consumed yet.
func valueStart(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex []int64

func newLineIndex(data []byte) lineIndex {
	var starts lineIndex
	for i, c := range data {
		if c == '\n' {
			starts = append(starts, int64(i)+1)
		}
	}
	return starts
}

func (li lineIndex) line(off int64) int {
	lo, hi := 0, len(li)
	for lo < hi {
		mid := (lo + hi) / 2
		if li[mid] <= off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo + 1
}

// spend counts n entries read against maxDeclEntries.
func (p *declParser) spend(n *yaml.Node, count int) error {
	p.entries += count
	if p.entries > maxDeclEntries {
		return p.fail(n, "", "", "the declarations expand to more than %d entries (each use of a YAML alias counts again); write the lists out, or use fewer aliases", maxDeclEntries)
	}
	return nil
}
