package checks

import (
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
