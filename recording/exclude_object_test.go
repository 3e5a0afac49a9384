package recording

import "testing"

// TestExcludedObject: an object listed under a prefix is kept out as a
// file found under a directory is, by its own path or by the nearest
// parent a pattern matches; a name outside the root, or a root of none, is
// matched by the object's own path alone.
func TestExcludedObject(t *testing.T) {
	const root = "s3://bucket/day"
	tests := []struct {
		name, root string
		patterns   []string
		at, pat    string
	}{
		{"s3://bucket/day/runs/a.jsonl", root, []string{"runs"}, "s3://bucket/day/runs", "runs"},
		{"s3://bucket/day/runs/old/a.jsonl", root, []string{"old", "runs"}, "s3://bucket/day/runs", "runs"},
		{"s3://bucket/day/runs/a.jsonl.gz", root, []string{"*.gz"}, "s3://bucket/day/runs/a.jsonl.gz", "*.gz"},
		{"s3://bucket/day/runs/a.jsonl.gz", root, []string{"runs/*.gz"}, "s3://bucket/day/runs/a.jsonl.gz", "runs/*.gz"},
		{"s3://bucket/day/runs/a.jsonl", root, []string{"*.gz", "other"}, "", ""},
		{"s3://bucket/day/a.jsonl", "", []string{"a.jsonl"}, "s3://bucket/day/a.jsonl", "a.jsonl"},
		{"s3://bucket/day/runs/a.jsonl", "", []string{"runs"}, "", ""},
		{"gs://b/x/y/z.jsonl", "gs://b/x/", []string{"y"}, "gs://b/x/y", "y"},
	}
	for _, tt := range tests {
		at, pat, ok := ExcludedObject(tt.patterns, tt.name, tt.root)
		if at != tt.at || pat != tt.pat || ok != (tt.pat != "") {
			t.Errorf("ExcludedObject(%q, %q, %q) = %q, %q, %v; want %q, %q", tt.patterns, tt.name, tt.root, at, pat, ok, tt.at, tt.pat)
		}
	}
}
