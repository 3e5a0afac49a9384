package report

import (
	"fmt"
	"math"
	"time"
)

// maxTimeMs is the largest distance from the epoch a JavaScript Date can
// hold; lastFiredAt beyond it has no calendar time.
const maxTimeMs = 8.64e15

// isoMillis renders epoch milliseconds the way JavaScript's
// Date.prototype.toISOString does: UTC, exactly three fractional digits, a
// Z, and a signed six-digit year outside 0000–9999. Fractional milliseconds
// are cut toward zero, as a Date does. It reports false for values no Date
// can hold.
func isoMillis(ms float64) (string, bool) {
	if math.IsNaN(ms) || math.IsInf(ms, 0) || math.Abs(ms) > maxTimeMs {
		return "", false
	}
	t := time.UnixMilli(int64(math.Trunc(ms))).UTC()
	y := t.Year()
	if y >= 0 && y <= 9999 {
		return t.Format("2006-01-02T15:04:05.000Z"), true
	}
	sign := "+"
	if y < 0 {
		sign, y = "-", -y
	}
	return fmt.Sprintf("%s%06d-%s", sign, y, t.Format("01-02T15:04:05.000Z")), true
}
