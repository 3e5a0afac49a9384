package recording

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Run identity is the run id's exact bytes. Decoded the usual way, a JSON
// string maps invalid UTF-8 and every lone surrogate escape to U+FFFD, so
// "run-\ud800-1" and "run-\udbff-1" would be one run, silently merged. An
// id whose decoding holds U+FFFD is therefore decoded again from its JSON
// text, keeping what the usual decoding replaces: raw bytes as they are, a
// lone surrogate as its three-byte generalized UTF-8 form. Such an id is
// not valid text, and the loader says so once per run.

// exactRunID re-reads the meta.runId of the event in data when decoded,
// its usual decoding, may have merged distinct ids. It returns the id to
// key the run by.
func exactRunID(data []byte, decoded string) string {
	if !strings.ContainsRune(decoded, utf8.RuneError) {
		return decoded
	}
	raw, ok := rawMetaRunID(data)
	if !ok {
		return decoded
	}
	if id, ok := exactJSONString(raw); ok {
		return id
	}
	return decoded
}

// rawMetaRunID finds the JSON text of meta.runId the way encoding/json
// picks it: the key spelled exactly, else one that matches without regard
// to case, the last of repeated keys.
func rawMetaRunID(data []byte) (json.RawMessage, bool) {
	var top struct {
		Meta json.RawMessage `json:"meta"`
	}
	if json.Unmarshal(data, &top) != nil {
		return nil, false
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(top.Meta, &meta) != nil {
		return nil, false
	}
	if raw, ok := meta["runId"]; ok {
		return raw, true
	}
	for k, raw := range meta {
		if strings.EqualFold(k, "runId") {
			return raw, true
		}
	}
	return nil, false
}

// exactJSONString decodes a JSON string token keeping invalid UTF-8 bytes
// and lone surrogates (see above); ok is false when raw is not a string.
func exactJSONString(raw []byte) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	var b strings.Builder
	b.Grow(len(body))
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(body) {
			return "", false
		}
		switch e := body[i+1]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(body[i+2:])
			if !ok {
				return "", false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if r < 0xdc00 && i+1 < len(body) && body[i] == '\\' && body[i+1] == 'u' {
					if r2, ok := hex4(body[i+2:]); ok && r2 >= 0xdc00 && r2 <= 0xdfff {
						b.WriteRune(utf16.DecodeRune(r, r2))
						i += 6
						continue
					}
				}
				// utf8.EncodeRune refuses surrogates; write the
				// three bytes it would have written.
				b.WriteByte(0xe0 | byte(r>>12))
				b.WriteByte(0x80 | byte(r>>6)&0x3f)
				b.WriteByte(0x80 | byte(r)&0x3f)
				continue
			}
			b.WriteRune(r)
			continue
		default:
			return "", false
		}
		i += 2
	}
	return b.String(), true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(n), true
}
