package checks

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// toNode converts a reference tree, so the readers' unchanged logic can
// run on what the reference parser read.
func toNode(r *refNode) *jsonNode {
	n := &jsonNode{kind: r.kind, str: r.str, num: r.num, b: r.b}
	for _, k := range r.keys {
		n.members = append(n.members, jsonMember{key: k, val: toNode(r.fields[k])})
	}
	if len(n.members) >= indexedMembers {
		n.index = map[string]int{}
		for i, m := range n.members {
			n.index[m.key] = i
		}
	}
	for _, it := range r.items {
		n.items = append(n.items, toNode(it))
	}
	return n
}

// rowsetByReference is ReadRowset parsed on every call by the reference
// parser.
func rowsetByReference(result []byte) ([]*refNode, bool) {
	n, err := parseRefNode(result)
	if err != nil {
		return nil, false
	}
	if n.kind != 'a' || len(n.items) == 0 {
		return nil, false
	}
	for _, row := range n.items {
		if row.kind != 'o' {
			return nil, false
		}
	}
	return n.items, true
}

// lookupByReference is ReadLookupResult as it was.
func lookupByReference(result []byte) LookupReading {
	r, err := parseRefNode(result)
	if err != nil {
		return LookupReading{}
	}
	if r.kind == 's' {
		t := strings.TrimSpace(r.str)
		if t == "" {
			return LookupReading{Judged: true, Empty: true, Shape: "an empty string"}
		}
		if !strings.HasPrefix(t, "[") && !strings.HasPrefix(t, "{") && t != "null" {
			return LookupReading{}
		}
		inner, err := parseRefNode([]byte(t))
		if err != nil {
			return LookupReading{}
		}
		r = inner
	}
	n := toNode(r)
	switch n.kind {
	case 'z':
		return LookupReading{Judged: true, Empty: true, Shape: "null"}
	case 'a':
		if len(n.items) == 0 {
			return LookupReading{Judged: true, Empty: true, Shape: "a list with no items"}
		}
		return LookupReading{Judged: true, Shape: fmt.Sprintf("a list of %d %s", len(n.items), plural(len(n.items), "item", "items"))}
	case 'o':
		return readLookupObject(n)
	}
	return LookupReading{}
}

// readersAgree fails t unless ReadRowset and ReadLookupResult answer on
// result as they did when each call parsed it with the reference parser;
// each is asked twice, the second answer coming from the cache.
func readersAgree(t *testing.T, result []byte) {
	t.Helper()
	wantRows, wantOK := rowsetByReference(result)
	wantLookup := lookupByReference(result)
	for pass := 0; pass < 2; pass++ {
		rows, ok := ReadRowset(json.RawMessage(result))
		if ok != wantOK || len(rows) != len(wantRows) {
			t.Fatalf("pass %d: ReadRowset(%q) = %d rows, %v; want %d, %v", pass, clipBytes(result), len(rows), ok, len(wantRows), wantOK)
		}
		for i := range rows {
			if d := diffNode(wantRows[i], rows[i]); d != "" {
				t.Fatalf("pass %d: ReadRowset(%q) row %d%s", pass, clipBytes(result), i, d)
			}
		}
		if got := ReadLookupResult(json.RawMessage(result)); got != wantLookup {
			t.Fatalf("pass %d: ReadLookupResult(%q) = %+v, want %+v", pass, clipBytes(result), got, wantLookup)
		}
	}
}

var resultSeeds = []string{
	`[]`, `[{"a":1}]`, `[{"a":1},2]`, `[{"a":1}] ]`, `"[{\"a\":1}]"`, `" \u00a0[{\"a\":1}] "`, `"[{\"a\":1}"`,
	`"[]"`, `"null"`, `" {\"records\": []} "`, `""`, `"  "`, `"prose"`, `null`, `{}`, `{"records":[],"total":0}`,
	`{"records":[{"id":1}],"records":[]}`, `{"af_absent":true}`, `{"af_semantics":true,"facts":[]}`,
	`[{"host":"h1","size_gb":"12"},{"host":"h2"}]`, `not json`, `0`,
}

