package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/report"
)

// ExitCode is fpcheck's process status. The values are a public contract:
// CI pipelines gate on them, so they never change meaning.
type ExitCode int

const (
	// ExitGreen: bounded green — checks ran and nothing at or above
	// --fail-on was found.
	ExitGreen ExitCode = 0
	// ExitDefects: a defect was found (or, for diff, a regression).
	ExitDefects ExitCode = 1
	// ExitUsage: bad usage, declarations fpcheck cannot honour, or an
	// input it cannot read.
	ExitUsage ExitCode = 2
	// ExitUnmeasured: no evidence, nothing checked, a registered check
	// that never ran, or a dead checker — unless --allow-unmeasured.
	ExitUnmeasured ExitCode = 3
	// ExitInternal: fpcheck itself failed (a bug); the message asks for a
	// report.
	ExitInternal ExitCode = 4
)

const exitCodesHelp = `Exit codes (the same whatever --format says):
  0  bounded green: checks ran and no defect at or above --fail-on was found
  1  defects (for diff: a new defect or a coverage regression)
  2  usage, declarations fpcheck cannot honour (with --strict-declarations,
     a declared tool no run offered or called), or an unreadable input
  3  unmeasured: no evidence, nothing checked, a registered check that never
     ran, a dead checker, or damaged evidence (lines lost that may have been
     a run's own) (unless --allow-unmeasured; damage alone: --allow-damaged)
  4  internal error in fpcheck itself (please report it)`

// StatusError carries a decided exit code out of a command whose output has
// already been written.
type StatusError struct{ Code ExitCode }

func (e *StatusError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// FlagError is a usage mistake: the message is printed with a pointer to
// --help.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

func flagErrorf(format string, a ...any) error {
	return &FlagError{Err: fmt.Errorf(format, a...)}
}

// exitCodeOf is the one place errors become exit codes.
func exitCodeOf(err error) ExitCode {
	if err == nil {
		return ExitGreen
	}
	if se, ok := errors.AsType[*StatusError](err); ok {
		return se.Code
	}
	if _, ok := errors.AsType[*checks.CheckerDeadError](err); ok {
		return ExitUnmeasured
	}
	if _, ok := errors.AsType[*FlagError](err); ok {
		return ExitUsage
	}
	if _, ok := errors.AsType[*report.UsageError](err); ok {
		return ExitUsage
	}
	if _, ok := errors.AsType[*checks.DeclarationError](err); ok {
		return ExitUsage
	}
	if _, ok := errors.AsType[*recording.InputError](err); ok {
		return ExitUsage
	}
	// Anything else is an input or environment failure we could not get
	// past (an unreadable file, a closed pipe): usage/unreadable.
	return ExitUsage
}

// needInputs is the argument rule of every command that reads one or more
// inputs: none at all is a usage error worded by the command.
func needInputs(sentence string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) == 0 {
			return flagErrorf("%s", sentence)
		}
		return nil
	}
}
