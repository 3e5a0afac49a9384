package checks

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultMinDigits is how many digits a bare number needs before the
// names-and-numbers extractor treats it as a value, when the declarations
// do not say (dials.namesAndNumbers.minDigits).
const DefaultMinDigits = 4

// MaxAnswerTokens bounds how many tokens of one answer the extractor reads;
// the rest are counted, never looked up.
const MaxAnswerTokens = 20000

// MaxIndexForms bounds how many distinct forms the grounding index holds.
// Past it the index is incomplete, and a check reading it must not accuse.
const MaxIndexForms = 200000

// LibraryAuthoredPrefixes open every user-role message agentfootprint writes
// itself: the notice a window strategy leaves where it dropped history, the
// label of a compacted summary, and the two corrections the loop sends back
// (a failed schema check, an evidence check). Such a message is not a person
// asking something new, so it never starts a turn and never exempts a value.
var LibraryAuthoredPrefixes = []string{"[dropped history", "[compacted history", "[schema check", "[evidence check"}

// IsLibraryAuthored reports whether a user-role message was written by the
// library rather than by a person: it opens with one of the
// LibraryAuthoredPrefixes, or a context injection delivered it (a
// messages-slot record whose source is neither empty nor "user").
func IsLibraryAuthored(m Message) bool {
	if m.Delivered {
		return true
	}
	for _, p := range LibraryAuthoredPrefixes {
		if strings.HasPrefix(m.Content, p) {
			return true
		}
	}
	return false
}

// MinDigits is the declared dials.namesAndNumbers.minDigits, or
// DefaultMinDigits.
func (d *Declarations) MinDigits() int {
	if d != nil && d.Dials.NamesAndNumbers != nil && d.Dials.NamesAndNumbers.MinDigits != nil {
		return *d.Dials.NamesAndNumbers.MinDigits
	}
	return DefaultMinDigits
}

// NamesAndNumbersDeclared reports whether the names-and-numbers extractor is
// declared (dials.namesAndNumbers is present, even empty).
func (d *Declarations) NamesAndNumbersDeclared() bool {
	return d != nil && d.Dials.NamesAndNumbers != nil
}

// Value shapes the extractor recognises.
const (
	ShapeNumber     = "number"
	ShapeIdentifier = "identifier"
)

// AnswerValue is one value an answer states, in its normalised form.
type AnswerValue struct {
	Value string `json:"value"`
	Shape string `json:"shape"`
	// Spellings are the other normalised tokens the value was read from (a
	// number with its unit glued on, "41200iops"). Lookups try them too,
	// so a result that wrote the glued form grounds the number; the index
	// never adds a bare form of its own glued tokens, so a result's
	// "2024ms" cannot ground an answer's year 2024.
	Spellings []string `json:"spellings,omitempty"`
}

var (
	proseRatioRE = regexp.MustCompile(`^[0-9]{1,2}/[0-9]{1,2}$`)
	numberTailRE = regexp.MustCompile(`^([-+]?[0-9]+(?:\.[0-9]+)?)[-/]?[a-z]{1,5}(?:/[a-z]{1,5})?$`)
)

// maxExactDigits is how many digits a float64 holds exactly; a longer
// number (a serial, not a quantity) keeps its digits as written.
const maxExactDigits = 15

func isIntraToken(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(":_-/.,%+@#$", r)
}

// normalizeToken gives one token the spelling both sides of a lookup
// compare on: lower case, decoration stripped from either end, thousands
// separators removed, and a plain number in its shortest form.
func normalizeToken(raw string) string {
	v := strings.TrimSpace(strings.ToLower(raw))
	v = strings.TrimLeft(v, "$#@+'\"`([{<")
	v = strings.TrimRight(v, ".,;:!?%'\"`)]}>")
	if v == "" {
		return ""
	}
	if isThousands(v) {
		v = strings.ReplaceAll(v, ",", "")
	}
	if isBareNumber(v) && countDigits(v) <= maxExactDigits {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			v = jsNumber(f)
		}
	}
	return v
}

// numberForm is the spelling a JSON number is looked up by: the one its
// token would have in prose, so that a serial longer than a float64 holds
// exactly keeps its digits (JSON.parse rounds it, 1e+21) whether a result
// or an answer states it as JSON or as text.
func numberForm(n *jsonNode) string {
	if isBareNumber(n.str) && countDigits(n.str) > maxExactDigits {
		return n.str
	}
	return jsNumber(n.num)
}

