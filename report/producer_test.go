package report

import "testing"

func TestProducerNote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"9.62.0", "Written by agentfootprint 9.62.0, as the envelope states."},
		{"10.0.0-rc.1+build.7", "Written by agentfootprint 10.0.0-rc.1+build.7, as the envelope states."},
		{"unknown", `Written by agentfootprint of a version its producer could not read (the envelope says "unknown").`},
		{"9.62.0\x1b[31m", `Written by agentfootprint of a version the envelope gives as "9.62.0\x1b[31m".`},
		{"nine point six two", `Written by agentfootprint of a version the envelope gives as "nine point six two".`},
	} {
		if got := producerNote(tc.in); got != tc.want {
			t.Errorf("producerNote(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
