package checks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ColumnTypeCeiling is fpcheck's statement of what the column checks can
// never see. Every finding either check files quotes it.
const ColumnTypeCeiling = "This checks TYPE, never MEANING: it can see that a column declared number holds a string, and it can never see that the string should have been 0, or that a 0.0 should have been an 8; a column whose every value has its declared type passes here and can still be wrong."

// Column check settings (dials.checkColumnTypes).
const (
	ColumnsOff     = "off"
	ColumnsWarn    = "warn"
	ColumnsEnforce = "enforce"
)

// maxRefusalColumns bounds how many columns one refusal sentence names.
const maxRefusalColumns = 5

func columnChecksArmed(d *Declarations) bool {
	if d == nil || (d.Dials.CheckColumnTypes != ColumnsWarn && d.Dials.CheckColumnTypes != ColumnsEnforce) {
		return false
	}
	for _, t := range d.Tools {
		if len(t.ResultColumns) > 0 {
			return true
		}
	}
	return false
}

const columnFences = `Fences, each filed as a not-applicable row and never a finding: a result that is not an array of plain objects with at least one row (prose, null, a bespoke {rows: [...]} wrapper, a list holding anything but objects, a string that does not hold such an array), a result with zero rows (an empty answer has no columns to be wrong about; it is empty-lookup's business), and a failed call (tool_end.error). A result the recording does not carry is unreachable. A tool without resultColumns is never a subject; columns it does not declare are never judged (the declaration is open: a backend that adds a column breaks nothing). With dials.checkColumnTypes off or unset, both checks are unarmed: one not-applicable row each.`

// ColumnTypeMismatch is column-type-mismatch at the write seam: a declared
// result column holds something other than its declared type.
var ColumnTypeMismatch = &Check{
	Kind:  KindColumnTypeMismatch,
	Seam:  SeamWrite,
	Title: "a declared result column holds another type",
	Doc: `At each result (stream.tool_end) of a tool that declares resultColumns, with dials.checkColumnTypes warn or enforce, every declared column present in at least one row is read in every row: number means a JSON number; string a JSON string; boolean true or false; date an ISO-8601 date or date-time written as a string (2024-05-01, 2024-05-01T08:30:00Z, 2024-05-01 08:30:00+02:00; the date must exist, and epoch numbers are not dates). A missing key and null are one idea, "no value": a violation unless the column is declared nullable, and the finding then names that one-word fix. The result is read as tool_end.result when it is an array, or parsed when it is a string holding an array.

A column with any offending row files one finding: the tool, the column, the declared type, how many rows of the total hold something else, the first offending value quoted with its JSON type, and the call id. The column is the predicate, so two columns of one result are two findings. Under enforce, the message adds the sentence the live run would have sent the model instead of the rows (the refusal covers every offending column of that result). Quoted numbers ("1240") and LUN 0 stored as "" are caught; a 0.0 that should have been 8 is a number and passes.

` + columnFences,
	Ceiling: ColumnTypeCeiling,
	ArmedBy: "resultColumns on a tool, with dials.checkColumnTypes warn or enforce",
	Armed:   columnChecksArmed,
	Unfed:   "the run recorded no result of a tool that declares resultColumns",
	Canary: func() []Finding {
		mismatch, _ := columnTypesOf(canaryColumnsView(`[{"n":""}]`), ColumnsWarn)
		return mismatch
	},
	OnWrite: func(v WriteView, d *Declarations) Verdict {
		return judgeColumns(v, d, KindColumnTypeMismatch)
	},
}

// MissingColumn is missing-column at the write seam: a declared result
// column appears in no row at all.
var MissingColumn = &Check{
	Kind:  KindMissingColumn,
	Seam:  SeamWrite,
	Title: "a declared result column is in no row",
	Doc: `At each result of a tool that declares resultColumns, with dials.checkColumnTypes warn or enforce, a declared column that appears in none of the rows files one finding, whether or not it is nullable: nullable promises that a row may carry nothing, not that the column may be absent from the whole result (to allow that, do not declare the column). It is a different fault from a mistyped value and sends a reader somewhere else (the query, not the mapping code), so it is its own kind with its own ledger row and its own sentence; a column absent from every row is never also reported as mistyped. The column is the predicate; a result can file both kinds at once, about different columns. Under enforce, the message adds the refusal the live run would have sent instead of the rows.

` + columnFences,
	Ceiling: ColumnTypeCeiling,
	ArmedBy: "resultColumns on a tool, with dials.checkColumnTypes warn or enforce",
	Armed:   columnChecksArmed,
	Unfed:   "the run recorded no result of a tool that declares resultColumns",
	Canary: func() []Finding {
		_, missing := columnTypesOf(canaryColumnsView(`[{"other":1}]`), ColumnsWarn)
		return missing
	},
	OnWrite: func(v WriteView, d *Declarations) Verdict {
		return judgeColumns(v, d, KindMissingColumn)
	},
}

