package checks

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Agreement is how a claimed value stands against one reading of a fact.
type Agreement int

// The three outcomes of comparing two values. Incomparable is never a
// failure: a pair that cannot be compared safely is unreachable, so a
// comparison fpcheck is unsure of never turns into an accusation.
const (
	Agrees Agreement = iota
	Contradicts
	Incomparable
)

func (a Agreement) String() string {
	switch a {
	case Agrees:
		return "agrees"
	case Contradicts:
		return "contradicts"
	}
	return "incomparable"
}

// Comparison is the outcome of comparing a claimed value with a reading,
// and, when the two cannot be compared safely, why.
type Comparison struct {
	Outcome Agreement
	Why     string
}

func agree() Comparison                  { return Comparison{Outcome: Agrees} }
func contradict() Comparison             { return Comparison{Outcome: Contradicts} }
func incomparable(why string) Comparison { return Comparison{Outcome: Incomparable, Why: why} }

// CompareValues compares two JSON values under the one declared
// normalization claims are judged by (the seed's answer-validation rule):
//
//   - text is put in Unicode NFC, trimmed, and its runs of white space
//     collapsed to one space;
//   - case agrees only for a word of letters, more than three of them,
//     written all lower, all upper or with a capital first letter
//     ("Settled" and "settled ", "STRAẞE" and "Straße"); any other case
//     difference is incomparable (MW/mW, mixed case, text with a digit), as
//     are ß against ss and dotted against dotless i in any casing, and text
//     that differs only in marks or compatibility forms (café/cafe);
//   - a number and a plain decimal string compare by value (42.5 and
//     "42.50"); a number with a unit compares only with the same unit,
//     written exactly; a unit against a bare number, a currency symbol,
//     digit separators, a dot-grouped number ("1.250"), a date or a time are
//     incomparable unless written the same;
//   - a list or an object against a single value, and a list with a hole
//     (a null item) in it, are incomparable; lists compare item by item,
//     objects key by key, and a contradiction anywhere inside wins over an
//     incomparable item elsewhere.
//
// Both arguments are raw JSON; a value that is not JSON is incomparable.
func CompareValues(claimed, reading []byte) Comparison {
	a, err := parseJSONNode(claimed)
	if err != nil {
		return incomparable("the claimed value is not JSON")
	}
	b, err := parseJSONNode(reading)
	if err != nil {
		return incomparable("the reading is not JSON")
	}
	return compareNodes(a, b)
}

func compareNodes(a, b *jsonNode) Comparison {
	switch {
	case a.kind == 'z' && b.kind == 'z':
		return agree()
	case a.kind == 'z' || b.kind == 'z':
		return incomparable("one side holds no value (null)")
	case a.kind == 'a' && b.kind == 'a':
		return compareLists(a, b)
	case a.kind == 'o' && b.kind == 'o':
		return compareObjects(a, b)
	case a.kind == 'a' || a.kind == 'o' || b.kind == 'a' || b.kind == 'o':
		if (a.kind == 'a' || a.kind == 'o') && (b.kind == 'a' || b.kind == 'o') {
			return incomparable("a list against an object")
		}
		return incomparable("a list or an object against a single value")
	case a.kind == 'b' && b.kind == 'b':
		if a.b == b.b {
			return agree()
		}
		return contradict()
	case a.kind == 'b' || b.kind == 'b':
		return incomparable("true or false against a number or text")
	case a.kind == 'n' && b.kind == 'n':
		if a.num == b.num {
			return agree()
		}
		return contradict()
	case a.kind == 'n':
		return numberAgainstText(a.num, b.str)
	case b.kind == 'n':
		return numberAgainstText(b.num, a.str)
	}
	return compareText(a.str, b.str)
}

func compareLists(a, b *jsonNode) Comparison {
	for _, side := range [][]*jsonNode{a.items, b.items} {
		for _, it := range side {
			if it.kind == 'z' {
				return incomparable("a list with a hole (a null item) in it")
			}
		}
	}
	if len(a.items) != len(b.items) {
		return contradict()
	}
	var why string
	contradicted := false
	for i := range a.items {
		c := compareNodes(a.items[i], b.items[i])
		switch c.Outcome {
		case Contradicts:
			contradicted = true
		case Incomparable:
			if why == "" {
				why = c.Why
			}
		}
	}
	if contradicted {
		// The same items in another order are not a contradiction anyone
		// can be sure of: order may not carry meaning in the fact.
		if sameItemsInAnotherOrder(a.items, b.items) {
			return incomparable("the same items in another order")
		}
		return contradict()
	}
	if why != "" {
		return incomparable(why)
	}
	return agree()
}

