package synth

import "strconv"

// The engine snapshot of format B: the last run's sharedState,
// executionTree, commitLog, subflowResults and recorders. Each section is
// written from a fresh simulation of that run, so nothing but one model
// call's state is ever held.

const (
	us           = "\x1f" // footprintjs path separator in commit traces
	maxIterSlack = 4
)

func writeHistory(e *enc, k string, ms []*msg) {
	e.karr(k)
	for _, m := range ms {
		writeMessage(e, m)
	}
	e.endArr()
}

func writePieces(e *enc, k string, ps []piece) {
	e.karr(k)
	for _, p := range ps {
		e.obj()
		writeMessagePiece(e, p)
		e.end()
	}
	e.endArr()
}

func writeSPPieces(e *enc, k string) {
	e.karr(k)
	e.obj()
	writeSPBase(e)
	e.end()
	e.obj()
	writeSPSkill(e)
	e.end()
	e.endArr()
}

func writeToolPieces(e *enc, k string) {
	e.karr(k)
	for i := range registry {
		e.obj()
		writeToolPiece(e, i)
		e.end()
	}
	e.endArr()
}

func writeToolSchemas(e *enc, k string) {
	e.karr(k)
	for _, t := range registry {
		e.obj()
		e.kstr("name", t.name)
		e.kstr("description", t.desc)
		e.kobj("inputSchema")
		e.kstr("type", "object")
		e.kobj("properties")
		if t.argKey != "" {
			e.kobj(t.argKey)
			e.kstr("type", "string")
			e.end()
		}
		e.end()
		if t.argKey != "" {
			e.kstrs("required", t.argKey)
		}
		e.end()
		e.end()
	}
	e.endArr()
}

func writeActiveInjections(e *enc, k string) {
	e.karr(k)
	e.obj()
	e.kstr("id", skillID)
	e.kstr("flavor", "skill")
	e.kstr("description", skillDesc)
	e.kobj("inject")
	e.kstr("systemPrompt", skillPiece)
	e.end()
	e.end()
	e.endArr()
}

func writeActiveByslot(e *enc, k string) {
	e.kobj(k)
	e.kstrs("systemPrompt", skillID)
	e.kemptyArr("messages")
	e.kemptyArr("tools")
	e.end()
}

func writeComps(e *enc, k string, cs []*compaction) {
	e.karr(k)
	for _, c := range cs {
		e.obj()
		e.kstr("strategy", "sliding-window")
		e.kint("iteration", int64(c.iteration))
		e.kint("keepRecentTurns", keepRecentTurns)
		e.kemptyArr("removedStageIds")
		e.kint("removedMessageCount", int64(c.removed))
		e.kint("windowCharsBefore", int64(c.charsBefore))
		e.kint("windowCharsAfter", int64(c.charsAfter))
		e.kint("turnsBefore", int64(c.turnsBefore))
		e.kint("turnsAfter", int64(c.turnsAfter))
		if len(c.dropped) > 0 {
			e.kstrs("droppedObservations", c.dropped...)
		}
		e.end()
	}
	e.endArr()
}

func writeCalls(e *enc, k string, cs []toolCall) {
	e.karr(k)
	for _, c := range cs {
		e.obj()
		e.kstr("id", c.id)
		e.kstr("name", c.name())
		writeArgs(e, c)
		e.end()
	}
	e.endArr()
}

// writeToolResults writes toolResults and lastToolResult for an iteration
// that ran tools.
func writeToolResults(e *enc, it *iter) {
	e.karr("toolResults")
	for i, c := range it.calls {
		e.obj()
		e.kstr("toolName", c.name())
		e.kstr("result", it.results[i])
		e.kstr("toolCallId", c.id)
		e.end()
	}
	e.endArr()
	last := len(it.calls) - 1
	e.kobj("lastToolResult")
	e.kstr("toolName", it.calls[last].name())
	e.kstr("result", it.results[last])
	e.end()
}

// writePrevResults writes the tool results of the last iteration that ran
// tools, which the injection engine gathers as its input.
func writePrevResults(e *enc, it *iter) {
	if len(it.prevCalls) == 0 {
		return
	}
	writeToolResults(e, &iter{calls: it.prevCalls, results: it.prevResults})
}

// writeRead writes a stageReads summary: {__readSummary, type, size?, preview?}.
func writeRead(e *enc, k, typ string, size int, preview string) {
	e.kobj(k)
	e.kbool("__readSummary", true)
	e.kstr("type", typ)
	if typ == "array" || typ == "string" {
		e.kint("size", int64(size))
	}
	if typ != "array" {
		e.kstr("preview", preview)
	}
	e.end()
}

func writeFlow(e *enc, typ, desc string, ts int64, target string) {
	e.obj()
	e.kstr("type", typ)
	e.kstr("description", desc)
	e.kint("timestamp", ts)
	e.kstr("targetStage", target)
	e.end()
}

