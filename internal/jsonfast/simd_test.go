package jsonfast

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/fpcheck/fpcheck/internal/benchcpu"
)

// simdInputs are byte strings that put every byte class at every offset of
// a 64-byte window and around the 32- and 8-byte steps of the scans.
func simdInputs() [][]byte {
	var in [][]byte
	classes := []byte{'a', '"', '\\', 0x00, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0xbf, 0xc3, 0xe2, 0xf0, 0xff}
	for n := 1; n <= 130; n++ {
		for _, c := range classes {
			for _, at := range []int{0, n / 2, n - 1} {
				if at < 0 {
					continue
				}
				p := make([]byte, n)
				for i := range p {
					p[i] = 'x'
				}
				p[at] = c
				in = append(in, p)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	texts := []string{"plain ascii text ", "°", "—", "🔥", "é", "\\n", "\"", "\x01", "\xff", "\xe2\x80", "\xed\xa0\x80", "\xc0\xaf"}
	for range 3000 {
		var p []byte
		for len(p) < rng.IntN(400) {
			p = append(p, texts[rng.IntN(len(texts))]...)
		}
		in = append(in, p)
	}
	return in
}

func TestStringMasksMatchGeneric(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
	for _, p := range simdInputs() {
		checkStringMasks(t, p)
	}
}

// checkStringMasks compares the AVX2 masks with the portable ones at every
// offset of p.
func checkStringMasks(t *testing.T, p []byte) {
	t.Helper()
	for off := 0; off+64 <= len(p); off++ {
		q, b, c := stringMasks64AVX2(&p[off])
		wq, wb, wc := stringMasks64Generic(p[off : off+64])
		if q != wq || b != wb || c != wc {
			t.Fatalf("stringMasks64(%q) = %064b %064b %064b, want %064b %064b %064b", p[off:off+64], q, b, c, wq, wb, wc)
		}
	}
}

// TestEscapedBits compares escapedBits with a byte-by-byte reading of
// backslash runs, over random and dense backslash patterns.
func TestEscapedBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 200000 {
		var bs uint64
		switch n % 3 {
		case 0:
			bs = rng.Uint64()
		case 1:
			bs = rng.Uint64() & rng.Uint64() & rng.Uint64()
		default:
			bs = rng.Uint64() | rng.Uint64()
		}
		in := uint64(n>>2) & 1
		var want uint64
		esc := in == 1
		for k := range 64 {
			if esc {
				want |= 1 << k
				esc = false
			} else if bs>>k&1 == 1 {
				esc = true
			}
		}
		wantOut := uint64(0)
		if esc {
			wantOut = 1
		}
		if got, out := escapedBits(bs, in); got != want || out != wantOut {
			t.Fatalf("escapedBits(%064b, %d) = %064b, %d; want %064b, %d", bs, in, got, out, want, wantOut)
		}
	}
}

func TestValidUTF8MatchesStdlib(t *testing.T) {
	for _, p := range simdInputs() {
		for _, q := range [][]byte{p, p[min(1, len(p)):], p[:len(p)/2]} {
			if got, want := ValidUTF8(q), utf8.Valid(q); got != want {
				t.Fatalf("ValidUTF8(%q) = %v, want %v", q, got, want)
			}
		}
	}
}

// TestValidUTF8Sequences puts every pair of bytes, and three- and
// four-byte sequences of the bytes where the ranges of UTF-8 change, across
// the boundary between two 32-byte blocks and at the end of the input.
func TestValidUTF8Sequences(t *testing.T) {
	edges := []byte{0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff}
	buf := make([]byte, 64)
	check := func(seq []byte) {
		for _, at := range []int{0, 29, 30, 31, 32, 64 - len(seq)} {
			for i := range buf {
				buf[i] = 'a'
			}
			copy(buf[at:], seq)
			for _, q := range [][]byte{buf, buf[:at+len(seq)]} {
				if got, want := ValidUTF8(q), utf8.Valid(q); got != want {
					t.Fatalf("ValidUTF8(% x) = %v, want %v", q, got, want)
				}
			}
		}
	}
	for a := range 256 {
		for b := range 256 {
			check([]byte{byte(a), byte(b)})
		}
	}
	for _, a := range edges {
		for _, b := range edges {
			for _, c := range edges {
				check([]byte{a, b, c})
				for _, d := range edges {
					check([]byte{a, b, c, d})
				}
			}
		}
	}
}

func FuzzSIMDScans(f *testing.F) {
	f.Add([]byte("plain ascii text with \"quotes\" and \\escapes\\ and \x01 controls, ° and —"))
	f.Add([]byte("\xed\xa0\x80 surrogate, \xc0\xaf overlong, \xe2\x80 cut"))
	f.Fuzz(func(t *testing.T, p []byte) {
		if got, want := ValidUTF8(p), utf8.Valid(p); got != want {
			t.Fatalf("ValidUTF8(%q) = %v, want %v", p, got, want)
		}
		if !useAVX2 {
			return
		}
		checkStringMasks(t, p)
	})
}

func BenchmarkValidUTF8(b *testing.B) {
	sets, _ := benchData()
	for _, set := range sets {
		b.Run(set.name+"/utf8.Valid", func(b *testing.B) {
			benchcpu.Loop(b, set.size, func() {
				for _, l := range set.lines {
					utf8.Valid(l)
				}
			})
		})
		b.Run(set.name+"/ValidUTF8", func(b *testing.B) {
			benchcpu.Loop(b, set.size, func() {
				for _, l := range set.lines {
					ValidUTF8(l)
				}
			})
		})
	}
}

// refScanStr is scanStr one byte at a time: the meaning the windowed scans
// must keep.
func refScanStr(p []byte, i int) (int, uint8) {
	var r uint8
	for i < len(p) {
		switch c := p[i]; {
		case c == '"':
			return i + 1, r | strClosed
		case c == '\\':
			next, st, ok := escape(p, i)
			r |= strEscaped | st
			if !ok {
				return next, r
			}
			i = next
		case c < 0x20:
			return i, r | strBad
		default:
			i++
		}
	}
	return i, r
}

// stringBodies are string bodies (after the opening quote) built of pieces
// that put escapes, runs of backslashes, faults and closing quotes across
// the 64-byte windows.
func stringBodies(seed uint64, n int) [][]byte {
	pieces := []string{"plain text ", "x", `\n`, `\"`, `\\`, `\\\\`, `\\\\\\`, `\\\"`, `\u00e9`, `\ud83d\ude00`, "é", "°",
		"\x01", "\x1f", `\x`, `\u12`, `\u12"`, `\u1\n`, `\` + "\x01", "\""}
	rng := rand.New(rand.NewPCG(seed, 5))
	var out [][]byte
	for range n {
		var p []byte
		for len(p) < 64+rng.IntN(300) {
			// Mostly plain text, so that the long-body windows are used;
			// faults and quotes rarer still.
			k := 0
			if rng.IntN(4) == 0 {
				k = rng.IntN(len(pieces))
				if k >= 12 && rng.IntN(8) != 0 {
					k = rng.IntN(12)
				}
			}
			p = append(p, pieces[k]...)
		}
		out = append(out, p)
	}
	return out
}

func TestScanStrMatchesSequential(t *testing.T) {
	for _, p := range stringBodies(1, 3000) {
		checkScanStr(t, p)
	}
}

// TestPortableScans runs the scans' tests with the portable forms, as on a
// CPU without AVX2.
func TestPortableScans(t *testing.T) {
	if !useAVX2 {
		t.Skip("the portable forms are the ones in use")
	}
	useAVX2 = false
	defer func() { useAVX2 = true }()
	t.Run("ScanStr", TestScanStrMatchesSequential)
	t.Run("ValidUTF8", TestValidUTF8MatchesStdlib)
	t.Run("LongStringBodies", TestLongStringBodies)
}

// checkScanStr compares scanStr with refScanStr on p and on every prefix
// of it that ends in its last 80 bytes (the ends that cut escapes off).
func checkScanStr(t *testing.T, p []byte) {
	t.Helper()
	for n := max(0, len(p)-80); n <= len(p); n++ {
		q := p[:n]
		gi, gr := scanStr(q, 0)
		wi, wr := refScanStr(q, 0)
		if gi != wi || gr != wr {
			t.Fatalf("scanStr(%q) = %d, %05b; byte by byte: %d, %05b", q, gi, gr, wi, wr)
		}
	}
}

func FuzzScanStr(f *testing.F) {
	for _, p := range stringBodies(2, 20) {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		checkScanStr(t, p)
	})
}
