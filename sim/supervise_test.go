package sim

import (
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestChildFailureReported starts a process that explains on stderr why it
// rejects its arguments and exits with status 2, as consim node does with
// an id outside the scenario: the supervisor reports its exit status and
// stderr tail.
func TestChildFailureReported(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skipf("no sh: %v", err)
	}
	var exited []string
	var mu sync.Mutex
	sup := &supervisor{onExit: func(c *child) { mu.Lock(); exited = append(exited, c.name); mu.Unlock() }}
	c, err := sup.start("agent 99", 99, sh, "-c", "echo 'consim node: --id 99: scenario quickstart has agents 0..7' >&2; exit 2")
	if err != nil {
		t.Fatal(err)
	}
	if !sup.wait(15 * time.Second) {
		sup.stop(time.Second)
		t.Fatal("the agent process did not exit")
	}
	var ce *ChildError
	if err := c.failure(); !errors.As(err, &ce) || !errors.Is(err, ErrChildFailed) {
		t.Fatalf("failure() = %v, want a *childError", err)
	}
	if ce.Code != nodeUsageExit || ce.Status != "exit status 2" || ce.PID != c.cmd.Process.Pid {
		t.Errorf("reported code %d status %q pid %d; want 2, exit status 2, %d", ce.Code, ce.Status, ce.PID, c.cmd.Process.Pid)
	}
	if tail := strings.Join(ce.Tail, "\n"); !strings.Contains(tail, "--id 99") || !strings.Contains(tail, "agents 0..7") {
		t.Errorf("stderr tail %q does not explain the bad id", tail)
	}
	if msg := ce.Error(); !strings.Contains(msg, "agent 99") || !strings.Contains(msg, "exit status 2") || !strings.Contains(msg, "--id 99") {
		t.Errorf("report %q lacks the name, status or stderr", msg)
	}
	if errs := sup.failures(); len(errs) != 1 {
		t.Errorf("failures() = %v, want one", errs)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(exited) != 1 || exited[0] != "agent 99" {
		t.Errorf("onExit calls %v, want [agent 99]", exited)
	}
}