// initialState is what the seed stage writes; the seed commit and the seed
// node of the tree both carry it.
func (s *runSim) writeInitialState(e *enc) {
	e.kstr("userMessage", s.prompt)
	writeHistory(e, "history", []*msg{s.user})
	e.kobj("runIdentity")
	e.kstr("conversationId", s.runID)
	e.end()
	e.kemptyArr("newMessages")
	e.kint("turnNumber", 1)
	e.kint("contextTokensRemaining", 200_000)
	e.kint("iteration", 1)
	e.kint("maxIterations", int64(s.c.Iterations+maxIterSlack))
	e.kstr("finalContent", "")
	e.kint("totalInputTokens", 0)
	e.kint("totalOutputTokens", 0)
	e.kint("turnStartMs", s.start+5)
	e.kemptyArr("systemPromptInjections")
	e.kemptyArr("messagesInjections")
	e.kemptyArr("toolsInjections")
	e.kstr("llmLatestContent", "")
	e.kemptyArr("llmLatestToolCalls")
	e.kemptyArr("thinkingBlocks")
	e.kstr("pausedToolCallId", "")
	e.kstr("pausedToolName", "")
	e.kint("pausedToolStartMs", 0)
	e.kint("cumTokensInput", 0)
	e.kint("cumTokensOutput", 0)
	e.kint("cumEstimatedUsd", 0)
	e.kbool("costBudgetHit", false)
	e.kemptyArr("activeInjections")
	e.kemptyArr("activatedInjectionIds")
	writeToolSchemas(e, "dynamicToolSchemas")
	e.kemptyArr("deliveredMessageKeys")
	e.kemptyArr("cacheMarkers")
	e.kbool("cachingDisabled", false)
	e.kemptyArr("skillHistory")
}

var initialKeys = []string{"userMessage", "history", "runIdentity", "newMessages", "turnNumber",
	"contextTokensRemaining", "iteration", "maxIterations", "finalContent", "totalInputTokens",
	"totalOutputTokens", "turnStartMs", "systemPromptInjections", "messagesInjections",
	"toolsInjections", "llmLatestContent", "llmLatestToolCalls", "thinkingBlocks",
	"pausedToolCallId", "pausedToolName", "pausedToolStartMs", "cumTokensInput",
	"cumTokensOutput", "cumEstimatedUsd", "costBudgetHit", "activeInjections",
	"activatedInjectionIds", "dynamicToolSchemas", "deliveredMessageKeys", "cacheMarkers",
	"cachingDisabled", "skillHistory"}

// writeSharedState writes the run's final state; s must have run to its end.
func (s *runSim) writeSharedState(e *enc) {
	it := s.last
	e.kstr("userMessage", s.prompt)
	writeHistory(e, "history", s.history)
	e.kobj("runIdentity")
	e.kstr("conversationId", s.runID)
	e.end()
	e.karr("newMessages")
	writeMessage(e, s.history[len(s.history)-1])
	e.endArr()
	e.kint("turnNumber", 1)
	e.kint("contextTokensRemaining", int64(max(200_000-it.inTok, 0)))
	e.kint("iteration", int64(it.n))
	e.kint("maxIterations", int64(s.c.Iterations+maxIterSlack))
	e.kint("totalInputTokens", int64(s.totalIn))
	e.kint("totalOutputTokens", int64(s.totalOut))
	e.kint("turnStartMs", s.start+5)
	writeSPPieces(e, "systemPromptInjections")
	writePieces(e, "messagesInjections", it.pieces)
	writeToolPieces(e, "toolsInjections")
	e.kstr("llmLatestContent", it.content)
	e.kemptyArr("llmLatestToolCalls")
	e.kemptyArr("thinkingBlocks")
	e.kstr("pausedToolCallId", "")
	e.kstr("pausedToolName", "")
	e.kint("pausedToolStartMs", 0)
	e.kint("cumTokensInput", int64(s.totalIn))
	e.kint("cumTokensOutput", int64(s.totalOut))
	e.kint("cumEstimatedUsd", 0)
	e.kbool("costBudgetHit", false)
	writeActiveInjections(e, "activeInjections")
	e.kemptyArr("activatedInjectionIds")
	writeToolSchemas(e, "dynamicToolSchemas")
	e.kemptyArr("deliveredMessageKeys")
	e.karr("cacheMarkers")
	writeCacheMarker(e, it.n)
	e.endArr()
	e.kbool("cachingDisabled", false)
	e.karr("skillHistory")
	for i := 1; i <= it.n; i++ {
		writeSkillPick(e, i)
	}
	e.endArr()
	writeActiveByslot(e, "activeByslot")
	if s.lastTools != nil {
		writeToolResults(e, s.lastTools)
	}
	if s.c.Evictions {
		writeComps(e, "compactions", s.comps)
	}
	e.kstrs("integrityFindingIds", s.findingIDs...)
	e.kstr("finalContent", it.content)
}

