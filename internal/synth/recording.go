package synth

import (
	"errors"
	"io"
	"strconv"
	"time"
)

// WriteRecordingJSON writes format B, the compact JSON of
// recordRun(agent).toRecording(): {snapshot, events, structure}. The events
// are every run's, stream.token included; the snapshot is the last run's
// engine snapshot, large and deeply nested as the engine writes it. It
// returns the number of bytes written.
func WriteRecordingJSON(w io.Writer, c Config) (int64, error) {
	c, err := c.normalize()
	if err != nil {
		return 0, err
	}
	e := newEnc(w, false)
	writeRecording(e, &c)
	e.flush()
	return e.n, e.err
}

// WriteEnvelope writes format C, the agentfootprint.recording.v1 envelope
// around a recording, pretty-printed with a two-space indent and a final
// newline as persistRecording writes it. The library refuses to build an
// envelope over more than one run, so Runs must be 1. It returns the number
// of bytes written.
func WriteEnvelope(w io.Writer, c Config) (int64, error) {
	c, err := c.normalize()
	if err != nil {
		return 0, err
	}
	if c.Runs != 1 {
		return 0, errors.New("synth: an envelope holds exactly one run (agentfootprint refuses to build one over " + strconv.Itoa(c.Runs) + " runIds); set Runs to 1")
	}
	s := newRunSim(&c, 0, true)
	first, last := int64(-1), int64(0)
	for {
		it, ok := s.next()
		if !ok {
			break
		}
		if it.ev != nil {
			if first < 0 {
				first = it.ev.wall
			}
			last = it.ev.wall
		}
	}
	e := newEnc(w, true)
	e.obj()
	e.kstr("format", "agentfootprint.recording.v1")
	e.kobj("producer")
	e.kstr("agentfootprintVersion", "9.62.0")
	e.kstr("footprintjsVersion", "9.15.1")
	e.end()
	e.kobj("run")
	e.kstr("runId", s.runID)
	if c.SessionID != "" {
		e.kstr("sessionId", c.SessionID)
	}
	e.kstr("startedAt", isoMillis(first))
	e.kstr("endedAt", isoMillis(last))
	e.kbool("complete", true)
	e.kint("droppedEvents", 0)
	e.kint("firstRetainedEventIndex", 0)
	e.end()
	e.kobj("configuration")
	e.kstr("agentId", agentID)
	e.kobj("manifest")
	s.runConfigured(e)
	e.end()
	e.end()
	e.kobj("privacy")
	e.kstr("mode", "full")
	e.kstr("policyId", "agentfootprint.privacy.full.v1")
	e.end()
	e.key("recording")
	writeRecording(e, &c)
	e.end()
	e.raw("\n")
	e.flush()
	return e.n, e.err
}

