package report

import (
	"fmt"
	"io"
	"strings"
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

// Formats lists the output formats this build renders, in display order.
func Formats() []string { return []string{"text", "json"} }

// RendererFor returns the renderer for a format name; text options apply to
// the text format only. An unknown name is a UsageError listing the known
// ones.
func RendererFor(format string, text TextOptions) (Renderer, error) {
	switch format {
	case "text":
		return RendererFunc(func(w io.Writer, r *Report) error { return RenderText(w, r, text) }), nil
	case "json":
		return RendererFunc(RenderJSON), nil
	}
	return nil, &UsageError{Msg: fmt.Sprintf("format '%s' is not an output format; use one of: %s.",
		Sanitize(format), strings.Join(Formats(), ", "))}
}