func TestResultReadersMatchReference(t *testing.T) {
	for _, s := range resultSeeds {
		readersAgree(t, []byte(s))
	}
	// More distinct results than the cache holds, read round robin, so
	// entries are evicted and read again.
	var many [][]byte
	for i := 0; i < 3*resultCacheEntries; i++ {
		many = append(many, []byte(fmt.Sprintf(`[{"n":%d,"s":"row %d"}]`, i, i)))
	}
	for round := 0; round < 2; round++ {
		for _, r := range many {
			readersAgree(t, r)
		}
	}
}

// TestResultCacheKeysOnBytes: a buffer reused for another result is never
// answered from the reading of what it held before.
func TestResultCacheKeysOnBytes(t *testing.T) {
	buf := []byte(`[{"n":1}]`)
	rows, ok := ReadRowset(buf)
	if !ok || len(rows) != 1 {
		t.Fatalf("ReadRowset = %d rows, %v", len(rows), ok)
	}
	copy(buf, `[{"n":1},`)
	if _, ok := ReadRowset(buf); ok {
		t.Fatal("a changed buffer was read as its old contents")
	}
	if got := ReadLookupResult(buf); got.Judged {
		t.Fatalf("a changed buffer was read as its old contents: %+v", got)
	}
}

func FuzzResultReaders(f *testing.F) {
	for _, s := range resultSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, result []byte) {
		readersAgree(t, result)
	})
}

// keyArgumentsByLowering is KeyArguments as it was: every served text
// lowered again for every argument.
func keyArgumentsByLowering(args json.RawMessage, grounds []string, served []ServedResult) ([]KeyArgument, error) {
	leaves, err := stringLeaves(args)
	if err != nil {
		return nil, err
	}
	isGround := setOf(grounds)
	var out []KeyArgument
	for _, leaf := range leaves {
		if !IdentifierLike(leaf.value) {
			continue
		}
		value := strings.TrimSpace(leaf.value)
		needle := strings.ToLower(value)
		k := KeyArgument{Path: leaf.path, Value: value}
		for i := range served {
			s := &served[i]
			if !strings.Contains(strings.ToLower(s.Text), needle) {
				continue
			}
			if isGround[s.Tool] {
				r := *s
				k.ProducedBy = &r
				break
			}
			if s.Tool == "" {
				k.InUnnamedResult = true
			}
		}
		if k.ProducedBy != nil {
			k.InUnnamedResult = false
		}
		out = append(out, k)
	}
	return out, nil
}

func TestKeyArgumentsMatchLowering(t *testing.T) {
	var served []ServedResult
	for i, text := range caseTexts {
		tool := []string{"", "fleet_report", "other"}[i%3]
		served = append(served, ServedResult{Tool: tool, CallID: fmt.Sprint("c", i), Text: text + " " + caseTexts[(i+3)%len(caseTexts)]})
	}
	for _, args := range []string{
		`{"machine":"RACK-A1","hosts":["İstanbul-4417","k8s-node"],"n":3}`,
		`{"a":"bkp-4417","b":"host-9","c":"nowhere-1","d":"ⱥb-12"}`,
		`"caf\u00ff-2024"`, `{"x":`, ``,
	} {
		want, wantErr := keyArgumentsByLowering(json.RawMessage(args), []string{"fleet_report"}, served)
		got, err := KeyArguments(json.RawMessage(args), []string{"fleet_report"}, served)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("KeyArguments(%s): error %v, want %v", args, err, wantErr)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("KeyArguments(%s) (-want +got):\n%s", args, d)
		}
	}
}

// TestCachesConcurrent: the cache serves replays running side by side;
// run with -race.
func TestCachesConcurrent(t *testing.T) {
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 200; i++ {
				n := (i + g) % (2 * resultCacheEntries)
				rows, ok := ReadRowset(json.RawMessage(fmt.Sprintf(`[{"n":%d,"s":"row"}]`, n)))
				if !ok || len(rows) != 1 || rows[0].field("n").num != float64(n) {
					t.Errorf("row %d read as %v, %v", n, rows, ok)
					return
				}
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}
