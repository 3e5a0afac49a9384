package synth

import "strconv"

// writeEvent writes one {type, payload, meta} object.
func (s *runSim) writeEvent(e *enc, ev *event) {
	e.obj()
	e.kstr("type", ev.typ)
	e.kobj("payload")
	ev.body(e)
	e.end()
	e.kobj("meta")
	e.kint("wallClockMs", ev.wall)
	e.kint("runOffsetMs", ev.wall-s.start)
	e.kstr("runtimeStageId", ev.stageID)
	if ev.subflow == "" {
		e.kemptyArr("subflowPath")
	} else {
		e.kstrs("subflowPath", ev.subflow)
	}
	e.kstrs("compositionPath", "Agent:"+agentID)
	e.kstr("runId", s.runID)
	if s.c.SessionID != "" {
		e.kstr("sessionId", s.c.SessionID)
	}
	e.end()
	e.end()
}

// runConfigured is the run manifest; the envelope repeats it as
// configuration.manifest.
func (s *runSim) runConfigured(e *enc) {
	e.kstr("agentId", agentID)
	e.kobj("llm")
	e.kstr("provider", "mock")
	e.kstr("model", "mock")
	e.end()
	e.kstr("reactMode", "dynamic")
	e.kemptyArr("memories")
	if s.c.Evictions {
		e.kstr("window", "sliding-window")
	}
	e.kemptyObj("skillGraph")
}

func writeGraphDeclared(e *enc) {
	e.karr("nodes")
	e.obj()
	e.kstr("id", skillID)
	e.kstr("kind", "skill")
	e.kstr("description", skillDesc)
	e.kstr("label", skillID)
	e.end()
	e.endArr()
	e.karr("edges")
	e.obj()
	e.key("from")
	e.null()
	e.kstr("to", skillID)
	e.kstr("kind", "entry")
	e.end()
	e.endArr()
}

func writeEvaluated(e *enc, n int) {
	e.kint("iteration", int64(n))
	e.kint("activeCount", 1)
	e.kint("skippedCount", 0)
	e.kint("evaluatedTotal", 1)
	e.kstrs("activeIds", skillID)
	e.kemptyArr("skippedDetails")
	e.kobj("triggerKindCounts")
	e.kint("rule", 1)
	e.end()
	e.karr("skillCatalog")
	e.obj()
	e.kstr("id", skillID)
	e.kstr("description", skillDesc)
	e.end()
	e.endArr()
	e.karr("routing")
	e.obj()
	e.kstr("injectionId", skillID)
	e.kstr("flavor", "skill")
	e.kstr("via", "entry")
	e.end()
	e.endArr()
}

func writeSPBase(e *enc) {
	e.kstr("contentSummary", summary(basePrompt))
	e.kstr("contentHash", SystemPromptHash("", "", basePrompt))
	e.kstr("slot", "system-prompt")
	e.kstr("source", "base")
	e.kstr("reason", "Agent.system()")
	e.kstr("rawContent", basePrompt)
}

func writeSPSkill(e *enc) {
	e.kstr("contentSummary", summary(skillPiece))
	e.kstr("contentHash", SystemPromptHash("skill", skillID, skillPiece))
	e.kstr("slot", "system-prompt")
	e.kstr("source", "skill")
	e.kstr("sourceId", skillID)
	e.kstr("reason", skillDesc)
	e.kstr("rawContent", skillPiece)
}

func writeBudget(e *enc, limit, used int) {
	e.kobj("budget")
	e.kint("cap", int64(limit))
	e.kint("used", int64(used))
	e.kint("headroomChars", int64(max(limit-used, 0)))
	e.end()
}

func writeSPComposed(e *enc, n int) {
	b, k := utf16Len(basePrompt), utf16Len(skillPiece)
	e.kstr("slot", "system-prompt")
	e.kint("iteration", int64(n))
	writeBudget(e, 4000, b+k)
	e.kobj("sourceBreakdown")
	e.kobj("base")
	e.kint("chars", int64(b))
	e.kint("count", 1)
	e.end()
	e.kobj("skill")
	e.kint("chars", int64(k))
	e.kint("count", 1)
	e.end()
	e.end()
	e.kint("droppedCount", 0)
	e.kemptyArr("droppedSummaries")
}

