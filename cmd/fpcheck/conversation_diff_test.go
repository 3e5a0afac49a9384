package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffPairsTurnsWithinConversations: two conversations with
// different first prompts and the same follow-up, the head written
// interleaved as concurrent recordings are. A turn is paired with the
// turn of its own conversation, not the other's in recording order, so a
// check that stopped checking in one conversation's follow-up is a
// regression whatever the order the head was written in.
func TestDiffPairsTurnsWithinConversations(t *testing.T) {
	data, err := os.ReadFile("../../testdata/recordings/demo/triage.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var events []map[string]any
	for line := range bytes.Lines(data) {
		var e map[string]any
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	// conv is the demo's two turns as conversation tag, opened by prompt
	// first, its follow-up's wire check having checked wire encounters.
	conv := func(tag, first string, wire float64) [2][]map[string]any {
		var out [2][]map[string]any
		for i, e := range events {
			turn := 0
			if i >= 50 {
				turn = 1
			}
			var c map[string]any
			b, _ := json.Marshal(e)
			json.Unmarshal(b, &c)
			meta := c["meta"].(map[string]any)
			meta["runId"], meta["sessionId"] = tag+"-"+string(rune('1'+turn)), "session-"+tag
			payload := c["payload"].(map[string]any)
			if turn == 0 && strings.HasSuffix(c["type"].(string), "turn_start") {
				payload["userPrompt"] = first
			}
			if turn == 1 && strings.HasSuffix(c["type"].(string), "disposition") {
				row := payload["rows"].([]any)[0].(map[string]any)
				row["checked"], row["notApplicable"] = wire, 2-wire
			}
			out[turn] = append(out[turn], c)
		}
		return out
	}
	write := func(name string, runs ...[]map[string]any) string {
		var b bytes.Buffer
		for _, run := range runs {
			for _, e := range run {
				line, _ := json.Marshal(e)
				b.Write(append(line, '\n'))
			}
		}
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	g, c := "Check last night's backup for machine ganymede-07.", "Check last night's backup for machine callisto-02."
	a, b := conv("a", g, 2), conv("b", c, 0)
	base := write("base.jsonl", a[0], a[1], b[0], b[1])
	a2, b2 := conv("a2", g, 0), conv("b2", c, 2)
	for name, head := range map[string]string{
		"in order":    write("head.jsonl", a2[0], a2[1], b2[0], b2[1]),
		"interleaved": write("head.jsonl", a2[0], b2[0], b2[1], a2[1]),
	} {
		code, out, stderr := run(t, nil, "diff", base, head)
		if code != int(ExitDefects) || !strings.Contains(out, "a-2 → a2-2 (matched by prompt)") || !strings.Contains(out, "REGRESSION — invariant-violation @wire") {
			t.Errorf("%s: exit %d, want 1 with a's follow-up paired to a2's and the regression said (%s)\n%s", name, code, stderr, out)
		}
	}
}
