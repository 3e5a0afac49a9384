package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/fpcheck/fpcheck/report"
)

// superviseEnv marks the process that does the work, and turns the
// supervisor off when set in the environment.
const superviseEnv = "FPCHECK_SUPERVISED"

// superviseStderrTTY is superviseEnv's value when the supervisor's own
// stderr is a terminal.
const superviseStderrTTY = "stderr-tty"

// supervise runs fpcheck in a child process and returns its exit code; ok
// is false when fpcheck should do the work itself (it is the child, no
// limit the system states can refuse it memory, or the child could not be
// started).
//
// Why a child: when the Go runtime cannot get memory it does not panic,
// which Main could recover, but dies, printing every goroutine's stack and
// exiting 2, the code of an unreadable input. The supervisor sees that
// death, drops the dump, and says it in one line with exit 4, as for any
// other internal failure; everything else the child writes passes through
// as it is, and its exit code is fpcheck's.
//
// The child costs a second start of the program (about 7 ms), so it runs
// only where such a death can happen: under an address-space or data
// rlimit, strict overcommit, or a control group's memory limit (see
// memoryMayBeRefused). Without any, the runtime is not refused memory,
// as fpcheck's own limits keep every allocation far below the machine's.
func supervise(args []string) (code int, ok bool) {
	if os.Getenv(superviseEnv) != "" || !memoryMayBeRefused() {
		return 0, false
	}
	exe, err := os.Executable()
	if err != nil {
		return 0, false
	}
	cmd := exec.Command(exe, args...)
	// The child's stderr is a pipe to here; it may still draw progress
	// when this process's stderr is a terminal.
	mark := "1"
	if isTerminal(os.Stderr) {
		mark = superviseStderrTTY
	}
	cmd.Env = append(os.Environ(), superviseEnv+"="+mark)
	cmd.Stdin, cmd.Stdout = os.Stdin, os.Stdout
	return runSupervised(cmd, args, os.Stderr)
}

// runSupervised runs cmd, the child doing the work for args, passing its
// standard error to errOut, and returns the exit code fpcheck ends with.
func runSupervised(cmd *exec.Cmd, args []string, errOut io.Writer) (code int, ok bool) {
	// The supervisor's own lines name the arguments, file names included:
	// through the CI log guard, as the child's own stderr is (Main).
	errOut = report.LogSafe(errOut, report.FormatText)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return 0, false
	}
	// Ctrl-C reaches the child too (same process group); the supervisor
	// only waits for it to finish.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 0, false
	}
	var interrupted atomic.Bool
	go func() {
		for s := range sigs {
			interrupted.Store(true)
			_ = cmd.Process.Signal(s)
		}
	}()
	oom := passStderr(stderr, errOut)
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case oom:
		fmt.Fprintf(errOut, "fpcheck: out of memory while running \"fpcheck %s\"; lower --jobs, or --max-run-bytes, --max-events-per-run and --max-runs-in-flight so that a run or an input stops at a named limit first\n",
			report.Sanitize(strings.Join(args, " ")))
		return int(ExitInternal), true
	case err == nil:
		return 0, true
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode(), true
	case interrupted.Load():
		return 130, true
	}
	fmt.Fprintf(errOut, "fpcheck: the process doing the work ended without an exit code (%s) while running \"fpcheck %s\"; if the machine ran out of memory, lower --jobs or --max-run-bytes\n",
		report.Sanitize(err.Error()), report.Sanitize(strings.Join(args, " ")))
	return int(ExitInternal), true
}

// passStderr copies the child's standard error to w as it comes (a
// progress counter must not wait for a newline) until the Go runtime's
// out-of-memory death begins, and reports whether it did; what follows
// (the goroutine dump) is read and dropped. Only the start of a line is
// held back, and only while it may still begin that death.
func passStderr(r io.Reader, w io.Writer) bool {
	buf := make([]byte, 32<<10)
	var head []byte   // the start of the current line, held back
	lineStart := true // head is being filled
	for {
		n, err := r.Read(buf)
		p := buf[:n]
		for len(p) > 0 {
			if !lineStart {
				i := bytes.IndexByte(p, '\n')
				if i < 0 {
					_, _ = w.Write(p)
					break
				}
				_, _ = w.Write(p[:i+1])
				p, lineStart = p[i+1:], true
				continue
			}
			c := p[0]
			head, p = append(head, c), p[1:]
			switch mayBeOutOfMemory(head) {
			case oomYes:
				_, _ = io.Copy(io.Discard, r)
				return true
			case oomMaybe:
				if c != '\n' {
					continue
				}
			}
			_, _ = w.Write(head)
			head, lineStart = head[:0], c == '\n'
		}
		if err != nil {
			_, _ = w.Write(head)
			return false
		}
	}
}

// The runtime's first line when it cannot get memory: "runtime: out of
// memory: cannot allocate …", or "fatal error: out of memory" alone.
var oomMarkers = [][]byte{[]byte("runtime: out of memory"), []byte("fatal error: out of memory")}

const (
	oomNo = iota
	oomMaybe
	oomYes
)

// mayBeOutOfMemory says whether a line starting with head is the
// runtime's out-of-memory line, is not, or may still be.
func mayBeOutOfMemory(head []byte) int {
	verdict := oomNo
	for _, m := range oomMarkers {
		switch {
		case bytes.HasPrefix(head, m):
			return oomYes
		case bytes.HasPrefix(m, head):
			verdict = oomMaybe
		}
	}
	return verdict
}

// outOfMemoryLine matches the first line the Go runtime writes when it
// cannot get memory ("runtime: out of memory: cannot allocate …", then
// "fatal error: out of memory").
func outOfMemoryLine(line []byte) bool { return mayBeOutOfMemory(line) == oomYes }
