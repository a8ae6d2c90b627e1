package proc

import (
	"os/exec"
	"testing"
	"time"
)

func TestSelfIsAlive(t *testing.T) {
	o := Self()
	if !o.Alive() {
		t.Fatalf("%v: this process is not alive", o)
	}
	back, err := ParseOwner(o.String())
	if err != nil || back != o {
		t.Fatalf("ParseOwner(%q) = %v, %v; want %v", o.String(), back, err, o)
	}
}

func TestExitedProcessIsGone(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if o := (Owner{PID: cmd.Process.Pid}); o.Alive() {
		t.Errorf("%v: a process that exited is alive", o)
	}
}

func TestReusedPIDIsNotTheOwner(t *testing.T) {
	if Self().Start == 0 {
		t.Skip("this system has no process start times")
	}
	// Alive short-cuts the calling process, so ask about a live child instead.
	cmd := exec.Command("sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	start, err := startTime(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if !(Owner{PID: cmd.Process.Pid, Start: start}).Alive() {
		t.Error("a running child is not alive")
	}
	if (Owner{PID: cmd.Process.Pid, Start: start + 1}).Alive() {
		t.Error("a pid with another start time is taken for its owner")
	}
}

func TestParseOwnerRefusesGarbage(t *testing.T) {
	for _, s := range []string{"", "pid=0 start=1", "hello", "pid=-4 start=0"} {
		if _, err := ParseOwner(s); err == nil {
			t.Errorf("ParseOwner(%q) accepted it", s)
		}
	}
}

// A run killed with SIGKILL whose parent has not reaped it yet is a zombie:
// it has exited, so neither Alive nor Running may count it, or its files
// would wait for the reaping to be swept.
func TestZombieIsGone(t *testing.T) {
	if Self().Start == 0 {
		t.Skip("this system has no /proc")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	start, err := startTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	if !Running(pid) || !(Owner{PID: pid, Start: start}).Alive() {
		t.Fatal("a running child is not running")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for Running(pid) { // not reaped: it turns into a zombie
		if time.Now().After(deadline) {
			t.Fatal("a SIGKILLed child still runs after 5 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if st, err := inspect(pid); err != nil || !st.exited {
		t.Fatalf("%+v, %v: want a zombie (exited, not reaped) before the wait", st, err)
	}
	if (Owner{PID: pid, Start: start}).Alive() {
		t.Error("a zombie owner is alive")
	}
	cmd.Wait()
	if Running(pid) {
		t.Error("a reaped child is running")
	}
}