func writeCacheMarker(e *enc, n int) {
	e.obj()
	e.kstr("slot", "system-prompt")
	e.kint("iteration", int64(n))
	e.kstr("policy", "stable-prefix")
	e.end()
}

func writeSkillPick(e *enc, n int) {
	e.obj()
	e.kint("iteration", int64(n))
	e.kstr("skillId", skillID)
	e.kstr("by", "entry")
	e.end()
}

// subflow identity of the mounted subflows.
type subflowInfo struct{ id, name, desc string }

var (
	sfEngine   = subflowInfo{"sf-injection-engine", "Injection Engine", "Evaluate every injection trigger and route active ones to their slots"}
	sfSP       = subflowInfo{"sf-system-prompt", "System Prompt", "Compose the system prompt"}
	sfMsgs     = subflowInfo{"sf-messages", "Messages", "Compose the conversation window"}
	sfTools    = subflowInfo{"sf-tools", "Tools", "Compose the tool schemas"}
	sfCache    = subflowInfo{"sf-cache", "Cache", "Place provider cache markers"}
	sfThinking = subflowInfo{"sf-thinking", "NormalizeThinking", "Normalize thinking blocks"}
	sfFinal    = subflowInfo{"final", "Final", "Prepare the final answer"}
)

// ---- executionTree ----

func nodeHead(e *enc, id, rsid, name string) {
	e.kstr("id", id)
	e.kstr("runtimeStageId", rsid)
	e.kstr("name", name)
	e.kbool("isDecider", false)
	e.kbool("isFork", false)
}

func nodeBags(e *enc) {
	e.kemptyObj("errors")
	e.kemptyObj("metrics")
	e.kemptyObj("evals")
}

// subflowNode writes a mounted subflow's node without closing it.
func subflowNode(e *enc, sf subflowInfo, num int, ts int64) {
	e.obj()
	nodeHead(e, sf.id, sf.id+"#"+strconv.Itoa(num), sf.name)
	e.kemptyObj("logs")
	nodeBags(e)
	e.kstr("subflowId", sf.id)
	e.karr("flowMessages")
	writeFlow(e, "subflow", "Entering "+sf.name+" subflow", ts, sf.id)
	writeFlow(e, "subflow", "Exiting "+sf.name+" subflow", ts+1, sf.id)
	e.endArr()
}

