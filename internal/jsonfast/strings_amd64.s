#include "textflag.h"

DATA ·quote+0(SB)/1, $0x22
GLOBL ·quote(SB), RODATA|NOPTR, $1
DATA ·backslash+0(SB)/1, $0x5c
GLOBL ·backslash(SB), RODATA|NOPTR, $1
DATA ·control+0(SB)/1, $0x1f
GLOBL ·control(SB), RODATA|NOPTR, $1

// func stringMasks64AVX2(p *byte) (quotes, backslashes, controls uint64)
//
// The bitmaps of the quotes, backslashes and control characters among
// the 64 bytes at p, bit k for p[k]: the AVX2 form of
// stringMasks64Generic.
TEXT ·stringMasks64AVX2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	VPBROADCASTB ·quote(SB), Y4
	VPBROADCASTB ·backslash(SB), Y5
	VPBROADCASTB ·control(SB), Y6 // the largest control character

	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1

	VPCMPEQB  Y0, Y4, Y2
	VPMOVMSKB Y2, AX
	VPCMPEQB  Y1, Y4, Y2
	VPMOVMSKB Y2, BX
	SHLQ $32, BX
	ORQ  BX, AX
	MOVQ AX, quotes+8(FP)

	VPCMPEQB  Y0, Y5, Y2
	VPMOVMSKB Y2, AX
	VPCMPEQB  Y1, Y5, Y2
	VPMOVMSKB Y2, BX
	SHLQ $32, BX
	ORQ  BX, AX
	MOVQ AX, backslashes+16(FP)

	VPMINUB   Y0, Y6, Y2 // min(c, 0x1f) == c: c is a control character
	VPCMPEQB  Y0, Y2, Y2
	VPMOVMSKB Y2, AX
	VPMINUB   Y1, Y6, Y2
	VPCMPEQB  Y1, Y2, Y2
	VPMOVMSKB Y2, BX
	SHLQ $32, BX
	ORQ  BX, AX
	MOVQ AX, controls+24(FP)

	VZEROUPPER
	RET
