package recording

// SkippedName reports whether a directory walk leaves a file of this name
// out (hidden files, .tmp, .txt, .md, .yaml and corpus descriptions), so
// that a listing of object storage skips what a directory walk skips.
func SkippedName(name string) bool { return skippedName(name) }
