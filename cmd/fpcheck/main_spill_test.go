package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpilledRunReportsAlike: a run whose tool results outgrow what a run
// holds in memory under a small --max-run-bytes has the rest in a
// temporary file, and reports exactly as under the default limit, the
// empty lookup of a value served after the spill included; the temporary
// directory is left empty. The run is generated here, not committed.
func TestSpilledRunReportsAlike(t *testing.T) {
	dir := t.TempDir()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	event := func(typ, payload string) string {
		return `{"type":"agentfootprint.` + typ + `","payload":` + payload + `,"meta":{"runId":"run-spill"}}` + "\n"
	}
	var b strings.Builder
	b.WriteString(event("agent.turn_start", `{"userPrompt":"Which backups failed?"}`))
	filler := strings.Repeat("nightly backup report, all green ", 128)
	for i := range 48 {
		b.WriteString(event("stream.llm_start", fmt.Sprintf(`{"iteration":%d,"tools":[{"name":"fleet_report"},{"name":"backup_status"}],"toolsCount":2}`, i)))
		b.WriteString(event("stream.llm_end", fmt.Sprintf(`{"iteration":%d,"content":""}`, i)))
		b.WriteString(event("stream.tool_start", fmt.Sprintf(`{"toolName":"fleet_report","toolCallId":"c-%d","args":{}}`, i)))
		b.WriteString(event("stream.tool_end", fmt.Sprintf(`{"toolCallId":"c-%d","result":"host-%04d: %s"}`, i, i, filler)))
	}
	// Host 46 was served after the first results went to the file.
	b.WriteString(event("stream.tool_start", `{"toolName":"backup_status","toolCallId":"q-1","args":{"machine":"HOST-0046"}}`))
	b.WriteString(event("stream.tool_end", `{"toolCallId":"q-1","result":[]}`))
	rec := filepath.Join(dir, "spill.jsonl")
	decl := filepath.Join(dir, "decl.yaml")
	if err := os.WriteFile(rec, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(decl, []byte("tools:\n  backup_status: { argumentsFrom: [fleet_report], noticeEmptyLookups: true }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	codeHeld, held, _ := run(t, nil, "analyze", "--color=never", "--format", "json", "--declarations", decl, rec)
	codeSpilled, spilled, stderr := run(t, nil, "analyze", "--color=never", "--format", "json", "--declarations", decl, "--max-run-bytes", "524288", rec)
	if codeHeld != codeSpilled || held != spilled {
		t.Errorf("exit %d and %d; the reports differ:\n%s\n---\n%s\n%s", codeHeld, codeSpilled, held, spilled, stderr)
	}
	if !strings.Contains(spilled, "empty-lookup") || !strings.Contains(spilled, "c-46") {
		t.Errorf("the empty lookup of a value served after the spill is not reported:\n%s", spilled)
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range left {
		t.Errorf("%s is left in the temporary directory", f.Name())
	}
}
