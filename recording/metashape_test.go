package recording

import (
	"strings"
	"testing"
)

// metaLine is an event line with meta as its meta object.
func metaLine(meta string) []byte {
	return []byte(`{"type":"agentfootprint.agent.turn_start","payload":{"turnIndex":0,"userPrompt":"p"},"meta":` + meta + `}`)
}

// The usual meta, whose layout the decoder learns from the first line.
const usualMeta = `{"wallClockMs":1796074173668,"runOffsetMs":11,"runtimeStageId":"seed#0","subflowPath":[],"compositionPath":["Agent:agent"],"runId":"run-1"}`

// TestMetaShapeMatchesLegacy decodes sequences of lines whose metas share
// a layout, or almost, with one decoder: each line must decode as it does
// alone with encoding/json, whatever the lines before it left behind.
func TestMetaShapeMatchesLegacy(t *testing.T) {
	tests := []struct {
		name  string
		metas []string
	}{
		{"the same meta", []string{usualMeta, usualMeta, usualMeta}},
		{"new numbers and stage", []string{usualMeta,
			`{"wallClockMs":1796074173669,"runOffsetMs":12,"runtimeStageId":"call-llm#1","subflowPath":[],"compositionPath":["Agent:agent"],"runId":"run-1"}`,
			usualMeta}},
		{"a number that extends the last one", []string{
			`{"wallClockMs":1,"runOffsetMs":2,"runId":"r"}`,
			`{"wallClockMs":12,"runOffsetMs":2,"runId":"r"}`,
			`{"wallClockMs":1,"runOffsetMs":2.5e3,"runId":"r"}`,
			`{"wallClockMs":-0,"runOffsetMs":2E-3,"runId":"r"}`}},
		{"interleaved runs", []string{usualMeta,
			strings.Replace(usualMeta, `"run-1"`, `"run-2"`, 1), usualMeta,
			strings.Replace(usualMeta, `"run-1"`, `"run-2"`, 1)}},
		{"a string that extends the last one", []string{
			`{"runId":"r","runtimeStageId":"a"}`,
			`{"runId":"r","runtimeStageId":"a\""}`,
			`{"runId":"r","runtimeStageId":"a"}`}},
		{"new paths", []string{usualMeta,
			strings.Replace(usualMeta, `"subflowPath":[]`, `"subflowPath":["sf-a","sf-b"]`, 1),
			strings.Replace(usualMeta, `"subflowPath":[]`, `"subflowPath":["sf-a"]`, 1),
			strings.Replace(usualMeta, `"subflowPath":[]`, `"subflowPath":null`, 1),
			usualMeta}},
		{"whitespace moves", []string{usualMeta,
			strings.Replace(usualMeta, `"runOffsetMs":11`, `"runOffsetMs": 11`, 1),
			strings.Replace(usualMeta, `,"runId"`, ` ,"runId"`, 1),
			strings.Replace(usualMeta, `"run-1"}`, `"run-1" }`, 1),
			`{ "runId" : "run-1" , "wallClockMs" : 3 }`,
			`{ "runId" : "run-1" , "wallClockMs" :  3 }`,
			`{ "runId" : "run-1" , "wallClockMs" : 3 }`,
			usualMeta}},
		{"keys change", []string{usualMeta,
			strings.Replace(usualMeta, `"runId"`, `"RunId"`, 1),
			strings.Replace(usualMeta, `"runId"`, `"runid"`, 1),
			strings.Replace(usualMeta, `"runId"`, `"ru\u006eId"`, 1),
			strings.Replace(usualMeta, `"runId"`, `"sessionId"`, 1),
			strings.Replace(usualMeta, `"runId"`, `"unknown"`, 1),
			strings.Replace(usualMeta, `"runId"`, `"unknown"`, 1),
			strings.Replace(usualMeta, `"runId":"run-1"`, `"unknown":{"a":[1,2]}`, 1),
			usualMeta}},
		{"members added, dropped, repeated, reordered", []string{usualMeta,
			strings.Replace(usualMeta, `}`, `,"turnIndex":1,"iterIndex":null}`, 1),
			strings.Replace(usualMeta, `}`, `,"turnIndex":1,"iterIndex":null}`, 1),
			strings.Replace(usualMeta, `}`, `,"turnIndex":2,"iterIndex":3}`, 1),
			strings.Replace(usualMeta, `,"runId":"run-1"`, ``, 1),
			strings.Replace(usualMeta, `}`, `,"runId":"run-2"}`, 1),
			strings.Replace(usualMeta, `}`, `,"RUNID":"run-2"}`, 1),
			`{"runId":"run-1","wallClockMs":1796074173668}`,
			`{}`, `{}`, usualMeta}},
		{"wrong types, then the layout again", []string{usualMeta,
			strings.Replace(usualMeta, `"run-1"`, `5`, 1),
			usualMeta,
			strings.Replace(usualMeta, `11`, `"11"`, 1),
			strings.Replace(usualMeta, `11`, `"11"`, 1),
			usualMeta,
			strings.Replace(usualMeta, `["Agent:agent"]`, `["Agent:agent",1]`, 1),
			usualMeta}},
		{"a miss after a changed value", []string{usualMeta,
			strings.Replace(usualMeta, `11,`, `12,`, 1)[:len(usualMeta)-1] + `,"runId":"x"}`,
			strings.Replace(usualMeta, `11,`, `12,`, 1),
			strings.Replace(usualMeta, `"run-1"`, `"run-2"`, 1)[:len(usualMeta)-1] + `,"traceId":7}`,
			strings.Replace(usualMeta, `"run-1"`, `"run-2"`, 1)}},
		{"nulls", []string{usualMeta,
			strings.Replace(usualMeta, `"run-1"`, `null`, 1),
			strings.Replace(usualMeta, `"run-1"`, `null`, 1),
			strings.Replace(usualMeta, `11`, `null`, 1),
			usualMeta}},
		{"escapes and invalid UTF-8 in values", []string{usualMeta,
			strings.Replace(usualMeta, `"run-1"`, `"run\u002d1"`, 1),
			strings.Replace(usualMeta, `"run-1"`, `"run-\ud800"`, 1),
			strings.Replace(usualMeta, `"run-1"`, "\"run-\xff\"", 1),
			strings.Replace(usualMeta, `"run-1"`, "\"run-\xff\"", 1),
			usualMeta}},
		{"not an object, or none", []string{usualMeta, `null`, `[]`, `"x"`, usualMeta}},
		{"a meta too large to keep", []string{
			strings.Replace(usualMeta, `"run-1"`, `"`+strings.Repeat("r", maxShapeBytes)+`"`, 1),
			strings.Replace(usualMeta, `"run-1"`, `"`+strings.Repeat("r", maxShapeBytes)+`"`, 1),
			usualMeta, usualMeta}},
		{"indented", []string{
			"{\n  \"runId\": \"run-1\",\n  \"wallClockMs\": 1\n}",
			"{\n  \"runId\": \"run-1\",\n  \"wallClockMs\": 2\n}",
			"{\n  \"runId\": \"run-2\",\n  \"wallClockMs\": 2\n  }",
			"{\n  \"runId\": \"run-2\",\n  \"wallClockMs\": 2\n}"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var lines [][]byte
			for _, m := range tc.metas {
				lines = append(lines, metaLine(m))
			}
			compareDecode(t, lines...)
		})
	}
}

