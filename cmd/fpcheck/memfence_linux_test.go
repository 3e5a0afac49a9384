package main

import "testing"

// TestCgroupLimited reads the memory limit of a process's control group
// as cgroup v1 and v2 state it, up the hierarchy.
func TestCgroupLimited(t *testing.T) {
	const v1 = "/sys/fs/cgroup/memory/"
	const v2 = "/sys/fs/cgroup/"
	tests := []struct {
		name   string
		groups string
		files  map[string]string
		want   bool
	}{
		{"v2, no limit up to the root", "0::/user.slice/session.scope\n",
			map[string]string{v2 + "user.slice/session.scope/memory.max": "max", v2 + "user.slice/memory.max": "max"}, false},
		{"v2, its own limit", "0::/app\n", map[string]string{v2 + "app/memory.max": "536870912"}, true},
		{"v2, a parent's limit", "0::/a/b\n",
			map[string]string{v2 + "a/b/memory.max": "max", v2 + "a/memory.max": "1073741824"}, true},
		{"v2 in a container: its group is the root", "0::/\n", map[string]string{v2 + "memory.max": "max"}, false},
		{"v2, nothing to read", "0::/\n", map[string]string{}, true},
		{"v1 unlimited, group files not mounted", "4:memory:/process_api/1f\n0::/\n",
			map[string]string{v1 + "memory.limit_in_bytes": "9223372036854771712"}, false},
		{"v1, a limit", "7:cpu,memory:/docker/ab\n",
			map[string]string{v1 + "docker/ab/memory.limit_in_bytes": "268435456"}, true},
		{"v1 beside v2 without memory", "4:memory:/\n0::/\n",
			map[string]string{v1 + "memory.limit_in_bytes": "9223372036854771712"}, false},
		{"no memory controller", "1:cpu:/\n", map[string]string{}, false},
		{"an unreadable value", "0::/x\n", map[string]string{v2 + "x/memory.max": "lots"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read := func(name string) (string, bool) {
				v, ok := tt.files[name]
				return v, ok
			}
			if got := cgroupLimited(tt.groups, read); got != tt.want {
				t.Errorf("cgroupLimited = %v, want %v", got, tt.want)
			}
		})
	}
}