func canaryColumnsView(result string) WriteView {
	return WriteView{Iteration: -1, Call: ToolCall{ID: "canary-call", Name: "canary_tool"}, CallRecorded: true,
		Result: json.RawMessage(result), Tool: &ToolDecl{Name: "canary_tool", ResultColumns: []ColumnDecl{{Name: "n", Type: "number"}}}}
}

func judgeColumns(v WriteView, d *Declarations, kind string) Verdict {
	if !v.CallRecorded || v.Tool == nil || len(v.Tool.ResultColumns) == 0 {
		return Verdict{None: true}
	}
	if v.Result == nil {
		return UnreachableBecause(fmt.Sprintf("tool_end of call %s to '%s' carries no result", orUnknown(v.Call.ID), v.Call.Name))
	}
	if v.Error {
		return NotApplicableVerdict()
	}
	rows, ok := readRowset(v.Result)
	if !ok {
		return NotApplicableVerdict()
	}
	fs := columnFindings(v, rows, d.Dials.CheckColumnTypes, kind)
	if len(fs) == 0 {
		return Pass()
	}
	return Fail(stamp(fs, v.Stage)...)
}

// ReadRowset reads a tool result as rows: an array of plain objects with at
// least one row, or a string holding one as JSON. Anything else is not a
// rowset and is not judged.
func ReadRowset(result json.RawMessage) ([]*jsonNode, bool) {
	rows, ok := readRowset(result)
	return append([]*jsonNode(nil), rows...), ok
}

// readRowset is ReadRowset without the copy: the rows are shared with every
// other reader of the same result and must not be changed.
func readRowset(result json.RawMessage) ([]*jsonNode, bool) {
	r := parseResult(result)
	n := r.node
	if n == nil {
		return nil, false
	}
	if n.kind == 's' {
		if !strings.HasPrefix(r.trimmed, "[") || r.inner == nil {
			return nil, false
		}
		n = r.inner
	}
	if n.kind != 'a' || len(n.items) == 0 {
		return nil, false
	}
	for _, row := range n.items {
		if row.kind != 'o' {
			return nil, false
		}
	}
	return n.items, true
}

// columnViolation is one declared column the rows disagree with.
type columnViolation struct {
	col          ColumnDecl
	rows, ofRows int
	sample, got  string
	absence      bool
}

// columnTypesOf is the pure judge of one rowset: the mismatch findings and
// the missing-column findings, in declaration order.
func columnTypesOf(v WriteView, mode string) (mismatch, missing []Finding) {
	rows, ok := readRowset(v.Result)
	if !ok {
		return nil, nil
	}
	return columnFindings(v, rows, mode, KindColumnTypeMismatch), columnFindings(v, rows, mode, KindMissingColumn)
}

// columnFindings is the findings of one kind (column-type-mismatch or
// missing-column) about the rows of one result, in declaration order. The
// refusal under enforce names the faults of both kinds, so there every
// column is judged whichever kind is asked for.
func columnFindings(v WriteView, rows []*jsonNode, mode, kind string) []Finding {
	subject := toolSubject(v.Call.Name)
	call := orUnknown(v.Call.ID)
	judgeTypes := kind == KindColumnTypeMismatch || mode == ColumnsEnforce
	var violations []columnViolation
	var absentCols []ColumnDecl
	for _, col := range v.Tool.ResultColumns {
		if !inAnyRow(rows, col.Name) {
			absentCols = append(absentCols, col)
			continue
		}
		if !judgeTypes {
			continue
		}
		if cv, bad := judgeColumn(rows, col); bad {
			violations = append(violations, cv)
		}
	}
	outcome := "Nothing was blocked, changed or retried: the model read the rows exactly as the tool returned them."
	if mode == ColumnsEnforce {
		outcome = "Under enforce, the live run would have refused these rows and handed the model this instead: " + refusalSentence(v.Call.Name, violations, absentCols)
	}
	declared := fmt.Sprintf("resultColumns of '%s', as declared", v.Call.Name)
	var fs []Finding
	if kind == KindColumnTypeMismatch {
		for _, cv := range violations {
			nullable := ""
			if cv.col.Nullable {
				nullable = " (nullable)"
			}
			hint := ""
			if cv.absence && !cv.col.Nullable {
				hint = "If a row may legitimately carry nothing in this column, declare it nullable: true. "
			}
			witnesses := []Witness{
				asserted(subject, cv.col.Name, "declared "+cv.col.Type+nullable, v.Iteration, declared),
				asserted(subject, cv.col.Name, fmt.Sprintf("%d of %d rows hold %s; first: %s", cv.rows, cv.ofRows, cv.got, cv.sample), v.Iteration,
					fmt.Sprintf("stream.tool_end %s: the result as the tool returned it", call)),
			}
			fs = append(fs, finding(KindColumnTypeMismatch, SeamWrite, []Subject{subject}, cv.col.Name, witnesses, v.Iteration,
				fmt.Sprintf("'%s' declares column '%s' as %s, and %d of %d %s hold something else; the first is %s (%s). %s%s Call id %s. %s",
					v.Call.Name, cv.col.Name, cv.col.Type, cv.rows, cv.ofRows, plural(cv.ofRows, "row", "rows"), cv.sample, cv.got, hint, ColumnTypeCeiling, call, outcome)))
		}
		return fs
	}
	for _, col := range absentCols {
		witnesses := []Witness{
			asserted(subject, col.Name, "declared "+col.Type, v.Iteration, declared),
			asserted(subject, col.Name, "present in no row", v.Iteration,
				fmt.Sprintf("stream.tool_end %s: the result as the tool returned it (%d %s)", call, len(rows), plural(len(rows), "row", "rows"))),
		}
		fs = append(fs, finding(KindMissingColumn, SeamWrite, []Subject{subject}, col.Name, witnesses, v.Iteration,
			fmt.Sprintf("'%s' declares column '%s' (%s), and none of the %d %s it returned carries it: the column was never delivered, which is not a mistyped value, so look at what builds the rows rather than at how values are written. Declaring it nullable does not cover a column absent from every row; stop declaring it if it may be missing. %s Call id %s. %s",
				v.Call.Name, col.Name, col.Type, len(rows), plural(len(rows), "row", "rows"), ColumnTypeCeiling, call, outcome)))
	}
	return fs
}

