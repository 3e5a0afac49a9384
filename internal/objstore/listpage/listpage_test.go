package listpage

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPage(t *testing.T) {
	objects := map[string]int{"a/1": 0, "a/2": 0, "a/b/1": 0, "a/b/2": 0, "a/c/1": 0, "b/1": 0}
	none := func(string, string) bool { return false }
	after := func(a string) func(string, string) bool {
		return func(_, entry string) bool { return entry <= a }
	}
	for _, tc := range []struct {
		name, prefix, delim string
		limit               int
		skip                func(string, string) bool
		want                []Entry
		next                string
	}{
		{"flat", "a/", "", 10, none, []Entry{{"a/1", false}, {"a/2", false}, {"a/b/1", false}, {"a/b/2", false}, {"a/c/1", false}}, ""},
		{"rolled", "a/", "/", 10, none, []Entry{{"a/1", false}, {"a/2", false}, {"a/b/", true}, {"a/c/", true}}, ""},
		{"first page", "a/", "/", 3, none, []Entry{{"a/1", false}, {"a/2", false}, {"a/b/", true}}, "a/c/"},
		{"next page", "a/", "/", 3, after("a/b/"), []Entry{{"a/c/", true}}, ""},
		{"whole bucket", "", "/", 10, none, []Entry{{"a/", true}, {"b/", true}}, ""},
		{"nothing under", "c/", "/", 10, none, nil, ""},
	} {
		page, next := Page(Under(objects, tc.prefix), tc.prefix, tc.delim, tc.limit, tc.skip)
		if diff := cmp.Diff(tc.want, page); diff != "" || next != tc.next {
			t.Errorf("%s: next %q, want %q; page (-want +got):\n%s", tc.name, next, tc.next, diff)
		}
	}
	for _, name := range Under(objects, "a/b") {
		if !strings.HasPrefix(name, "a/b") {
			t.Errorf("Under gave %q", name)
		}
	}
}
