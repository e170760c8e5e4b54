package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats-server/v2/server"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/internal/wallclock"
	"github.com/consim/consim/node"
	"github.com/consim/consim/sim"
)

const quickstart = "../../scenarios/quickstart.yaml"

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	// The tests set the connection flags themselves; the caller's
	// environment must not change what they run.
	os.Unsetenv(envNATSURL)
	os.Unsetenv(envLogLevel)
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// consimBinary builds the consim command once per test binary and
// returns its path: the executable `launch` starts as agent processes.
func consimBinary(tb testing.TB) string {
	tb.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "consim-bin-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "consim")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		tb.Fatal(binErr)
	}
	return binPath
}

// readFinal reads the final iterates of a bundle.
func readFinal(t *testing.T, bundle string) coordinator.FinalIterates {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(bundle, coordinator.FinalFile))
	if err != nil {
		t.Fatal(err)
	}
	var f coordinator.FinalIterates
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", coordinator.FinalFile, err)
	}
	return f
}

// countLines returns the number of lines of path, 0 if it does not exist.
func countLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		n++
	}
	return n
}

// waitLines polls path until it has at least n lines or ctx ends.
func waitLines(ctx context.Context, path string, n int) error {
	for countLines(path) < n {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %d lines, waited for %d: %w", path, countLines(path), n, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}

// TestLaunchMatchesGoroutines runs a scenario with each agent as its own
// process over NATS on TCP loopback and with goroutine agents over
// channels: with no dropout, every final x_i agrees bit for bit.
func TestLaunchMatchesGoroutines(t *testing.T) {
	exe := consimBinary(t)
	sets := []string{"rounds=300", "agents=4"}
	ctx := context.Background()

	var stderr bytes.Buffer
	procDir := t.TempDir()
	sum, err := launch(ctx, launchOptions{path: quickstart, sets: sets, out: procDir, runID: "procs", logLevel: "warn", exe: exe}, &stderr)
	if err != nil {
		t.Fatalf("launch: %v\nstderr:\n%s", err, stderr.String())
	}
	if sum.Status != coordinator.StatusOK || sum.Rounds != 300 || sum.Traffic.Dropouts != 0 || sum.Traffic.ReduceMissing != 0 {
		t.Fatalf("process run: status %s, %d rounds, %d dropouts, %d reduce terms missing; want ok, 300, 0, 0",
			sum.Status, sum.Rounds, sum.Traffic.Dropouts, sum.Traffic.ReduceMissing)
	}

	s, err := loadScenario(quickstart, append(sets, "runtime.transport=chan", "output.dir="+t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := runScenario(ctx, s, "goroutines", hclog.NewNullLogger(), nil)
	if err != nil {
		t.Fatalf("goroutine run: %v", err)
	}

	got, want := readFinal(t, sum.Bundle), readFinal(t, ref.Bundle)
	if len(got.Agents) != 4 || len(want.Agents) != 4 {
		t.Fatalf("final iterates of %d and %d agents, want 4", len(got.Agents), len(want.Agents))
	}
	for i := range want.Agents {
		g, w := got.Agents[i], want.Agents[i]
		if g.ID != w.ID || g.Round != 300 || w.Round != 300 || !g.Final || len(g.X) != len(w.X) || len(w.X) == 0 {
			t.Fatalf("agent %d: processes (id %d, round %d, final %v, %d values), goroutines (id %d, round %d, %d values)",
				i, g.ID, g.Round, g.Final, len(g.X), w.ID, w.Round, len(w.X))
		}
		for k := range w.X {
			if math.Float64bits(g.X[k]) != math.Float64bits(w.X[k]) {
				t.Errorf("agent %d x[%d]: processes %v (%#x), goroutines %v (%#x)",
					i, k, g.X[k], math.Float64bits(g.X[k]), w.X[k], math.Float64bits(w.X[k]))
			}
		}
	}
}

// TestLaunchKilledAgent kills agent 5 of 8 with SIGKILL mid-run. The
// launcher sees its process exit and the coordinator names it at once,
// with its pid and the round it was in, well within the agent timeout
// (2 s). With faults.on_departure: fail (the default) the run fails with
// ErrAgentLost (status failed, stop cause agent_lost, exit code 1) and
// the metrics written before are kept; with continue it completes its
// rounds over the other 7 agents, status ok.
func TestLaunchKilledAgent(t *testing.T) {
	exe := consimBinary(t)
	const victim = 5
	const agentTimeout = 2 * time.Second
	for _, cont := range []bool{false, true} {
		t.Run(map[bool]string{false: "fail", true: "continue"}[cont], func(t *testing.T) {
			if cont && os.Getenv("CONSIM_LONG") == "" {
				t.Skip("set CONSIM_LONG=1 (3,000 rounds of 8 processes, about 10 s)")
			}
			out := t.TempDir()
			pids := make(map[int]int)
			var mu sync.Mutex
			o := launchOptions{
				path: quickstart, out: out, runID: "killed", logLevel: "off", exe: exe,
				sets: []string{"agents=8", "rounds=10000000", "metrics.every=1",
					"runtime.agent_timeout=2s", "runtime.phase_deadline=200ms"},
				started: func(id, pid int) { mu.Lock(); pids[id] = pid; mu.Unlock() },
			}
			if cont {
				o.sets = []string{"agents=8", "rounds=3000", "metrics.every=100",
					"runtime.agent_timeout=2s", "runtime.phase_deadline=200ms", "faults.on_departure=continue"}
			}
			ctx := context.Background()

			var killedAt time.Time
			var pid int
			metrics := filepath.Join(out, o.runID, coordinator.MetricsJSONFile)
			killErr := make(chan error, 1)
			go func() {
				if err := waitLines(ctx, metrics, 5); err != nil {
					killErr <- err
					return
				}
				mu.Lock()
				pid = pids[victim]
				mu.Unlock()
				killedAt = time.Now()
				killErr <- syscall.Kill(pid, syscall.SIGKILL)
			}()
			var stderr bytes.Buffer
			sum, err := launch(ctx, o, &stderr)
			ended := time.Now()
			if kerr := <-killErr; kerr != nil {
				t.Fatalf("kill agent %d: %v\nlaunch: %v", victim, kerr, err)
			}
			if sum == nil {
				t.Fatalf("no summary; launch: %v", err)
			}
			if len(sum.Faults) != 1 || sum.Faults[0].Agent != victim || sum.Faults[0].Kind != "lost" ||
				!strings.Contains(sum.Faults[0].Message, fmt.Sprintf("agent %d (pid %d) lost at round ", victim, pid)) ||
				!strings.Contains(sum.Faults[0].Message, "signal: killed") {
				t.Fatalf("faults %+v; want agent %d (pid %d) lost, killed, and no other fault", sum.Faults, victim, pid)
			}
			if cont {
				if err != nil || sum.Status != coordinator.StatusOK || sum.Rounds != 3000 {
					t.Fatalf("launch: %v, status %s after %d rounds; want ok after 3000 without agent %d", err, sum.Status, sum.Rounds, victim)
				}
				return
			}
			var ae *coordinator.AgentError
			if !errors.Is(err, coordinator.ErrAgentLost) || !errors.As(err, &ae) || ae.ID != victim || ae.PID != pid {
				t.Fatalf("launch error = %v; want agent %d (pid %d) lost", err, victim, pid)
			}
			var ce *sim.ChildError
			if errors.As(err, &ce) {
				t.Errorf("launch error = %v; the lost agent's exit is reported twice", err)
			}
			// Named at once; the others then stop within a round.
			took := ended.Sub(killedAt)
			t.Logf("launch returned %v after the kill: %v", took, err)
			wallclock.Bound(t, "naming the killed agent", took, agentTimeout)
			if sum.Status != coordinator.StatusFailed || sum.StopCause != coordinator.StopLost {
				t.Fatalf("summary status %s, cause %s; want failed, %s", sum.Status, sum.StopCause, coordinator.StopLost)
			}
			if rows := countLines(metrics); rows < 5 || rows != sum.MeasuredRounds {
				t.Errorf("metrics.jsonl has %d rows, summary says %d measured; want the same, at least 5", rows, sum.MeasuredRounds)
			}
			f := readFinal(t, sum.Bundle)
			for _, a := range f.Agents {
				if a.Final == (a.ID == victim) {
					t.Errorf("final.json: agent %d final = %v", a.ID, a.Final)
				}
			}
		})
	}
}

// TestLaunchInterruptStopsChildren cancels a launch mid-run (as Ctrl-C
// does): every agent process is stopped and reaped before launch returns.
func TestLaunchInterruptStopsChildren(t *testing.T) {
	exe := consimBinary(t)
	out := t.TempDir()
	var pids []int
	var mu sync.Mutex
	o := launchOptions{
		path: quickstart, out: out, runID: "interrupted", logLevel: "off", exe: exe, grace: 2 * time.Second,
		sets:    []string{"agents=4", "rounds=10000000", "metrics.every=100"},
		started: func(_, pid int) { mu.Lock(); pids = append(pids, pid); mu.Unlock() },
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_ = waitLines(ctx, filepath.Join(out, o.runID, coordinator.MetricsJSONFile), 2)
		cancel()
	}()
	var stderr bytes.Buffer
	begin := time.Now()
	sum, err := launch(ctx, o, &stderr)
	if !errors.Is(err, context.Canceled) && !strings.Contains(fmt.Sprint(err), "interrupted") {
		t.Errorf("launch error = %v; want an interruption", err)
	}
	if sum == nil || sum.StopCause != coordinator.StopInterrupted {
		t.Errorf("summary %+v; want stop cause %s", sum, coordinator.StopInterrupted)
	}
	var ce *sim.ChildError
	if errors.As(err, &ce) {
		t.Errorf("a stopped agent is reported as failed: %v", ce)
	}
	wallclock.Bound(t, "launch", time.Since(begin), 18*time.Second)
	mu.Lock()
	defer mu.Unlock()
	if len(pids) != 4 {
		t.Fatalf("%d agent processes started, want 4", len(pids))
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("agent process %d still exists after launch returned (kill 0: %v)", pid, err)
		}
	}
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// runOver runs the scenario quickstart with sets over the NATS server at
// url, with agents as goroutines or as processes.
type runOver func(ctx context.Context, t *testing.T, url, out, runID string, sets []string) (*coordinator.Summary, error)

func goroutinesOver(ctx context.Context, t *testing.T, url, out, runID string, sets []string) (*coordinator.Summary, error) {
	s, err := loadScenario(quickstart, append(sets, "runtime.transport=nats-tcp", "runtime.nats_url="+url, "output.dir="+out))
	if err != nil {
		t.Fatal(err)
	}
	return runScenario(ctx, s, runID, hclog.NewNullLogger(), nil)
}

func processesOver(ctx context.Context, t *testing.T, url, out, runID string, sets []string) (*coordinator.Summary, error) {
	var stderr bytes.Buffer
	sum, err := launch(ctx, launchOptions{path: quickstart, sets: sets, natsURL: url, out: out, runID: runID,
		logLevel: "off", nodeLogLevel: "error", exe: consimBinary(t)}, &stderr)
	if err != nil {
		t.Logf("launch stderr:\n%s", stderr.String())
	}
	return sum, err
}

// TestNATSServerRestart shuts the NATS server down mid-run. When a new
// one comes up on the same port, agents and coordinator reconnect and the
// run completes, with dropouts for what was lost; when none does, the run
// fails naming the lost connection. Either way it never hangs.
func TestNATSServerRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("a server outage drill (about 20 s): make test-long runs it")
	}
	tests := []struct {
		name    string
		run     runOver
		restart bool
	}{
		{"goroutines", goroutinesOver, true},
		{"processes", processesOver, true},
		{"processes, server gone", processesOver, false},
	}
	for k, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := node.NATSServerOptions{Host: "127.0.0.1", Port: freePort(t)}
			first, err := node.StartNATSServer(opts)
			if err != nil {
				t.Fatal(err)
			}
			url := first.ClientURL()
			out, runID := t.TempDir(), fmt.Sprintf("restart-%d", k)
			metrics := filepath.Join(out, runID, coordinator.MetricsJSONFile)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()

			// restarted yields the rows on disk once the new server is up.
			restarted := make(chan int, 1)
			second := make(chan *server.Server, 1)
			go func() {
				defer close(restarted)
				defer close(second)
				err := waitLines(ctx, metrics, 3)
				first.Shutdown()
				first.WaitForShutdown()
				if err != nil || !tc.restart {
					return
				}
				time.Sleep(300 * time.Millisecond)
				for ctx.Err() == nil {
					if srv, err := node.StartNATSServer(opts); err == nil {
						second <- srv
						restarted <- countLines(metrics)
						return
					}
					time.Sleep(50 * time.Millisecond)
				}
			}()
			defer func() {
				if srv := <-second; srv != nil {
					srv.Shutdown()
					srv.WaitForShutdown()
				}
			}()

			sets := []string{"agents=4", "rounds=6000", "metrics.every=10", "runtime.phase_deadline=200ms", "runtime.agent_timeout=2s"}
			sum, err := tc.run(ctx, t, url, out, runID, sets)
			if ctx.Err() != nil {
				t.Fatalf("the run did not end within the test's bound: %v", err)
			}
			if !tc.restart {
				if err == nil || !strings.Contains(err.Error(), node.ErrNATSConnectionLost.Error()) {
					t.Fatalf("run without a server: error %v; want one naming the lost NATS connection", err)
				}
				if sum == nil || sum.Status != coordinator.StatusFailed {
					t.Errorf("summary %+v; want failed", sum)
				}
				t.Logf("run without a server: %v", err)
				return
			}
			rows, ok := <-restarted
			if !ok {
				t.Fatalf("the server was not restarted mid-run; run: %v", err)
			}
			if err != nil {
				t.Fatalf("run across a server restart: %v", err)
			}
			if sum.Status != coordinator.StatusOK || sum.Rounds != 6000 {
				t.Errorf("summary status %s, %d rounds; want ok, 6000", sum.Status, sum.Rounds)
			}
			if final := countLines(metrics); final <= rows {
				t.Errorf("metrics.jsonl has %d rows, %d when the new server was up: no round measured after the restart", final, rows)
			}
			t.Logf("restart after row %d: %d dropouts, %d late, %d rows", rows, sum.Traffic.Dropouts, sum.Traffic.Late, sum.MeasuredRounds)
		})
	}
}

// childPIDs lists the children of process pid (Linux /proc).
func childPIDs(pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, f := range tasks {
		data, _ := os.ReadFile(f)
		for _, field := range strings.Fields(string(data)) {
			var c int
			if _, err := fmt.Sscan(field, &c); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// TestKilledLauncherTakesItsChildren kills the launcher with SIGKILL (no
// chance to clean up): the kernel ends every agent process with it.
func TestKilledLauncherTakesItsChildren(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("needs Linux /proc")
	}
	exe := consimBinary(t)
	cmd := exec.Command(exe, "launch", "--log-level", "off", "--out", t.TempDir(),
		"--set", "agents=4", "--set", "rounds=100000000", quickstart)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	var kids []int
	for ; len(kids) < 4; kids = childPIDs(cmd.Process.Pid) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// The children die with the launcher (their parent-death signal):
	// wait for it however long a loaded machine takes.
	killed := time.Now()
	for ; ; time.Sleep(20 * time.Millisecond) {
		var left []int
		for _, pid := range kids {
			if alive(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			wallclock.Bound(t, "the agent processes outliving the killed launcher", time.Since(killed), 5*time.Second)
			return
		}
	}
}