// isBareNumber reports whether s is a plain decimal number: an optional
// sign, digits, and optionally a point and more digits
// (^[-+]?[0-9]+(?:\.[0-9]+)?$). Every token is asked, so it is not a
// regular expression.
func isBareNumber(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	return digitsThenFraction(s, i)
}

// isThousands reports whether s is a number written with comma thousands
// separators (^-?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?$).
func isThousands(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	j := digitsFrom(s, i)
	if j == i || j-i > 3 {
		return false
	}
	groups := 0
	for j < len(s) && s[j] == ',' {
		k := digitsFrom(s, j+1)
		if k-(j+1) != 3 {
			return false
		}
		j = k
		groups++
	}
	if groups == 0 {
		return false
	}
	return j == len(s) || s[j] == '.' && fractionEnds(s, j+1)
}

// digitsThenFraction reports whether s[i:] is digits, optionally followed
// by a point and more digits, and nothing else.
func digitsThenFraction(s string, i int) bool {
	j := digitsFrom(s, i)
	if j == i {
		return false
	}
	return j == len(s) || s[j] == '.' && fractionEnds(s, j+1)
}

// fractionEnds reports whether s[i:] is one or more digits.
func fractionEnds(s string, i int) bool {
	k := digitsFrom(s, i)
	return k > i && k == len(s)
}

// digitsFrom returns the index of the first byte at or after i that is not
// an ASCII digit.
func digitsFrom(s string, i int) int {
	for i < len(s) && isDigitByte(s[i]) {
		i++
	}
	return i
}

func countDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n
}

