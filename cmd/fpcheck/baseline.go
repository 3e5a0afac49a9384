package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/internal/objstore"
	"github.com/fpcheck/fpcheck/report"
	"github.com/spf13/cobra"
)

// BaselineWriteOptions are `baseline write`'s parsed flags.
type BaselineWriteOptions struct {
	IO       *IOStreams
	Inputs   []string
	Output   string
	Reason   string
	Expires  string
	Previous string
	Load     loadOptions
}

// NewCmdBaseline builds `fpcheck baseline`, whose one subcommand writes a
// baseline of accepted findings.
func NewCmdBaseline(ios *IOStreams, runF func(*BaselineWriteOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "baseline",
		Short: "Write a baseline of accepted findings for --baseline",
		Long: `A baseline lists findings that are already known and accepted, by identity
(kind, seam, sorted subjects and predicate; the epoch is left out, so one
entry accepts the same defect at any iteration) and class: an entry accepts
the advisory of its identity or its defect, never both, so a doubt accepted
once does not accept the contradiction that shares its identity. analyze and diff given
--baseline FILE list an accepted finding, marked BASELINED, and do not fail
on it; an entry past its expiry date fails again, and an entry no finding
matches any more is reported as stale.

The file is versioned JSON, sorted by identity:

  {"version": 2, "entries": [
    {"identity": "...", "kind": "...", "seam": "...", "advisory": false,
     "reason": "...", "expires": "YYYY-MM-DD"}
  ]}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return flagErrorf("baseline needs a subcommand: 'fpcheck baseline write RECORDING...'")
		},
	}
	cmd.AddCommand(newCmdBaselineWrite(ios, runF))
	return cmd
}

func newCmdBaselineWrite(ios *IOStreams, runF func(*BaselineWriteOptions) error) *cobra.Command {
	o := &BaselineWriteOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "write [flags] RECORDING...",
		Short: "Accept every finding the recordings carry, as a baseline file",
		Long: `write analyzes the recordings as analyze does (recorded and replayed
evidence, every kind, no limit) and writes a baseline accepting each real
finding found, defects and advisories alike; synthetic canaries are never
baselined. The baseline goes to stdout, or to -o FILE.

With --baseline OLD, entries still found keep OLD's reason and expiry, and
OLD's stale entries are dropped.

Exit codes: 0 when the baseline was written; 2 for bad usage or when an
input cannot be read whole, a run of it stopped at a limit or lost
(nothing is written then: a baseline of part of the evidence would accept
too little).`,
		Args: needInputs("baseline write needs at least one recording (a path, a directory, or - for stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Inputs = args
			if o.Expires != "" {
				if _, err := time.Parse(time.DateOnly, o.Expires); err != nil {
					return flagErrorf("--expires must be a date of the form YYYY-MM-DD, not %q", o.Expires)
				}
			}
			if runF != nil {
				return runF(o)
			}
			return baselineWriteRun(o)
		},
	}
	f := cmd.Flags()
	o.Output = ""
	f.VarP(&onceValue{p: &o.Output}, "output", "o", "write the baseline to FILE instead of stdout")
	onceFlagEmptyOK(cmd, &o.Reason, "reason", "", "reason given to every new entry")
	onceFlag(cmd, &o.Expires, "expires", "", "expiry date (YYYY-MM-DD) given to every new entry; from that date its finding fails again")
	onceFlag(cmd, &o.Previous, "baseline", "", "an existing baseline whose reasons and expiry dates are kept for entries still found")
	addLoadFlags(cmd, &o.Load)
	return cmd
}

func baselineWriteRun(o *BaselineWriteOptions) error {
	var prev *report.Baseline
	if o.Previous != "" {
		b, err := loadBaseline(o.Previous, report.ParsePreviousBaseline)
		if err != nil {
			return err
		}
		prev = b
	}
	// Inputs are found and read as analyze finds and reads them, so a
	// directory that analyze gates is one a baseline can be written of: a
	// walked file that is no recording is skipped with a line, not fatal.
	store := objstore.New()
	entries, excluded, err := expandExcluding(o.Inputs, o.Load.Exclude, o.IO, store, false, 0)
	if err != nil {
		return err
	}
	// The previous baseline may be written over (that is how one is
	// refreshed); a recording or the declarations may not.
	if o.Output != "" {
		if err := refuseOverwrite([]written{{"--output " + safeName(o.Output), o.Output}}, entryPaths(entries), o.Load.Declarations); err != nil {
			return err
		}
	}
	j, err := loadEntries(entries, o.Load, o.IO, store, nil)
	if err != nil {
		return err
	}
	rep := report.Build(j.inputs, report.Options{FilableKinds: checks.FilableKinds(), KnownKinds: checks.KnownKinds()})
	leaveOut(rep, excluded)
	for _, sk := range rep.Skipped {
		fmt.Fprintln(o.IO.ErrOut, sk.StderrLine())
	}
	if missing := evidenceMissing(rep); len(missing) > 0 {
		return fmt.Errorf("no baseline written: %w", errors.Join(missing...))
	}
	b := report.NewBaseline(rep, report.BaselineOptions{Reason: o.Reason, Expires: o.Expires, Previous: prev})
	var buf bytes.Buffer
	if err := b.Encode(&buf); err != nil {
		return err
	}
	if o.Output == "" {
		_, err := report.LogSafe(o.IO.Out, report.FormatJSON).Write(buf.Bytes())
		return err
	}
	if err := writeJSONFile(o.Output, buf.Bytes()); err != nil {
		return fmt.Errorf("writing the baseline: %w", err)
	}
	fmt.Fprintf(o.IO.ErrOut, "fpcheck: wrote %s with %d %s\n", report.Sanitize(o.Output), len(b.Entries), plural(len(b.Entries), "entry", "entries"))
	return nil
}

// loadBaseline reads --baseline FILE. A missing, unreadable or malformed
// file is a BaselineError (exit 2): a gate that silently ran without its
// baseline would fail on every accepted finding, or worse, pass.
// acceptBaseline loads the --baseline file, when one is named, into opts.
func acceptBaseline(opts *report.Options, path string) error {
	if path == "" {
		return nil
	}
	b, err := loadBaseline(path, report.ParseBaseline)
	if err != nil {
		return err
	}
	opts.Baseline, opts.Today = b, today()
	return nil
}

func loadBaseline(path string, parse func(string, []byte) (*report.Baseline, error)) (*report.Baseline, error) {
	data, err := readSmallFile(path, "baseline")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &report.BaselineError{Path: path, Msg: fmt.Sprintf("cannot read it: %v", err)}
	}
	return parse(path, data)
}

// writeBaselineFile writes the baseline a report implies, for analyze
// --write-baseline.
func writeBaselineFile(path string, rep *report.Report, prev *report.Baseline) error {
	var buf bytes.Buffer
	if err := report.NewBaseline(rep, report.BaselineOptions{Previous: prev}).Encode(&buf); err != nil {
		return err
	}
	if err := writeJSONFile(path, buf.Bytes()); err != nil {
		return fmt.Errorf("writing the baseline: %w", err)
	}
	return nil
}

// writeJSONFile writes JSON through the CI log guard, as every report is
// written (report.LogSafe): a baseline names what recordings hold, and may
// be printed into a log.
func writeJSONFile(path string, data []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = report.LogSafe(f, report.FormatJSON).Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// evidenceMissing says what of the report's evidence was not read: an
// input unreadable past a point, a run stopped at a limit, runs lost
// whole. A baseline written without it accepts too little (the next gate
// fails on what it left out) and a refresh drops its entries' reasons.
func evidenceMissing(rep *report.Report) []error {
	var missing []error
	for _, in := range rep.Inputs {
		if in.Error != "" {
			missing = append(missing, errors.New(report.Sanitize(in.Error)))
		}
		for _, sr := range in.StoppedRuns {
			missing = append(missing, fmt.Errorf("%s: run %s stopped at a limit: %s", report.Sanitize(in.Path), report.Sanitize(sr.RunID), report.Sanitize(sr.Message)))
		}
		if n := len(in.LostRuns); n > 0 {
			missing = append(missing, fmt.Errorf("%s: %d %s lost whole (lines that did not decode name them)", report.Sanitize(in.Path), n, plural(n, "run", "runs")))
		}
	}
	return missing
}

// today is the UTC date baseline expiry is judged against.
func today() string {
	return time.Now().UTC().Format(time.DateOnly)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
