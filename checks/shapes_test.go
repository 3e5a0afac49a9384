package checks

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The expressions isBareNumber and isThousands stand for.
var (
	bareNumberRE = regexp.MustCompile(`^[-+]?[0-9]+(?:\.[0-9]+)?$`)
	thousandsRE  = regexp.MustCompile(`^-?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?$`)
)

var numberShapeSeeds = []string{
	"", "0", "-0", "+1", "-", "+", "1.", ".5", "1.5", "1.5.5", "12a", "a12", "1,000", "-1,000", "+1,000", "1,000.5",
	"1,000.", "12,345,678", "1234,567", ",123", "1,23", "1,2345", "1,000,00", "１２", "1\n", "1,000\n", "999,999.999",
}

func TestNumberShapesMatchExpressions(t *testing.T) {
	for _, s := range numberShapeSeeds {
		numberShapesAgree(t, s)
	}
}

func numberShapesAgree(t *testing.T, s string) {
	t.Helper()
	if got, want := isBareNumber(s), bareNumberRE.MatchString(s); got != want {
		t.Fatalf("isBareNumber(%q) = %v, the expression says %v", s, got, want)
	}
	if got, want := isThousands(s), thousandsRE.MatchString(s); got != want {
		t.Fatalf("isThousands(%q) = %v, the expression says %v", s, got, want)
	}
}

func FuzzNumberShapes(f *testing.F) {
	for _, s := range numberShapeSeeds {
		f.Add(s)
	}
	f.Fuzz(numberShapesAgree)
}

var leafSeeds = []string{
	``, ` `, "\u00a0", `{}`, `[]`, `"4417-ganymede"`, `{"machine":"4417-ganymede","count":3}`, `{"filter":{"hosts":["a","b"]}}`,
	`{"":"x","":{"":"y"}}`, `{"a":"1","a":"2"}`, `{"k\u00e9y":"v\ud800"}`, "{\"a\":\"\xff\"}", `{"a":1} {}`, `{"a":1} ]`,
	`{"a":`, `[1,]`, `{"a":"b"}x`, " \t{\"a\" : [ \"x\" , null , true ] }\n", `null`, `12`,
}

func TestStringLeavesMatchDecoder(t *testing.T) {
	for _, s := range leafSeeds {
		leavesAgree(t, []byte(s))
	}
	deep := strings.Repeat(`{"a":[`, 6000) + `"x"` + strings.Repeat(`]}`, 6000)
	leavesAgree(t, []byte(deep))
}

func leavesAgree(t *testing.T, raw []byte) {
	t.Helper()
	want, wantErr := decodeLeaves(raw)
	if len(strings.TrimSpace(string(raw))) == 0 {
		want, wantErr = nil, nil
	}
	got, err := stringLeaves(raw)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("stringLeaves(%q): error %v, the decoder's %v", clipBytes(raw), err, wantErr)
	}
	if err != nil {
		return
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(argLeaf{})); d != "" {
		t.Fatalf("stringLeaves(%q) (-decoder +got):\n%s", clipBytes(raw), d)
	}
}

func FuzzStringLeaves(f *testing.F) {
	for _, s := range leafSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		leavesAgree(t, raw)
	})
}
