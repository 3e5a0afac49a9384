package checks

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Registry is every check fpcheck runs, in the order their ledger rows are
// reported. Adding a check means adding its descriptor here; Validate keeps
// the list honest.
var Registry = []*Check{
	WireInvariant,
	ComposeInvariant,
	DanglingReference,
	UnsupportedArgument,
	UnsupportedClaim,
	PriorTurnEvidence,
	EmptyLookup,
	ColumnTypeMismatch,
	MissingColumn,
}

// FilableKinds returns the distinct kinds the registry can file, in
// registry order.
func FilableKinds() []string {
	var out []string
	for _, c := range Registry {
		if !contains(out, c.Kind) {
			out = append(out, c.Kind)
		}
	}
	return out
}

// KnownKinds returns every kind a finding can name: the filable kinds, then
// duplicate-execution, which the finding type names but no check files.
// Readers must withhold it from menus and refuse questions about it rather
// than imply that silence means absence.
func KnownKinds() []string {
	return append(FilableKinds(), KindDuplicateExecution)
}

// Validate refuses a registry fpcheck could not report honestly: a repeated
// kind@seam, a missing title, doc, ceiling or arming text, a title that
// breaks the one-line rule, a missing arming predicate or canary, or a hook
// that does not match the check's seam.
func Validate(reg []*Check) error {
	var errs []error
	seen := map[string]bool{}
	for i, c := range reg {
		if c == nil {
			errs = append(errs, fmt.Errorf("registry entry %d is nil", i))
			continue
		}
		key := c.Key()
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
		}
		if c.Kind == "" || c.Seam == "" {
			bad("kind and seam must both be set")
		}
		if seen[key] {
			bad("registered twice")
		}
		seen[key] = true
		switch {
		case c.Title == "":
			bad("no title")
		case utf8.RuneCountInString(c.Title) > 60, strings.HasSuffix(c.Title, "."), strings.Contains(c.Title, "\n"), strings.ToLower(c.Title) != c.Title:
			bad("title %q must be one lowercase line of at most 60 characters without a period", c.Title)
		}
		if strings.TrimSpace(c.Doc) == "" {
			bad("no doc")
		}
		if strings.TrimSpace(c.Ceiling) == "" {
			bad("no ceiling")
		}
		if strings.TrimSpace(c.ArmedBy) == "" {
			bad("no armed-by text")
		}
		if c.Armed == nil {
			bad("no arming predicate")
		}
		if c.Canary == nil {
			bad("no canary")
		}
		hooks := map[string]bool{
			SeamCompose: c.OnCompose != nil,
			SeamWire:    c.OnWire != nil,
			SeamChoice:  c.OnChoice != nil,
			SeamClaim:   c.OnClaim != nil,
			SeamWrite:   c.OnWrite != nil,
		}
		n := 0
		for _, set := range hooks {
			if set {
				n++
			}
		}
		if !hooks[c.Seam] || n != 1 {
			bad("must set exactly one hook, the one of the %s seam", c.Seam)
		}
	}
	return errors.Join(errs...)
}

// Describe renders the registry as the markdown of docs/checks.md, so the
// documentation and the checks cannot drift.
func Describe(reg []*Check) string {
	var b strings.Builder
	b.WriteString("# Checks\n\n")
	b.WriteString("<!-- Generated from the check registry (checks.Describe); edit the descriptors, then run `go test ./checks -update`. -->\n\n")
	b.WriteString("fpcheck replays every run of a recording through these checks, in this order. Every registered check\n")
	b.WriteString("has a ledger row in every run; a check its declarations do not arm files one `not-applicable` at run\n")
	b.WriteString("start. A green result means no registered check found a defect, not that no context error exists.\n\n")
	b.WriteString("| kind | seam | armed by | advisory |\n|---|---|---|---|\n")
	for _, c := range reg {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", c.Kind, c.Seam, c.ArmedBy, advisoryCell(c))
	}
	fmt.Fprintf(&b, "| `%s` | — | no check exists: withheld from menus, questions about it refused | — |\n", KindDuplicateExecution)
	for _, c := range reg {
		fmt.Fprintf(&b, "\n## `%s` @%s — %s\n\n", c.Kind, c.Seam, c.Title)
		fmt.Fprintf(&b, "- **Armed by:** %s\n", c.ArmedBy)
		fmt.Fprintf(&b, "- **Advisory:** %s\n", advisoryText(c))
		if c.Unfed != "" {
			fmt.Fprintf(&b, "- **A run with no encounter:** one not-applicable, because %s\n", c.Unfed)
		}
		b.WriteString("\n")
		b.WriteString(strings.TrimSpace(c.Doc))
		b.WriteString("\n\n**Ceiling.** ")
		b.WriteString(strings.TrimSpace(c.Ceiling))
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n## `%s`\n\n", KindDuplicateExecution)
	b.WriteString("The finding type names this kind, but no check in this build looks for it. fpcheck keeps it out of\n")
	b.WriteString("every menu and refuses questions about it instead of implying that no finding means no defect.\n")
	return b.String()
}

func advisoryCell(c *Check) string {
	switch {
	case c.Advisory:
		return "always"
	case c.AdvisoryWhen != "":
		return c.AdvisoryWhen
	}
	return "no"
}

func advisoryText(c *Check) string {
	switch {
	case c.Advisory:
		return "always: every finding is an advisory, counted apart from defects"
	case c.AdvisoryWhen != "":
		return c.AdvisoryWhen + ": those findings are advisories, counted apart from defects; the others are defects"
	}
	return "no: every finding is a defect"
}

// AdvisoryOnly reports whether the registered check kind@seam files only
// advisories. Such a check notes each filing as a failing encounter, so its
// ledger row counts advisories where other rows count defects.
func AdvisoryOnly(kind, seam string) bool {
	for _, c := range Registry {
		if c.Kind == kind && c.Seam == seam {
			return c.Advisory
		}
	}
	return false
}
