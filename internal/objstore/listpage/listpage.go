// Package listpage pages a bucket's listing as the fake object stores of
// fpcheck's tests serve it: the keys under a prefix in order, those that
// hold the delimiter after the prefix rolled up into one prefix entry
// each, a page at a time. Nothing here is linked into fpcheck itself.
package listpage

import (
	"slices"
	"strings"
)

// Entry is one entry of a page: an object's key, or a prefix the keys
// holding the delimiter roll up into.
type Entry struct {
	Name   string
	Prefix bool
}

// Under is the keys of objects that start with prefix, in order.
func Under[V any](objects map[string]V, prefix string) []string {
	var names []string
	for name := range objects {
		if strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// Page lists names (in order, each under prefix) at most limit entries at
// a time, leaving out the keys skip says an earlier page served (it is
// asked with the key and the entry the key makes); next is the first
// entry left out for the limit, "" when the page ends the listing.
func Page(names []string, prefix, delim string, limit int, skip func(name, entry string) bool) (page []Entry, next string) {
	last := ""
	for _, name := range names {
		entry, rolled := name, false
		if delim != "" {
			if i := strings.Index(name[len(prefix):], delim); i >= 0 {
				entry, rolled = name[:len(prefix)+i+len(delim)], true
			}
		}
		if skip(name, entry) || (rolled && entry == last) {
			continue
		}
		if len(page) == limit {
			return page, entry
		}
		last = entry
		page = append(page, Entry{Name: entry, Prefix: rolled})
	}
	return page, ""
}
