package proctree

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"outboxlab/core/proc"
)

// roleVar makes the test binary play a part in a family of processes: the
// same test then runs on every system, with no shell.
const roleVar = "PROCTREE_TEST_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(roleVar) {
	case "":
		os.Exit(m.Run())
	case "sleeper":
		time.Sleep(time.Hour)
	case "parent": // two sleeping children, their pids printed, then wait
		for range 2 {
			fmt.Println(startSleeper())
		}
		time.Sleep(time.Hour)
	case "orphaner": // one sleeping child, its pid printed, then exit 3
		fmt.Println(startSleeper())
		os.Exit(3)
	default:
		if role := roles[os.Getenv(roleVar)]; role != nil {
			role()
		}
	}
	os.Exit(0)
}

// roles are the parts only some systems' tests play.
var roles = map[string]func(){}

// startSleeper starts the test binary as a sleeper, an ordinary child.
func startSleeper() int {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), roleVar+"=sleeper")
	if err := cmd.Start(); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	return cmd.Process.Pid
}

// startRole starts the test binary in role as the root of a tree and reads
// the n pids it prints.
func startRole(t *testing.T, role string, n int) (*Tree, []int) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), roleVar+"="+role)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	tree, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	pids := []int{tree.Pid()}
	sc := bufio.NewScanner(out)
	for len(pids) <= n && sc.Scan() {
		pid, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
		if err != nil {
			tree.Kill()
			t.Fatalf("the %s printed %q, want a pid", role, sc.Text())
		}
		pids = append(pids, pid)
	}
	if len(pids) <= n {
		tree.Kill()
		t.Fatalf("the %s printed %d child pids, want %d", role, len(pids)-1, n)
	}
	return tree, pids
}

// startFamily starts a parent with two sleeping children: three processes.
func startFamily(t *testing.T) (*Tree, []int) { return startRole(t, "parent", 2) }

// killLeft kills pid if it still runs, so a failing test leaves nothing.
func killLeft(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// Kill ends the root and the children it started, which a kill of the root
// alone would leave running, and says the root was killed.
func TestKillEndsEveryProcessOfTheTree(t *testing.T) {
	tree, pids := startFamily(t)
	for _, pid := range pids {
		if !proc.Running(pid) {
			t.Fatalf("process %d of the tree is not running before the kill", pid)
		}
	}
	if err := tree.Kill(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids[1:] {
		// An orphaned child may stay a zombie until init reaps it; it runs nothing.
		if proc.Running(pid) {
			killLeft(pid)
			t.Errorf("child %d of the tree still runs after Kill returned", pid)
		}
	}
	select {
	case <-tree.Exited():
	default:
		t.Fatal("Kill returned before the root was reaped")
	}
	if e := tree.Exit(); !e.Killed() || e.Code != -1 || e.String() != "on killed" {
		t.Errorf("Exit() = %+v (%s), want killed by SIGKILL", e, e)
	}
	if err := tree.Kill(); err != nil {
		t.Errorf("a second Kill: %v", err)
	}
}

// A root that exits by itself is reaped with its code; Kill then ends what
// it left behind in its group.
func TestExitedRootLeavesNoChild(t *testing.T) {
	tree, pids := startRole(t, "orphaner", 1)
	child := pids[1]
	select {
	case <-tree.Exited():
	case <-time.After(time.Minute):
		t.Fatal("the root did not exit")
	}
	if e := tree.Exit(); e != (Exit{Code: 3}) || e.String() != "with status 3" {
		t.Errorf("Exit() = %+v, want status 3", e)
	}
	if !proc.Running(child) {
		t.Fatal("the orphaned child ended with its parent; the test proves nothing")
	}
	if err := tree.Kill(); err != nil {
		t.Fatal(err)
	}
	if proc.Running(child) {
		killLeft(child)
		t.Error("the orphaned child still runs after Kill")
	}
}

// Windows has no signals: the exit code the lab kills with reads as SIGKILL.
func TestExitCodeTable(t *testing.T) {
	cases := []struct {
		code int
		want Exit
		text string
	}{
		{0, Exit{Code: 0}, "with status 0"},
		{1, Exit{Code: 1}, "with status 1"},
		{KilledCode, Exit{Code: -1, Signal: "killed"}, "on killed"},
		{KilledCode + 1, Exit{Code: KilledCode + 1}, "with status 138"},
	}
	for _, c := range cases {
		got := fromCode(c.code)
		if got != c.want || got.String() != c.text || got.Killed() != (c.code == KilledCode) {
			t.Errorf("fromCode(%d) = %+v %q killed=%v, want %+v %q", c.code, got, got, got.Killed(), c.want, c.text)
		}
	}
}
