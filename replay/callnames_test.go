package replay

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// unnamedTurns reads the two-turn empty-lookup stream with every name of
// call-1 taken out of the second turn, so that only the first turn's
// tool_start names it.
func unnamedTurns(t *testing.T) []*recording.Run {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(claimsRoot, "empty-lookup-earlier-turn", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if bytes.Contains(line, []byte(`"runId":"run-fleet-turn-2"`)) {
			line = bytes.ReplaceAll(line, []byte(`"toolName":"fleet_report"`), []byte(`"toolName":""`))
			line = bytes.ReplaceAll(line, []byte(`"id":"call-1","name":"fleet_report"`), []byte(`"id":"call-1","name":""`))
		}
		out = append(out, line)
	}
	runs, err := decodeRuns("unnamed.jsonl", bytes.Join(out, nil))
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// TestCallNamesAcrossTurns: a call id's tool is learned from every event
// that states it, an earlier turn's included; a call id nothing names
// leaves the encounter unreachable, never a guess.
func TestCallNamesAcrossTurns(t *testing.T) {
	decl := loadDeclarations(t, filepath.Join(claimsRoot, "empty-lookup-earlier-turn"))
	const id = "empty-lookup @write [tool backup_status + tool fleet_report] machine "
	key := CheckKey(checks.KindEmptyLookup, checks.SeamWrite)
	runs := unnamedTurns(t)
	names := NewCallNames()
	for _, run := range runs {
		ev, err := Replay(run, decl, Options{Names: names})
		if err != nil {
			t.Fatal(err)
		}
		if run.ID != "run-fleet-turn-2" {
			continue
		}
		if got := findingsOf(ev); len(got) != 1 || got[0] != id {
			t.Errorf("named by the earlier turn: findings %v, want [%s]", got, id)
		}
	}
	// The second turn alone: nothing in the recording names call-1.
	ev, err := Replay(runs[1], decl, Options{Names: NewCallNames()})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := ev.Disposition.Row(checks.KindEmptyLookup, checks.SeamWrite)
	if len(ev.Findings) != 0 || r.Unreachable != 1 || r.Checked != 0 {
		t.Errorf("unnamed call id: findings %v, row %+v", findingsOf(ev), r)
	}
	if why := ev.Unreachable[key]; len(why) != 1 || !strings.Contains(why[0], "whose tool the recording does not name") {
		t.Errorf("unnamed call id: reasons %q", why)
	}
	// A later run does not name an earlier run's call ids.
	names = NewCallNames()
	if _, err := Prepare(runs[1], decl, Options{Names: names}); err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(runs[0], decl, Options{Names: names})
	if err != nil {
		t.Fatal(err)
	}
	if n := p.f.e.earlier.name("call-1"); n != "" {
		t.Errorf("a run read a name from a later run: %q", n)
	}
}

// TestCallNamesConflict: a call id two earlier runs give different tools
// is not named, and conversations keep their own names.
func TestCallNamesConflict(t *testing.T) {
	run := func(id, session, tool string) *recording.Run {
		return &recording.Run{ID: id, SessionID: session, Events: []recording.Event{{Type: recording.TypeToolStart,
			Payload: []byte(`{"toolName":"` + tool + `","toolCallId":"call-1","args":{}}`)}}}
	}
	b := NewCallNames()
	b.enter(run("a", "s1", "fleet_report"), false)
	b.enter(run("b", "s2", "other_tool"), false)
	v := b.enter(run("c", "s1", "fleet_report"), false)
	if n := v.name("call-1"); n != "fleet_report" {
		t.Errorf("same conversation: %q", n)
	}
	b.enter(run("d", "s1", "backup_status"), false)
	if n := b.enter(run("e", "s1", "x"), false).name("call-1"); n != "" {
		t.Errorf("a reused call id was named %q", n)
	}
	if n := b.enter(run("f", "s2", "x"), false).name("call-1"); n != "other_tool" {
		t.Errorf("other conversation: %q", n)
	}
	// A run without the tool_start (its head cut off) still names the
	// calls its last history carries.
	b = NewCallNames()
	b.enter(&recording.Run{ID: "g", Events: []recording.Event{
		{Type: recording.TypeIterationEnd, Payload: []byte(`{"iterIndex":1,"history":[{"role":"assistant","content":"","toolCalls":[{"id":"call-7","name":"fleet_report"}]},{"role":"tool","content":"x","toolCallId":"call-8","toolName":"backup_status"}]}`)},
		{Type: recording.TypeIterationEnd, Payload: []byte(`{"iterIndex":2,"toolCallCount":0}`)},
	}}, false)
	v = b.enter(&recording.Run{ID: "h"}, false)
	if a, c := v.name("call-7"), v.name("call-8"); a != "fleet_report" || c != "backup_status" {
		t.Errorf("names from the last history: %q, %q", a, c)
	}
}

// TestRefusedRowsReconcile: a column finding recorded beside a result the
// library refused under enforce reconciles as the replay lacking input,
// never as an unarmed check; a refusal whose finding is missing says so.
func TestRefusedRowsReconcile(t *testing.T) {
	runs := replayClaimsFixture(t, "columns-enforce-refused")
	events := readRuns(t, filepath.Join(claimsRoot, "columns-enforce-refused", "events.jsonl"))
	ms := Reconcile(Recorded(events[0].Events), runs[0].Evidence)
	if len(ms) != 1 || ms[0].Source != SourceRecorded || ms[0].Drift ||
		!strings.HasPrefix(ms[0].Why, "replay lacked input: the rows were refused under enforce") {
		t.Errorf("recorded refusal finding reconciled as %+v", ms)
	}
	if lost := runs[0].Evidence.Lost; len(lost) != 0 {
		t.Errorf("a refusal whose finding is recorded: lost %q", lost)
	}
	if lost := runs[1].Evidence.Lost; len(lost) != 1 || !strings.Contains(lost[0], "call call-9") || !strings.Contains(lost[0], "is missing from the recording") {
		t.Errorf("a refusal whose finding is missing: lost %q", lost)
	}
}

// enter starts a run in the book and writes the names it states at once,
// as Prepare does.
func (b *CallNames) enter(run *recording.Run, slow bool) callNamesView {
	session := run.SessionID
	v := b.start(&session, -1)
	v.write(statedNames(run, slow))
	return v
}

// TestBookBySeq: places taken by sequence number let folds start in any
// order: a run reads the names of the runs before it in the input, never
// of those after it, whichever started first.
func TestBookBySeq(t *testing.T) {
	b := NewCallNames()
	session := ""
	later := b.start(&session, 1)
	earlier := b.start(&session, 0)
	last := b.start(&session, 2)
	earlier.write(map[string]string{"call-1": "fleet_report"}, []string{"call-1"})
	later.write(map[string]string{"call-2": "backup_status"}, []string{"call-2"})
	for _, tc := range []struct {
		name string
		view callNamesView
		id   string
		want string
	}{
		{"a later run reads an earlier one that started after it", later, "call-1", "fleet_report"},
		{"an earlier run does not read a later one", earlier, "call-2", ""},
		{"the last run reads both", last, "call-2", "backup_status"},
		{"the last run reads both", last, "call-1", "fleet_report"},
	} {
		if got := tc.view.name(tc.id); got != tc.want {
			t.Errorf("%s: %s is %q, want %q", tc.name, tc.id, got, tc.want)
		}
	}
}
