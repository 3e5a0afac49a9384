package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fpcheck/fpcheck/report"
	"github.com/spf13/cobra"
)

// outputFlags are --format (what goes to stdout) and the repeatable
// --output FORMAT=PATH (more renderings of the same result, to files or,
// with PATH "-", to stdout in place of --format). Every rendering comes from
// one model, so they all carry the same counts and the exit code does not
// depend on them.
type outputFlags struct {
	Format  string
	Outputs []string
	// Width, Ledger and Quiet shape the text format (see
	// report.TextOptions); Width is -1 until textWidth decides it.
	Width         int
	Ledger, Quiet bool
	cmd           *cobra.Command
	// formats are the formats the command renders.
	formats []string
}

// outputSpec is one rendering: a format and where it goes ("-" = stdout),
// and for text its shape.
type outputSpec struct {
	Format, Path string
	Text         report.TextOptions
}

func addOutputFlags(cmd *cobra.Command, o *outputFlags, known []string) {
	o.cmd, o.formats = cmd, known
	f := cmd.Flags()
	formats := strings.Join(known, ", ")
	onceFlag(cmd, &o.Format, "format", report.FormatText, "format written to stdout: "+formats)
	f.StringArrayVar(&o.Outputs, "output", nil, "also write FORMAT to PATH, as FORMAT=PATH (repeatable; PATH - is stdout, in place of --format)")
	addWidthFlag(cmd, &o.Width)
	f.BoolVar(&o.Ledger, "ledger", false, "text: show every run's full ledgers and notes (an unmeasured run's are always shown)")
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "text: print only the findings and the result line")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(known, cobra.ShellCompDirectiveNoFileComp))
}

// specs validates the flags and lists the renderings, stdout first. Two
// renderings to one place, or an unknown format, is a usage error.
func (o *outputFlags) specs() ([]outputSpec, error) {
	if !slices.Contains(o.formats, o.Format) {
		return nil, flagErrorf("--format must be one of %s, not %q", strings.Join(o.formats, ", "), o.Format)
	}
	if o.cmd != nil {
		if err := checkWidth(o.cmd, &o.Width); err != nil {
			return nil, err
		}
	}
	text := report.TextOptions{Width: o.Width, Ledger: o.Ledger, Quiet: o.Quiet}
	var extra []outputSpec
	toStdout := false
	var seen []string
	for _, v := range o.Outputs {
		format, path, ok := strings.Cut(v, "=")
		if !ok || format == "" || path == "" {
			return nil, flagErrorf("--output takes FORMAT=PATH (for example sarif=fpcheck.sarif), not %q", v)
		}
		if !slices.Contains(o.formats, format) {
			return nil, flagErrorf("--output %s: format must be one of %s, not %q", v, strings.Join(o.formats, ", "), format)
		}
		if slices.ContainsFunc(seen, func(p string) bool { return samePlace(p, path) }) {
			return nil, flagErrorf("--output %s: %s is already written by another --output", v, path)
		}
		seen = append(seen, path)
		if path == "-" {
			toStdout = true
		}
		extra = append(extra, outputSpec{Format: format, Path: path, Text: text})
	}
	formatSet := o.cmd != nil && o.cmd.Flags().Changed("format")
	if toStdout && formatSet {
		return nil, flagErrorf("--format %s and --output FORMAT=- would both write to stdout; drop one", o.Format)
	}
	var out []outputSpec
	if !toStdout {
		out = append(out, outputSpec{Format: o.Format, Path: "-", Text: text})
	}
	// Stdout first, so a person watching sees the result before files are
	// written; the files then follow in flag order.
	slices.SortStableFunc(extra, func(a, b outputSpec) int {
		switch {
		case a.Path == "-" && b.Path != "-":
			return -1
		case a.Path != "-" && b.Path == "-":
			return 1
		}
		return 0
	})
	return append(out, extra...), nil
}

// checkWritable fails before any work when an output file cannot be
// created, without truncating one that exists. Missing parent directories
// are created: CI jobs name result paths like results/fpcheck.sarif.
func checkWritable(specs []outputSpec) error {
	for _, s := range specs {
		if s.Path == "-" {
			continue
		}
		if dir := filepath.Dir(s.Path); dir != "." {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("cannot write the %s output: %w", s.Format, err)
			}
		}
		f, err := os.OpenFile(s.Path, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("cannot write the %s output: %w", s.Format, err)
		}
		_ = f.Close()
	}
	return nil
}

