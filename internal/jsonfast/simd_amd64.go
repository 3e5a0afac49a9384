package jsonfast

import "golang.org/x/sys/cpu"

// useAVX2 routes the byte-class scans to their AVX2 forms, which read 32
// bytes an instruction where the portable forms read eight.
var useAVX2 = cpu.X86.HasAVX2

//go:noescape
func stringMasks64AVX2(p *byte) (quotes, backslashes, controls uint64)

//go:noescape
func validUTF8AVX2(p []byte, tail *[32]byte) bool
