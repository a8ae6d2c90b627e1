package proctree

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// contain has the kernel SIGKILL the root if the lab dies first, even by
// SIGKILL, and starts the root inside a cgroup of its own where the lab
// may make one (newCgroup): every process of the tree is born there.
func contain(attrs *syscall.SysProcAttr) (box, error) {
	attrs.Pdeathsig = syscall.SIGKILL
	cg, err := newCgroup()
	if err != nil || cg == nil {
		return nil, err
	}
	attrs.UseCgroupFD, attrs.CgroupFD = true, cg.fd
	return cg, nil
}

// groupMembers lists the live processes of group pgid from /proc; a zombie
// has ended and runs nothing, so it is not one.
func groupMembers(pgid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return signalMembers(pgid)
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // it exited while we read
		}
		if g, live := groupOf(string(raw)); live && g == pgid {
			out = append(out, pid)
		}
	}
	return out
}

// groupOf reads the process group (field 5) of a /proc/<pid>/stat text,
// and whether the process is live (neither a zombie nor dead).
func groupOf(stat string) (pgid int, live bool) {
	// The command name (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3, the state
	if len(f) < 3 {
		return 0, false
	}
	g, err := strconv.Atoi(f[2])
	if err != nil {
		return 0, false
	}
	return g, f[0] != "Z" && f[0] != "X"
}

// contains: a cgroup holds the whole tree, where the lab may make one.
func contains() bool {
	cgroupBase.once.Do(func() { cgroupBase.dir = usableBase() })
	return cgroupBase.dir != ""
}
