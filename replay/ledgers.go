package replay

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/fpcheck/fpcheck/checks"
)

// Ledgers hands out one copy of each replayed ledger (the disposition and
// the reasons encounters went unjudged) that the runs sharing it end with,
// and one copy of each evidence that holds nothing of its own run beside
// it (no finding, no validation, nothing lost or excused). The runs of one
// configuration register the same checks, and small runs mostly count the
// same encounters: a million one-event runs end with one ledger and one
// evidence on each side, which are then held once instead of a million
// times. The tables stop growing at maxShared entries, so runs whose
// ledgers all differ cost no more than without it. Safe for concurrent use.
//
// What it hands out is shared: a shared Evidence, Disposition or
// Unreachable map is only read once the fold has ended.
type Ledgers struct {
	mu           sync.Mutex
	dispositions map[string]*Disposition
	reasons      map[string]map[string][]string
	evidence     map[evidenceKey]*Evidence
	key          []byte
	// texts holds one copy of each text the findings of the runs state
	// (their kinds, messages, witnesses, stages), up to maxSharedText
	// bytes: copies of one recording, or runs of one agent, file the same
	// findings again and again, each read into strings of its own.
	texts     map[string]string
	values    map[string]json.RawMessage
	textBytes int
}

// evidenceKey names an evidence that holds nothing but its shared ledger,
// its shared reasons (by their key) and its count of integrity events.
type evidenceKey struct {
	disposition *Disposition
	reasons     string
	integrity   int
}

const maxShared = 1 << 12

// maxSharedText bounds the bytes of the texts Ledgers holds once, and
// maxSharedTextLen the longest text it holds: a longer one is seldom
// filed twice.
const (
	maxSharedText    = 8 << 20
	maxSharedTextLen = 4 << 10
)

// NewLedgers returns an empty table of ledgers.
func NewLedgers() *Ledgers {
	return &Ledgers{dispositions: map[string]*Disposition{}, reasons: map[string]map[string][]string{}, evidence: map[evidenceKey]*Evidence{},
		texts: map[string]string{}, values: map[string]json.RawMessage{}}
}