// writeNode writes the tree node of one stage and leaves it open on its
// "next" (or a decider's "children"), so the next stage nests inside it.
func (s *runSim) writeNode(e *enc, st *stage) {
	it := st.it
	switch st.kind {
	case stSeed:
		e.obj()
		nodeHead(e, "seed", st.rsid("seed"), "Initialize")
		e.kemptyObj("logs")
		nodeBags(e)
		e.kobj("stageWrites")
		s.writeInitialState(e)
		e.end()
		e.kstr("description", "Agent: ReAct loop")
		e.karr("flowMessages")
		writeFlow(e, "next", "Moving to Compact stage", st.ts, "Compact")
		e.endArr()
		e.key("next")
	case stCompact:
		e.obj()
		name := "Compact"
		if it.n > 2 {
			name += "." + strconv.Itoa(it.n-2)
		}
		nodeHead(e, "compact", st.rsid("compact"), name)
		e.kemptyObj("logs")
		nodeBags(e)
		if it.comp != nil {
			e.kobj("stageWrites")
			if len(it.evicted) > 0 {
				writeHistory(e, "history", it.window)
			}
			writeComps(e, "compactions", s.comps[:it.compsUpTo])
			e.end()
		}
		e.kobj("stageReads")
		writeRead(e, "history", "array", len(it.window)+len(it.evicted), "")
		writeRead(e, "iteration", "number", 0, strconv.Itoa(it.n))
		writeRead(e, "pausedToolCallId", "string", 0, "")
		writeRead(e, "userMessage", "string", utf16Len(s.prompt), summary(s.prompt))
		e.end()
		e.kstr("description", "Apply the 'sliding-window' window strategy to the live window")
		e.karr("flowMessages")
		writeFlow(e, "next", "Moving to Injection Engine stage", st.ts, "Injection Engine")
		e.endArr()
		e.key("next")
	case stEngine:
		subflowNode(e, sfEngine, st.num, st.ts)
		e.kobj("stageWrites")
		e.kstrs("activeByslot.systemPrompt", skillID)
		e.kemptyArr("activeByslot.messages")
		e.kemptyArr("activeByslot.tools")
		e.end()
		e.kemptyObj("stageReads")
		e.key("next")
	case stContext:
		e.obj()
		nodeHead(e, "context", st.rsid("context"), "Context")
		e.kobj("logs")
		e.kstrs("selectedChildIds", sfSP.id, sfMsgs.id, sfTools.id)
		e.kstr("selectorPattern", "scope-based-multi-choice")
		e.end()
		nodeBags(e)
		e.kobj("stageReads")
		writeRead(e, "iteration", "number", 0, strconv.Itoa(it.n))
		e.end()
		e.kstr("description", "Assemble request context: system-prompt + messages + tools (parallel)")
		e.karr("flowMessages")
		e.obj()
		e.kstr("type", "selected")
		e.kstr("description", "Running System Prompt, Messages, Tools (3 of 3 matched)")
		e.kint("timestamp", st.ts)
		e.kint("count", 3)
		e.kstrs("targetStage", sfSP.name, sfMsgs.name, sfTools.name)
		e.end()
		e.endArr()
		// children come before next here (the engine writes them after) so
		// that the chain can stay open while it streams
		e.karr("children")
		subflowNode(e, sfSP, it.c+offSP, st.ts)
		e.end()
		subflowNode(e, sfMsgs, it.c+offMsgs, st.ts)
		e.end()
		subflowNode(e, sfTools, it.c+offTools, st.ts)
		e.end()
		e.endArr()
		e.key("next")
	case stSkill:
		e.obj()
		nodeHead(e, "update-skill-history", st.rsid("update-skill-history"), "UpdateSkillHistory")
		e.kemptyObj("logs")
		nodeBags(e)
		e.kobj("stageWrites")
		e.karr("skillHistory")
		writeSkillPick(e, it.n)
		e.endArr()
		e.end()
		e.kobj("stageReads")
		writeRead(e, "iteration", "number", 0, strconv.Itoa(it.n))
		writeRead(e, "skillHistory", "array", it.n-1, "")
		e.end()
		e.karr("flowMessages")
		writeFlow(e, "next", "Moving to Cache stage", st.ts, "Cache")
		e.endArr()
		e.key("next")
	case stCache:
		subflowNode(e, sfCache, st.num, st.ts)
		e.key("next")
	case stCall:
		e.obj()
		nodeHead(e, "call-llm", st.rsid("call-llm"), "CallLLM")
		e.kemptyObj("logs")
		nodeBags(e)
		e.kobj("stageWrites")
		e.kint("totalInputTokens", int64(it.inTok))
		e.kint("totalOutputTokens", int64(it.outTok))
		e.kstr("llmLatestContent", it.content)
		writeCalls(e, "llmLatestToolCalls", it.calls)
		e.end()
		e.kobj("stageReads")
		writeRead(e, "systemPromptInjections", "array", 2, "")
		writeRead(e, "iteration", "number", 0, strconv.Itoa(it.n))
		writeRead(e, "history", "array", len(it.window), "")
		writeRead(e, "dynamicToolSchemas", "array", len(registry), "")
		writeRead(e, "cachingDisabled", "boolean", 0, "false")
		e.end()
		e.kstr("description", "LLM invocation")
		e.karr("flowMessages")
		writeFlow(e, "next", "Moving to NormalizeThinking stage", st.ts, "NormalizeThinking")
		e.endArr()
		e.key("next")
	case stThinking:
		subflowNode(e, sfThinking, st.num, st.ts)
		e.key("next")
	case stRoute:
		e.obj()
		nodeHead(e, "sf-route", st.rsid("sf-route"), "Route")
		e.kemptyObj("logs")
		nodeBags(e)
		e.kobj("stageReads")
		writeRead(e, "llmLatestToolCalls", "array", len(it.calls), "")
		writeRead(e, "iteration", "number", 0, strconv.Itoa(it.n))
		writeRead(e, "maxIterations", "number", 0, strconv.Itoa(s.c.Iterations+maxIterSlack))
		e.end()
		e.kstr("description", "ReAct routing")
		target, branch := "ToolCalls", "tool-calls"
		if it.final {
			target, branch = "Final", "final"
		}
		e.karr("flowMessages")
		e.obj()
		e.kstr("type", "branch")
		e.kstr("description", "Evaluated scope and returned '"+branch+"': chose the "+target+" path.")
		e.kint("timestamp", st.ts)
		e.kstr("targetStage", target)
		e.kstr("rationale", "returned branchId: "+branch)
		e.end()
		e.endArr()
		e.karr("children")
	case stToolCalls:
		e.obj()
		nodeHead(e, "tool-calls", st.rsid("tool-calls"), "ToolCalls")
		e.kobj("logs")
		e.kstr("dynamicNextTarget", "compact")
		e.kint("dynamicNextIteration", 0)
		e.end()
		nodeBags(e)
		e.kobj("stageWrites")
		writeToolResults(e, it)
		writeHistory(e, "history", it.after)
		e.kint("iteration", int64(it.n+1))
		e.end()
		e.kobj("stageReads")
		writeRead(e, "llmLatestToolCalls", "array", len(it.calls), "")
		writeRead(e, "history", "array", len(it.window), "")
		e.end()
		e.kstr("description", "Run the requested tool calls")
		e.karr("flowMessages")
		writeFlow(e, "loop", "Looping back to Compact", st.ts, "Compact")
		e.endArr()
		e.key("next")
	case stFinal:
		subflowNode(e, sfFinal, st.num, st.ts)
		e.end()
	}
}

