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

const columnFences = `Fences, each filed as a not-applicable row and never a finding: a result that is not an array of plain objects with at least one row (prose, null, a bespoke {rows: [...]} wrapper, a list holding anything but objects, any string, even one holding such an array as JSON), a result with zero rows (an empty answer has no columns to be wrong about; it is empty-lookup's business), and a failed call (tool_end.error). A result the recording does not carry is unreachable, and so is a result the library refused under enforce (tool_end.result is its sentence "Result rejected: <tool> returned rows that disagree with the columns it declares …", under either dial): the rows never entered the recording, so a recorded column finding about it reconciles as "replay lacked input", and a refusal whose finding the recording does not hold makes the run's evidence damaged (lost-finding), never green. A tool without resultColumns is never a subject; columns it does not declare are never judged (the declaration is open: a backend that adds a column breaks nothing). With dials.checkColumnTypes off or unset, both checks are unarmed: one not-applicable row each.`

// ColumnTypeMismatch is column-type-mismatch at the write seam: a declared
// result column holds something other than its declared type.
var ColumnTypeMismatch = &Check{
	Kind:  KindColumnTypeMismatch,
	Seam:  SeamWrite,
	Title: "a declared result column holds another type",
	Doc: `At each result (stream.tool_end) of a tool that declares resultColumns, with dials.checkColumnTypes warn or enforce, every declared column present in at least one row is read in every row: number means a JSON number; string a JSON string; boolean true or false; date an ISO-8601 date or date-time written as a string (2024-05-01, 2024-05-01T08:30:00Z, 2024-05-01 08:30:00+02:00; the date must exist, and epoch numbers are not dates). A missing key and null are one idea, "no value": a violation unless the column is declared nullable, and whenever any offending row of a column carries no value the finding names that one-word fix and says how many of the offending rows are absences, whatever the first offender was. The result is read only when tool_end.result is itself an array of plain objects: a string is text, not rows, and is never judged here, even when it holds a JSON array (empty-lookup and the claim checks keep their own documented reading of JSON written in a string).

A column with any offending row files one finding: the tool, the column, the declared type, how many rows of the total hold something else, the first offending value quoted with its JSON type, and the call id. The column is the predicate, so two columns of one result are two findings. Under enforce, the message is the refusal itself: the sentence the live run sends the model instead of the rows (covering every offending column of that result), then the ceiling and the call id. Quoted numbers ("1240") and LUN 0 stored as "" are caught; a 0.0 that should have been 8 is a number and passes.

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
	Doc: `At each result of a tool that declares resultColumns, with dials.checkColumnTypes warn or enforce, a declared column that appears in none of the rows files one finding, whether or not it is nullable: nullable promises that a row may carry nothing, not that the column may be absent from the whole result (to allow that, do not declare the column). It is a different fault from a mistyped value and sends a reader somewhere else (the query, not the mapping code), so it is its own kind with its own ledger row and its own sentence; a column absent from every row is never also reported as mistyped. The column is the predicate; a result can file both kinds at once, about different columns. Under enforce, the message is the refusal the live run sends instead of the rows, then the ceiling and the call id.

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
	if ColumnRefusal(v.Call.Name, v.Result) {
		return UnreachableBecause(RefusedRowsReason(v.Call.ID, v.Call.Name))
	}
	rows, ok := readRowset(v.Result)
	if !ok {
		return NotApplicableVerdict()
	}
	fs := columnFindings(v, rows, d.Dials.CheckColumnTypes, kind)
	if len(fs) == 0 {
		return Pass()
	}
	return Fail(aboutCalls(stamp(fs, v.Stage), v.Call.ID)...)
}

// columnRefusalPrefix opens the sentence agentfootprint writes in place of a
// result under checkColumnTypes: enforce, after the tool's name; the rows it
// refused never reach the recording.
const columnRefusalPrefix = "Result rejected: "

// ColumnRefusal reports whether a tool_end result is the library's refusal
// of a rowset under enforce: a string naming the tool, saying its rows
// disagree with its declared columns. Such a result is what the model read,
// not what the tool returned, so there are no rows to judge.
func ColumnRefusal(tool string, result json.RawMessage) bool {
	n := parseResult(result).node
	if n == nil || n.kind != 's' || tool == "" {
		return false
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(n.str), columnRefusalPrefix+tool+" ")
	return ok && strings.HasPrefix(rest, "returned rows that disagree with the columns it declares")
}

