#include "textflag.h"

// UTF-8 validation 32 bytes at a time, after the lookup method of Keiser
// and Lemire, "Validating UTF-8 In Less Than One Instruction Per Byte"
// (2021). Each byte is classified with the byte before it by three 16-entry
// tables (high nibble of the byte before, its low nibble, high nibble of
// the byte): a bit survives the AND of the three entries only for a fault
// in a pair of bytes. A lead byte two or three bytes back says whether the
// byte must be a continuation, which settles the pairs the tables leave
// open.

// Fault bits of the tables.
#define TOO_SHORT 0x01 // a lead byte not followed by a continuation
#define TOO_LONG 0x02  // a continuation after an ASCII byte
#define OVERLONG_3 0x04
#define TOO_LARGE 0x08
#define SURROGATE 0x10
#define OVERLONG_2 0x20
#define TOO_LARGE_1000 0x40
#define OVERLONG_4 0x40
#define TWO_CONTS 0x80 // a continuation after a continuation

// Entries of the tables, by nibble, two copies: VPSHUFB looks up within
// each 16-byte lane.
// High nibble of the byte before: 0-7 ASCII, 8-B continuation, C-F leads.
DATA utf8Before1High<>+0(SB)/8, $0x0202020202020202
DATA utf8Before1High<>+8(SB)/8, $0x4915012180808080
DATA utf8Before1High<>+16(SB)/8, $0x0202020202020202
DATA utf8Before1High<>+24(SB)/8, $0x4915012180808080
GLOBL utf8Before1High<>(SB), RODATA|NOPTR, $32

// Low nibble of the byte before.
DATA utf8Before1Low<>+0(SB)/8, $0xCBCBCB8B8383A3E7
DATA utf8Before1Low<>+8(SB)/8, $0xCBCBDBCBCBCBCBCB
DATA utf8Before1Low<>+16(SB)/8, $0xCBCBCB8B8383A3E7
DATA utf8Before1Low<>+24(SB)/8, $0xCBCBDBCBCBCBCBCB
GLOBL utf8Before1Low<>(SB), RODATA|NOPTR, $32

// High nibble of the byte itself.
DATA utf8High<>+0(SB)/8, $0x0101010101010101
DATA utf8High<>+8(SB)/8, $0x01010101BABAAEE6
DATA utf8High<>+16(SB)/8, $0x0101010101010101
DATA utf8High<>+24(SB)/8, $0x01010101BABAAEE6
GLOBL utf8High<>(SB), RODATA|NOPTR, $32

// A block ending in one of these needs bytes after it: a lead byte in
// the last three positions that wants more than the block has. A byte
// above its entry (after a saturating subtraction) is such a lead.
DATA utf8Incomplete<>+0(SB)/8, $0xFFFFFFFFFFFFFFFF
DATA utf8Incomplete<>+8(SB)/8, $0xFFFFFFFFFFFFFFFF
DATA utf8Incomplete<>+16(SB)/8, $0xFFFFFFFFFFFFFFFF
DATA utf8Incomplete<>+24(SB)/8, $0xBFDFEFFFFFFFFFFF
GLOBL utf8Incomplete<>(SB), RODATA|NOPTR, $32

DATA utf8Nibble<>+0(SB)/1, $0x0F
GLOBL utf8Nibble<>(SB), RODATA|NOPTR, $1
DATA utf8Third<>+0(SB)/1, $0x60 // 0xE0-0x80: a three- or four-byte lead two back
GLOBL utf8Third<>(SB), RODATA|NOPTR, $1
DATA utf8Fourth<>+0(SB)/1, $0x70 // 0xF0-0x80: a four-byte lead three back
GLOBL utf8Fourth<>(SB), RODATA|NOPTR, $1
DATA utf8Top<>+0(SB)/1, $0x80
GLOBL utf8Top<>(SB), RODATA|NOPTR, $1

// func validUTF8AVX2(p []byte, tail *[32]byte) bool
//
// Whether p, a whole number of 32-byte blocks, followed by tail, holds
// valid UTF-8. The caller puts the last len%32 bytes of its input in tail
// and pads them with zeros, which end any sequence as ASCII would.
//
// Y0 block, Y1 the block before, Y2 its incomplete leads, Y3 faults.
TEXT ·validUTF8AVX2(SB), NOSPLIT, $0-33
	MOVQ p_base+0(FP), SI
	MOVQ p_len+8(FP), CX
	MOVQ tail+24(FP), DI
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VMOVDQU utf8Before1High<>(SB), Y8
	VMOVDQU utf8Before1Low<>(SB), Y9
	VMOVDQU utf8High<>(SB), Y10
	VPBROADCASTB utf8Nibble<>(SB), Y11
	VMOVDQU utf8Incomplete<>(SB), Y12
	VPBROADCASTB utf8Third<>(SB), Y13
	VPBROADCASTB utf8Fourth<>(SB), Y14
	XORQ DX, DX
	XORQ BX, BX // 1 once the tail is being read

loop:
	CMPQ DX, CX
	JB   block
	TESTQ BX, BX
	JNZ  done
	MOVQ DI, SI
	MOVQ $32, CX
	XORQ DX, DX
	MOVQ $1, BX

block:
	VMOVDQU (SI)(DX*1), Y0
	ADDQ $32, DX
	VPMOVMSKB Y0, AX
	TESTL AX, AX
	JNZ   multibyte
	// ASCII: a sequence the block before left open is cut short.
	VPOR  Y2, Y3, Y3
	VPXOR Y2, Y2, Y2
	VMOVDQU Y0, Y1
	JMP   loop

multibyte:
	// The bytes one, two and three positions back.
	VPERM2I128 $0x21, Y0, Y1, Y4
	VPALIGNR $15, Y4, Y0, Y5
	VPALIGNR $14, Y4, Y0, Y6
	VPALIGNR $13, Y4, Y0, Y7

	// Faults of each pair (byte before, byte).
	VPSRLW  $4, Y5, Y4
	VPAND   Y11, Y4, Y4
	VPSHUFB Y4, Y8, Y4
	VPAND   Y11, Y5, Y5
	VPSHUFB Y5, Y9, Y5
	VPAND   Y5, Y4, Y4
	VPSRLW  $4, Y0, Y5
	VPAND   Y11, Y5, Y5
	VPSHUFB Y5, Y10, Y5
	VPAND   Y5, Y4, Y4

	// Bytes that must be the second or third continuation. Two
	// continuations in a row (TWO_CONTS) are a fault exactly where
	// they are not.
	VPSUBUSB Y13, Y6, Y6
	VPSUBUSB Y14, Y7, Y7
	VPOR     Y7, Y6, Y6
	VPBROADCASTB utf8Top<>(SB), Y7
	VPAND    Y7, Y6, Y6
	VPXOR    Y4, Y6, Y6
	VPOR     Y6, Y3, Y3

	VPSUBUSB Y12, Y0, Y2
	VMOVDQU  Y0, Y1
	JMP      loop

done:
	VPOR  Y2, Y3, Y3
	VPTEST Y3, Y3
	SETEQ ret+32(FP)
	VZEROUPPER
	RET
