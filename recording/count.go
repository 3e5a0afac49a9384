package recording

import (
	"bytes"
	"fmt"
	"strings"
)

// maxCounter is the largest count a JavaScript producer can hold exactly
// (Number.MAX_SAFE_INTEGER); a larger or negative value is no count at all.
const maxCounter = 1<<53 - 1

// ReadCount reads a count a producer states (a ledger counter, an
// envelope's droppedEvents). It returns why the value is not a count,
// completing a sentence about the field (`is "6", not a count …`), or ""
// with the count. The number is read from its text, never through a
// float: 9007199254740993 and 6.0000000000000001 must not round into
// counts they are not, and an exponent of a billion must cost nothing.
func ReadCount(raw []byte) (int64, string) {
	const notCount = "is %s, not a count (a whole number from 0 to 9007199254740991)"
	text := bytes.TrimSpace(raw)
	if len(text) == 0 || text[0] != '-' && (text[0] < '0' || text[0] > '9') {
		return 0, fmt.Sprintf(notCount, countText(text))
	}
	neg, digits, exp, ok := splitNumber(text)
	if !ok {
		return 0, fmt.Sprintf(notCount, countText(text))
	}
	// digits × 10^exp, with digits free of leading and trailing zeros.
	digits = bytes.TrimLeft(digits, "0")
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	if len(digits) == 0 {
		return 0, ""
	}
	switch {
	case neg:
		return 0, fmt.Sprintf(notCount, countText(text)) + ": it is negative"
	case exp < 0:
		return 0, fmt.Sprintf(notCount, countText(text)) + ": it is a fraction"
	case int64(len(digits))+exp > 16:
		return 0, fmt.Sprintf(notCount, countText(text)) + ": it is beyond what a producer can count exactly"
	}
	var n int64
	for _, c := range digits {
		n = n*10 + int64(c-'0')
	}
	for ; exp > 0; exp-- {
		n *= 10
	}
	if n > maxCounter {
		return 0, fmt.Sprintf(notCount, countText(text)) + ": it is beyond what a producer can count exactly"
	}
	return n, ""
}

// splitNumber splits a JSON number into its sign, its significant digits
// (integer and fraction parts joined) and the power of ten they are
// scaled by. An exponent too large to matter is clamped, which keeps its
// sign and so its meaning (huge, or a fraction).
func splitNumber(text []byte) (neg bool, digits []byte, exp int64, ok bool) {
	i := 0
	if i < len(text) && text[i] == '-' {
		neg = true
		i++
	}
	end := digitRun(text, i)
	if end == i {
		return false, nil, 0, false
	}
	digits, i = append(digits, text[i:end]...), end
	if i < len(text) && text[i] == '.' {
		end = digitRun(text, i+1)
		if end == i+1 {
			return false, nil, 0, false
		}
		digits = append(digits, text[i+1:end]...)
		exp -= int64(end - i - 1)
		i = end
	}
	if i < len(text) && (text[i] == 'e' || text[i] == 'E') {
		i++
		eneg := false
		if i < len(text) && (text[i] == '+' || text[i] == '-') {
			eneg = text[i] == '-'
			i++
		}
		end = digitRun(text, i)
		if end == i {
			return false, nil, 0, false
		}
		var e int64
		for _, c := range text[i:end] {
			if e < 1<<40 {
				e = e*10 + int64(c-'0')
			}
		}
		if eneg {
			e = -e
		}
		exp += e
		i = end
	}
	return neg, digits, exp, i == len(text)
}

// digitRun is where the run of decimal digits at text[i] ends.
func digitRun(text []byte, i int) int {
	for i < len(text) && text[i] >= '0' && text[i] <= '9' {
		i++
	}
	return i
}

// countText shows a recorded JSON value in a message as it was written,
// shortened when long. Renderers escape what a terminal must not see.
func countText(text []byte) string {
	const most = 40
	if len(text) > most {
		return strings.ToValidUTF8(string(text[:most]), "\ufffd") + "…"
	}
	return strings.ToValidUTF8(string(text), "\ufffd")
}
