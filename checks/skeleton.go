package checks

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// SkeletonTool is one tool a declarations skeleton lists.
type SkeletonTool struct {
	Name string
	// Before are the tools called before this one in some run, in first
	// seen order: the results that could ground its arguments.
	Before []string
	// Called is true when some run called the tool, not only offered it.
	Called bool
}

// plainName is a tool name YAML reads as itself, unquoted.
var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.\-]*$`)

// yamlName writes a tool name as a YAML scalar: plain when it can be, else
// double-quoted with every unsafe character escaped (a recording's names
// are not fpcheck's to trust).
func yamlName(s string) string {
	if plainName.MatchString(s) && !yamlWord(s) {
		return s
	}
	return strconv.QuoteToASCII(s)
}

// yamlWord reports a plain scalar YAML would read as something else.
func yamlWord(s string) bool {
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "y", "n", "~":
		return true
	}
	return false
}

// maxImplicitKey is the longest key, as written, that the skeleton writes
// as "key:". YAML looks no further than 1,024 characters for the ":" that
// ends a key, so a longer one is written as an explicit key ("? key" and
// ":" on the next line), which has no limit.
const maxImplicitKey = 1000

// blankName reports a tool name declarations refuse to name.
func blankName(s string) bool { return strings.TrimSpace(s) == "" }

// commentSafe keeps a string on one comment line.
func commentSafe(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return strconv.QuoteToASCII(s)
		}
	}
	return s
}

// Skeleton writes a declarations file for the tools the recordings showed:
// every tool, with each key that arms a check written out and commented,
// and the dials off, so that a user edits instead of typing names. A line
// commented once ("# ") is a key to uncomment; a line commented twice
// ("## ") is prose and stays a comment. Uncommented, argumentsFrom names
// the tools called before this one, which a user narrows to the real
// grounds.
func Skeleton(sources []string, tools []SkeletonTool) []byte {
	var b strings.Builder
	b.WriteString("## Declarations for the tools these recordings offered or called:\n")
	for _, s := range sources {
		fmt.Fprintf(&b, "##   %s\n", commentSafe(s))
	}
	b.WriteString(`## Lines commented once ("# ") are keys that arm a check: uncomment those
## that are true of your agent. argumentsFrom lists the tools called before
## this one in the recordings; keep only those whose results ground its
## arguments. Lines commented twice ("## ") are notes. See docs/declarations.md.
`)
	// A blank name is said and left out: declarations refuse it, so the
	// skeleton would not parse.
	var named []SkeletonTool
	for _, t := range tools {
		if blankName(t.Name) {
			fmt.Fprintf(&b, "## Left out: a tool named %s, which declarations cannot name (a blank name is refused).\n", strconv.QuoteToASCII(t.Name))
			continue
		}
		named = append(named, t)
	}
	switch {
	case len(named) > 0:
		b.WriteString("tools:\n")
	case len(tools) > 0:
		b.WriteString("## No other tool was offered or called.\ntools: {}\n")
	default:
		b.WriteString("## No run of these recordings offered or called a tool.\ntools: {}\n")
	}
	for _, t := range named {
		if key := yamlName(t.Name); len(key) > maxImplicitKey {
			fmt.Fprintf(&b, "  ? %s\n  :\n", key)
		} else {
			fmt.Fprintf(&b, "  %s:\n", key)
		}
		if !t.Called {
			b.WriteString("    ## offered, never called in these recordings\n")
		}
		var names []string
		for _, n := range t.Before {
			if !blankName(n) {
				names = append(names, yamlName(n))
			}
		}
		if len(names) > 0 {
			fmt.Fprintf(&b, "    ## argumentsFrom arms dangling-reference @compose and unsupported-argument @choice\n")
			fmt.Fprintf(&b, "    # argumentsFrom: [%s]\n", strings.Join(names, ", "))
			b.WriteString("    ## noticeEmptyLookups (with argumentsFrom) arms empty-lookup @write\n")
			b.WriteString("    # noticeEmptyLookups: true\n")
		} else if len(t.Before) > 0 {
			b.WriteString("    ## only a tool with a blank name was called before it here, so no argumentsFrom to suggest\n")
		} else {
			b.WriteString("    ## no tool was called before it here, so no argumentsFrom to suggest\n")
		}
		b.WriteString("    ## resultColumns (with dials.checkColumnTypes) arms the column checks:\n")
		b.WriteString("    ## resultColumns: { COLUMN: string }\n")
	}
	b.WriteString(`## claims arm unsupported-claim @claim: answer field: { entity, field }
## claims:
##   ANSWER_FIELD: { entity: ENTITY, field: FIELD }
## maps arm invariant-violation @compose: the tools each map of a .maps() plan owns
## maps:
##   - { id: MAP_ID, tools: [TOOL] }
dials:
  checkColumnTypes: off
  noticeEmptyLookups: false
  noticePriorTurnEvidence: false
`)
	return []byte(b.String())
}
