package proctree

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"outboxlab/core/proc"
)

func init() {
	// A sleeper that leaves the tree's process group and session (setsid),
	// its pid printed; then its parent exits, orphaning it: a double fork.
	roles["escaper"] = func() {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), roleVar+"=sleeper")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println(cmd.Process.Pid)
		os.Exit(0)
	}
}

// needCgroups skips where the lab may make no cgroup, and fails under CI,
// whose machines let it.
func needCgroups(t *testing.T) string {
	t.Helper()
	if !contains() {
		if os.Getenv("CI") == "true" {
			t.Fatal("no cgroup v2 the lab may make cgroups in, on a CI machine")
		}
		t.Skip("no cgroup v2 the lab may make cgroups in")
	}
	return cgroupBase.dir
}

// A process that leaves the group and the session, and whose parent exits,
// still dies with the tree, and the tree's cgroup is gone after Kill.
func TestEscapedProcessDiesWithTheTree(t *testing.T) {
	needCgroups(t)
	tree, pids := startRole(t, "escaper", 1)
	escaped := pids[1]
	<-tree.Exited()
	if !proc.Running(escaped) {
		t.Fatal("the escaped sleeper is not running before the kill; the test proves nothing")
	}
	if pgid, _ := syscall.Getpgid(escaped); pgid == tree.sys.pgid {
		t.Fatalf("the sleeper is still in the tree's group %d; the test proves nothing", pgid)
	}
	cg, boxed := tree.sys.box.(*cgroup)
	if err := tree.Kill(); err != nil {
		t.Fatal(err)
	}
	if !boxed {
		t.Error("the tree has no cgroup where the lab may make one")
	}
	deadline := time.Now().Add(10 * time.Second)
	for proc.Running(escaped) { // dead, but its new parent may not have reaped it yet
		if time.Now().After(deadline) {
			killLeft(escaped)
			t.Fatalf("the escaped sleeper %d outlived Kill", escaped)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if boxed {
		if _, err := os.Stat(cg.dir); !os.IsNotExist(err) {
			t.Errorf("the tree's cgroup %s is still there after Kill: %v", cg.dir, err)
		}
	}
}

// A cgroup left by a lab that was killed outright is killed and removed by
// the next lab; one whose lab lives is left alone.
func TestSweepRemovesADeadLabsCgroup(t *testing.T) {
	base := needCgroups(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	deadDir := filepath.Join(base, fmt.Sprintf("%s%d-%d-1", cgroupPrefix, dead.Process.Pid, 0))
	live, err := makeCgroup(base)
	if err != nil {
		t.Fatal(err)
	}
	defer live.remove()
	if err := os.Mkdir(deadDir, 0o755); err != nil {
		t.Fatal(err)
	}
	sleeper := exec.Command(os.Args[0])
	sleeper.Env = append(os.Environ(), roleVar+"=sleeper")
	fd, err := syscall.Open(deadDir, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	sleeper.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	err = sleeper.Start()
	syscall.Close(fd)
	if err != nil {
		os.Remove(deadDir)
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- sleeper.Wait() }()
	sweepCgroups(base)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		sleeper.Process.Kill()
		t.Fatal("the dead lab's sleeper outlived the sweep")
	}
	if _, err := os.Stat(deadDir); !os.IsNotExist(err) {
		t.Errorf("the dead lab's cgroup is still there: %v", err)
	}
	if _, err := os.Stat(live.dir); err != nil {
		t.Errorf("the live lab's cgroup was swept: %v", err)
	}
}

func TestCgroup2DirReadsMountinfo(t *testing.T) {
	cases := []struct {
		line, path, want string
		ok               bool
	}{
		{"35 24 0:30 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw", "/user.slice/u.scope", "/sys/fs/cgroup/user.slice/u.scope", true},
		{"35 24 0:30 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw", "/", "/sys/fs/cgroup/unified", true},
		{"40 30 0:30 /user.slice /sys/fs/cgroup rw - cgroup2 cgroup2 rw", "/user.slice/a", "/sys/fs/cgroup/a", true},
		{"40 30 0:30 /other /sys/fs/cgroup rw - cgroup2 cgroup2 rw", "/user.slice/a", "", false},
		{"36 24 0:31 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids", "/", "", false},
	}
	for _, c := range cases {
		got, ok := cgroup2Dir(c.line, c.path)
		if got != c.want || ok != c.ok {
			t.Errorf("cgroup2Dir(%q, %q) = %q, %v; want %q, %v", c.line, c.path, got, ok, c.want, c.ok)
		}
	}
}
