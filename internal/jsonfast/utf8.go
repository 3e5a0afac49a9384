package jsonfast

import "unicode/utf8"

// ValidUTF8 reports what utf8.Valid reports. Recordings are mostly ASCII
// with a multi-byte character every hundred bytes or so; where the CPU
// allows, every 32 bytes are checked at once, whatever they hold.
func ValidUTF8(p []byte) bool {
	if !useAVX2 {
		return utf8.Valid(p)
	}
	n := len(p) &^ 31
	var tail [32]byte
	copy(tail[:], p[n:])
	return validUTF8AVX2(p[:n], &tail)
}
