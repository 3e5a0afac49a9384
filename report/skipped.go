package report

import (
	"slices"
	"strings"
)

// skippedInput states a file a directory walk found that is not a
// recording.
func skippedInput(in InputResult) SkippedInput {
	sk := SkippedFile(in.Path, in.Err)
	if in.Stats != nil && in.Stats.Path != "" {
		sk.Path = in.Stats.Path
	}
	return sk
}

// SkippedFile is how a file a directory walk found is skipped when reading
// it said err (a recording.ErrNotRecording).
func SkippedFile(path string, err error) SkippedInput {
	sk := SkippedInput{Path: path, Why: "not an agentfootprint recording"}
	if err != nil {
		// The error names the path first; the reason is what follows.
		msg := err.Error()
		if i := strings.Index(msg, "not an agentfootprint recording"); i >= 0 {
			msg = msg[i:]
		}
		sk.Why = msg
	}
	return sk
}

// ExcludedInput is how a path --exclude kept out is said.
func ExcludedInput(path, pattern string) SkippedInput {
	return SkippedInput{Path: path, Why: "excluded by --exclude " + quoteValue(pattern), Pattern: pattern}
}

// LeaveOut adds a path that was not read to the report, after the skipped
// files: one --exclude kept out (see ExcludedInput), or one a directory
// walk passed over for what it is (a named pipe, a symbolic link to a
// directory or to nothing). The report says what it did not read. A path
// said once is not said again (shards of one invocation each left it out).
func (r *Report) LeaveOut(s SkippedInput) {
	if slices.ContainsFunc(r.Skipped, func(k SkippedInput) bool {
		return k == s || s.Pattern != "" && k.Pattern != "" && k.Path == s.Path
	}) {
		return
	}
	r.Skipped = append(r.Skipped, s)
}

// SkippedLine words a skipped file in one line.
func (s SkippedInput) Line() string {
	if s.Pattern != "" {
		return "EXCLUDED " + displayPath(s.Path) + " — matches --exclude " + quoteValue(s.Pattern) + ", so it was not read"
	}
	return "SKIPPED " + displayPath(s.Path) + " — " + s.Why + "; found in a directory walk, so it is left out (name it itself to have it read)"
}

// StderrLine is the line stderr carries for a skipped or excluded path.
func (s SkippedInput) StderrLine() string { return Sanitize("fpcheck: " + s.Line() + ".") }

// textSkipped writes one line per skipped file.
func textSkipped(t *textWriter, r *Report) {
	if len(r.Skipped) == 0 {
		return
	}
	t.blank()
	for _, s := range r.Skipped {
		t.line(0, styleDim, s.Line())
	}
}

// quoteValue quotes a pattern as a shell user typed it.
func quoteValue(s string) string { return "'" + Sanitize(s) + "'" }
