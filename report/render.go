package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/fpcheck/fpcheck/checks"
)

// Renderer writes a report in one output format. Renderers only word the
// model: they never re-judge a run, and they never change the exit code.
type Renderer interface {
	Render(w io.Writer, r *Report) error
}

// RendererFunc adapts a function to Renderer.
type RendererFunc func(w io.Writer, r *Report) error

// Render calls f.
func (f RendererFunc) Render(w io.Writer, r *Report) error { return f(w, r) }

// Output format names.
const (
	FormatText     = "text"
	FormatJSON     = "json"
	FormatSARIF    = "sarif"
	FormatJUnit    = "junit"
	FormatMarkdown = "markdown"
	FormatGitHub   = "github"
	FormatJSONL    = "jsonl"
	FormatHTML     = "html"
)

// Formats lists the output formats this build renders, in display order.
// analyze and diff render the same ones.
func Formats() []string {
	return []string{FormatText, FormatJSON, FormatJSONL, FormatSARIF, FormatJUnit, FormatMarkdown, FormatGitHub, FormatHTML, FormatShort}
}

// RenderOptions are what renderers need beyond the report: text styling,
// and for the CI formats the tool's version, the directory input paths are
// made relative to, and the check descriptions.
type RenderOptions struct {
	Text TextOptions
	// ToolVersion is written into SARIF's tool.driver.version.
	ToolVersion string
	// Root is an absolute directory (the working directory, in the CLI).
	// SARIF locations and GitHub annotations name an input relative to it
	// when the input lies beneath it; "" leaves paths as given.
	Root string
	// Rules describe the registered checks, in registry order, for SARIF
	// rules and JUnit test cases; nil means RulesOf(checks.Registry).
	Rules []Rule
}

func (o RenderOptions) rules() []Rule {
	if o.Rules == nil {
		return RulesOf(checks.Registry)
	}
	return o.Rules
}

// Rule is one registered check as the CI formats describe it.
type Rule struct {
	Kind, Seam                   string
	Title, Doc, ArmedBy, Ceiling string
	Advisory                     bool
	AdvisoryWhen                 string
}

// ID is the rule's stable identifier, "kind@seam".
func (r Rule) ID() string { return checks.Key(r.Kind, r.Seam) }

// RulesOf describes a check registry.
func RulesOf(reg []*checks.Check) []Rule {
	out := make([]Rule, 0, len(reg))
	for _, c := range reg {
		out = append(out, Rule{Kind: c.Kind, Seam: c.Seam, Title: c.Title, Doc: c.Doc, ArmedBy: c.ArmedBy,
			Ceiling: c.Ceiling, Advisory: c.Advisory, AdvisoryWhen: c.AdvisoryWhen})
	}
	return out
}

// DiffFormats lists the formats a diff renders: every report format but
// HTML, whose timelines draw one report's runs, not the changes between
// two.
func DiffFormats() []string {
	return []string{FormatText, FormatJSON, FormatJSONL, FormatSARIF, FormatJUnit, FormatMarkdown, FormatGitHub, FormatShort}
}

// RendererFor returns the renderer for a format name; text options apply to
// the text format only. An unknown name is a UsageError listing the known
// ones.
func RendererFor(format string, text TextOptions) (Renderer, error) {
	return NewRenderer(format, RenderOptions{Text: text})
}

// NewRenderer returns the renderer for a format name. An unknown name is a
// UsageError listing the known ones.
func NewRenderer(format string, o RenderOptions) (Renderer, error) {
	switch format {
	case FormatText:
		return RendererFunc(func(w io.Writer, r *Report) error { return RenderText(w, r, o.Text) }), nil
	case FormatJSON:
		return RendererFunc(RenderJSON), nil
	case FormatJSONL:
		return RendererFunc(RenderJSONL), nil
	case FormatSARIF:
		return RendererFunc(func(w io.Writer, r *Report) error { return RenderSARIF(w, r, o) }), nil
	case FormatJUnit:
		return RendererFunc(func(w io.Writer, r *Report) error { return RenderJUnit(w, r, o) }), nil
	case FormatMarkdown:
		return RendererFunc(RenderMarkdown), nil
	case FormatGitHub:
		return RendererFunc(func(w io.Writer, r *Report) error { return RenderGitHub(w, r, o) }), nil
	case FormatHTML:
		return RendererFunc(func(w io.Writer, r *Report) error { return RenderHTML(w, r, o) }), nil
	case FormatShort:
		return RendererFunc(RenderShort), nil
	}
	return nil, unknownFormat(format)
}

func unknownFormat(format string) error {
	return &UsageError{Msg: fmt.Sprintf("format '%s' is not an output format; use one of: %s.",
		Sanitize(format), strings.Join(Formats(), ", "))}
}
