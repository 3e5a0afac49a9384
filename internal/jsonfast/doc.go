// Package jsonfast validates, skips and picks apart JSON without building Go
// values, and decodes single scalar tokens, giving exactly the answers
// encoding/json gives on the same bytes.
//
// encoding/json validates a whole input before decoding it and then walks
// it again, so a loader that only wants three members of an event object
// pays for every byte of it twice, and a reader that skips an engine
// snapshot pays for a byte-at-a-time state machine. The functions here do
// the same work in one pass with word-at-a-time loops over string bodies
// (where nearly all the bytes of a recording are), an explicit nesting
// stack (so depth costs one bit per level and never the goroutine stack),
// and no allocation on the common paths.
//
// On amd64 CPUs with AVX2, the byte-class scans run in assembly 32 bytes
// an instruction: the quote, backslash and control-character bitmaps of a
// 64-byte window of a string body, and UTF-8 validation ([ValidUTF8]).
// Every other CPU runs the portable Go forms, and tests hold the two to
// the same answers byte for byte.
//
// Agreement with encoding/json is the contract, and fuzz targets hold it:
//
//   - [Valid] answers as json.Valid: RFC 8259 grammar, raw control
//     characters in strings refused, invalid UTF-8 in strings accepted,
//     nesting limited to [MaxDepth] levels.
//   - [String] decodes a string token as json.Unmarshal into a string does:
//     lone surrogate escapes and invalid UTF-8 bytes become U+FFFD.
//   - [Fields] and [Picker] keep the last of repeated keys, as decoding into
//     a map or a struct does; [Picker] can also match keys the way struct
//     fields are matched (exactly, else case-insensitively).
//   - [Number] and [Int] refuse what json.Unmarshal refuses for float64 and
//     int64 (1e999, 1.5 as an int).
//
// What this package does not do: error messages are its own, not
// encoding/json's (callers that must keep encoding/json's wording can call
// it on the rare failing input), and it binds nothing to struct fields.
package jsonfast