// ---- commitLog ----

type traceRow struct{ path, verb string }

func writeBundle(e *enc, idx int, stageName, stageID, rsid string, trace []traceRow, overwrite func()) {
	e.obj()
	e.kobj("overwrite")
	if overwrite != nil {
		overwrite()
	}
	e.end()
	e.kemptyObj("updates")
	e.kemptyArr("redactedPaths")
	e.karr("trace")
	for _, t := range trace {
		e.obj()
		e.kstr("path", t.path)
		e.kstr("verb", t.verb)
		e.end()
	}
	e.endArr()
	e.kstr("stage", stageName)
	e.kstr("stageId", stageID)
	e.kstr("runtimeStageId", rsid)
	e.kint("idx", int64(idx))
	e.end()
}

// writeBundles writes the commit-log bundles of one stage (delta mode: an
// append records only the new tail).
func (s *runSim) writeBundles(e *enc, st *stage) {
	it := st.it
	i := st.commitIdx
	sub := func(sf subflowInfo, num int) {
		rs := sf.id + "#" + strconv.Itoa(num)
		writeBundle(e, i, sf.name, sf.id, rs, nil, nil)
		writeBundle(e, i+1, sf.name, sf.id, rs, nil, nil)
		i += 2
	}
	switch st.kind {
	case stSeed:
		trace := make([]traceRow, len(initialKeys))
		for j, k := range initialKeys {
			trace[j] = traceRow{k, "set"}
		}
		writeBundle(e, i, "Initialize", "seed", st.rsid("seed"), trace, func() { s.writeInitialState(e) })
	case stCompact:
		rs := st.rsid("compact")
		switch {
		case it.comp == nil:
			writeBundle(e, i, "Compact", "compact", rs, nil, nil)
		case len(it.evicted) > 0:
			writeBundle(e, i, "Compact", "compact", rs, []traceRow{{"history", "set"}, {"compactions", "append"}}, func() {
				writeHistory(e, "history", it.window)
				writeComps(e, "compactions", []*compaction{it.comp})
			})
		default:
			writeBundle(e, i, "Compact", "compact", rs, []traceRow{{"compactions", "append"}}, func() {
				writeComps(e, "compactions", []*compaction{it.comp})
			})
		}
	case stEngine:
		rs := st.rsid(sfEngine.id)
		writeBundle(e, i, sfEngine.name, sfEngine.id, rs, []traceRow{
			{"activeByslot" + us + "systemPrompt", "set"}, {"activeByslot" + us + "messages", "set"}, {"activeByslot" + us + "tools", "set"},
		}, func() { writeActiveByslot(e, "activeByslot") })
		writeBundle(e, i+1, sfEngine.name, sfEngine.id, rs, nil, nil)
	case stContext:
		rs := st.rsid("context")
		if it.n == 1 {
			writeBundle(e, i, "Context", "context", rs, []traceRow{{"systemPromptInjections", "append"}}, func() {
				writeSPPieces(e, "systemPromptInjections")
			})
		} else {
			writeBundle(e, i, "Context", "context", rs, nil, nil)
		}
		writeBundle(e, i+1, "Context", "context", rs, []traceRow{{"messagesInjections", "set"}}, func() {
			writePieces(e, "messagesInjections", it.pieces)
		})
		if it.n == 1 {
			writeBundle(e, i+2, "Context", "context", rs, []traceRow{{"toolsInjections", "append"}}, func() {
				writeToolPieces(e, "toolsInjections")
			})
		} else {
			writeBundle(e, i+2, "Context", "context", rs, nil, nil)
		}
		i += 3
		sub(sfSP, it.c+offSP)
		sub(sfMsgs, it.c+offMsgs)
		sub(sfTools, it.c+offTools)
	case stSkill:
		writeBundle(e, i, "UpdateSkillHistory", "update-skill-history", st.rsid("update-skill-history"),
			[]traceRow{{"skillHistory", "append"}}, func() {
				e.karr("skillHistory")
				writeSkillPick(e, it.n)
				e.endArr()
			})
	case stCache:
		rs := st.rsid(sfCache.id)
		writeBundle(e, i, sfCache.name, sfCache.id, rs, []traceRow{{"cacheMarkers", "set"}}, func() {
			e.karr("cacheMarkers")
			writeCacheMarker(e, it.n)
			e.endArr()
		})
		writeBundle(e, i+1, sfCache.name, sfCache.id, rs, nil, nil)
	case stCall:
		writeBundle(e, i, "CallLLM", "call-llm", st.rsid("call-llm"), []traceRow{
			{"totalInputTokens", "set"}, {"totalOutputTokens", "set"}, {"llmLatestContent", "set"}, {"llmLatestToolCalls", "set"},
		}, func() {
			e.kint("totalInputTokens", int64(it.inTok))
			e.kint("totalOutputTokens", int64(it.outTok))
			e.kstr("llmLatestContent", it.content)
			writeCalls(e, "llmLatestToolCalls", it.calls)
		})
	case stThinking:
		sub(sfThinking, st.num)
	case stRoute:
		writeBundle(e, i, "Route", "sf-route", st.rsid("sf-route"), nil, nil)
	case stToolCalls:
		writeBundle(e, i, "ToolCalls", "tool-calls", st.rsid("tool-calls"), []traceRow{
			{"lastToolResult", "set"}, {"toolResults", "set"}, {"history", "append"}, {"iteration", "set"},
		}, func() {
			writeToolResults(e, it)
			writeHistory(e, "history", it.after[len(it.window):])
			e.kint("iteration", int64(it.n+1))
		})
	case stFinal:
		rs := st.rsid(sfFinal.id)
		writeBundle(e, i, sfFinal.name, sfFinal.id, rs, []traceRow{{"finalContent", "set"}, {"history", "append"}}, func() {
			e.kstr("finalContent", it.content)
			writeHistory(e, "history", it.after[len(it.window):])
		})
		writeBundle(e, i+1, sfFinal.name, sfFinal.id, rs, nil, nil)
	}
}