func writeMessagePiece(e *enc, p piece) {
	e.kstr("contentSummary", summary(p.m.content))
	e.kstr("contentHash", p.hash)
	e.kstr("slot", "messages")
	e.kstr("source", p.source())
	e.kstr("reason", "conversation history ["+strconv.Itoa(p.pos)+"]")
	e.kstr("rawContent", p.m.content)
	e.kstr("asRole", p.m.role)
	if p.latest {
		e.kstr("asRecency", "latest")
	} else {
		e.kstr("asRecency", "earlier")
	}
	e.kint("position", int64(p.pos))
	if p.m.role == "tool" {
		e.kstr("sourceId", p.m.callID)
	}
}

func writeMsgsComposed(e *enc, n int, ps []piece) {
	// per-source totals in first-seen order, as the slot reports them
	var order []string
	sums := map[string][2]int{}
	used := 0
	for _, p := range ps {
		src := p.source()
		if _, ok := sums[src]; !ok {
			order = append(order, src)
		}
		c := p.m.chars()
		used += c
		v := sums[src]
		sums[src] = [2]int{v[0] + c, v[1] + 1}
	}
	e.kstr("slot", "messages")
	e.kint("iteration", int64(n))
	writeBudget(e, 400_000, used)
	e.kobj("sourceBreakdown")
	for _, src := range order {
		e.kobj(src)
		e.kint("chars", int64(sums[src][0]))
		e.kint("count", int64(sums[src][1]))
		e.end()
	}
	e.end()
	e.kstr("orderingStrategy", "history-order")
	e.kint("droppedCount", 0)
	e.kemptyArr("droppedSummaries")
}

func toolRaw(i int) string { return registry[i].name + ": " + registry[i].desc }

func writeToolPiece(e *enc, i int) {
	t := registry[i]
	raw := toolRaw(i)
	e.kstr("contentSummary", summary(raw))
	e.kstr("contentHash", ToolHash(t.name, t.desc))
	e.kstr("slot", "tools")
	e.kstr("source", "registry")
	e.kstr("sourceId", t.name)
	e.kstr("reason", "tool registry")
	e.kstr("rawContent", raw)
	e.kint("position", int64(i))
}

func writeToolsComposed(e *enc, n int) {
	used := 0
	for i := range registry {
		used += utf16Len(toolRaw(i))
	}
	e.kstr("slot", "tools")
	e.kint("iteration", int64(n))
	writeBudget(e, 2000, used)
	e.kobj("sourceBreakdown")
	e.kobj("registry")
	e.kint("chars", int64(used))
	e.kint("count", int64(len(registry)))
	e.end()
	e.end()
	e.kstr("orderingStrategy", "registry+injections")
	e.kint("droppedCount", 0)
	e.kemptyArr("droppedSummaries")
}

// systemPromptChars is the length of the assembled prompt: the pieces
// joined with a blank line.
var systemPromptChars = utf16Len(basePrompt) + 2 + utf16Len(skillPiece)

func writeLLMStart(e *enc, n, msgs int) {
	e.kint("iteration", int64(n))
	e.kstr("provider", "mock")
	e.kstr("model", "mock")
	e.kint("systemPromptChars", int64(systemPromptChars))
	e.kint("messagesCount", int64(msgs))
	e.kint("toolsCount", int64(len(registry)))
	e.karr("tools")
	for _, t := range registry {
		e.obj()
		e.kstr("name", t.name)
		e.kstr("description", t.desc)
		e.end()
	}
	e.endArr()
}

func writeLLMEnd(e *enc, n int, content string, calls, in, out, dur int) {
	e.kint("iteration", int64(n))
	e.kstr("content", content)
	e.kint("toolCallCount", int64(calls))
	e.kobj("usage")
	e.kint("input", int64(in))
	e.kint("output", int64(out))
	e.end()
	if calls > 0 {
		e.kstr("stopReason", "tool_use")
	} else {
		e.kstr("stopReason", "stop")
	}
	e.kint("durationMs", int64(dur))
}

func writeSubject(e *enc, kind, id string) {
	e.obj()
	e.kstr("kind", kind)
	e.kstr("id", id)
	e.end()
}

func writeWitness(e *enc, id, predicate, value string, epoch int, provenance string) {
	e.obj()
	e.key("subject")
	writeSubject(e, "tool", id)
	e.kstr("predicate", predicate)
	e.kstr("value", value)
	e.kint("epoch", int64(epoch))
	e.kstr("stratum", "asserted")
	e.kstr("provenance", provenance)
	e.end()
}

