package checks

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidateClaims(t *testing.T) {
	decl := []ClaimDecl{{AnswerField: "status", Entity: "job-7", Field: "state"}}
	row := func(v string) ClaimRow {
		return ClaimRow{Entity: "job-7", Field: "state", Value: json.RawMessage(v), ToolName: "poll", ToolCallID: "c", Iteration: 1}
	}
	tests := []struct {
		name   string
		rows   []ClaimRow
		answer string
		want   Disposition
		code   string
	}{
		{"contradicts the only reading", []ClaimRow{row(`"done"`)}, `{"status":"failed"}`, CheckedFail, "contradicts-reading"},
		{"contradicts any reading: a polled value is withheld", []ClaimRow{row(`"queued"`), row(`"done"`)}, `{"status":"done"}`, CheckedFail, "contradicts-reading"},
		{"agrees", []ClaimRow{row(`"Done"`), row(`"done "`)}, `{"status":"done"}`, NotApplicable, "agrees"},
		{"no reading", nil, `{"status":"done"}`, NotApplicable, "no-reading"},
		{"field left out", []ClaimRow{row(`"done"`)}, `{"other":1}`, NotApplicable, "field-absent"},
		{"declined where a value was read", []ClaimRow{row(`"done"`)}, `{"status":null}`, NotApplicable, "declined"},
		{"doubt on both sides", []ClaimRow{row(`"unknown"`)}, `{"status":"Unknown"}`, Unreachable, "doubt-on-both-sides"},
		{"a reading settled only as unknown", []ClaimRow{row(`"done"`), row(`{"kind":"unknown","reason":"offline"}`)}, `{"status":"done"}`, Unreachable, "reading-unknown"},
		{"cannot compare safely", []ClaimRow{row(`"5 MW"`)}, `{"status":"5 mW"}`, Unreachable, "cannot-compare"},
		{"a malformed claim", []ClaimRow{row(`{"kind":"known"}`)}, `{"status":"done"}`, Unreachable, "not-a-claim"},
		{"not JSON", []ClaimRow{row(`"done"`)}, `status is done`, Unreachable, "answer-not-json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows := ValidateClaims(decl, tc.rows, tc.answer, true)
			if len(rows) != 1 || rows[0].ID != "agent:claims:status" {
				t.Fatalf("rows %+v", rows)
			}
			r := rows[0]
			if r.Disposition != tc.want.String() || !strings.HasPrefix(r.Reason, tc.code) {
				t.Errorf("%s (%s), want %v (%s…)", r.Disposition, r.Reason, tc.want, tc.code)
			}
			for _, secret := range []string{"job-7", "done", "queued"} {
				if strings.Contains(r.Reason, secret) {
					t.Errorf("reason %q carries a value or entity", r.Reason)
				}
			}
		})
	}
	if rows := ValidateClaims(decl, nil, "", false); rows[0].Disposition != "unreachable" {
		t.Errorf("an answer not recorded is unreachable: %+v", rows)
	}
}

func TestValidateNamesAndNumbers(t *testing.T) {
	g := NewGroundingIndex(staleFrame())
	for _, tc := range []struct {
		answer string
		want   Disposition
		code   string
	}{
		{"SHPMAXDLVAP001 holds 41200 GB.", NotApplicable, "clean"},
		{"SHPMAXDLVAP001 holds 98765 GB.", CheckedFail, "unsupported-values: 1 of 2"},
		{"SITE-9001 is fine.", NotApplicable, "clean: 0 values found, 1 supplied"},
		{strings.Repeat("x ", MaxAnswerTokens+2), Unreachable, "answer-past-ceiling: 2 more"},
	} {
		r := ValidateNamesAndNumbers(tc.answer, true, g, 4)
		if r.ID != AnswerCheckNamesAndNumbers || r.Disposition != tc.want.String() || !strings.HasPrefix(r.Reason, tc.code) {
			t.Errorf("%.40q: %+v, want %v (%s…)", tc.answer, r, tc.want, tc.code)
		}
	}
	partial := NewGroundingIndex(Frame{Source: "t", Gaps: []string{"gap"}, Messages: []Message{{Role: RoleUser, Content: "q"}}})
	if r := ValidateNamesAndNumbers("98765", true, partial, 4); r.Disposition != "unreachable" || !strings.HasPrefix(r.Reason, "index-incomplete") {
		t.Errorf("a value missing from an incomplete index: %+v", r)
	}
}

func TestValidationStatus(t *testing.T) {
	fail := AnswerCheck{ID: "a", Disposition: "checked-fail"}
	na := AnswerCheck{ID: "b", Disposition: "not-applicable"}
	un := AnswerCheck{ID: "c", Disposition: "unreachable"}
	for _, tc := range []struct {
		rows           []AnswerCheck
		status, reason string
	}{
		{[]AnswerCheck{na}, ValidationUnverified, "no-app-checks"},
		{[]AnswerCheck{na, un}, ValidationUnverified, "unreachable-checks"},
		{[]AnswerCheck{fail, na}, ValidationFailed, ""},
		{[]AnswerCheck{fail, un}, ValidationFailed, "unreachable-checks"},
	} {
		status, reason := ValidationStatus(tc.rows)
		if status != tc.status || !strings.HasPrefix(reason, tc.reason) || (tc.reason == "" && reason != "") {
			t.Errorf("%+v: %s (%s), want %s (%s)", tc.rows, status, reason, tc.status, tc.reason)
		}
	}
}
