package report

import (
	"fmt"
	"github.com/fpcheck/fpcheck/checks"
	"slices"
	"strings"
)

// Gate levels for Options.FailOn, from least to most sensitive. Each level
// includes the ones before it: "advisory" also fails on defects, "drift"
// also fails on advisories and defects.
const (
	FailOnDefect   = "defect"
	FailOnAdvisory = "advisory"
	FailOnDrift    = "drift"
)

// Exit codes, the one mapping shared by every output format. See ExitCode
// for how several inputs and runs combine.
const (
	// ExitGreen is a bounded green: every input was read, every run's
	// checks ran, and nothing at or above the gate level was found.
	ExitGreen = 0
	// ExitDefects means a run carries a defect at or above the gate level,
	// or its ledger proves findings its events no longer carry.
	ExitDefects = 1
	// ExitUnreadable means an input could not be read (or the invocation
	// was wrong: the CLI uses the same code for a UsageError).
	ExitUnreadable = 2
	// ExitUnmeasured means some run has no evidence that its checks ran:
	// no event tail, no integrity events, no ledger, no check registered,
	// nothing checked, or a registered check that never ran.
	ExitUnmeasured = 3
)

// Options selects what a report lists and how its exit code gates.
type Options struct {
	// Kind keeps only findings of this kind in the listed findings ("" =
	// all). Ledger rows, evidence-missing detection and the exit code ignore
	// it: a filter changes what is shown, never what is judged.
	Kind string
	// Limit caps the listed findings per run (0 = all); the rest are
	// counted on an overflow line.
	Limit int
	// FailOn is the gate level: FailOnDefect (the default when empty),
	// FailOnAdvisory or FailOnDrift.
	FailOn string
	// AllowUnmeasured turns the unmeasured exit code into a green one. The
	// verdict still says unmeasured.
	AllowUnmeasured bool
	// AllowDamaged turns the exit code of a run unmeasured only for its
	// damaged evidence (and of an input that lost a run whole) into a green
	// one. The verdict still says unmeasured.
	AllowDamaged bool
	// Declared is the declarations file, held against the recordings
	// (nil = none given); DeclaredNames are the places it names a tool,
	// with their lines. StrictDeclarations makes a name no run showed exit
	// 2.
	Declared           *checks.Declarations
	DeclaredNames      []checks.NamedTool
	StrictDeclarations bool
	// FilableKinds are the kinds some registered check in this build can
	// file, in registry order. They come from the checks registry so that
	// the report does not hard-code them.
	FilableKinds []string
	// KnownKinds are every kind the finding type names, filable or not.
	KnownKinds []string
	// Baseline accepts findings by identity (nil = none): an accepted
	// finding is listed, marked, and neither counted nor gated; an expired
	// entry accepts nothing.
	Baseline *Baseline
	// ExplainFlags are the flags the report was made with that change what
	// a replay judges (--declarations, --posture, in order), so that the
	// explain command printed for each finding replays what was reported.
	ExplainFlags []string
	// Today is the UTC date (YYYY-MM-DD) baseline expiry is judged
	// against. The CLI sets it; empty judges no entry expired.
	Today string
}

// failOn returns the effective gate level.
func (o Options) failOn() string {
	if o.FailOn == "" {
		return FailOnDefect
	}
	return o.FailOn
}

// UsageError is an invocation the report cannot answer honestly; the CLI
// exits 2 with its message.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ValidateKind checks a --kind value before anything is read. A kind no
// check in this build can file is refused rather than answered: a filtered
// report that lists nothing would read as "none found", while in truth
// nothing ever looked.
func ValidateKind(kind string, opts Options) error {
	if kind == "" || slices.Contains(opts.FilableKinds, kind) {
		return nil
	}
	filable := strings.Join(opts.FilableKinds, ", ")
	if filable == "" {
		filable = "(none)"
	}
	if slices.Contains(opts.KnownKinds, kind) {
		return &UsageError{Msg: fmt.Sprintf(
			"kind '%s' is named by the finding type, but no check in this build can file it: nothing ever looks for one, so silence about it is not evidence of its absence. Kinds this build can file: %s.",
			Sanitize(kind), filable)}
	}
	return &UsageError{Msg: fmt.Sprintf(
		"kind '%s' is not a finding kind: no check files anything under that name, so a report filtered by it would say nothing about the run. Kinds this build can file: %s.",
		Sanitize(kind), filable)}
}

// ValidateOptions checks every option the CLI passes through: the kind, the
// gate level and the limit.
func ValidateOptions(opts Options) error {
	switch opts.FailOn {
	case "", FailOnDefect, FailOnAdvisory, FailOnDrift:
	default:
		return &UsageError{Msg: fmt.Sprintf("fail-on '%s' is not a gate level; use %s, %s or %s.",
			Sanitize(opts.FailOn), FailOnDefect, FailOnAdvisory, FailOnDrift)}
	}
	if opts.Limit < 0 {
		return &UsageError{Msg: fmt.Sprintf("limit %d is negative; use 0 to list every finding.", opts.Limit)}
	}
	return ValidateKind(opts.Kind, opts)
}