// renderOptions are the render settings every command shares.
func renderOptions(text report.TextOptions) report.RenderOptions {
	root, _ := os.Getwd()
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	return report.RenderOptions{
		Text:        text,
		ToolVersion: buildVersion(),
		Root:        root,
	}
}

// writeOutputs renders each spec with render, stdout first. Colour is for
// text on stdout only; machine formats and files never carry it.
func writeOutputs(ios *IOStreams, specs []outputSpec, colorMode string, render func(w io.Writer, format string, o report.RenderOptions) error) error {
	for _, s := range specs {
		text := s.Text
		if s.Path == "-" {
			text.Color = ios.colorEnabled(colorMode) && s.Format == report.FormatText
			text.Width = textWidth(ios, text.Width)
			o := renderOptions(text)
			if err := renderBuffered(ios.Out, s.Format, o, render); err != nil {
				return err
			}
			continue
		}
		f, err := os.Create(s.Path)
		if err != nil {
			return fmt.Errorf("cannot write the %s output: %w", s.Format, err)
		}
		// A file is not a terminal: it wraps at 80 unless --width says.
		if text.Width < 0 {
			text.Width = defaultWidth
		}
		err = renderBuffered(f, s.Format, renderOptions(text), render)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", s.Path, err)
		}
	}
	return nil
}

// writeReport renders rep in every spec.
func writeReport(ios *IOStreams, specs []outputSpec, colorMode string, rep *report.Report) error {
	err := writeOutputs(ios, specs, colorMode, func(w io.Writer, format string, ro report.RenderOptions) error {
		r, err := report.NewRenderer(format, ro)
		if err != nil {
			return err
		}
		return r.Render(w, rep)
	})
	if err != nil {
		return err
	}
	// A machine format on stdout says nothing a CI log shows: stderr does.
	textOnStdout := slices.ContainsFunc(specs, func(s outputSpec) bool { return s.Path == "-" && s.Format == report.FormatText })
	for _, line := range rep.StderrLines(textOnStdout) {
		fmt.Fprintln(ios.ErrOut, line)
	}
	return nil
}

// renderBuffered renders through a buffer: the text renderer writes a line
// at a time, which to a pipe or a terminal is a system call per line. Every
// report, to a file as to stdout, passes the CI log guard (report.LogSafe):
// a file may be printed into a log later, and --output must write what
// --format does.
func renderBuffered(w io.Writer, format string, o report.RenderOptions, render func(w io.Writer, format string, o report.RenderOptions) error) error {
	bw := bufio.NewWriterSize(report.LogSafe(w, format), 64<<10)
	err := render(bw, format, o)
	// What was rendered before a failure is written all the same, as it
	// was unbuffered.
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

// progressAfter and progressMinInputs decide when loading is long enough
// to show progress: more than four inputs, or still working after a
// second.
const (
	progressAfter     = time.Second
	progressMinInputs = 5
	progressTick      = 200 * time.Millisecond
)

// loadInputs runs the pipeline over every input. When stderr is a terminal
// and the work is long, it shows a one-line counter there, erased when the
// work is done; nothing is written otherwise, so CI logs and tests never see
// it. Results are in input order either way.
func loadInputs(p *pipeline, inputs []string, ios *IOStreams) []report.InputResult {
	if !ios.ErrTTY || len(inputs) < 2 {
		return p.run(inputs, ios, nil)
	}
	var done atomic.Int64
	stop := startProgress(ios.ErrOut, len(inputs), &done)
	defer stop()
	return p.run(inputs, ios, func() { done.Add(1) })
}

// startProgress draws the counter on w until stop is called.
func startProgress(w io.Writer, total int, done *atomic.Int64) (stop func()) {
	quit := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	pr := &progress{w: w, total: total}
	go func() {
		defer close(finished)
		tick := time.NewTicker(progressTick)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				pr.finish()
				return
			case <-tick.C:
				pr.tick(int(done.Load()), time.Since(start))
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
	}
}

// progress is the counter's state, apart from the clock so that tests can
// drive it.
type progress struct {
	w     io.Writer
	total int
	shown bool
}

// tick redraws the counter once the work counts as long: more than four
// inputs, or a second gone.
func (p *progress) tick(done int, elapsed time.Duration) {
	if p.total < progressMinInputs && elapsed < progressAfter {
		return
	}
	fmt.Fprintf(p.w, "\rfpcheck: read %d of %d recordings…", done, p.total)
	p.shown = true
}

// finish erases the counter, if it was ever drawn, so the report that
// follows on a shared terminal starts on a clean line.
func (p *progress) finish() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
