package benchcpu

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// A process holding a 64 MiB buffer it has touched reports a peak resident
// set at least that large, from inside and, for a child, from its parent.
func TestMaxRSS(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("resident sets are read on Linux and macOS only")
	}
	const size = 64 << 20
	if os.Getenv("BENCHCPU_CHILD") == "1" {
		touch(size)
		return
	}
	touch(size)
	if got := MaxRSS(); got < size {
		t.Errorf("MaxRSS() = %d, want at least %d", got, size)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestMaxRSS$")
	cmd.Env = append(os.Environ(), "BENCHCPU_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if got := ChildMaxRSS(cmd.ProcessState); got < size {
		t.Errorf("ChildMaxRSS() = %d, want at least %d", got, size)
	}
}

var sink []byte

func touch(n int) {
	sink = make([]byte, n)
	for i := 0; i < n; i += 4096 {
		sink[i] = 1
	}
}