// RefusedRowsReason is why a refused result is unreachable.
func RefusedRowsReason(callID, tool string) string {
	return fmt.Sprintf("the rows were refused under enforce before they were recorded: tool_end.result of call %s to '%s' is the refusal the model read instead, and the rows themselves never entered the recording", orUnknown(callID), tool)
}

// RefusalFindingMissing is what the replay says of a refused result when the
// recording holds no column finding about the tool: the live run must have
// filed one (the refusal is that finding's message), so its evidence is
// missing.
func RefusalFindingMissing(callID, tool string) string {
	return fmt.Sprintf("the result of call %s to '%s' was refused under enforce, yet the recording holds no column-type-mismatch or missing-column finding about '%s': the live run filed one (the refusal is its message), and it is missing from the recording (capped, filtered or cut)", orUnknown(callID), tool, tool)
}

// ReadRowset reads a tool result as rows: an array of plain objects with at
// least one row. Anything else is not a rowset and is not judged, a string
// included even when it holds such an array as JSON: the library reads the
// value the tool returned, and text is not rows however it is spelled.
func ReadRowset(result json.RawMessage) ([]*jsonNode, bool) {
	rows, ok := readRowset(result)
	return append([]*jsonNode(nil), rows...), ok
}

// readRowset is ReadRowset without the copy: the rows are shared with every
// other reader of the same result and must not be changed.
func readRowset(result json.RawMessage) ([]*jsonNode, bool) {
	n := parseResult(result).node
	if n == nil || n.kind != 'a' || len(n.items) == 0 {
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
	// absences counts the offending rows that carry no value (null or no
	// such key): each of them is fixed by one word if nothing is what the
	// column may hold.
	absences int
}

// nullableHint names the one-word fix for the absences among a column's
// offending rows, however the first offender was spelled.
func nullableHint(cv columnViolation) string {
	which := fmt.Sprintf("%d of the %d offending rows carry no value (null or no such key)", cv.absences, cv.rows)
	switch {
	case cv.absences == cv.rows && cv.rows == 1:
		which = "The offending row carries no value (null or no such key)"
	case cv.absences == cv.rows:
		which = fmt.Sprintf("All %d offending rows carry no value (null or no such key)", cv.rows)
	case cv.absences == 1:
		which = fmt.Sprintf("1 of the %d offending rows carries no value (null or no such key)", cv.rows)
	}
	return which + "; if a row may legitimately carry nothing in this column, declare it nullable: true."
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
	// Under enforce the refusal is the finding's message: it is what the
	// model read instead of the rows, so it is what the record says.
	outcome := "Nothing was blocked, changed or retried: the model read the rows exactly as the tool returned them."
	refusal := ""
	if mode == ColumnsEnforce {
		refusal = refusalSentence(v.Call.Name, violations, absentCols)
	}
	message := func(warn string) string {
		if refusal != "" {
			return fmt.Sprintf("%s %s Call id %s.", refusal, ColumnTypeCeiling, call)
		}
		return fmt.Sprintf("%s %s Call id %s. %s", warn, ColumnTypeCeiling, call, outcome)
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
			if cv.absences > 0 && !cv.col.Nullable {
				hint = " " + nullableHint(cv)
			}
			witnesses := []Witness{
				asserted(subject, cv.col.Name, "declared "+cv.col.Type+nullable, v.Iteration, declared),
				asserted(subject, cv.col.Name, fmt.Sprintf("%d of %d rows hold %s; first: %s", cv.rows, cv.ofRows, cv.got, cv.sample), v.Iteration,
					fmt.Sprintf("stream.tool_end %s: the result as the tool returned it", call)),
			}
			fs = append(fs, finding(KindColumnTypeMismatch, SeamWrite, []Subject{subject}, cv.col.Name, witnesses, v.Iteration,
				message(fmt.Sprintf("'%s' declares column '%s' as %s, and %d of %d %s hold something else; the first is %s (%s).%s",
					v.Call.Name, cv.col.Name, cv.col.Type, cv.rows, cv.ofRows, plural(cv.ofRows, "row", "rows"), cv.sample, cv.got, hint))))
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
			message(fmt.Sprintf("'%s' declares column '%s' (%s), and none of the %d %s it returned carries it: the column was never delivered, which is not a mistyped value, so look at what builds the rows rather than at how values are written. Declaring it nullable does not cover a column absent from every row; stop declaring it if it may be missing.",
				v.Call.Name, col.Name, col.Type, len(rows), plural(len(rows), "row", "rows")))))
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
			cv.absences++
			if cv.sample == "" {
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
