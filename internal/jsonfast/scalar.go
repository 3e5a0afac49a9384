package jsonfast

import (
	"math"
	"strconv"
)

// Kind is the JSON type of a value, told from its first byte.
type Kind uint8

// The kinds of JSON values. KindInvalid is empty input or a byte no value
// starts with.
const (
	KindInvalid Kind = iota
	KindNull
	KindBool
	KindNumber
	KindString
	KindObject
	KindArray
)

var kindNames = [...]string{"invalid", "null", "boolean", "number", "string", "object", "array"}

// String names the kind as messages do ("object", "boolean").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// KindOf names the kind of the value in raw (leading whitespace allowed)
// from its first byte, without validating it: meant for values this
// package has already validated.
func KindOf(raw []byte) Kind {
	i := skipSpace(raw, 0)
	if i >= len(raw) {
		return KindInvalid
	}
	switch c := raw[i]; c {
	case '{':
		return KindObject
	case '[':
		return KindArray
	case '"':
		return KindString
	case 't', 'f':
		return KindBool
	case 'n':
		return KindNull
	default:
		if c == '-' || '0' <= c && c <= '9' {
			return KindNumber
		}
	}
	return KindInvalid
}

// numberToken trims raw and checks that it is one JSON number.
func numberToken(raw []byte) ([]byte, bool) {
	raw = trimSpace(raw)
	ns := nStart
	for _, c := range raw {
		ns = numNext[ns][numClass[c]]
		if ns >= nEnd {
			return nil, false
		}
	}
	return raw, numAccept[ns]
}

// Number decodes a JSON number token (surrounding whitespace allowed) as
// json.Unmarshal into a float64 does; ok is false for anything else,
// including a number out of float64's range such as 1e999.
func Number(raw []byte) (f float64, ok bool) {
	raw, ok = numberToken(raw)
	if !ok {
		return 0, false
	}
	// Integers of up to 15 digits convert exactly.
	if len(raw) <= 16 {
		neg := raw[0] == '-'
		digits := raw
		if neg {
			digits = raw[1:]
		}
		if len(digits) <= 15 {
			var u uint64
			for _, c := range digits {
				if c < '0' || c > '9' {
					goto general
				}
				u = u*10 + uint64(c-'0')
			}
			f = float64(u)
			if neg {
				f = -f // keeps -0
			}
			return f, true
		}
	}
general:
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// Int decodes a JSON number token (surrounding whitespace allowed) as
// json.Unmarshal into an int64 does: an integer without fraction or
// exponent, in int64's range; ok is false otherwise.
func Int(raw []byte) (n int64, ok bool) {
	raw, ok = numberToken(raw)
	if !ok {
		return 0, false
	}
	neg := raw[0] == '-'
	digits := raw
	if neg {
		digits = raw[1:]
	}
	var u uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		if u > (math.MaxUint64-9)/10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// Bool decodes a JSON true or false token (surrounding whitespace
// allowed); ok is false for anything else.
func Bool(raw []byte) (v, ok bool) {
	switch string(trimSpace(raw)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// IsNull reports whether raw is the JSON null token (surrounding whitespace
// allowed).
func IsNull(raw []byte) bool {
	return string(trimSpace(raw)) == "null"
}