// ---- subflowResults ----

// mounts lists the subflows a stage mounts, with their execution counters.
func mounts(st *stage) []struct {
	sf  subflowInfo
	num int
} {
	type m = struct {
		sf  subflowInfo
		num int
	}
	switch st.kind {
	case stEngine:
		return []m{{sfEngine, st.num}}
	case stContext:
		return []m{{sfSP, st.it.c + offSP}, {sfMsgs, st.it.c + offMsgs}, {sfTools, st.it.c + offTools}}
	case stCache:
		return []m{{sfCache, st.num}}
	case stThinking:
		return []m{{sfThinking, st.num}}
	case stFinal:
		return []m{{sfFinal, st.num}}
	}
	return nil
}

// writeSubflowResult writes the {subflowId, subflowName, treeContext,
// parentStageId} of one mount: the subflow's view of the state, its stage
// contexts and its local commit history. These copies of the window are
// what makes real snapshots an order of magnitude larger than the events.
func (s *runSim) writeSubflowResult(e *enc, sf subflowInfo, num int, st *stage) {
	it := st.it
	rs := sf.id + "#" + strconv.Itoa(num)
	e.obj()
	e.kstr("subflowId", sf.id)
	e.kstr("subflowName", sf.name)
	e.kobj("treeContext")
	e.kobj("globalContext")
	switch sf.id {
	case sfEngine.id:
		e.kint("iteration", int64(it.n))
		e.kint("maxIterations", int64(s.c.Iterations+maxIterSlack))
		e.kstr("userMessage", s.prompt)
		writeHistory(e, "history", it.window)
		writePrevResults(e, it)
		e.kemptyArr("activatedInjectionIds")
		writeActiveInjections(e, "activeInjections")
		writeActiveByslot(e, "activeByslot")
	case sfSP.id:
		e.kstr("userMessage", s.prompt)
		e.kint("iteration", int64(it.n))
		writeActiveInjections(e, "activeInjections")
		writeSPPieces(e, "systemPromptInjections")
	case sfMsgs.id:
		writeHistory(e, "messages", it.window)
		e.kint("iteration", int64(it.n))
		writeActiveInjections(e, "activeInjections")
		writePieces(e, "messagesInjections", it.pieces)
	case sfTools.id:
		e.kint("iteration", int64(it.n))
		writeToolPieces(e, "toolsInjections")
		writeToolSchemas(e, "toolSchemas")
	case sfCache.id:
		e.kint("iteration", int64(it.n))
		e.kstr("userMessage", s.prompt)
		writeHistory(e, "history", it.window)
		e.karr("cacheMarkers")
		writeCacheMarker(e, it.n)
		e.endArr()
	case sfThinking.id:
		e.kint("iteration", int64(it.n))
		e.kemptyArr("thinkingBlocks")
	case sfFinal.id:
		e.kstr("userMessage", s.prompt)
		writeHistory(e, "history", it.after)
		e.kstr("finalContent", it.content)
		writePieces(e, "messagesInjections", it.pieces)
	}
	e.end()
	e.kobj("stageContexts")
	nodeHead(e, sf.id+"/compose", rs, sf.name)
	e.kemptyObj("logs")
	nodeBags(e)
	if sf.id == sfMsgs.id {
		e.kobj("stageWrites")
		writePieces(e, "messagesInjections", it.pieces)
		e.end()
	}
	e.kstr("description", sf.desc)
	e.end()
	e.karr("history")
	switch sf.id {
	case sfEngine.id:
		writeBundle(e, 0, sf.id+"/Gather", sf.id+"/gather", "", []traceRow{{"iteration", "set"}, {"history", "set"}, {"lastToolResult", "set"}, {"toolResults", "set"}}, func() {
			e.kint("iteration", int64(it.n))
			writeHistory(e, "history", it.window)
			writePrevResults(e, it)
		})
		writeBundle(e, 1, sf.id+"/Evaluate", sf.id+"/evaluate", "", []traceRow{{"activeInjections", "set"}}, func() {
			writeActiveInjections(e, "activeInjections")
		})
		writeBundle(e, 2, sf.id+"/Route", sf.id+"/route", "", []traceRow{{"activeByslot", "set"}}, func() {
			writeActiveByslot(e, "activeByslot")
		})
	case sfCache.id:
		writeBundle(e, 0, sf.id+"/Gather", sf.id+"/gather", "", []traceRow{{"iteration", "set"}, {"history", "set"}}, func() {
			e.kint("iteration", int64(it.n))
			writeHistory(e, "history", it.window)
		})
	case sfMsgs.id:
		writeBundle(e, 0, sf.id+"/Seed", sf.id+"/seed", "", []traceRow{{"messages", "set"}}, func() {
			writeHistory(e, "messages", it.window)
		})
		writeBundle(e, 1, sf.id+"/Compose", sf.id+"/compose", "", []traceRow{{"messagesInjections", "set"}}, func() {
			writePieces(e, "messagesInjections", it.pieces)
		})
	case sfFinal.id:
		writeBundle(e, 0, sf.id+"/PrepareFinal", sf.id+"/prepare-final", "", []traceRow{{"history", "set"}}, func() {
			writeHistory(e, "history", it.after)
		})
	default:
		writeBundle(e, 0, sf.id+"/Compose", sf.id+"/compose", "", []traceRow{{"iteration", "set"}}, func() {
			e.kint("iteration", int64(it.n))
		})
	}
	e.endArr()
	e.end()
	e.kstr("parentStageId", sf.name)
	e.end()
}

