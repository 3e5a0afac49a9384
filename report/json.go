package report

import (
	"encoding/json"
	"io"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// The JSON report is documented field by field in docs/json-schema.md; keep
// the two in step. Field order is fixed by these structs, map keys are
// sorted by encoding/json, and absent facts are null rather than missing so
// that every key is always present.

type jsonReport struct {
	SchemaVersion int                `json:"schemaVersion"`
	Inputs        []jsonInput        `json:"inputs"`
	Runs          *jsonList          `json:"runs"` // of jsonRun
	Conversations []jsonConversation `json:"conversations"`
	Options       jsonOptions        `json:"options"`
	Bound         string             `json:"bound"`
	ExitCode      int                `json:"exitCode"`
	// Baseline is present only when a baseline was given (baseline.go).
	Baseline *jsonBaseline `json:"baseline,omitempty"`
	// Declarations is null without a declarations file.
	Declarations *jsonDeclarations `json:"declarations"`
	Skipped      []jsonSkipped     `json:"skipped"`
	// Evidence is what the report was judged from, for fpcheck to read
	// back (saved.go); readers of the report use the sections above.
	Evidence *evidenceDoc[*jsonList] `json:"evidence"`
}

type jsonSkipped struct {
	Path    string `json:"path"`
	Why     string `json:"why"`
	Exclude string `json:"exclude,omitempty"`
}

type jsonDeclarations struct {
	Source    string       `json:"source"`
	ToolNames int          `json:"toolNames"`
	Strict    bool         `json:"strict"`
	Unseen    []jsonUnseen `json:"unseen"`
}

type jsonUnseen struct {
	Name       string  `json:"name"`
	Field      string  `json:"field"`
	Line       *int    `json:"line"`
	Suggestion *string `json:"suggestion"`
	Text       string  `json:"text"`
}

func jsonDeclarationsOf(dr *DeclarationsReport) *jsonDeclarations {
	if dr == nil {
		return nil
	}
	out := &jsonDeclarations{Source: dr.Source, ToolNames: dr.Names, Strict: dr.Strict, Unseen: []jsonUnseen{}}
	for _, u := range dr.Unseen {
		ju := jsonUnseen{Name: u.Name, Field: u.Field, Suggestion: nullString(u.Suggestion), Text: u.Sentence(dr.Source)}
		if u.Line > 0 {
			line := u.Line
			ju.Line = &line
		}
		out.Unseen = append(out.Unseen, ju)
	}
	return out
}

type jsonOptions struct {
	Kind            *string `json:"kind"`
	Limit           int     `json:"limit"`
	FailOn          string  `json:"failOn"`
	AllowUnmeasured bool    `json:"allowUnmeasured"`
	AllowDamaged    bool    `json:"allowDamaged"`
	// StrictDeclarations is --strict-declarations.
	StrictDeclarations bool `json:"strictDeclarations"`
}

type jsonInput struct {
	Path          string              `json:"path"`
	Format        string              `json:"format"`
	Compression   string              `json:"compression"`
	Lines         int64               `json:"lines"`
	Events        int64               `json:"events"`
	Malformed     int64               `json:"malformed"`
	UnknownTypes  map[string]int64    `json:"unknownTypes"`
	TruncatedTail bool                `json:"truncatedTail"`
	DroppedEvents *int64              `json:"droppedEvents"`
	Complete      *bool               `json:"complete"`
	Problems      []recording.Problem `json:"problems"`
	Coverage      Coverage            `json:"coverage,omitempty"`
	Blank         int64               `json:"blank"`
	WrongTypes    map[string]int64    `json:"wrongTypes"`
	NoEventsKey   bool                `json:"noEventsKey"`
	Producer      string              `json:"producer,omitempty"`
	RunCount      int                 `json:"runCount"`
	Copies        int                 `json:"copies"`
	HeadMissing   []string            `json:"headMissingRuns"`
	Error         *string             `json:"error"`
	Notes         []string            `json:"notes"`
	LostRuns      []recording.Loss    `json:"lostRuns"`
	// StoppedRuns is left out when no run stopped, so reports of
	// inputs read whole keep their shape.
	StoppedRuns []recording.StoppedRun `json:"stoppedRuns,omitempty"`
}

type jsonRun struct {
	Input           string         `json:"input"`
	RunID           string         `json:"runId"`
	SessionID       *string        `json:"sessionId"`
	Events          int            `json:"events"`
	HeadMissing     bool           `json:"headMissing"`
	Recorded        jsonSide       `json:"recorded"`
	Replayed        *jsonSide      `json:"replayed,omitempty"`
	Findings        []jsonFinding  `json:"findings"`
	Verdict         Verdict        `json:"verdict"`
	FirstLine       int64          `json:"firstLine"`
	Turn            *int           `json:"turn"`
	Turns           *int           `json:"turns"`
	AlsoIn          []string       `json:"alsoIn"`
	AlsoInMore      int            `json:"alsoInMore,omitempty"`
	Copies          []jsonCopy     `json:"copies"`
	Conflicts       []jsonConflict `json:"disagreeing"`
	Defects         int            `json:"defects"`
	Advisories      int            `json:"advisories"`
	Drift           *int           `json:"drift,omitempty"`
	Matching        int            `json:"matching"`
	Omitted         int            `json:"omitted"`
	Headline        string         `json:"headline"`
	Notes           []string       `json:"notes"`
	CheckerDead     *string        `json:"checkerDead"`
	Baselined       int            `json:"baselined,omitempty"`
	EvidenceDamaged bool           `json:"evidenceDamaged"`
	DamagedOnly     bool           `json:"damagedOnly"`
	Damage          []jsonDamage   `json:"damage"`
	// AnswerValidation is present only for a run whose declarations ask
	// for one (validation.go).
	AnswerValidation []jsonAnswerValidation `json:"answerValidation,omitempty"`
}

type jsonDamage struct {
	Cause   DamageCause `json:"cause"`
	Lost    int64       `json:"lost"`
	Lines   []int64     `json:"lines"`
	Charged bool        `json:"charged"`
	Detail  *string     `json:"detail"`
	Text    string      `json:"text"`
}

type jsonSide struct {
	Coverage          Coverage  `json:"coverage"`
	Defects           int       `json:"defects"`
	Advisories        int       `json:"advisories"`
	Synthetic         int       `json:"synthetic"`
	EvidenceMissing   bool      `json:"evidenceMissing"`
	Posture           *string   `json:"posture"`
	WorkExisted       *bool     `json:"workExisted"`
	Rows              []jsonRow `json:"rows"`
	IntegrityEvents   int       `json:"integrityEvents"`
	Dispositions      int       `json:"dispositions"`
	RowsMalformed     bool      `json:"rowsMalformed"`
	RowFindings       int64     `json:"rowFindings"`
	CheckedEncounters int64     `json:"checkedEncounters"`
	Registered        int       `json:"registered"`
	Checking          int       `json:"checking"`
	SilentChecks      []string  `json:"silentChecks"`
	NeverRanChecks    []string  `json:"neverRanChecks"`
	Reconciliation    bool      `json:"reconciliation"`
	Unmeasured        bool      `json:"unmeasured"`
	Ledger            string    `json:"ledger"`
}

type jsonRow struct {
	Check         string   `json:"check"`
	Seam          string   `json:"seam"`
	Checked       int64    `json:"checked"`
	Findings      int64    `json:"findings"`
	NotApplicable int64    `json:"notApplicable"`
	Unreachable   int64    `json:"unreachable"`
	Synthetic     int64    `json:"synthetic"`
	LastFiredAt   *float64 `json:"lastFiredAt"`
	LastFired     *string  `json:"lastFired"`
	State         RowState `json:"state"`
	// ToolsAbsent is present only on a replayed row whose arming tools
	// never appeared in the run.
	ToolsAbsent []string `json:"declaredToolsAbsent,omitempty"`
}

type jsonFinding struct {
	Kind      string        `json:"kind"`
	Seam      string        `json:"seam"`
	Subjects  []jsonSubject `json:"subjects"`
	Predicate *string       `json:"predicate"`
	Advisory  bool          `json:"advisory"`
	Synthetic bool          `json:"synthetic"`
	Iteration *int64        `json:"iteration"`
	FiledAt   *string       `json:"filedAt"`
	Message   string        `json:"message"`
	Identity  string        `json:"identity"`
	Source    string        `json:"source"`
	Why       *string       `json:"why,omitempty"`
	Epoch     *int64        `json:"epoch"`
	Line      *int64        `json:"line"`
	// Copies and LastLine are present only for a recorded finding filed
	// more than once: how many events filed it, and the last one's line.
	Copies            int       `json:"copies,omitempty"`
	LastLine          int64     `json:"lastLine,omitempty"`
	Witnesses         int       `json:"witnesses"`
	WitnessesRecorded bool      `json:"witnessesRecorded"`
	StampedWitnesses  int       `json:"stampedWitnesses"`
	Baseline          *jsonMark `json:"baseline,omitempty"`
	// Proof is every witness in full and every recording position of the
	// finding's evidence.
	Proof jsonProof `json:"proof"`
	// Explain is the command that shows the finding whole.
	Explain string `json:"explain"`
}

type jsonProof struct {
	Witnesses []jsonWitness  `json:"witnesses"`
	Positions []jsonPosition `json:"positions"`
}

type jsonWitness struct {
	Channel        string          `json:"channel"`
	Subject        jsonSubject     `json:"subject"`
	Predicate      string          `json:"predicate"`
	Value          json.RawMessage `json:"value"`
	Epoch          *int64          `json:"epoch"`
	Stratum        string          `json:"stratum"`
	Provenance     string          `json:"provenance"`
	RuntimeStageID *string         `json:"runtimeStageId"`
	Synthetic      bool            `json:"synthetic"`
}

type jsonPosition struct {
	What       string  `json:"what"`
	Event      string  `json:"event"`
	Path       string  `json:"path"`
	Line       *int64  `json:"line"`
	Pointer    *string `json:"pointer"`
	Index      int64   `json:"index"`
	Rotated    bool    `json:"rotated"`
	ToolCallID *string `json:"toolCallId"`
	Iteration  *int64  `json:"iteration"`
}

// jsonProofOf is a finding's witnesses and positions. A witness value
// that is not valid JSON (a foreign producer's) is carried as a string of
// its bytes, so the report stays parseable and nothing is hidden.
func jsonProofOf(run Run, f Finding) jsonProof {
	out := jsonProof{Witnesses: []jsonWitness{}, Positions: []jsonPosition{}}
	for _, w := range f.Witnessed() {
		v := w.Value
		switch {
		case len(v) == 0:
			v = json.RawMessage("null")
		case !json.Valid(v):
			b, _ := json.Marshal(string(v))
			v = b
		}
		out.Witnesses = append(out.Witnesses, jsonWitness{
			Channel:        w.Channel,
			Subject:        jsonSubject{Kind: w.Subject.Kind, ID: w.Subject.ID},
			Predicate:      w.Predicate,
			Value:          v,
			Epoch:          w.Epoch,
			Stratum:        w.Stratum,
			Provenance:     w.Provenance,
			RuntimeStageID: nullString(w.RuntimeStageID),
			Synthetic:      w.Synthetic,
		})
	}
	for _, p := range f.Positions() {
		out.Positions = append(out.Positions, jsonPositionOf(&run, p))
	}
	return out
}

func jsonPositionOf(run *Run, p checks.Position) jsonPosition {
	jp := jsonPosition{
		What:       p.What,
		Event:      p.Event,
		Path:       PositionPath(run.Input, p),
		Index:      p.Index,
		Rotated:    p.Rotated,
		ToolCallID: nullString(p.ToolCallID),
		Iteration:  p.Iteration,
	}
	if p.Line > 0 {
		line := p.Line
		jp.Line = &line
	}
	if run.EventsPointer != "" || p.Line == 0 {
		ptr := run.Pointer(p)
		jp.Pointer = &ptr
	}
	return jp
}

type jsonSubject struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

type jsonConversation struct {
	SessionID string   `json:"sessionId"`
	Runs      []string `json:"runs"`
}

// RenderJSON writes the report as versioned JSON: deterministic bytes,
// two-space indent, no HTML escaping (strings stay as recorded), and a
// final newline.
func RenderJSON(w io.Writer, r *Report) error {
	if r.taken {
		return errNoSources
	}
	s := newJSONStream(w)
	out := jsonReport{
		SchemaVersion: r.SchemaVersion,
		Inputs:        []jsonInput{},
		Runs:          s.list(len(r.Runs), func(i int) any { return jsonRunOf(r, r.Runs[i]) }),
		Conversations: []jsonConversation{},
		Options:       jsonOptionsOf(r.Options),
		Bound:         Bound,
		Baseline:      jsonBaselineOf(r.Baseline),
		ExitCode:      r.ExitCode(),
		Declarations:  jsonDeclarationsOf(r.Declarations),
		Skipped:       []jsonSkipped{},
		Evidence:      jsonEvidenceOf(r, s),
	}
	for _, in := range r.Inputs {
		out.Inputs = append(out.Inputs, jsonInputOf(in))
	}
	for _, sk := range r.Skipped {
		out.Skipped = append(out.Skipped, jsonSkipped{Path: sk.Path, Why: sk.Why, Exclude: sk.Pattern})
	}
	for _, c := range r.Conversations {
		out.Conversations = append(out.Conversations, jsonConversation{SessionID: c.SessionID, Runs: nonNil(c.RunIDs)})
	}
	return s.encode(out)
}

func jsonOptionsOf(o Options) jsonOptions {
	return jsonOptions{
		Kind:            nullString(o.Kind),
		Limit:           o.Limit,
		FailOn:          o.failOn(),
		AllowUnmeasured: o.AllowUnmeasured,
		AllowDamaged:    o.AllowDamaged,
		// Read back by merge (saved.go).
		StrictDeclarations: o.StrictDeclarations,
	}
}

func jsonInputOf(in Input) jsonInput {
	return jsonInput{
		Path:          in.Path,
		Format:        in.Format,
		Compression:   in.Compression,
		Lines:         in.Lines,
		Events:        in.Events,
		Malformed:     in.Malformed,
		UnknownTypes:  nonNilMap(in.UnknownTypes),
		TruncatedTail: in.TruncatedTail,
		DroppedEvents: in.DroppedEvents,
		Complete:      in.Complete,
		Problems:      nonNil(in.Problems),
		Coverage:      in.Coverage,
		Blank:         in.Blank,
		WrongTypes:    nonNilMap(in.WrongTypes),
		NoEventsKey:   in.NoEventsKey,
		Producer:      in.Producer,
		RunCount:      in.RunCount,
		Copies:        in.Copies,
		HeadMissing:   nonNil(in.HeadMissing),
		Error:         nullString(in.Error),
		Notes:         nonNil(in.Notes),
		LostRuns:      lostRunsJSON(in.LostRuns),
		StoppedRuns:   in.StoppedRuns,
	}
}

func lostRunsJSON(ls []recording.Loss) []recording.Loss {
	out := make([]recording.Loss, len(ls))
	for i, l := range ls {
		l.Lines = nonNil(l.Lines)
		out[i] = l
	}
	return out
}

func jsonRunOf(r *Report, run Run) jsonRun {
	jr := jsonRun{
		Input:       run.Input,
		RunID:       run.RunID,
		SessionID:   nullString(run.SessionID),
		Events:      run.Events,
		HeadMissing: run.HeadMissing,
		Recorded:    jsonSideOf(*run.Recorded),
		Findings:    []jsonFinding{},
		Verdict:     run.Verdict,
		FirstLine:   run.FirstLine,
		AlsoIn:      nonNil(run.AlsoIn),
		AlsoInMore:  run.AlsoInMore,
		Copies:      jsonCopiesOf(run.Copies),
		Conflicts:   jsonConflictsOf(run.Conflicts),
		Defects:     run.Defects,
		Advisories:  run.Advisories,
		Matching:    run.Matching,
		Omitted:     run.Omitted,
		Headline:    run.Headline,
		Notes:       nonNil(run.Notes),
		CheckerDead: nullString(run.CheckerDead),
		Baselined:   run.Baselined,

		AnswerValidation: jsonValidationOf(run.Validation),
		EvidenceDamaged:  run.Damaged(),
		DamagedOnly:      run.DamagedOnly,
		Damage:           []jsonDamage{},
	}
	for _, d := range run.Damage {
		jr.Damage = append(jr.Damage, jsonDamage{Cause: d.Cause, Lost: d.Lost, Lines: nonNil(d.Lines), Charged: d.Charged, Detail: nullString(d.Detail), Text: damagePhrase(d)})
	}
	if run.Turns > 0 {
		turn, turns := run.Turn, run.Turns
		jr.Turn, jr.Turns = &turn, &turns
	}
	if run.Replayed != nil {
		side := jsonSideOf(*run.Replayed)
		jr.Replayed = &side
		drift := run.Drift
		jr.Drift = &drift
	}
	for i, f := range run.Findings {
		jf := jsonFinding{
			Proof:             jsonProofOf(run, f),
			Explain:           r.ExplainCommand(&run, i),
			Kind:              f.Kind,
			Seam:              f.Seam,
			Subjects:          []jsonSubject{},
			Predicate:         nullString(f.Predicate),
			Advisory:          f.Advisory,
			Synthetic:         f.Synthetic,
			Iteration:         f.Iteration,
			FiledAt:           nullString(f.FiledAt),
			Message:           f.Message,
			Identity:          f.Identity,
			Source:            f.Source,
			Epoch:             f.Epoch,
			Witnesses:         len(f.Witnesses),
			WitnessesRecorded: f.WitnessesRecorded,
			StampedWitnesses:  stampedWitnesses(f),
			Baseline:          jsonMarkOf(f.Baseline),
		}
		if f.Line > 0 {
			line := f.Line
			jf.Line = &line
		}
		if f.Repeats > 0 {
			jf.Copies, jf.LastLine = f.Events(), f.LastLine
		}
		if run.Replayed != nil {
			why := f.Why
			jf.Why = &why
		}
		for _, s := range f.Subjects {
			jf.Subjects = append(jf.Subjects, jsonSubject{Kind: s.Kind, ID: s.ID})
		}
		jr.Findings = append(jr.Findings, jf)
	}
	return jr
}

func jsonSideOf(s Side) jsonSide {
	js := jsonSide{
		Coverage:          s.Coverage,
		Defects:           s.Defects,
		Advisories:        s.Advisories,
		Synthetic:         s.Synthetic,
		EvidenceMissing:   s.EvidenceMissing,
		IntegrityEvents:   s.IntegrityEvents,
		Dispositions:      s.Dispositions,
		RowsMalformed:     s.RowsMalformed,
		RowFindings:       s.RowFindings,
		CheckedEncounters: s.Checked,
		Registered:        len(s.Rows),
		Checking:          s.Checking,
		SilentChecks:      nonNil(s.Silent),
		NeverRanChecks:    nonNil(s.NeverRan),
		Reconciliation:    s.Reconcile,
		Unmeasured:        s.Unmeasured,
		Ledger:            s.Ledger,
	}
	if s.HasDisposition {
		posture, work := s.Posture, s.WorkExisted
		js.Posture, js.WorkExisted = &posture, &work
	}
	if s.Rows != nil {
		js.Rows = make([]jsonRow, 0, len(s.Rows))
		for _, row := range s.Rows {
			js.Rows = append(js.Rows, jsonRow{
				Check:         row.Check,
				Seam:          row.Seam,
				Checked:       row.Checked,
				Findings:      row.Findings,
				NotApplicable: row.NotApplicable,
				Unreachable:   row.Unreachable,
				Synthetic:     row.Synthetic,
				LastFiredAt:   row.LastFiredAt,
				LastFired:     nullString(row.LastFired),
				State:         row.State,
				ToolsAbsent:   row.ToolsAbsent,
			})
		}
	}
	return js
}

// stampedWitnesses counts witnesses that name the step that asserted them;
// 9.62.0 checks never stamp one, so this is 0 on real runs.
func stampedWitnesses(f Finding) int {
	n := 0
	for _, w := range f.Witnesses {
		if w.RuntimeStageID != "" {
			n++
		}
	}
	return n
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func nonNilMap(m map[string]int64) map[string]int64 {
	if m == nil {
		return map[string]int64{}
	}
	return m
}

// jsonCopy is an input holding a copy of the run (copies.go).
type jsonCopy struct {
	Input       string   `json:"input"`
	Format      string   `json:"format"`
	Events      int      `json:"events"`
	FirstLine   int64    `json:"firstLine"`
	Verdict     Verdict  `json:"verdict"`
	Differences []string `json:"differences"`
}

// jsonConflict is an input sharing events with the run that is no copy of
// it.
type jsonConflict struct {
	Input string `json:"input"`
	Why   string `json:"why"`
}

func jsonCopiesOf(cs []RunCopy) []jsonCopy {
	out := make([]jsonCopy, len(cs))
	for i, c := range cs {
		out[i] = jsonCopy{Input: c.Input, Format: c.Format, Events: c.Events, FirstLine: c.FirstLine, Verdict: c.Verdict, Differences: nonNil(c.Differences)}
	}
	return out
}

func jsonConflictsOf(cs []RunConflict) []jsonConflict {
	out := make([]jsonConflict, len(cs))
	for i, c := range cs {
		out[i] = jsonConflict{Input: c.Input, Why: c.Why}
	}
	return out
}
