package checks

import (
	"testing"
)

func TestCompareValues(t *testing.T) {
	tests := []struct {
		name, claimed, reading string
		want                   Agreement
	}{
		{"same number", `2`, `2`, Agrees},
		{"numbers differ", `5`, `2`, Contradicts},
		{"number and plain decimal string by value", `42.5`, `"42.50"`, Agrees},
		{"decimal strings by value", `"42.50"`, `"42.5"`, Agrees},
		{"quoted number against a number", `"1240"`, `1240`, Agrees},
		{"number against a different decimal string", `42.5`, `"42.6"`, Contradicts},
		{"trim and collapse white space", `"  Settled  in   full "`, `"Settled in full"`, Agrees},
		{"capital first against lower", `"Settled"`, `"settled "`, Agrees},
		{"all upper sharp s against capital first", `"STRAẞE"`, `"Straße"`, Agrees},
		{"Polish and polish agree (the rule cannot know)", `"Polish"`, `"polish"`, Agrees},
		{"short word case difference", `"MW"`, `"mW"`, Incomparable},
		{"mixed case word", `"McDonald"`, `"mcdonald"`, Incomparable},
		{"text with a digit in another case", `"ABC1"`, `"abc1"`, Incomparable},
		{"ß against ss", `"Masse"`, `"maße"`, Incomparable},
		{"dotless i", `"ılık"`, `"ilik"`, Incomparable},
		{"dotted capital I against I", `"İstanbul"`, `"Istanbul"`, Incomparable},
		{"dotted capital I, all upper", `"İSTANBUL"`, `"istanbul"`, Incomparable},
		{"dotted capital I against its full lowering (a mark, outside the word rule)", `"İstanbul"`, `"i̇stanbul"`, Incomparable},
		{"marks only", `"café"`, `"cafe"`, Incomparable},
		{"Greek accent dropped on capitals", `"ΆΘΗΝΑ"`, `"Αθήνα"`, Incomparable},
		{"fullwidth compatibility form", `"ＡＢＣ１"`, `"ABC1"`, Incomparable},
		{"NFC: decomposed and precomposed agree", "\"cafe\u0301\"", `"café"`, Agrees},
		{"NFC: a canonical singleton agrees with its target", "\"\u212b\"", "\"\u00c5\"", Agrees},
		{"NFKD skeleton: a ligature differs only in form", `"ﬁle"`, `"file"`, Incomparable},
		{"a stroke letter differs only in its mark", `"søren"`, `"soren"`, Incomparable},
		{"identical decomposed text agrees", "\"cafe\u0301\"", "\"cafe\u0301\"", Agrees},
		{"different words", `"queued"`, `"done"`, Contradicts},
		{"same unit by value", `"5.0 MW"`, `"5 MW"`, Agrees},
		{"same unit different value", `"6 MW"`, `"5 MW"`, Contradicts},
		{"unit case", `"5 MW"`, `"5 mW"`, Incomparable},
		{"different units", `"5 MW"`, `"5000 kW"`, Incomparable},
		{"unit against bare number", `"5 MW"`, `5`, Incomparable},
		{"currency", `"$5"`, `5`, Incomparable},
		{"currency written the same", `"$5"`, `"$5"`, Agrees},
		{"digit separators", `"1,250"`, `1250`, Incomparable},
		{"dot-grouped", `"1.250"`, `1250`, Incomparable},
		{"dot-grouped against its decimal reading", `"1.250"`, `1.25`, Incomparable},
		{"zero-led decimal is plain", `"0.125"`, `0.125`, Agrees},
		{"date written differently", `"2024-05-01"`, `"01/05/2024"`, Incomparable},
		{"date written the same", `"2024-05-01"`, `"2024-05-01"`, Agrees},
		{"time", `"08:30"`, `"8:30"`, Incomparable},
		{"list against scalar", `[2]`, `2`, Incomparable},
		{"object against scalar", `{"a":1}`, `1`, Incomparable},
		{"list with a hole", `[1,null]`, `[1,2]`, Incomparable},
		{"lists agree", `[1,"x"]`, `[1,"x"]`, Agrees},
		{"lists differ", `[1,2]`, `[1,3]`, Contradicts},
		{"lists in another order", `[1,2]`, `[2,1]`, Incomparable},
		{"lists of different length", `[1]`, `[1,2]`, Contradicts},
		{"objects by key", `{"b":[1,2],"a":1}`, `{"a":1,"b":[1,2]}`, Agrees},
		{"objects differ", `{"a":1}`, `{"a":2}`, Contradicts},
		{"booleans", `true`, `false`, Contradicts},
		{"boolean against text", `true`, `"true"`, Incomparable},
		{"number against words", `2`, `"two"`, Incomparable},
		{"hex string against a number", `"0x2"`, `2`, Incomparable},
		{"not JSON", `nope`, `2`, Incomparable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := CompareValues([]byte(tc.claimed), []byte(tc.reading))
			if got.Outcome != tc.want {
				t.Fatalf("CompareValues(%s, %s) = %v (%s), want %v", tc.claimed, tc.reading, got.Outcome, got.Why, tc.want)
			}
			if got.Outcome == Incomparable && got.Why == "" {
				t.Error("an incomparable pair must say why")
			}
			// The comparison is symmetric.
			if back := CompareValues([]byte(tc.reading), []byte(tc.claimed)); back.Outcome != got.Outcome {
				t.Errorf("reversed: %v, want %v", back.Outcome, got.Outcome)
			}
		})
	}
}

func FuzzCompareValues(f *testing.F) {
	for _, s := range [][2]string{{`"1.250"`, `1250`}, {`"STRAẞE"`, `"Straße"`}, {`[1,null]`, `{"a":[]}`}, {`"5 MW"`, `"5 mW"`}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		x, y := CompareValues([]byte(a), []byte(b)), CompareValues([]byte(b), []byte(a))
		if x.Outcome != y.Outcome {
			t.Errorf("asymmetric: %q vs %q gives %v one way and %v the other", a, b, x.Outcome, y.Outcome)
		}
		if x.Outcome == Incomparable && x.Why == "" {
			t.Errorf("%q vs %q: incomparable without a reason", a, b)
		}
	})
}
