package replay

import (
	"sync/atomic"

	"github.com/fpcheck/fpcheck/checks"
)

// mergedFile is the declarations a file states, merged with nothing from
// a recording.
type mergedFile struct{ file, merged *checks.Declarations }

// lastMerged keeps the last file's merge: every run of an input without
// declarations of its own settles on it, several times over (the payload
// filter, the book's order, the fold's arming), and merging clones every
// tool. It keeps file alive, so no other declarations can take its
// address.
var lastMerged atomic.Pointer[mergedFile]

// merge is checks.Merge(rec, file). Without rec, the result is shared by
// every caller for the same file, so no caller may change it (none does:
// a change to a run's declarations, as withSnapshotMap's, is made on a
// copy).
func merge(rec, file *checks.Declarations) *checks.Declarations {
	if rec != nil {
		return checks.Merge(rec, file)
	}
	if m := lastMerged.Load(); m != nil && m.file == file {
		return m.merged
	}
	m := &mergedFile{file: file, merged: checks.Merge(nil, file)}
	lastMerged.Store(m)
	return m.merged
}
