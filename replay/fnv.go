package replay

import "github.com/fpcheck/fpcheck/internal/contenthash"

// FNV1a is agentfootprint's content hash (see internal/contenthash): FNV-1a
// over UTF-16 code units, lowercase hex without zero padding.
func FNV1a(s string) string { return contenthash.FNV1a(s) }

// MessageHash is the contentHash agentfootprint gives a message of a
// request: FNV1a of "<role>:<index>:<content>".
func MessageHash(role string, index int, content string) string {
	return contenthash.Message(role, index, content)
}
