//go:build !amd64

package jsonfast

var useAVX2 = false

func stringMasks64AVX2(p *byte) (quotes, backslashes, controls uint64) { panic("unreachable") }

func validUTF8AVX2(p []byte, tail *[32]byte) bool { panic("unreachable") }
