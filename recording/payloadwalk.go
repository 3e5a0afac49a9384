package recording

import (
	"github.com/fpcheck/fpcheck/internal/jsonfast"
)

// The payload checks walk payloads that were validated with their event a
// moment before, and only need the members of the top object (and of the
// objects in one array), with jsonfast's walkers of validated JSON.

// validFields is jsonfast.Fields over a validated object: out[i] gets the
// value of the last member named names[i] (keys compared decoded), or nil.
func validFields(obj []byte, names []string, out [][]byte) {
	clear(out)
	jsonfast.ValidMembers(obj, func(key []byte, _ bool, val []byte) {
		for i, n := range names {
			if string(key) == n {
				out[i] = val
				return
			}
		}
	})
}