// writeDangling is the dangling-reference finding: backup_status is still
// offered after the fleet_report result its argument comes from left the
// window.
func writeDangling(e *enc, n int) {
	e.kstr("kind", "dangling-reference")
	e.kstr("seam", "compose")
	e.karr("subjects")
	writeSubject(e, "tool", "backup_status")
	writeSubject(e, "tool", "fleet_report")
	e.endArr()
	e.karr("witnesses")
	writeWitness(e, "backup_status", "argument-ground", "the fleet_report result left the window and was not fetched again", n,
		"window ledger: fleet_report among droppedObservations, no fleet_report result in the request")
	e.endArr()
	e.kint("epoch", int64(n))
	e.kstr("message", "backup_status is offered although the fleet_report result its host argument comes from is no longer in the window; a host id the model supplies now comes from memory, not from evidence in the request. Calling fleet_report again restores the ground.")
	e.kint("iteration", int64(n))
}

// writeWire is the wire finding of the first call: the provider's
// serialized body carried a tool the composed frame did not.
func writeWire(e *enc) {
	e.kstr("kind", "invariant-violation")
	e.kstr("seam", "wire")
	e.karr("subjects")
	writeSubject(e, "tool", ghostTool)
	e.endArr()
	e.karr("witnesses")
	writeWitness(e, ghostTool, "on-wire", "absent", 1, "callLLM (assembled request): composed frame")
	writeWitness(e, ghostTool, "on-wire", "present", 1, "mock: serialized body")
	e.endArr()
	e.kint("epoch", 1)
	e.kstr("message", "1 tool(s) went out on the wire that the composed frame did not hold ("+ghostTool+"). The serialized request and the frame it came from disagree, so the model saw a capability the composition never granted; the call has already been made.")
	e.kint("iteration", 1)
}

func writeArgs(e *enc, c toolCall) {
	e.kobj("args")
	if k := registry[c.tool].argKey; k != "" {
		e.kstr(k, c.arg)
	}
	e.end()
}

func writeToolStart(e *enc, c toolCall) {
	e.kstr("toolName", c.name())
	e.kstr("toolCallId", c.id)
	writeArgs(e, c)
}

// writeMessage writes one LLM-shaped message {role, content, toolCalls?,
// toolCallId?, toolName?}.
func writeMessage(e *enc, m *msg) {
	e.obj()
	e.kstr("role", m.role)
	e.kstr("content", m.content)
	if m.role == "assistant" && len(m.calls) > 0 {
		e.karr("toolCalls")
		for _, c := range m.calls {
			e.obj()
			e.kstr("id", c.id)
			e.kstr("name", c.name())
			writeArgs(e, c)
			e.end()
		}
		e.endArr()
	}
	if m.role == "tool" {
		e.kstr("toolCallId", m.callID)
		e.kstr("toolName", m.tool)
	}
	e.end()
}

func writeRow(e *enc, check, seam string, checked, findings, na int, lastFired int64) {
	e.obj()
	e.kstr("check", check)
	e.kstr("seam", seam)
	e.kint("checked", int64(checked))
	e.kint("findings", int64(findings))
	e.kint("notApplicable", int64(na))
	e.kint("unreachable", 0)
	if findings > 0 && lastFired > 0 {
		e.kint("lastFiredAt", lastFired)
	}
	e.kint("synthetic", 0)
	e.end()
}

// writeDisposition writes the run's ledger with the four rows 9.62.0
// registers on every Agent run.
func (s *runSim) writeDisposition(e *enc) {
	e.kstr("posture", "observe")
	e.kbool("workExisted", true)
	e.karr("rows")
	writeRow(e, "invariant-violation", "wire", s.wireChecked, s.wireFindings, 0, s.wireLastFired)
	writeRow(e, "invariant-violation", "compose", 0, 0, 1, 0)
	if s.c.Findings {
		writeRow(e, "dangling-reference", "compose", s.dangChecked, s.dangFindings, s.dangNA, s.dangLastFired)
	} else {
		writeRow(e, "dangling-reference", "compose", 0, 0, 1, 0)
	}
	writeRow(e, "unsupported-claim", "claim", 0, 0, 1, 0)
	e.endArr()
}
