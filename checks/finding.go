package checks

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Kinds a finding can carry. agentfootprint's finding type names the first
// five; fpcheck adds the write-seam and prior-turn kinds of the seeds.
const (
	KindInvariantViolation  = "invariant-violation"
	KindUnsupportedArgument = "unsupported-argument"
	KindDanglingReference   = "dangling-reference"
	KindDuplicateExecution  = "duplicate-execution"
	KindUnsupportedClaim    = "unsupported-claim"
	KindEmptyLookup         = "empty-lookup"
	KindPriorTurnEvidence   = "prior-turn-evidence"
	KindColumnTypeMismatch  = "column-type-mismatch"
	KindMissingColumn       = "missing-column"
)

// Seams where contradictions are created.
const (
	SeamWrite   = "write"
	SeamCompose = "compose"
	SeamWire    = "wire"
	SeamChoice  = "choice"
	SeamClaim   = "claim"
)

// Strata of an assertion: asserted witnesses can conflict, quoted history
// never does.
const (
	StratumAsserted = "asserted"
	StratumQuoted   = "quoted"
)

// Subject names who a finding is about.
type Subject struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

func (s Subject) String() string { return s.Kind + " " + s.ID }

// Witness is one channel's assertion carried as proof with a finding.
type Witness struct {
	Subject        Subject         `json:"subject"`
	Predicate      string          `json:"predicate"`
	Value          json.RawMessage `json:"value,omitempty"`
	Epoch          *int64          `json:"epoch,omitempty"`
	Stratum        string          `json:"stratum"`
	Provenance     string          `json:"provenance"`
	RuntimeStageID string          `json:"runtimeStageId,omitempty"`
	Synthetic      bool            `json:"synthetic,omitempty"`
}

// Finding is one context error, recorded by the live run or filed by a
// replayed check. Empty strings mean "not recorded".
type Finding struct {
	Kind      string
	Seam      string
	Subjects  []Subject
	Witnesses []Witness
	// WitnessesRecorded is false when a recorded finding carried no
	// witnesses array at all (as opposed to an empty one).
	WitnessesRecorded bool
	Predicate         string
	Epoch             *int64
	Iteration         *int64
	Advisory          bool
	Synthetic         bool
	Message           string
	// FiledAt is the runtimeStageId of the stage that filed the finding.
	FiledAt string
	// Line is the input line of the event that carried the finding, 0 when
	// unknown or replayed.
	Line int64
	// Repeats counts the further events that recorded the same finding
	// (same identity, advisory and synthetic flags) after the first, which
	// is the one kept; LastLine is the line of the last of them. A tail that
	// files one identity a hundred thousand times says one thing that many
	// times: memory and the report grow with what it says, the count keeps
	// how often. Zero for a finding recorded once and for a replayed one.
	Repeats  int   `json:",omitempty"`
	LastLine int64 `json:",omitempty"`
	// Evidence are the recording positions of what the finding is about
	// (the model call, the tool call, the result, the eviction, and for a
	// recorded finding the event that carried it), in recording order;
	// filled by the replay package from the run's events.
	Evidence []Position
	// CallIDs are the tool calls the finding is about, the judged call
	// first (then, for example, the calls that served a reading); empty
	// when the check judges no call or the recording names none.
	CallIDs []string
}

// Events is how many finding events the finding stands for: itself and
// its copies (a negative count, which only a tampered saved report can
// carry, counts none).
func (f Finding) Events() int { return 1 + max(0, f.Repeats) }

// Identity is the finding's dedup key: kind, seam, the sorted subjects and
// the predicate, with the epoch left out so that one defect re-detected on a
// later iteration stays one finding. It matches the string agentfootprint
// computes at its call sites (epoch absent, so it ends in a space).
func (f Finding) Identity() string {
	return Identity(f.Kind, f.Seam, f.Subjects, f.Predicate)
}