func inAnyRow(rows []*jsonNode, col string) bool {
	for _, r := range rows {
		if _, ok := r.lookup(col); ok {
			return true
		}
	}
	return false
}

// judgeColumn counts the rows whose value of one column is not of its
// declared type. Every row is counted; the first offender is quoted.
func judgeColumn(rows []*jsonNode, col ColumnDecl) (columnViolation, bool) {
	cv := columnViolation{col: col, ofRows: len(rows)}
	for _, r := range rows {
		val, present := r.lookup(col.Name)
		if !present || val.kind == 'z' {
			if col.Nullable {
				continue
			}
			cv.rows++
			if cv.sample == "" {
				cv.absence = true
				if present {
					cv.sample, cv.got = "null", "null"
				} else {
					cv.sample, cv.got = "no such key", "missing"
				}
			}
			continue
		}
		if hasColumnType(val, col.Type) {
			continue
		}
		cv.rows++
		if cv.sample == "" {
			cv.sample, cv.got = clip(string(rawOf(val))), jsonTypeName(val)
		}
	}
	return cv, cv.rows > 0
}

func jsonTypeName(n *jsonNode) string {
	switch n.kind {
	case 'o':
		return "object"
	case 'a':
		return "list"
	case 's':
		return "string"
	case 'n':
		return "number"
	case 'b':
		return "boolean"
	}
	return "null"
}

func hasColumnType(n *jsonNode, typ string) bool {
	switch typ {
	case "number":
		return n.kind == 'n'
	case "string":
		return n.kind == 's'
	case "boolean":
		return n.kind == 'b'
	case "date":
		return n.kind == 's' && IsISODate(n.str)
	}
	return false
}

var isoDateRE = regexp.MustCompile(`^([0-9]{4}-[0-9]{2}-[0-9]{2})(?:[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.[0-9]+)?)?(Z|[+-][0-9]{2}:?[0-9]{2})?)?$`)

// IsISODate reports whether a string is an ISO-8601 calendar date
// (YYYY-MM-DD) or date-time (the date, T or a space, hh:mm, optional
// seconds and fraction, optional Z or offset), naming a day that exists and
// a time of day within range. It is what a column declared date must hold.
func IsISODate(s string) bool {
	m := isoDateRE.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	if _, err := time.Parse("2006-01-02", m[1]); err != nil {
		return false
	}
	if m[2] != "" {
		h, _ := strconv.Atoi(m[2])
		mi, _ := strconv.Atoi(m[3])
		if h > 23 || mi > 59 {
			return false
		}
		if m[4] != "" {
			if sec, _ := strconv.Atoi(m[4]); sec > 60 {
				return false
			}
		}
	}
	return true
}

// refusalSentence is what the live run under enforce hands the model in
// place of the rows: what disagrees, how to fix it, and that no data came
// back.
func refusalSentence(tool string, violations []columnViolation, missing []ColumnDecl) string {
	var parts []string
	for _, cv := range violations {
		parts = append(parts, fmt.Sprintf("'%s' is declared %s and %d of %d rows hold %s (first: %s)", cv.col.Name, cv.col.Type, cv.rows, cv.ofRows, cv.got, cv.sample))
	}
	for _, c := range missing {
		parts = append(parts, fmt.Sprintf("'%s' is declared %s and is in no row", c.Name, c.Type))
	}
	more := ""
	if len(parts) > maxRefusalColumns {
		more = fmt.Sprintf("; and %d more", len(parts)-maxRefusalColumns)
		parts = parts[:maxRefusalColumns]
	}
	return fmt.Sprintf("Result refused: %s returned rows that disagree with the columns it declares: %s%s. Fix the tool so each column holds what it declares, or change the declaration. No data was returned.",
		tool, strings.Join(parts, "; "), more)
}