// sameItemsInAnotherOrder matches every item of a with a distinct item of b
// that agrees with it.
func sameItemsInAnotherOrder(a, b []*jsonNode) bool {
	used := make([]bool, len(b))
	for _, x := range a {
		found := false
		for j, y := range b {
			if !used[j] && compareNodes(x, y).Outcome == Agrees {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func compareObjects(a, b *jsonNode) Comparison {
	if len(a.members) != len(b.members) {
		return contradict()
	}
	keys := a.keyList()
	SortUTF16(keys)
	var why string
	for _, k := range keys {
		bv, ok := b.lookup(k)
		if !ok {
			return contradict()
		}
		c := compareNodes(a.field(k), bv)
		switch c.Outcome {
		case Contradicts:
			return contradict()
		case Incomparable:
			if why == "" {
				why = c.Why
			}
		}
	}
	if why != "" {
		return incomparable(why)
	}
	return agree()
}

// textShape is what a piece of text looks like to the comparison.
type textShape int

const (
	shapeText textShape = iota
	shapePlainNumber
	shapeQuantity
	shapeCurrency
	shapeSeparated
	shapeDotGrouped
	shapeDateTime
)

var (
	plainNumberRE = regexp.MustCompile(`^[+-]?[0-9]+(?:\.[0-9]+)?$`)
	dotGroupedRE  = regexp.MustCompile(`^[+-]?[1-9][0-9]{0,2}(?:\.[0-9]{3})+$`)
	separatedRE   = regexp.MustCompile(`^[+-]?[0-9]{1,3}(?:[,' _][0-9]{3})+(?:[.,][0-9]+)?$|^[+-]?[0-9]+,[0-9]+$`)
	quantityRE    = regexp.MustCompile(`^([+-]?[0-9]+(?:\.[0-9]+)?) ?([^0-9 ][^0-9]*)$`)
	dateTimeRE    = regexp.MustCompile(`[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}|[0-9]{1,2}[/.][0-9]{1,2}[/.][0-9]{2,4}|[0-9]{1,2}:[0-9]{2}`)
)

func shapeOf(s string) textShape {
	for _, r := range s {
		if unicode.Is(unicode.Sc, r) {
			return shapeCurrency
		}
	}
	switch {
	case dateTimeRE.MatchString(s):
		return shapeDateTime
	case dotGroupedRE.MatchString(s):
		return shapeDotGrouped
	case plainNumberRE.MatchString(s):
		return shapePlainNumber
	case separatedRE.MatchString(s):
		return shapeSeparated
	case quantityRE.MatchString(s):
		return shapeQuantity
	}
	return shapeText
}

// whyShape says why a shape cannot be compared with something written
// differently.
func whyShape(s textShape) string {
	switch s {
	case shapeCurrency:
		return "a value written with a currency symbol"
	case shapeSeparated:
		return "a number written with digit separators"
	case shapeDotGrouped:
		return "a dot-grouped number, which can be read two ways"
	case shapeDateTime:
		return "a date or a time written differently"
	case shapeQuantity:
		return "a number with a unit against a bare number"
	}
	return "a number against text"
}

// normText trims text and collapses each run of white space to one space.
func normText(s string) string {
	return strings.Join(strings.FieldsFunc(norm.NFC.String(s), unicode.IsSpace), " ")
}

func numberAgainstText(n float64, text string) Comparison {
	s := normText(text)
	switch shape := shapeOf(s); shape {
	case shapePlainNumber:
		return byValue(n, s)
	default:
		return incomparable(whyShape(shape))
	}
}

func byValue(n float64, s string) Comparison {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeErr(err) {
		return incomparable("a number fpcheck cannot read")
	}
	if f == n {
		return agree()
	}
	return contradict()
}

func compareText(x, y string) Comparison {
	a, b := normText(x), normText(y)
	if a == b {
		return agree()
	}
	sa, sb := shapeOf(a), shapeOf(b)
	switch {
	case sa == shapePlainNumber && sb == shapePlainNumber:
		f, err := strconv.ParseFloat(a, 64)
		if err != nil && !isRangeErr(err) {
			return incomparable("a number fpcheck cannot read")
		}
		return byValue(f, b)
	case sa == shapeQuantity && sb == shapeQuantity:
		ma, mb := quantityRE.FindStringSubmatch(a), quantityRE.FindStringSubmatch(b)
		switch {
		case ma[2] == mb[2]:
			f, err := strconv.ParseFloat(ma[1], 64)
			if err != nil && !isRangeErr(err) {
				return incomparable("a number fpcheck cannot read")
			}
			return byValue(f, mb[1])
		case strings.EqualFold(ma[2], mb[2]):
			return incomparable("units that differ only in case, such as MW and mW")
		}
		return incomparable("numbers with different units")
	case sa != shapeText || sb != shapeText:
		for _, s := range []textShape{sa, sb} {
			if s != shapeText && s != shapePlainNumber && s != shapeQuantity {
				return incomparable(whyShape(s))
			}
		}
		if sa != shapeText && sb != shapeText {
			return incomparable(whyShape(shapeQuantity))
		}
		return incomparable("a number against text")
	}
	if lowerRunes(a) == lowerRunes(b) {
		if caseWord(a) && caseWord(b) {
			return agree()
		}
		return incomparable("a case difference outside the word rule (a short word or unit, a mixed-case word, or text with a digit)")
	}
	if foldSpecial(a) == foldSpecial(b) {
		return incomparable("ß against ss, or dotted against dotless i")
	}
	if skeleton(a) == skeleton(b) {
		return incomparable("text that differs only in its marks or compatibility forms")
	}
	return contradict()
}

// lowerRunes lowers text as the default (full) case mapping does, which
// is what "the same letters in another case" is judged by: simple lowering
// turns the dotted capital İ into a plain i, so "İstanbul" would pass for
// "Istanbul"; in full, it lowers to i and a combining dot, and the two
// words are not the same letters.
func lowerRunes(s string) string {
	if !strings.ContainsRune(s, 'İ') {
		return strings.Map(unicode.ToLower, s)
	}
	var b strings.Builder
	for _, r := range s {
		if r == 'İ' {
			b.WriteString("i\u0307")
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// caseWord reports whether s is a word the case rule covers: letters only,
// more than three, all lower, all upper, or a capital first letter and the
// rest lower.
func caseWord(s string) bool {
	rs := []rune(s)
	if len(rs) <= 3 {
		return false
	}
	allLower, allUpper := true, true
	for _, r := range rs {
		if !unicode.IsLetter(r) {
			return false
		}
		if unicode.IsUpper(r) || unicode.IsTitle(r) {
			allLower = false
		}
		if unicode.IsLower(r) && !isCaselessLower(r) {
			allUpper = false
		}
	}
	if allLower || allUpper {
		return true
	}
	if !unicode.IsUpper(rs[0]) && !unicode.IsTitle(rs[0]) {
		return false
	}
	for _, r := range rs[1:] {
		if unicode.IsUpper(r) || unicode.IsTitle(r) {
			return false
		}
	}
	return true
}

// isCaselessLower is true for lowercase letters with no uppercase of their
// own in simple case mapping (ß), which an all-upper word may carry.
func isCaselessLower(r rune) bool {
	return unicode.ToUpper(r) == r && unicode.IsLower(r)
}

// foldSpecial lowers text and folds the pairs simple lowering keeps apart:
// ß and ẞ against ss, dotted and dotless i, final sigma.
func foldSpecial(s string) string {
	var b strings.Builder
	for _, r := range lowerRunes(s) {
		switch r {
		case 'ß', 'ẞ':
			b.WriteString("ss")
		case 'ı', 'İ':
			b.WriteByte('i')
		case 'ς':
			b.WriteRune('σ')
		case '\u0307': // the dot İ leaves behind when lowered
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// skeleton folds text further: compatibility forms replaced by what they
// stand for and marks dropped (NFKD, then no combining marks), plus the
// letters whose stroke or ligature no decomposition removes.
func skeleton(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(foldSpecial(s)) {
		if unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc) {
			continue
		}
		if base, ok := strokeLetter[r]; ok {
			b.WriteString(base)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// strokeLetter maps the lowercase letters that carry a mark NFKD does not
// separate (a stroke, a ligature) to their base letters.
var strokeLetter = map[rune]string{
	'ø': "o", 'đ': "d", 'ł': "l", 'ħ': "h", 'ŧ': "t", 'ŀ': "l",
	'æ': "ae", 'œ': "oe",
}

// isDoubt reports whether a value declines to state the fact: null, or the
// word unknown in any case.
func isDoubt(n *jsonNode) bool {
	if n == nil {
		return false
	}
	return n.kind == 'z' || (n.kind == 's' && strings.EqualFold(normText(n.str), "unknown"))
}

// readingState classifies one reading of a fact.
type readingState int

const (
	readingValue readingState = iota
	readingUnknown
	readingMalformed
)

// readingOf unwraps a reading: a known Claim to its value, an unknown or
// not-applicable Claim, null or "unknown" to unknown, and a Claim that says
// known without a value to malformed.
func readingOf(n *jsonNode) (*jsonNode, readingState) {
	if n == nil {
		return nil, readingUnknown
	}
	if n.kind == 'o' {
		if k := n.field("kind"); k != nil && k.kind == 's' {
			switch k.str {
			case "unknown", "not-applicable":
				return nil, readingUnknown
			case "known":
				v, ok := n.lookup("value")
				if !ok {
					return nil, readingMalformed
				}
				n = v
			}
		}
	}
	if isDoubt(n) {
		return n, readingUnknown
	}
	return n, readingValue
}

// describeComparison words a comparison outcome for reasons.
func describeComparison(c Comparison) string {
	if c.Outcome == Incomparable {
		return fmt.Sprintf("cannot be compared safely: %s", c.Why)
	}
	return c.Outcome.String()
}
