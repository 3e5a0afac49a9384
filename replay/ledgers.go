package replay

import (
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/fpcheck/fpcheck/checks"
)

// Ledgers hands out one copy of each replayed ledger (the disposition and
// the reasons encounters went unjudged) that the runs sharing it end with.
// The runs of one configuration register the same checks, and small runs
// mostly count the same encounters: a million one-event runs end with one
// ledger, which is then held once instead of a million times. The tables
// stop growing at maxShared ledgers, so runs whose ledgers all differ cost
// no more than without it. Safe for concurrent use.
//
// What it hands out is shared: a shared Disposition or Unreachable map is
// only read once the fold has ended.
type Ledgers struct {
	mu           sync.Mutex
	dispositions map[string]*Disposition
	reasons      map[string]map[string][]string
	key          []byte
}

const maxShared = 1 << 12

// NewLedgers returns an empty table of ledgers.
func NewLedgers() *Ledgers {
	return &Ledgers{dispositions: map[string]*Disposition{}, reasons: map[string]map[string][]string{}}
}

// share puts the shared copies of ev's ledger in ev.
func (l *Ledgers) share(ev *Evidence) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if d := ev.Disposition; d != nil && len(d.Damage) == 0 {
		l.key = dispositionKey(l.key[:0], d)
		if t, ok := l.dispositions[string(l.key)]; ok {
			ev.Disposition = t
		} else if len(l.dispositions) < maxShared {
			d.Rows = slices.Clip(d.Rows)
			l.dispositions[string(l.key)] = d
		}
	}
	if len(ev.Unreachable) > 0 {
		l.key = reasonsKey(l.key[:0], ev.Unreachable)
		if t, ok := l.reasons[string(l.key)]; ok {
			ev.Unreachable = t
		} else if len(l.reasons) < maxShared {
			for k, v := range ev.Unreachable {
				ev.Unreachable[k] = slices.Clip(v)
			}
			l.reasons[string(l.key)] = ev.Unreachable
		}
	}
}

// keyString appends s preceded by its length, so that no two ledgers share
// a key whatever bytes a recording put in them.
func keyString(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}

func keyInt(b []byte, n int64) []byte {
	b = strconv.AppendInt(b, n, 10)
	return append(b, ',')
}

// dispositionKey names a disposition by everything it holds but its
// damage, which a shared one has none of.
func dispositionKey(b []byte, d *Disposition) []byte {
	b = keyString(b, d.Posture)
	b = strconv.AppendBool(b, d.WorkExisted)
	b = strconv.AppendBool(b, d.RowsMalformed)
	if d.Rows == nil {
		return append(b, '-')
	}
	b = keyInt(b, int64(len(d.Rows)))
	for i := range d.Rows {
		b = AppendRowKey(b, &d.Rows[i])
	}
	return b
}

// AppendRowKey appends what names a ledger row by everything it holds,
// each phrase preceded by its length, so that no two rows share a key
// whatever bytes a recording put in them.
func AppendRowKey(b []byte, r *checks.Row) []byte {
	b = keyString(b, r.Check)
	b = keyString(b, r.Seam)
	for _, n := range [...]int64{r.Checked, r.Findings, r.NotApplicable, r.Unreachable, r.Synthetic} {
		b = keyInt(b, n)
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
	b = keyInt(b, int64(len(keys)))
	for _, k := range keys {
		b = keyString(b, k)
		v := reasons[k]
		if v == nil {
			b = append(b, '-')
			continue
		}
		b = keyInt(b, int64(len(v)))
		for _, s := range v {
			b = keyString(b, s)
		}
	}
	return b
}
