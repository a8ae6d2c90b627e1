package proctree

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"outboxlab/core/proc"
)

// A cgroup of the tree's own (cgroup v2): the root is born in it (clone3
// into the cgroup, so nothing runs before it is inside), every process it
// starts is born there too and cannot leave it without privileges a worker
// does not have, and cgroup.kill ends them all in one write. The lab makes
// it below its own cgroup, where systemd delegates a user's own, or as root
// anywhere; where it cannot, the tree is a process group alone.
type cgroup struct {
	dir string
	fd  int // the open directory clone3 starts the root in
}

// cgroupPrefix names the lab's cgroups: outboxlab-<pid>-<start>-<n>, so a
// later run can tell one whose lab died (sweepCgroups).
const cgroupPrefix = "outboxlab-"

// probeVar makes a process of this binary exit at once: the probe that
// tells whether a process can be started in a cgroup of the lab's.
const probeVar = "OUTBOXLAB_PROCTREE_PROBE"

func init() {
	if os.Getenv(probeVar) != "" {
		os.Exit(0)
	}
}

var (
	cgroupBase struct {
		once sync.Once
		dir  string // where the lab makes its cgroups; "" when it cannot
	}
	cgroupSeq atomic.Int64
)

// newCgroup makes a cgroup for one tree, or answers nil where the system
// lets the lab make none.
func newCgroup() (*cgroup, error) {
	if !contains() {
		return nil, nil
	}
	return makeCgroup(cgroupBase.dir)
}

func makeCgroup(base string) (*cgroup, error) {
	self := proc.Self()
	name := fmt.Sprintf("%s%d-%d-%d", cgroupPrefix, self.PID, self.Start, cgroupSeq.Add(1))
	dir := filepath.Join(base, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("make the cgroup of a process tree: %w", err)
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("open the cgroup of a process tree: %w", err)
	}
	return &cgroup{dir: dir, fd: fd}, nil
}

// kill SIGKILLs every process in the cgroup; where the kernel has no
// cgroup.kill (before Linux 5.14), each one it lists.
func (c *cgroup) kill() {
	if os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0) == nil {
		return
	}
	for _, pid := range c.pids() {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// pids lists the processes in the cgroup (an exited one leaves it at once).
func (c *cgroup) pids() []int {
	raw, err := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(raw)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// remove closes and removes the cgroup, which must be empty.
func (c *cgroup) remove() {
	syscall.Close(c.fd)
	removeCgroup(c.dir)
}

// removeCgroup removes an emptied cgroup; the kernel may take a moment to
// see its last process gone.
func removeCgroup(dir string) {
	for range 100 {
		if err := os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// usableBase is the lab's own cgroup (cgroup v2) when a process can be
// started in a cgroup made below it, else "". It sweeps what killed labs
// left there first.
func usableBase() string {
	base := ownCgroupDir()
	if base == "" {
		return ""
	}
	sweepCgroups(base)
	cg, err := makeCgroup(base)
	if err != nil {
		return ""
	}
	defer cg.remove()
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	probe := exec.Command(exe)
	probe.Env = append(os.Environ(), probeVar+"=1")
	probe.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: cg.fd}
	if probe.Run() != nil {
		return ""
	}
	return base
}

// ownCgroupDir is where this process's cgroup v2 directory is mounted, or
// "" without one (cgroup v1 alone, no cgroup file system).
func ownCgroupDir() string {
	raw, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	var path string
	for _, line := range strings.Split(string(raw), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			path = p
		}
	}
	if path == "" {
		return ""
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if dir, ok := cgroup2Dir(sc.Text(), path); ok {
			return dir
		}
	}
	return ""
}

// cgroup2Dir reads one line of /proc/self/mountinfo: where the cgroup v2
// path lies below it, if it is a cgroup2 mount that shows that path.
func cgroup2Dir(line, path string) (string, bool) {
	pre, post, ok := strings.Cut(line, " - ")
	if !ok || !strings.HasPrefix(post, "cgroup2 ") {
		return "", false
	}
	f := strings.Fields(pre) // id parent dev root mountpoint ...
	if len(f) < 5 {
		return "", false
	}
	root, mount := f[3], f[4]
	rel, ok := strings.CutPrefix(path, root)
	if root == "/" {
		rel, ok = path, true
	}
	if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
		return "", false
	}
	return filepath.Join(mount, rel), true
}

// sweepCgroups kills and removes the cgroups under base that a lab left
// when it was killed outright: what was in them would run on forever.
func sweepCgroups(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		var o proc.Owner
		var n int
		if !e.IsDir() || !strings.HasPrefix(e.Name(), cgroupPrefix) {
			continue
		}
		if _, err := fmt.Sscanf(e.Name(), cgroupPrefix+"%d-%d-%d", &o.PID, &o.Start, &n); err != nil || o.Alive() {
			continue
		}
		c := &cgroup{dir: filepath.Join(base, e.Name()), fd: -1}
		c.kill()
		removeCgroup(c.dir)
	}
}
