package recording

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// releaseLine is one NDJSON event of run id in session sess.
func releaseLine(typ, id, sess string) string {
	return fmt.Sprintf(`{"type":"agentfootprint.%s","payload":{},"meta":{"runId":%q,"sessionId":%q}}`+"\n", typ, id, sess)
}

// releaseRun is a complete run: configured, one turn, its ledger.
func releaseRun(id, sess string) string {
	return releaseLine("agent.run_configured", id, sess) + releaseLine("agent.turn_start", id, sess) +
		releaseLine("integrity.disposition", id, sess)
}

// TestReleaseHandsRunsOverAsTheyEnd holds Options.Release to its word: a
// run goes when its own last event is read, unless it is ordered and an
// earlier ordered run of its group is still in flight; the rest go at the
// end in first-event order, and Seq is always the first-event place.
func TestReleaseHandsRunsOverAsTheyEnd(t *testing.T) {
	unordered := func(*Event) (string, bool) { return "", false }
	bySession := func(first *Event) (string, bool) { return first.Meta.SessionID, true }
	tests := []struct {
		name    string
		stream  string
		release func(*Event) (string, bool)
		// want is the runs as handed over: id and Seq.
		want []string
	}{
		{
			name:    "unfinished run ahead of complete ones",
			stream:  releaseLine("agent.run_configured", "open", "s") + releaseRun("a", "s") + releaseRun("b", "s"),
			release: unordered,
			want:    []string{"a#1", "b#2", "open#0"},
		},
		{
			name:    "ordered runs of one group wait",
			stream:  releaseLine("agent.run_configured", "open", "s") + releaseRun("a", "s") + releaseRun("b", "t"),
			release: bySession,
			want:    []string{"b#2", "open#0", "a#1"},
		},
		{
			name: "a waiting run goes with the run it waited for",
			stream: releaseLine("agent.run_configured", "first", "s") + releaseRun("a", "s") +
				releaseLine("integrity.disposition", "first", "s") + releaseRun("b", "s"),
			release: bySession,
			want:    []string{"first#0", "a#1", "b#2"},
		},
		{
			name:    "without Release runs keep first-event order",
			stream:  releaseLine("agent.run_configured", "open", "s") + releaseRun("a", "s") + releaseRun("b", "s"),
			release: nil,
			want:    []string{"open#0", "a#1", "b#2"},
		},
		{
			name: "a further segment is a run of its own",
			stream: releaseRun("a", "s") + releaseLine("agent.turn_start", "a", "s") +
				releaseRun("b", "s"),
			release: unordered,
			want:    []string{"a#0", "b#2", "a#1"},
		},
	}
	for _, tc := range tests {
		for _, workers := range []int{1, 3} {
			var got []string
			_, err := LoadReader("s.jsonl", strings.NewReader(tc.stream), Options{Workers: workers, Release: tc.release}, func(r *Run) error {
				got = append(got, fmt.Sprintf("%s#%d", r.ID, r.Seq))
				return nil
			})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s, %d workers: handed over (-want +got):\n%s", tc.name, workers, diff)
			}
		}
	}
}

// countingReader counts the bytes read through it, from whichever
// goroutine reads.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// TestUnfinishedRunHoldsOnlyItself: with Release, the complete runs behind
// a run that never ends are handed over while the stream is still being
// read, not kept until its end.
func TestUnfinishedRunHoldsOnlyItself(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(releaseLine("agent.run_configured", "open", "s"))
	const runs = 20_000
	for i := range runs {
		b.WriteString(releaseRun(fmt.Sprintf("run-%d", i), "s"))
	}
	total := int64(b.Len())
	for _, workers := range []int{1, 2} {
		cr := &countingReader{r: bytes.NewReader(b.Bytes())}
		handed, early := 0, 0
		_, err := LoadReader("s.jsonl", cr, Options{Workers: workers, Release: func(*Event) (string, bool) { return "", false }}, func(r *Run) error {
			handed++
			if cr.n.Load() < total/2 {
				early++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if handed != runs+1 {
			t.Fatalf("%d workers: %d runs handed over, want %d", workers, handed, runs+1)
		}
		if early < runs/4 {
			t.Errorf("%d workers: only %d of %d complete runs were handed over before half the stream was read", workers, early, runs)
		}
	}
}

// TestRunStoppedAtItsLimit: a run past --max-events-per-run is let go
// alone: it is never handed over, the runs around it are, in either
// handover order, and the load ends with a *RunStop naming the run, the
// line and the flag, with the stop in Stats.StoppedRuns.
func TestRunStoppedAtItsLimit(t *testing.T) {
	long := releaseLine("agent.run_configured", "long", "s") + strings.Repeat(releaseLine("agent.turn_start", "long", "s"), 5) +
		releaseLine("integrity.disposition", "long", "s")
	stream := releaseRun("a", "s") + releaseLine("agent.run_configured", "b", "s") + long + releaseLine("integrity.disposition", "b", "s") + releaseRun("c", "s")
	for _, release := range []func(*Event) (string, bool){nil, func(f *Event) (string, bool) { return f.Meta.SessionID, true }} {
		for _, workers := range []int{1, 3} {
			var got []string
			st, err := LoadReader("s.jsonl", strings.NewReader(stream), Options{Workers: workers, MaxEventsPerRun: 4, Release: release}, func(r *Run) error {
				got = append(got, r.ID)
				return nil
			})
			if _, ok := errors.AsType[*RunStop](err); !ok || !strings.Contains(err.Error(), `s.jsonl: line 9: run "long" has more than 4 events (limit set by --max-events-per-run)`) {
				t.Errorf("workers %d: err = %v, want the run's stop", workers, err)
			}
			if want := []string{"a", "b", "c"}; !slices.Equal(got, want) {
				t.Errorf("workers %d, release %t: handed over %q, want %q", workers, release != nil, got, want)
			}
			if len(st.StoppedRuns) != 1 || st.StoppedRuns[0].RunID != "long" || st.StoppedRuns[0].Line != 9 {
				t.Errorf("workers %d: StoppedRuns = %+v", workers, st.StoppedRuns)
			}
			if st.Events != 15 {
				t.Errorf("workers %d: %d events counted, want every one of the 15", workers, st.Events)
			}
		}
	}
}
