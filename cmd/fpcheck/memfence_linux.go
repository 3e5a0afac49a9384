package main

import (
	"bytes"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// memoryMayBeRefused reports whether this process could be refused memory
// or killed for it under a limit the system states: an address-space or
// data rlimit (ulimit -v, ulimit -d), strict overcommit, or a memory
// limit on its control group (a container's). Anything it cannot read
// counts as a limit.
func memoryMayBeRefused() bool {
	for _, res := range []int{syscall.RLIMIT_AS, syscall.RLIMIT_DATA} {
		var rl syscall.Rlimit
		if err := syscall.Getrlimit(res, &rl); err != nil || rl.Cur != ^uint64(0) {
			return true
		}
	}
	mode, err := os.ReadFile("/proc/sys/vm/overcommit_memory")
	if err != nil || string(bytes.TrimSpace(mode)) == "2" {
		return true
	}
	groups, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return true
	}
	return cgroupLimited(string(groups), readLimitFile)
}

// readLimitFile is a control-group file's first line, ok false when it
// cannot be read.
func readLimitFile(name string) (string, bool) {
	b, err := os.ReadFile(name)
	if err != nil {
		return "", false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line), true
}

// noCgroupLimit is at least what cgroup v1 writes for "no limit" (the
// largest page-aligned int64).
const noCgroupLimit = 1 << 62

// cgroupLimited reports whether /proc/self/cgroup's text (groups) puts the
// process under a memory limit, reading the control-group files through
// read. The groups are looked up from the process's own down to the root
// of their hierarchy, as a parent's limit binds its children too (a
// container's view of the hierarchy mounts its own group as the root); a
// memory hierarchy with no limit file to read counts as a limit.
func cgroupLimited(groups string, read func(string) (string, bool)) bool {
	// The memory controller is in one hierarchy: cgroup v1's when a v1
	// line names it, else the unified one's (line "0::").
	var dir, file, group string
	for _, line := range strings.Split(groups, "\n") {
		parts := strings.SplitN(line, ":", 3)
		switch {
		case len(parts) != 3:
		case hasController(parts[1], "memory"):
			dir, file, group = "/sys/fs/cgroup/memory", "memory.limit_in_bytes", parts[2]
		case parts[0] == "0" && parts[1] == "" && dir == "":
			dir, file, group = "/sys/fs/cgroup", "memory.max", parts[2]
		}
		if file == "memory.limit_in_bytes" {
			break
		}
	}
	if dir == "" {
		return false // no memory controller: no group limit
	}
	found := false
	for p := path.Clean("/" + group); ; p = path.Dir(p) {
		if v, ok := read(path.Join(dir, p, file)); ok {
			found = true
			if limited(v) {
				return true
			}
		}
		if p == "/" {
			return !found
		}
	}
}

// hasController reports whether a cgroup v1 controller list names c.
func hasController(list, c string) bool {
	return slices.Contains(strings.Split(list, ","), c)
}

// limited reports whether a memory.max or memory.limit_in_bytes value is
// a limit.
func limited(v string) bool {
	if v == "max" {
		return false
	}
	n, err := strconv.ParseUint(v, 10, 64)
	return err != nil || n < noCgroupLimit
}