func isoMillis(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// writeRecording writes {snapshot, events, structure}.
func writeRecording(e *enc, c *Config) {
	e.obj()
	e.kobj("snapshot")
	writeSnapshot(e, c)
	e.end()
	e.karr("events")
	eachEvent(c, true, func(s *runSim, ev *event) bool {
		s.writeEvent(e, ev)
		return e.err == nil
	})
	e.endArr()
	e.key("structure")
	writeStructure(e)
	e.end()
}

// eachStage runs a fresh simulation of run idx and hands fn its stages.
func eachStage(c *Config, idx int, fn func(s *runSim, st *stage)) {
	s := newRunSim(c, idx, true)
	for {
		it, ok := s.next()
		if !ok {
			return
		}
		if it.st != nil {
			fn(s, it.st)
		}
	}
}

func writeSnapshot(e *enc, c *Config) {
	last := c.Runs - 1

	// the final state needs the whole run first
	fin := newRunSim(c, last, true)
	for {
		if _, ok := fin.next(); !ok {
			break
		}
	}
	e.kobj("sharedState")
	fin.writeSharedState(e)
	e.end()
	if e.err != nil {
		return
	}

	e.key("executionTree")
	base := e.depth()
	eachStage(c, last, func(s *runSim, st *stage) {
		if e.err == nil {
			s.writeNode(e, st)
		}
	})
	e.closeTo(base)

	e.karr("commitLog")
	eachStage(c, last, func(s *runSim, st *stage) {
		if e.err == nil {
			s.writeBundles(e, st)
		}
	})
	e.endArr()
	e.kstr("commitValues", "delta")
	e.kstr("writeProvenance", "off")
	e.kstr("runId", fin.engineID)

	// every mount by its id, then each subflow's last mount under its bare
	// path (the engine inserts the bare key first; key order carries no
	// meaning, and this order needs no look-ahead)
	e.kobj("subflowResults")
	final := fin.last.n
	eachStage(c, last, func(s *runSim, st *stage) {
		for _, m := range mounts(st) {
			if e.err != nil {
				return
			}
			e.key(m.sf.id + "#" + strconv.Itoa(m.num))
			s.writeSubflowResult(e, m.sf, m.num, st)
		}
	})
	eachStage(c, last, func(s *runSim, st *stage) {
		if st.it == nil || st.it.n != final {
			return
		}
		for _, m := range mounts(st) {
			e.key(m.sf.id)
			s.writeSubflowResult(e, m.sf, m.num, st)
		}
	})
	e.end()

	e.karr("recorders")
	e.obj()
	e.kstr("id", "boundary-1")
	e.kstr("name", "BoundaryEvents")
	e.kstr("description", "Unified domain event log: run and subflow boundaries plus LLM, tool and context events")
	e.kstr("preferredOperation", "translate")
	e.karr("data")
	eachStage(c, last, func(s *runSim, st *stage) {
		if e.err == nil {
			s.writeRows(e, st)
		}
	})
	e.endArr()
	e.kobj("meta")
	e.kstr("mode", "full")
	e.end()
	e.end()
	e.endArr()
}

// writeStructure writes the chart's build-time structure: static, and the
// same for every run.
func writeStructure(e *enc) {
	stageNode := func(name, id, desc string) {
		e.obj()
		e.kstr("name", name)
		e.kstr("id", id)
		e.kstr("type", "stage")
		e.kstr("description", desc)
	}
	subflowNodeS := func(sf subflowInfo, inner ...[2]string) {
		e.obj()
		e.kstr("name", sf.name)
		e.kstr("type", "stage")
		e.kstr("id", sf.id)
		e.kbool("isSubflowRoot", true)
		e.kstr("subflowId", sf.id)
		e.kstr("subflowName", sf.name)
		e.key("subflowStructure")
		d := e.depth()
		for i, in := range inner {
			if i > 0 {
				e.key("next")
			}
			stageNode(in[0], in[1], in[0]+" step of "+sf.name)
		}
		e.closeTo(d)
	}
	base := e.depth()
	stageNode("Initialize", "seed", "Agent: ReAct loop")
	e.key("next")
	stageNode("Compact", "compact", "Apply the window strategy to the live window")
	e.key("next")
	subflowNodeS(sfEngine, [2]string{"Gather", "gather"}, [2]string{"Evaluate", "evaluate"}, [2]string{"Route", "route"}, [2]string{"Delta", "delta"})
	e.key("next")
	e.obj()
	e.kstr("name", "Context")
	e.kstr("id", "context")
	e.kstr("type", "selector")
	e.kbool("hasSelector", true)
	e.kstr("description", "Assemble request context: system-prompt + messages + tools (parallel)")
	e.karr("children")
	subflowNodeS(sfSP, [2]string{"Compose", "compose"})
	e.end()
	subflowNodeS(sfMsgs, [2]string{"Compose", "compose"})
	e.end()
	subflowNodeS(sfTools, [2]string{"Discover", "discover"}, [2]string{"Compose", "compose"})
	e.end()
	e.endArr()
	e.key("next")
	stageNode("UpdateSkillHistory", "update-skill-history", "Record which skill served this call")
	e.key("next")
	subflowNodeS(sfCache, [2]string{"CacheGate", "cache-gate"}, [2]string{"ApplyMarkers", "apply-markers"})
	e.key("next")
	stageNode("CallLLM", "call-llm", "LLM invocation")
	e.key("next")
	subflowNodeS(sfThinking, [2]string{"Normalize", "normalize"})
	e.key("next")
	e.obj()
	e.kstr("name", "Route")
	e.kstr("id", "sf-route")
	e.kstr("type", "decider")
	e.kstr("description", "ReAct routing")
	e.karr("children")
	stageNode("ToolCalls", "tool-calls", "Run the requested tool calls")
	e.end()
	subflowNodeS(sfFinal, [2]string{"PrepareFinal", "prepare-final"})
	e.end()
	e.endArr()
	e.closeTo(base)
}
