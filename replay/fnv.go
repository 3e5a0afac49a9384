package replay

import (
	"strconv"
	"unicode/utf16"
)

// FNV1a is agentfootprint's content hash: 32-bit FNV-1a over the UTF-16
// code units of s (not its UTF-8 bytes), printed as lowercase hex without
// zero padding, so a hash can be shorter than eight characters. Invalid
// UTF-8 hashes as U+FFFD, one code unit per bad byte.
func FNV1a(s string) string {
	h := uint32(2166136261)
	for _, r := range s {
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			h = (h ^ uint32(hi)) * 16777619
			h = (h ^ uint32(lo)) * 16777619
			continue
		}
		h = (h ^ uint32(r)) * 16777619
	}
	return strconv.FormatUint(uint64(h), 16)
}

// MessageHash is the contentHash agentfootprint gives a message of a
// request: FNV1a of "<role>:<index>:<content>".
func MessageHash(role string, index int, content string) string {
	return FNV1a(role + ":" + strconv.Itoa(index) + ":" + content)
}
