package main

import "testing"

func TestRaisedLimit(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name          string
		current, live int64
		want          int64
		set           bool
	}{
		{"small live heap keeps the soft limit", softMemoryLimit, 20 * mib, softMemoryLimit, false},
		{"live heap near the limit raises it", softMemoryLimit, 70 * mib, 105 * mib, true},
		{"a rise of an eighth or less waits", 100 * mib, 72 * mib, 108 * mib, false},
		{"a shrinking live heap does not lower it", 150 * mib, 30 * mib, softMemoryLimit, false},
		{"a large live heap", 150 * mib, 200 * mib, 300 * mib, true},
	}
	for _, tt := range tests {
		got, set := raisedLimit(tt.current, tt.live)
		if set != tt.set || (set && got != tt.want) {
			t.Errorf("%s: raisedLimit(%d MiB, %d MiB) = %d MiB, %v; want %d MiB, %v",
				tt.name, tt.current/mib, tt.live/mib, got/mib, set, tt.want/mib, tt.set)
		}
	}
}