// ---- recorders ----

func rowHead(e *enc, typ, rsid string, sub string, ts int64, commitIdx int) {
	e.obj()
	e.kstr("type", typ)
	e.kstr("runtimeStageId", rsid)
	if sub == "" {
		e.kstrs("subflowPath", "__root__")
		e.kint("depth", 0)
	} else {
		e.kstrs("subflowPath", "__root__", sub)
		e.kint("depth", 1)
	}
	e.kint("ts", ts)
	e.kint("commitIdxBefore", int64(commitIdx))
	e.kint("commitIdxAfter", int64(commitIdx))
}

// writeRows writes the boundary recorder's rows for one stage.
func (s *runSim) writeRows(e *enc, st *stage) {
	it := st.it
	ci := st.commitIdx
	sfRows := func(sf subflowInfo, num int, payload func(exit bool)) {
		rs := sf.id + "#" + strconv.Itoa(num)
		for _, typ := range []string{"subflow.entry", "subflow.exit"} {
			rowHead(e, typ, rs, sf.id, st.ts, ci)
			e.kstr("subflowId", sf.id)
			e.kstr("localSubflowId", sf.id)
			e.kstr("subflowName", sf.name)
			if typ == "subflow.entry" {
				e.kstr("description", sf.desc)
			}
			e.kbool("isAgentInternal", true)
			if payload != nil {
				e.kobj("payload")
				payload(typ == "subflow.exit")
				e.end()
			}
			e.end()
		}
	}
	injRow := func(rsid, sub, slot, source, sum, reason string) {
		rowHead(e, "context.injected", rsid, sub, st.ts, ci)
		e.kstr("slot", slot)
		e.kstr("source", source)
		e.kstr("contentSummary", sum)
		e.kstr("reason", reason)
		e.end()
	}
	switch st.kind {
	case stSeed:
		rowHead(e, "run.entry", "__root__#0", "", st.ts, ci)
		e.kobj("payload")
		e.kstr("message", s.prompt)
		e.end()
		e.kbool("isRoot", true)
		e.end()
	case stEngine:
		sfRows(sfEngine, st.num, func(exit bool) {
			e.kint("iteration", int64(it.n))
			e.kint("maxIterations", int64(s.c.Iterations+maxIterSlack))
			e.kstr("userMessage", s.prompt)
			writeHistory(e, "history", it.window)
			e.kemptyArr("activatedInjectionIds")
			if exit {
				writePrevResults(e, it)
				e.kobj("injectionContextSummary")
				e.kint("iteration", int64(it.n))
				e.kint("historyLength", int64(len(it.window)))
				e.kint("activatedInjectionCount", 0)
				e.end()
				writeActiveInjections(e, "activeInjections")
				writeActiveByslot(e, "activeByslot")
			}
		})
	case stContext:
		for _, sf := range []subflowInfo{sfSP, sfMsgs, sfTools} {
			rowHead(e, "fork.branch", st.rsid("context"), "", st.ts, ci)
			e.kstr("parentSubflowId", "selector-temp")
			e.kstr("childName", sf.name)
			e.end()
		}
		sfRows(sfSP, it.c+offSP, nil)
		sp := "sf-system-prompt/compose#" + strconv.Itoa(it.c+offSPComp)
		injRow(sp, sfSP.id, "system-prompt", "base", summary(basePrompt), "Agent.system()")
		injRow(sp, sfSP.id, "system-prompt", "skill", summary(skillPiece), skillDesc)
		sfRows(sfMsgs, it.c+offMsgs, func(exit bool) {
			writeHistory(e, "messages", it.window)
			e.kint("iteration", int64(it.n))
			if exit {
				writePieces(e, "messagesInjections", it.pieces)
			}
		})
		mc := "sf-messages/compose#" + strconv.Itoa(it.c+offMsgsComp)
		for _, p := range it.pieces {
			injRow(mc, sfMsgs.id, "messages", p.source(), summary(p.m.content), "conversation history ["+strconv.Itoa(p.pos)+"]")
		}
		sfRows(sfTools, it.c+offTools, nil)
		tc := "sf-tools/compose#" + strconv.Itoa(it.c+offToolComp)
		for i := range registry {
			injRow(tc, sfTools.id, "tools", "registry", summary(toolRaw(i)), "tool registry")
		}
	case stCache:
		rowHead(e, "decision.branch", "sf-cache/cache-gate#"+strconv.Itoa(st.num+2), "", st.ts, ci)
		e.kstr("decider", "sf-cache/CacheGate")
		e.kstr("chosen", "sf-cache/ApplyMarkers")
		e.kbool("isAgentInternal", true)
		e.end()
		sfRows(sfCache, st.num, func(bool) {
			e.kint("iteration", int64(it.n))
			writeHistory(e, "history", it.window)
		})
	case stCall:
		rs := st.rsid("call-llm")
		rowHead(e, "llm.start", rs, "", st.ts, ci)
		e.kstr("model", "mock")
		e.kstr("provider", "mock")
		e.kint("systemPromptChars", int64(systemPromptChars))
		e.kint("messagesCount", int64(len(it.window)))
		e.kint("toolsCount", int64(len(registry)))
		e.kstr("actorArrow", "user→llm")
		e.end()
		rowHead(e, "llm.end", rs, "", st.ts, ci)
		e.kstr("content", it.content)
		e.kint("toolCallCount", int64(len(it.calls)))
		e.kobj("usage")
		e.kint("input", int64(it.inTok))
		e.kint("output", int64(it.outTok))
		e.end()
		if it.final {
			e.kstr("stopReason", "stop")
			e.kstr("actorArrow", "llm→user")
		} else {
			e.kstr("stopReason", "tool_use")
			e.kstr("actorArrow", "llm→tool")
		}
		e.end()
	case stThinking:
		sfRows(sfThinking, st.num, nil)
	case stToolCalls:
		rs := st.rsid("tool-calls")
		for i, c := range it.calls {
			rowHead(e, "tool.start", rs, "", st.ts, ci)
			e.kstr("toolName", c.name())
			e.kstr("toolCallId", c.id)
			writeArgs(e, c)
			e.end()
			rowHead(e, "tool.end", rs, "", st.ts, ci)
			e.kstr("toolCallId", c.id)
			e.kstr("result", it.results[i])
			e.kint("durationMs", 1)
			e.end()
		}
		rowHead(e, "loop.iteration", rs, "", st.ts, ci+1)
		e.kstr("target", "Compact")
		e.kint("iteration", int64(it.n))
		e.end()
	case stFinal:
		sfRows(sfFinal, st.num, func(bool) {
			writeHistory(e, "history", it.after)
			e.kstr("finalContent", it.content)
		})
		for range 2 { // the engine records the root exit twice
			rowHead(e, "run.exit", "__root__#0", "", st.ts+1, ci+bundles[stFinal])
			e.kstr("payload", it.content)
			e.kbool("isRoot", true)
			e.end()
		}
	}
}
