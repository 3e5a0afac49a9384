package report

import (
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBuildTakingRendersAsBuild: a report built taking its inputs renders
// byte for byte as one built keeping them, in every format that does not
// write the inputs again; the two that do refuse it rather than write
// inputs without their runs, and the inputs' runs are let go.
func TestBuildTakingRendersAsBuild(t *testing.T) {
	var rendered, refused []string
	for _, f := range Formats() {
		if ReadsSources(f) {
			refused = append(refused, f)
		} else {
			rendered = append(rendered, f)
		}
	}
	if !cmp.Equal(refused, []string{FormatJSON, FormatJSONL}) {
		t.Fatalf("formats that read the inputs = %q, want json and jsonl", refused)
	}
	for _, gc := range goldenCases() {
		t.Run(gc.name, func(t *testing.T) {
			kept := Build(goldenInputs(t, gc), testOptions(gc.opts))
			inputs := goldenInputs(t, gc)
			taken := BuildTaking(inputs, testOptions(gc.opts))
			for _, in := range inputs {
				for i, rr := range in.Runs {
					if !reflect.ValueOf(rr).IsZero() {
						t.Errorf("%s: run %d still held after BuildTaking", in.Path, i)
					}
				}
			}
			if taken.Sources != nil {
				t.Errorf("a taken report keeps Sources")
			}
			if diff := cmp.Diff(renderFormats(t, kept, rendered), renderFormats(t, taken, rendered)); diff != "" {
				t.Errorf("taken report renders differently (-kept +taken):\n%s", diff)
			}
			for _, f := range refused {
				rd, err := NewRenderer(f, testRenderOptions())
				if err != nil {
					t.Fatal(err)
				}
				if err := rd.Render(io.Discard, taken); !errors.Is(err, errNoSources) {
					t.Errorf("%s of a taken report: err = %v, want %v", f, err, errNoSources)
				}
			}
		})
	}
}
