package replay

import (
	"bytes"
	"sync"
	"testing"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/internal/benchcpu"
	"github.com/fpcheck/fpcheck/internal/synth"
	"github.com/fpcheck/fpcheck/recording"
)

// synthArmAll declares something for every check with the synthetic
// agent's tool names, so a benchmark replay pays for every seam.
const synthArmAll = `
tools:
  backup_status:
    argumentsFrom: [fleet_report]
    noticeEmptyLookups: true
    resultColumns: { host: string, size_gb: number, finished_at: date }
  host_metrics: { argumentsFrom: [fleet_report] }
  fleet_report:
    resultColumns: { host: string, zone: string }
claims:
  hosts_at_risk: { entity: fleet, field: at_risk }
maps:
  - { id: incident-map, tools: [ticket_search] }
dials:
  checkColumnTypes: warn
  noticePriorTurnEvidence: true
  namesAndNumbers: { minDigits: 2 }
`

// benchRuns is a generated stream of four 200-call runs, loaded once.
var benchRuns = sync.OnceValues(func() ([]*recording.Run, int64) {
	c := synth.DefaultConfig()
	c.Runs = 4
	var buf bytes.Buffer
	if _, err := synth.WriteNDJSON(&buf, c); err != nil {
		panic(err)
	}
	size := int64(buf.Len())
	var runs []*recording.Run
	if _, err := recording.LoadReader("bench.jsonl", &buf, recording.Options{}, func(r *recording.Run) error {
		runs = append(runs, r)
		return nil
	}); err != nil {
		panic(err)
	}
	return runs, size
})

// TestSynthArmAllArmsEveryCheck keeps the benchmark's declarations honest:
// with them no registered check is left unarmed.
func TestSynthArmAllArmsEveryCheck(t *testing.T) {
	d, err := checks.ParseDeclarations("bench.yaml", []byte(synthArmAll))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks.Registry {
		if c.Armed != nil && !c.Armed(d) {
			t.Errorf("%s is not armed by the benchmark declarations", c.Key())
		}
	}
}

// BenchmarkReplay replays a generated stream (the bytes are the stream's,
// loading excluded), with nothing declared and with every check armed. It
// also reports MB/s per second of process CPU time (cpu-MB/s), the steadier
// figure on a shared machine.
func BenchmarkReplay(b *testing.B) {
	runs, size := benchRuns()
	if len(runs) == 0 {
		b.Fatal("the generated stream holds no run")
	}
	armed, err := checks.ParseDeclarations("bench.yaml", []byte(synthArmAll))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		decl *checks.Declarations
	}{{"none-declared", nil}, {"all-armed", armed}} {
		b.Run(bc.name, func(b *testing.B) {
			benchcpu.Loop(b, size, func() {
				for _, r := range runs {
					if _, err := Replay(r, bc.decl, Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