// share returns ev with its ledger and reasons shared, or the shared copy
// of ev when it holds nothing else of its own.
func (l *Ledgers) share(ev *Evidence) *Evidence {
	if l == nil || ev == nil {
		return ev
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range ev.Findings {
		l.shareFinding(&ev.Findings[i])
	}
	whole := ev.Findings == nil && ev.Excused == nil && ev.Validation == nil && ev.Lost == nil && ev.Encounters == nil
	if d := ev.Disposition; d != nil {
		whole = whole && len(d.Damage) == 0
		if len(d.Damage) == 0 {
			l.key = dispositionKey(l.key[:0], d)
			if t, ok := l.dispositions[string(l.key)]; ok {
				ev.Disposition = t
			} else if len(l.dispositions) < maxShared {
				d.Rows = slices.Clip(d.Rows)
				l.dispositions[string(l.key)] = d
			} else {
				whole = false
			}
		}
	}
	k := evidenceKey{disposition: ev.Disposition, integrity: ev.IntegrityEvents}
	if ev.Unreachable != nil {
		l.key = reasonsKey(l.key[:0], ev.Unreachable)
		if t, ok := l.reasons[string(l.key)]; ok {
			ev.Unreachable = t
		} else if len(l.reasons) < maxShared {
			for c, v := range ev.Unreachable {
				ev.Unreachable[c] = slices.Clip(v)
			}
			l.reasons[string(l.key)] = ev.Unreachable
		} else {
			whole = false
		}
		// The key of no reasons at all is empty; that of an empty
		// table is not.
		k.reasons = string(l.key)
	}
	if !whole {
		return ev
	}
	if t, ok := l.evidence[k]; ok {
		return t
	}
	if len(l.evidence) < maxShared {
		l.evidence[k] = ev
	}
	return ev
}

// AppendKeyPhrase appends s preceded by its length, so that no two keys
// built of phrases are alike whatever bytes a recording put in them; the
// report's tables name what they hold by it too.
func AppendKeyPhrase(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}

// AppendKeyInt appends n and a separator.
func AppendKeyInt(b []byte, n int64) []byte {
	b = strconv.AppendInt(b, n, 10)
	return append(b, ',')
}

// dispositionKey names a disposition by everything it holds but its
// damage, which a shared one has none of.
func dispositionKey(b []byte, d *Disposition) []byte {
	b = AppendKeyPhrase(b, d.Posture)
	b = strconv.AppendBool(b, d.WorkExisted)
	b = strconv.AppendBool(b, d.RowsMalformed)
	if d.Rows == nil {
		return append(b, '-')
	}
	b = AppendKeyInt(b, int64(len(d.Rows)))
	for i := range d.Rows {
		b = AppendRowKey(b, &d.Rows[i])
	}
	return b
}

// AppendRowKey appends what names a ledger row by everything it holds,
// each phrase preceded by its length, so that no two rows share a key
// whatever bytes a recording put in them.
func AppendRowKey(b []byte, r *checks.Row) []byte {
	b = AppendKeyPhrase(b, r.Check)
	b = AppendKeyPhrase(b, r.Seam)
	for _, n := range [...]int64{r.Checked, r.Findings, r.NotApplicable, r.Unreachable, r.Synthetic} {
		b = AppendKeyInt(b, n)
	}
	if r.LastFiredAt == nil {
		return append(b, '-')
	}
	b = append(b, '=')
	b = strconv.AppendUint(b, math.Float64bits(*r.LastFiredAt), 16)
	return append(b, ',')
}

// reasonsKey names a table of reasons by its checks, in order, each with
// its reasons.
func reasonsKey(b []byte, reasons map[string][]string) []byte {
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = AppendKeyInt(b, int64(len(keys)))
	for _, k := range keys {
		b = AppendKeyPhrase(b, k)
		v := reasons[k]
		if v == nil {
			b = append(b, '-')
			continue
		}
		b = AppendKeyInt(b, int64(len(v)))
		for _, s := range v {
			b = AppendKeyPhrase(b, s)
		}
	}
	return b
}

// shareFinding puts the texts of f's own copies in place of those held
// already, and holds those not yet held while there is room.
func (l *Ledgers) shareFinding(f *checks.Finding) {
	for _, p := range []*string{&f.Kind, &f.Seam, &f.Predicate, &f.Message, &f.FiledAt} {
		*p = l.text(*p)
	}
	for i := range f.Subjects {
		s := &f.Subjects[i]
		s.Kind, s.ID = l.text(s.Kind), l.text(s.ID)
	}
	for i := range f.Witnesses {
		w := &f.Witnesses[i]
		w.Subject.Kind, w.Subject.ID = l.text(w.Subject.Kind), l.text(w.Subject.ID)
		w.Predicate, w.Stratum, w.Provenance, w.RuntimeStageID = l.text(w.Predicate), l.text(w.Stratum), l.text(w.Provenance), l.text(w.RuntimeStageID)
		w.Value = l.value(w.Value)
	}
	for i := range f.Evidence {
		p := &f.Evidence[i]
		p.What, p.Event, p.ToolCallID = l.text(p.What), l.text(p.Event), l.text(p.ToolCallID)
	}
}

// text is the copy of s held once, s itself when none is held.
func (l *Ledgers) text(s string) string {
	if s == "" || len(s) > maxSharedTextLen {
		return s
	}
	if t, ok := l.texts[s]; ok {
		return t
	}
	if l.textBytes+len(s) <= maxSharedText {
		// A copy of its own: s may stand in a larger string the table
		// should not keep.
		s = strings.Clone(s)
		l.texts[s] = s
		l.textBytes += len(s) + entryCost
	}
	return s
}

// value is text for a witness's JSON value.
func (l *Ledgers) value(v json.RawMessage) json.RawMessage {
	if len(v) == 0 || len(v) > maxSharedTextLen {
		return v
	}
	if t, ok := l.values[string(v)]; ok {
		return t
	}
	if l.textBytes+len(v) <= maxSharedText {
		v = slices.Clip(bytes.Clone(v))
		l.values[string(v)] = v
		l.textBytes += len(v) + entryCost
	}
	return v
}
