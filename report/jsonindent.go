package report

import (
	"bytes"
	"encoding/json"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
)

// appendIndented appends src, one JSON value as encoding/json writes it
// (compact, a newline after it), indented as json.Indent indents it with
// prefix and indent, byte for byte.
//
// json.Indent steps a validating state machine through every byte, which
// made indenting most of the cost of writing a JSON report: a long
// stream's report is mostly strings, and here a string is copied whole
// once its closing quote is found. src is the encoder's own output, valid
// by construction; anything else (a string that does not end) is handed
// to json.Indent, so the result never depends on this function's reading
// of malformed input.
func appendIndented(dst, src []byte, prefix, indent string) []byte {
	start := len(dst)
	out, ok := appendIndentedFast(dst, src, prefix, indent)
	if ok {
		return out
	}
	var b bytes.Buffer
	b.Write(dst[:start])
	// json.Indent's error leaves what it wrote so far, as the encoder
	// would have.
	_ = json.Indent(&b, src, prefix, indent)
	return b.Bytes()
}

// appendIndentedFast is appendIndented for a value that is an object, an
// array or a string; ok is false for anything else, and for a string that
// does not end.
func appendIndentedFast(dst, src []byte, prefix, indent string) ([]byte, bool) {
	i := jsonfast.SkipSpace(src, 0) // json.Indent drops what precedes the value
	if i == len(src) || src[i] != '{' && src[i] != '[' && src[i] != '"' {
		return dst, false
	}
	depth := 0
	// open is true after { or [ until the next token: an empty object or
	// array stays {} or [].
	open := false
	for i < len(src) {
		c := src[i]
		if jsonfast.IsSpace(c) {
			i++
			continue
		}
		if open && c != '}' && c != ']' {
			open = false
			depth++
			dst = appendLineIndent(dst, prefix, indent, depth)
		}
		switch c {
		case '"':
			end, ok := jsonfast.ValidStringEnd(src, i+1)
			if !ok {
				return dst, false
			}
			dst = append(dst, src[i:end]...)
			i = end
		case '{', '[':
			open = true
			dst = append(dst, c)
			i++
		case ',':
			dst = append(dst, c)
			dst = appendLineIndent(dst, prefix, indent, depth)
			i++
		case ':':
			dst = append(dst, c, ' ')
			i++
		case '}', ']':
			if open {
				open = false
			} else {
				depth--
				dst = appendLineIndent(dst, prefix, indent, depth)
			}
			dst = append(dst, c)
			i++
		default:
			dst = append(dst, c)
			i++
		}
		if depth == 0 && !open {
			// The value has ended: json.Indent keeps the whitespace
			// after it as it is, and nothing else may follow.
			for ; i < len(src); i++ {
				if !jsonfast.IsSpace(src[i]) {
					return dst, false
				}
				dst = append(dst, src[i])
			}
			return dst, true
		}
	}
	return dst, false
}

func appendLineIndent(dst []byte, prefix, indent string, depth int) []byte {
	dst = append(dst, '\n')
	dst = append(dst, prefix...)
	for range depth {
		dst = append(dst, indent...)
	}
	return dst
}
