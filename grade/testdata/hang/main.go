// Command hang starts a grandchild that sleeps, writes both pids to the file
// HANG_PIDS names, says hello, and then hangs inside its turn: the lab must
// kill its whole process group.
package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
)

func main() {
	child := exec.Command("sleep", "1000")
	if err := child.Start(); err != nil {
		os.Exit(1)
	}
	f, err := os.OpenFile(os.Getenv("HANG_PIDS"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		fmt.Fprintf(f, "%d\n%d\n", os.Getpid(), child.Process.Pid)
		f.Close()
	}
	req, _ := http.NewRequest("POST", os.Getenv("OUTBOXLAB_LAB_URL")+"/v1/hello", bytes.NewReader([]byte("{}")))
	req.Header.Set("Authorization", "Bearer "+os.Getenv("OUTBOXLAB_TOKEN"))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	select {}
}