// tokenize splits free text into normalised tokens and hands each to emit,
// stopping when emit returns false. A comma between two digits belongs to
// the number; any other comma separates a list.
func tokenize(text string, emit func(string) bool) {
	start := -1
	flush := func(end int) bool {
		if start < 0 {
			return true
		}
		rough := text[start:end]
		start = -1
		pieceStart := 0
		for i := 0; i < len(rough); i++ {
			if rough[i] != ',' {
				continue
			}
			if i > 0 && i+1 < len(rough) && isDigitByte(rough[i-1]) && isDigitByte(rough[i+1]) {
				continue
			}
			if tok := normalizeToken(rough[pieceStart:i]); tok != "" && !emit(tok) {
				return false
			}
			pieceStart = i + 1
		}
		if tok := normalizeToken(rough[pieceStart:]); tok != "" {
			return emit(tok)
		}
		return true
	}
	for i, r := range text {
		if isIntraToken(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if !flush(i) {
			return
		}
	}
	flush(len(text))
}

func isDigitByte(b byte) bool { return b >= '0' && b <= '9' }

// classify decides whether one normalised token is a value, and of which
// shape. Only tokens with a digit count: prose is alphabetic, and an
// all-letter name is invisible to this rule by design. A number with a
// short unit or word glued on is judged on its number alone, a bare ratio
// of one or two digits each (24/7) is prose, and an identifier needs at
// least four characters and a letter or one of : _ - / .
func classify(token string, minDigits int) (AnswerValue, bool) {
	if token == "" || countDigits(token) == 0 || proseRatioRE.MatchString(token) {
		return AnswerValue{}, false
	}
	numeric := ""
	if m := numberTailRE.FindStringSubmatch(token); m != nil {
		numeric = normalizeToken(m[1])
	} else if isBareNumber(token) {
		numeric = token
	}
	if numeric != "" {
		if countDigits(numeric) >= minDigits {
			return AnswerValue{Value: numeric, Shape: ShapeNumber}, true
		}
		return AnswerValue{}, false
	}
	if utf8.RuneCountInString(token) < 4 {
		return AnswerValue{}, false
	}
	hasLetter := strings.IndexFunc(token, unicode.IsLetter) >= 0
	if !hasLetter && !strings.ContainsAny(token, ":_-/.") {
		return AnswerValue{}, false
	}
	return AnswerValue{Value: token, Shape: ShapeIdentifier}, true
}

// lookupForms are the spellings one value is looked up under: a 0x-prefixed
// hex value also under its digits alone, since tools and answers drop the
// prefix freely.
func lookupForms(v string) []string {
	if strings.HasPrefix(v, "0x") && len(v) > 2 {
		return []string{v, v[2:]}
	}
	return []string{v}
}

// ExtractValues returns the distinct values an answer states, in the order
// they first appear, and how many tokens past MaxAnswerTokens were never
// read. An answer that is a JSON object or array is read by its values
// (string leaves tokenised, numbers as written), never by its field names;
// any other answer is read as text, a bare JSON number or string included,
// as the grounding index reads a tool result: "1000E0" is one token on
// both sides, not the number 1000 on one.
func ExtractValues(answer string, minDigits int) (values []AnswerValue, unread int) {
	if minDigits < 1 {
		minDigits = DefaultMinDigits
	}
	seen := map[string]int{}
	budget := MaxAnswerTokens
	emit := func(tok string) bool {
		if budget <= 0 {
			unread++
			return true
		}
		budget--
		v, ok := classify(tok, minDigits)
		if !ok {
			return true
		}
		i, dup := seen[v.Value]
		if !dup {
			i = len(values)
			seen[v.Value] = i
			values = append(values, v)
		}
		if tok != v.Value && !contains(values[i].Spellings, tok) {
			values[i].Spellings = append(values[i].Spellings, tok)
		}
		return true
	}
	if n, ok := parseJSONContainer(answer); ok {
		walkValues(n, emit)
	} else {
		tokenize(answer, emit)
	}
	return values, unread
}

// walkValues hands the tokens of a parsed answer's values to emit, leaving
// its keys out.
func walkValues(n *jsonNode, emit func(string) bool) {
	switch n.kind {
	case 'o':
		for _, m := range n.members {
			walkValues(m.val, emit)
		}
	case 'a':
		for _, it := range n.items {
			walkValues(it, emit)
		}
	case 's':
		tokenize(n.str, emit)
	case 'n':
		if tok := normalizeToken(numberForm(n)); tok != "" {
			emit(tok)
		}
	}
}

// GroundingIndex is every value the tool results of one request frame
// served, each stamped with the latest turn that served it, beside the
// values the run itself supplied (exempt from grounding).
//
// A turn starts at each user message a person wrote: IsLibraryAuthored
// messages are not boundaries. The frame is the request the answer was
// chosen from, the conversation as the live window holds it, so the turn
// ordinals count only the turns still in that window: the distance between
// two turns is a floor. The boundary of the current turn is exact, because
// no window strategy drops the current request.
type GroundingIndex struct {
	forms  map[string]int
	exempt map[string]bool
	budget int
	// Truncated is true when the index is incomplete: its ceiling was hit,
	// or the frame it was built from has gaps. Why says which.
	Truncated bool
	Why       string
	// CurrentTurn is the turn being answered; 0 when the frame carries no
	// person's message at all.
	CurrentTurn int
	// ToolResultsThisTurn counts the tool results served since the current
	// turn began.
	ToolResultsThisTurn int
	// Source is where the frame came from.
	Source string
}

// NewGroundingIndex indexes a request frame: its tool-result messages as
// evidence, its system prompt and its people's messages (plus any extra
// text the run supplied, such as turn_start.userPrompt) as exempt.
func NewGroundingIndex(frame Frame, supplied ...string) *GroundingIndex {
	g := &GroundingIndex{forms: map[string]int{}, exempt: map[string]bool{}, budget: MaxIndexForms, Source: frame.Source}
	if len(frame.Gaps) > 0 {
		g.Truncated = true
		g.Why = "the request frame is incomplete: " + strings.Join(frame.Gaps, "; ")
	}
	exempt := func(text string) {
		tokenize(text, func(tok string) bool {
			for _, f := range lookupForms(tok) {
				g.exempt[f] = true
			}
			return true
		})
	}
	for _, s := range frame.System {
		exempt(s)
	}
	for _, s := range supplied {
		exempt(s)
	}
	for _, m := range frame.Messages {
		switch m.Role {
		case RoleUser:
			if IsLibraryAuthored(m) {
				continue
			}
			g.CurrentTurn++
			g.ToolResultsThisTurn = 0
			exempt(m.Content)
		case RoleTool:
			g.ToolResultsThisTurn++
			g.indexResult(m.Content)
		}
	}
	if g.budget <= 0 && !g.Truncated {
		g.Truncated = true
		g.Why = fmt.Sprintf("the grounding index reached its ceiling of %d forms", MaxIndexForms)
	}
	return g
}

func (g *GroundingIndex) add(raw string) {
	norm := normalizeToken(raw)
	if norm == "" {
		return
	}
	for _, f := range lookupForms(norm) {
		if _, ok := g.forms[f]; ok {
			g.forms[f] = g.CurrentTurn
			continue
		}
		if g.budget <= 0 {
			return
		}
		g.forms[f] = g.CurrentTurn
		g.budget--
	}
}

func (g *GroundingIndex) addText(text string) {
	tokenize(text, func(tok string) bool {
		g.add(tok)
		return true
	})
}

// indexResult indexes one tool result: walked as JSON when it is JSON (keys
// and leaves, each string leaf whole and by its tokens), as text otherwise.
// A declared absence (af_absent) quotes the lookup it was asked for under
// looked_for; that field is left out, or a failed lookup would ground the
// very value it failed to find.
func (g *GroundingIndex) indexResult(content string) {
	if n, ok := parseJSONContainer(content); ok {
		g.walk(n)
		return
	}
	g.addText(content)
}

// parseJSONContainer parses a text that is a JSON object or array, the one
// kind of text answers and tool results are read structurally as. Any
// other text, or one that does not parse, is read as text.
func parseJSONContainer(text string) (*jsonNode, bool) {
	trimmed := strings.TrimSpace(text)
	if !strings.HasPrefix(trimmed, "{") && !strings.HasPrefix(trimmed, "[") {
		return nil, false
	}
	n, err := parseJSONText(trimmed)
	return n, err == nil
}

func (g *GroundingIndex) walk(n *jsonNode) {
	switch n.kind {
	case 'o':
		absent := false
		if a := n.field("af_absent"); a != nil && a.kind == 'b' && a.b {
			absent = true
		}
		for _, m := range n.members {
			if absent && m.key == "looked_for" {
				continue
			}
			g.add(m.key)
			g.walk(m.val)
		}
	case 'a':
		for _, it := range n.items {
			g.walk(it)
		}
	case 's':
		g.add(n.str)
		g.addText(n.str)
	case 'n':
		g.add(numberForm(n))
	case 'b':
		g.add(strconv.FormatBool(n.b))
	}
}

// Lookup returns the latest turn that served a value, and whether any tool
// result served it at all.
func (g *GroundingIndex) Lookup(value string) (int, bool) {
	turn, found := 0, false
	for _, f := range lookupForms(value) {
		if t, ok := g.forms[f]; ok && (!found || t > turn) {
			turn, found = t, true
		}
	}
	return turn, found
}

// Exempt reports whether the run itself supplied a value: the system
// prompt or a person's message carries it.
func (g *GroundingIndex) Exempt(value string) bool {
	for _, f := range lookupForms(value) {
		if g.exempt[f] {
			return true
		}
	}
	return false
}

// GroundingReading is what the index says about one answer's values.
type GroundingReading struct {
	// FromThisTurn and FromPriorTurns count grounded values by whether
	// their newest source is a result of the turn being answered.
	FromThisTurn, FromPriorTurns int
	// LatestPriorTurn is the newest turn the prior-turn values came from;
	// -1 when FromPriorTurns is 0. Turn 0 holds results served before any
	// person's message still in the window.
	LatestPriorTurn int
	// PriorValues are the prior-turn values, in answer order.
	PriorValues []string
	// Ungrounded are the values no tool result in the frame carried and
	// the run did not supply, in answer order.
	Ungrounded []string
	// Exempt counts the values the run supplied itself: invisible here.
	Exempt                           int
	CurrentTurn, ToolResultsThisTurn int
	IndexTruncated                   bool
}

// Read looks every value of an answer up in the index.
func (g *GroundingIndex) Read(values []AnswerValue) GroundingReading {
	r := GroundingReading{CurrentTurn: g.CurrentTurn, ToolResultsThisTurn: g.ToolResultsThisTurn, IndexTruncated: g.Truncated, LatestPriorTurn: -1}
	for _, v := range values {
		spellings := append([]string{v.Value}, v.Spellings...)
		exempt, turn, ok := false, 0, false
		for _, s := range spellings {
			exempt = exempt || g.Exempt(s)
			if t, found := g.Lookup(s); found && (!ok || t > turn) {
				turn, ok = t, true
			}
		}
		if exempt {
			r.Exempt++
			continue
		}
		switch {
		case !ok:
			r.Ungrounded = append(r.Ungrounded, v.Value)
		case turn >= g.CurrentTurn:
			r.FromThisTurn++
		default:
			r.FromPriorTurns++
			r.PriorValues = append(r.PriorValues, v.Value)
			if turn > r.LatestPriorTurn {
				r.LatestPriorTurn = turn
			}
		}
	}
	return r
}
