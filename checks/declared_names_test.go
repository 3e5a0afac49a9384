package checks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPlaceToolNames(t *testing.T) {
	data := []byte(`# comment
tools:
  backup_status: { argumentsFrom: [fleet_report] }
  screen_fire:
    argumentsFrom:
      - whats_here
      - get_zone
maps:
  - id: skill-map
    tools: [get_zone_info, get_zone_map]
`)
	d, err := ParseDeclarations("decl.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	got := PlaceToolNames(d.ToolNames(), data)
	want := []NamedTool{
		{Name: "backup_status", Field: "tools", Line: 3},
		{Name: "fleet_report", Field: "tools.backup_status.argumentsFrom", Line: 3},
		{Name: "screen_fire", Field: "tools", Line: 4},
		{Name: "whats_here", Field: "tools.screen_fire.argumentsFrom", Line: 6},
		{Name: "get_zone", Field: "tools.screen_fire.argumentsFrom", Line: 7},
		{Name: "get_zone_info", Field: "maps.skill-map.tools", Line: 10},
		{Name: "get_zone_map", Field: "maps.skill-map.tools", Line: 10},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PlaceToolNames (-want +got):\n%s", diff)
	}
	// JSON is YAML: the same names, on their lines.
	js := []byte("{\n\"tools\": {\n\"a\": {\"argumentsFrom\": [\"b\"]}\n}\n}\n")
	d, err = ParseDeclarations("decl.json", js)
	if err != nil {
		t.Fatal(err)
	}
	if got := PlaceToolNames(d.ToolNames(), js); got[0].Line != 3 || got[1].Line != 3 {
		t.Errorf("JSON names placed at %+v, want line 3", got)
	}
	// Unparseable data leaves the names unplaced.
	if got := PlaceToolNames(d.ToolNames(), []byte("{")); got[0].Line != 0 {
		t.Errorf("unparseable data placed a name: %+v", got)
	}
}

// TestToolNamesOnce: a name is listed once, at its first place, however
// often the file names it: YAML aliases name a list again at each use, and
// a few kilobytes of them would otherwise be hundreds of thousands of
// names, each reported unseen in its own sentence.
func TestToolNamesOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString("tools:\n  t0: {argumentsFrom: &g [" + strings.ReplaceAll(manyNames(400), "t", "g") + "]}\n")
	for i := 1; i < 2000; i++ {
		fmt.Fprintf(&b, "  t%d: {argumentsFrom: *g}\n", i)
	}
	b.WriteString("maps:\n  - {id: m, tools: [g0, t1, other]}\n")
	data := []byte(b.String())
	d, err := ParseDeclarations("decl.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	got := PlaceToolNames(d.ToolNames(), data)
	if len(got) != 2000+400+1 {
		t.Fatalf("%d names, want 2,401 distinct ones", len(got))
	}
	want := []NamedTool{
		{Name: "t0", Field: "tools", Line: 2},
		{Name: "g0", Field: "tools.t0.argumentsFrom", Line: 2},
	}
	if diff := cmp.Diff(want, got[:2]); diff != "" {
		t.Errorf("first names (-want +got):\n%s", diff)
	}
	if last := got[len(got)-1]; last != (NamedTool{Name: "other", Field: "maps.m.tools", Line: 2003}) {
		t.Errorf("last name %+v, want other in maps.m.tools on line 2003", last)
	}
}
