package synth

import "io"

// eachEvent hands every event of every run to fn in file order: runs one
// after another, or with Interleave two at a time in alternating batches of
// one to eight events, the way two agents flushing into one file mix. fn
// returns false to stop.
func eachEvent(c *Config, tokens bool, fn func(s *runSim, ev *event) bool) {
	mix := newRNG(c.Seed, 0x1eaf)
	for i := 0; i < c.Runs; i++ {
		a := newRunSim(c, i, tokens)
		if !c.Interleave || i+1 >= c.Runs {
			if !drain(a, fn) {
				return
			}
			continue
		}
		b := newRunSim(c, i+1, tokens)
		i++
		aDone, bDone := false, false
		for !aDone || !bDone {
			if !aDone {
				k := drainN(a, mix.between(1, 8), fn)
				if k < 0 {
					return
				}
				aDone = k == 0
			}
			if !bDone {
				k := drainN(b, mix.between(1, 8), fn)
				if k < 0 {
					return
				}
				bDone = k == 0
			}
		}
	}
}

// drainN passes up to n events of s to fn: it returns 1 when s may have
// more, 0 when s is finished, -1 when fn asked to stop.
func drainN(s *runSim, n int, fn func(*runSim, *event) bool) int {
	for n > 0 {
		it, ok := s.next()
		if !ok {
			return 0
		}
		if it.ev == nil {
			continue
		}
		if !fn(s, it.ev) {
			return -1
		}
		n--
	}
	return 1
}

// drain passes every remaining event of s to fn; false means fn stopped.
func drain(s *runSim, fn func(*runSim, *event) bool) bool {
	for {
		it, ok := s.next()
		if !ok {
			return true
		}
		if it.ev != nil && !fn(s, it.ev) {
			return false
		}
	}
}

// WriteNDJSON writes format A: the standard-tier NDJSON stream of
// fileObservability (every event but stream.token), one event per line.
// It returns the number of bytes written.
func WriteNDJSON(w io.Writer, c Config) (int64, error) {
	c, err := c.normalize()
	if err != nil {
		return 0, err
	}
	e := newEnc(w, false)
	eachEvent(&c, false, func(s *runSim, ev *event) bool {
		s.writeEvent(e, ev)
		e.raw("\n")
		return e.err == nil
	})
	e.flush()
	return e.n, e.err
}
