package report

import (
	"bytes"
	"encoding/json"
	"io"
)

// The JSON Lines format writes one self-contained object per line, so that
// a report streams into a log pipeline or loads as a table (DuckDB's
// read_json, BigQuery's newline-delimited JSON). Each input is judged on
// its own the moment it is read: its runs' lines carry the same fields as
// the JSON report's runs, and then one line states the input. Facts that
// need every input (a run split across inputs, a conversation whose turns
// lie in several inputs) are the JSON report's; here turn and turns count
// within the input and alsoIn is empty. Copies of one run in several inputs
// are the exception, because they change what the whole counts: after the
// inputs, one "copies" line per run held in several inputs names them. The
// last line is the summary, with the exit code of the whole, which counts
// each copied run once. docs/json-schema.md ("jsonl") documents the
// lines.

// jsonlRun is a run's line: the JSON report's run object, tagged.
type jsonlRun struct {
	Type string `json:"type"`
	// Index is the input's position among the report's inputs.
	Index    int `json:"index"`
	ExitCode int `json:"exitCode"`
	jsonRun
}

type jsonlInput struct {
	Type     string `json:"type"`
	Index    int    `json:"index"`
	ExitCode int    `json:"exitCode"`
	jsonInput
}

type jsonlSummary struct {
	Type          string      `json:"type"`
	SchemaVersion int         `json:"schemaVersion"`
	Inputs        int         `json:"inputs"`
	Runs          int         `json:"runs"`
	Options       jsonOptions `json:"options"`
	Bound         string      `json:"bound"`
	ExitCode      int         `json:"exitCode"`
}

// JSONLWriter writes the JSON Lines report an input at a time.
type JSONLWriter struct {
	w    io.Writer
	opts Options
	buf  bytes.Buffer
	enc  *json.Encoder
}

// NewJSONLWriter writes lines judged with opts to w, one Write per input.
func NewJSONLWriter(w io.Writer, opts Options) *JSONLWriter {
	j := &JSONLWriter{w: w, opts: opts}
	j.enc = newJSONEncoder(&j.buf)
	return j
}

// Input judges one input alone and writes its runs' lines, then its own.
func (j *JSONLWriter) Input(in InputResult) error {
	// Declared names are held against every input together, in the
	// summary's exit code; one input alone decides nothing about them.
	o := j.opts
	o.StrictDeclarations = false
	r := Build([]InputResult{in}, o)
	j.buf.Reset()
	for i := range r.Runs {
		run := &r.Runs[i]
		if err := j.line(jsonlRun{Type: "run", Index: in.Index, ExitCode: r.Options.runCode(run), jsonRun: jsonRunOf(r, *run)}); err != nil {
			return err
		}
	}
	for i := range r.Inputs {
		if err := j.enc.Encode(jsonlInput{Type: "input", Index: in.Index, ExitCode: r.ExitCode(), jsonInput: jsonInputOf(r.Inputs[i])}); err != nil {
			return err
		}
	}
	_, err := j.w.Write(j.buf.Bytes())
	return err
}

// jsonlCopies states, once every input is read, a run that other inputs
// hold copies of (or that disagreeing copies share events with): the run
// lines of those inputs judged each alone, and the whole counts it once.
type jsonlCopies struct {
	Type      string         `json:"type"`
	RunID     string         `json:"runId"`
	Input     string         `json:"input"`
	Copies    []jsonCopy     `json:"copies"`
	Conflicts []jsonConflict `json:"disagreeing"`
}

// line encodes one line, and writes what is encoded once it passes 64 KiB:
// an input of many runs is not held encoded whole.
func (j *JSONLWriter) line(v any) error {
	if err := j.enc.Encode(v); err != nil {
		return err
	}
	if j.buf.Len() < 64<<10 {
		return nil
	}
	_, err := j.w.Write(j.buf.Bytes())
	j.buf.Reset()
	return err
}

// Summary writes the closing lines for the whole report r: the copies of
// runs across inputs, then the summary.
func (j *JSONLWriter) Summary(r *Report) error {
	j.buf.Reset()
	for i := range r.Runs {
		run := &r.Runs[i]
		if len(run.Copies)+len(run.Conflicts) == 0 {
			continue
		}
		if err := j.line(jsonlCopies{Type: "copies", RunID: run.RunID, Input: run.Input,
			Copies: jsonCopiesOf(run.Copies), Conflicts: jsonConflictsOf(run.Conflicts)}); err != nil {
			return err
		}
	}
	if err := j.enc.Encode(jsonlSummary{
		Type: "summary", SchemaVersion: r.SchemaVersion, Inputs: len(r.Inputs), Runs: len(r.Runs),
		Options: jsonOptionsOf(r.Options), Bound: Bound, ExitCode: r.ExitCode(),
	}); err != nil {
		return err
	}
	_, err := j.w.Write(j.buf.Bytes())
	return err
}

// RenderJSONL writes the report as JSON Lines: what a stream of its inputs
// gives, line for line.
func RenderJSONL(w io.Writer, r *Report) error {
	if r.taken {
		return errNoSources
	}
	j := NewJSONLWriter(w, r.Options)
	for _, in := range r.Sources {
		if err := j.Input(in); err != nil {
			return err
		}
	}
	return j.Summary(r)
}

type jsonlRunDiff struct {
	Type string `json:"type"`
	// Name is the pair of inputs the run pair belongs to.
	Name string `json:"name"`
	jsonRunDiff
}

type jsonlInputDiff struct {
	Type        string           `json:"type"`
	Name        string           `json:"name"`
	Base        *string          `json:"base"`
	Head        *string          `json:"head"`
	BaseError   *string          `json:"baseError"`
	HeadError   *string          `json:"headError"`
	Runs        int              `json:"runs"`
	Regressions []jsonRegression `json:"regressions"`
	Totals      jsonDiffTotals   `json:"totals"`
	ExitCode    int              `json:"exitCode"`
}

type jsonlDiffSummary struct {
	Type          string          `json:"type"`
	SchemaVersion int             `json:"schemaVersion"`
	Report        string          `json:"report"`
	Base          string          `json:"base"`
	Head          string          `json:"head"`
	Totals        jsonDiffTotals  `json:"totals"`
	Options       jsonDiffOptions `json:"options"`
	Bound         string          `json:"bound"`
	ExitCode      int             `json:"exitCode"`
}

// RenderDiffJSONL writes the diff as JSON Lines: per pair of inputs a line
// for each pair of runs (the JSON diff's run pair, with the inputs' name),
// then one for the inputs; last, the summary with the totals and the exit
// code.
func RenderDiffJSONL(w io.Writer, d *Diff) error {
	doc := jsonDiffOf(d)
	enc := newJSONEncoder(w)
	for _, in := range doc.Inputs {
		for _, rd := range in.Runs {
			if err := enc.Encode(jsonlRunDiff{Type: "run", Name: in.Name, jsonRunDiff: rd}); err != nil {
				return err
			}
		}
		if err := enc.Encode(jsonlInputDiff{Type: "input", Name: in.Name, Base: in.Base, Head: in.Head, BaseError: in.BaseError,
			HeadError: in.HeadError, Runs: len(in.Runs), Regressions: in.Regressions, Totals: in.Totals, ExitCode: in.ExitCode}); err != nil {
			return err
		}
	}
	return enc.Encode(jsonlDiffSummary{Type: "summary", SchemaVersion: doc.SchemaVersion, Report: doc.Report, Base: doc.Base, Head: doc.Head,
		Totals: doc.Totals, Options: doc.Options, Bound: doc.Bound, ExitCode: doc.ExitCode})
}