// FuzzMetaShapeMatchesLegacy decodes a meta, a second one read against
// its layout, and the first again.
func FuzzMetaShapeMatchesLegacy(f *testing.F) {
	f.Add(usualMeta, strings.Replace(usualMeta, `11`, `12`, 1))
	f.Add(usualMeta, strings.Replace(usualMeta, `"run-1"`, `5`, 1))
	f.Add(`{"wallClockMs":1,"runId":"r"}`, `{"wallClockMs":12,"runId":"r"}`)
	f.Add(`{"runId":"r","turnIndex":1}`, `{"runId":"r","turnIndex":1,"runId":"s"}`)
	f.Fuzz(func(t *testing.T, first, second string) {
		compareDecode(t, metaLine(first), metaLine(second), metaLine(first))
	})
}

// TestMetaShapeIsUsed holds the layout to the metas it should serve, so
// that the tests above compare the path they mean to.
func TestMetaShapeIsUsed(t *testing.T) {
	tests := []struct {
		meta        string
		wantMatched bool
	}{
		{usualMeta, true},
		{strings.Replace(usualMeta, `"run-1"`, `"run-2"`, 1), true},
		{strings.Replace(usualMeta, `11`, `1234`, 1), true},
		{strings.Replace(usualMeta, `"run-1"`, `5`, 1), true}, // a wrong type is an answer
		{strings.Replace(usualMeta, `"runId"`, `"RunId"`, 1), false},
		{strings.Replace(usualMeta, `:11`, `: 11`, 1), false},
		{strings.Replace(usualMeta, `}`, `,"turnIndex":1}`, 1), false},
		{`{}`, false},
	}
	for _, tc := range tests {
		var d eventDecoder
		var first, got Meta
		if !d.decodeMeta([]byte(usualMeta), &first) || !d.shape.valid {
			t.Fatal("the usual meta taught no layout")
		}
		_, matched := d.decodeMetaShaped([]byte(tc.meta), &got)
		if matched != tc.wantMatched {
			t.Errorf("%s: matched %v, want %v", tc.meta, matched, tc.wantMatched)
		}
	}
}

// TestMetaShapeLearnsSeldomWhenLayoutsAlternate: a layout is learned on
// the 1st, 2nd, 4th, 8th… meta in a row the layout could not serve.
func TestMetaShapeLearnsSeldomWhenLayoutsAlternate(t *testing.T) {
	metas := [][]byte{[]byte(usualMeta), []byte(strings.Replace(usualMeta, `}`, `,"turnIndex":1}`, 1))}
	want := []bool{true, true, false, true, false, false, false, true, false}
	var d eventDecoder
	for i, w := range want {
		var m Meta
		if !d.decodeMeta(metas[i%2], &m) {
			t.Fatalf("meta %d not decoded", i)
		}
		if d.shape.valid != w {
			t.Errorf("after meta %d: layout kept %v, want %v", i, d.shape.valid, w)
		}
	}
}