// Identity builds the identity string of a finding from its parts: kind,
// " @", seam, " [", the subjects rendered and sorted by UTF-16 code units
// joined by " + ", "] ", predicate and " ". Findings are keyed by it
// several times each (the ledger, the reconciliation, the report), so it
// is built in one buffer.
func Identity(kind, seam string, subjects []Subject, predicate string) string {
	var few [4]string
	rendered := few[:0]
	n := len(kind) + len(seam) + len(predicate) + len(" @ [] ")
	for _, sub := range subjects {
		r := sub.String()
		rendered = append(rendered, r)
		n += len(r) + len(" + ")
	}
	SortUTF16(rendered)
	var b strings.Builder
	b.Grow(n)
	b.WriteString(kind)
	b.WriteString(" @")
	b.WriteString(seam)
	b.WriteString(" [")
	for i, r := range rendered {
		if i > 0 {
			b.WriteString(" + ")
		}
		b.WriteString(r)
	}
	b.WriteString("] ")
	b.WriteString(predicate)
	b.WriteString(" ")
	return b.String()
}

// SortUTF16 sorts strings by UTF-16 code units, the order of JavaScript's
// default Array.prototype.sort, which differs from Go's byte order for
// characters above U+FFFF against U+E000–U+FFFF. Equal strings keep their
// order.
func SortUTF16(ss []string) {
	if len(ss) < 2 {
		return
	}
	slices.SortStableFunc(ss, CompareUTF16)
}

// LessUTF16 reports whether a sorts before b by UTF-16 code units.
func LessUTF16(a, b string) bool { return CompareUTF16(a, b) < 0 }

// CompareUTF16 compares a and b by UTF-16 code units, as JavaScript compares
// strings, reading each as Go reads a string into runes (an invalid byte
// is U+FFFD). It allocates nothing.
func CompareUTF16(a, b string) int {
	var ua, ub utf16Reader
	ua.s, ub.s = a, b
	for {
		x, y := ua.next(), ub.next()
		if x != y || x < 0 {
			return cmp.Compare(x, y)
		}
	}
}

// utf16Reader reads a string's UTF-16 code units one at a time.
type utf16Reader struct {
	s       string
	i       int
	pending rune // the low surrogate of the last rune read, 0 when none
}

// next is the next code unit, or -1 at the end.
func (r *utf16Reader) next() rune {
	if u := r.pending; u != 0 {
		r.pending = 0
		return u
	}
	if r.i >= len(r.s) {
		return -1
	}
	c, size := utf8.DecodeRuneInString(r.s[r.i:])
	r.i += size
	var u rune
	u, r.pending = utf16Units(c)
	return u
}

// utf16Units is the first UTF-16 code unit of r and the second, 0 when r
// takes one.
func utf16Units(r rune) (first, second rune) {
	if r < 0x10000 {
		return r, 0
	}
	r1, r2 := utf16.EncodeRune(r)
	return r1, r2
}

// Row is one registered check's line of the disposition ledger.
type Row struct {
	Check         string   `json:"check"`
	Seam          string   `json:"seam"`
	Checked       int64    `json:"checked"`
	Findings      int64    `json:"findings"`
	NotApplicable int64    `json:"notApplicable"`
	Unreachable   int64    `json:"unreachable"`
	Synthetic     int64    `json:"synthetic"`
	LastFiredAt   *float64 `json:"lastFiredAt,omitempty"`
}

// NeverRan is true when the row counts no encounter of any kind.
func (r Row) NeverRan() bool { return r.Checked+r.NotApplicable+r.Unreachable == 0 }

// Disposition is what one encounter of a check concluded.
type Disposition int

const (
	CheckedPass Disposition = iota
	CheckedFail
	NotApplicable
	Unreachable
)

func (d Disposition) String() string {
	switch d {
	case CheckedPass:
		return "checked-pass"
	case CheckedFail:
		return "checked-fail"
	case NotApplicable:
		return "not-applicable"
	case Unreachable:
		return "unreachable"
	}
	return "unknown"
}
