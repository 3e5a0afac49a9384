package main

import (
	"bytes"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// goOOM is how the Go runtime dies when it cannot get memory: a line, the
// fatal error, and a dump of every goroutine.
const goOOM = "runtime: out of memory: cannot allocate 4194304-byte block (414875648 in use)\nfatal error: out of memory\n\nruntime stack:\nruntime.throw({0x8ed060?, 0x20000000?})\n\t/usr/local/go/src/runtime/panic.go:1229 +0x48\n\ngoroutine 1 gp=0xc000002380 m=0 mp=0xcd6a60 [running]:\nmain.main()\n"

// TestSupervisedChild: what the child writes and its exit code pass
// through; the runtime's out-of-memory death becomes one line and exit 4,
// and an ordinary exit 2 stays exit 2.
func TestSupervisedChild(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the child is played by sh")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to play the child")
	}
	tests := []struct {
		name   string
		script string
		code   int
		stderr string
	}{
		{"green", "echo report; exit 0", 0, ""},
		{"defects, with a message", "echo 'fpcheck: a warning' >&2; exit 1", 1, "fpcheck: a warning\n"},
		{"an unreadable input is exit 2", "echo 'fpcheck: x.jsonl: line 7: bad' >&2; exit 2", 2, "fpcheck: x.jsonl: line 7: bad\n"},
		{"out of memory", "printf 'partial\\n' >&2; printf '" + strings.ReplaceAll(goOOM, "\n", "\\n") + "' >&2; exit 2", 4,
			"partial\nfpcheck: out of memory while running \"fpcheck analyze big.jsonl\"; lower --jobs, or --max-run-bytes, --max-events-per-run and --max-runs-in-flight so that a run or an input stops at a named limit first\n"},
		{"a line without a newline", "printf 'no newline' >&2; exit 3", 3, "no newline"},
		{"a workflow command in a message", "echo '::error::x ##[error]y' >&2; exit 1", 1, ":\\x3aerror::x ##\\x5berror]y\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := exec.Command("sh", "-c", tt.script)
			cmd.Stdout = &stdout
			code, ok := runSupervised(cmd, []string{"analyze", "big.jsonl"}, &stderr)
			if !ok || code != tt.code {
				t.Errorf("code %d (ok %v), want %d", code, ok, tt.code)
			}
			if stderr.String() != tt.stderr {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.stderr)
			}
			if strings.Contains(stderr.String(), "goroutine") {
				t.Errorf("a goroutine dump reached stderr")
			}
		})
	}
}

// TestOutOfMemoryLine holds the matcher to the runtime's two spellings,
// and nothing else.
func TestOutOfMemoryLine(t *testing.T) {
	for line, want := range map[string]bool{
		"runtime: out of memory: cannot allocate 4194304-byte block (3899392 in use)\n": true,
		"fatal error: out of memory\n":                true,
		"fpcheck: run.jsonl: line 3: out of memory\n": false,
		"fatal error: concurrent map writes\n":        false,
	} {
		if got := outOfMemoryLine([]byte(line)); got != want {
			t.Errorf("outOfMemoryLine(%q) = %v", line, got)
		}
	}
}

// TestPassStderrByteByByte: however the child's writes are split, what is
// not the runtime's death passes through unchanged, a progress counter
// without a newline included, and the death is caught at a line start only.
func TestPassStderrByteByByte(t *testing.T) {
	tests := []struct {
		in, out string
		oom     bool
	}{
		{"\r 3 of 9 inputs\r 4 of 9 inputs", "\r 3 of 9 inputs\r 4 of 9 inputs", false},
		{"fpcheck: x\n" + goOOM, "fpcheck: x\n", true},
		{"fatal error: out of mem", "fatal error: out of mem", false},
		{"note: fatal error: out of memory\n", "note: fatal error: out of memory\n", false},
		{"runtime: other\nruntime: out of memory: cannot allocate\n", "runtime: other\n", true},
		{"", "", false},
	}
	for _, tt := range tests {
		var w bytes.Buffer
		oom := passStderr(iotest.OneByteReader(strings.NewReader(tt.in)), &w)
		if oom != tt.oom || w.String() != tt.out {
			t.Errorf("passStderr(%q) = %v, %q; want %v, %q", tt.in, oom, w.String(), tt.oom, tt.out)
		}
	}
}
