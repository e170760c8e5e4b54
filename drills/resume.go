package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/node"
)

// resumeGap is how long the drill leaves the run without a coordinator:
// the agents go on and publish their statuses into the server's stream.
const resumeGap = 2 * time.Second

// coordinatorResumed runs the scenario as 4 `consim node` processes and a
// `consim coordinator --jetstream` on a JetStream server of the drill,
// kills the coordinator with SIGKILL once the run is live, leaves the run
// without one for resumeGap, and starts `consim coordinator --resume`.
// The row passes when the resumed coordinator ends the run with status
// ok and exit 0, every agent exits 0, the bundle holds every row
// (rounds/metrics.every + 1) and the final iterates are bit-identical to
// the unattacked run's.
func coordinatorResumed(ctx context.Context, d *drill) row {
	store, err := os.MkdirTemp(d.dir, "jetstream-")
	if err != nil {
		return row{err: err}
	}
	srv, err := node.StartNATSServer(node.NATSServerOptions{Name: "drills", Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, StoreDir: store})
	if err != nil {
		return row{err: err}
	}
	defer stopServer(srv)
	url := srv.ClientURL()
	id, out := d.newRun()
	var sets []string
	for _, s := range append(d.runSets(), "runtime.agent_timeout=10s") {
		sets = append(sets, "--set", s)
	}
	env := append(os.Environ(), node.EnvRunKey+"="+hex.EncodeToString(randBytes(32)))
	coordinatorCmd := func(flag string) (*liveRun, *bytes.Buffer) {
		var stderr bytes.Buffer
		cmd := exec.Command(d.exe, append([]string{"coordinator", d.scenario, "--nats", url, "--run-id", id, "--out", out, "--log-level", "error", flag}, sets...)...)
		cmd.Env, cmd.Stderr = env, &stderr
		return &liveRun{id: id, out: out, cmd: cmd, done: make(chan struct{})}, &stderr
	}
	startRun := func(r *liveRun) error {
		if err := r.cmd.Start(); err != nil {
			return err
		}
		go func() { _ = r.cmd.Wait(); r.code = r.cmd.ProcessState.ExitCode(); close(r.done) }()
		return nil
	}
	first, _ := coordinatorCmd("--jetstream")
	if err := startRun(first); err != nil {
		return row{err: err}
	}
	agents := make([]*exec.Cmd, runAgents)
	agentDone := make([]chan struct{}, runAgents)
	for i := range agents {
		a := exec.Command(d.exe, append([]string{"node", d.scenario, "--nats", url, "--run-id", id, "--id", strconv.Itoa(i), "--log-level", "error"}, sets...)...)
		a.Env = env
		if err := a.Start(); err != nil {
			_ = first.cmd.Process.Kill()
			return row{err: err}
		}
		agents[i], agentDone[i] = a, make(chan struct{})
		go func() { _ = a.Wait(); close(agentDone[i]) }()
	}
	defer func() {
		for i, a := range agents {
			if a != nil {
				_ = a.Process.Kill()
				<-agentDone[i]
			}
		}
	}()
	res := row{}
	if err := first.waitLive(ctx); err != nil {
		_ = first.cmd.Process.Kill()
		res.err = err
		return res
	}
	_ = first.cmd.Process.Kill()
	<-first.done
	rowsBefore := countLines(filepath.Join(first.bundle(), coordinator.MetricsJSONFile))
	time.Sleep(resumeGap)
	second, stderr := coordinatorCmd("--resume")
	if err := startRun(second); err != nil {
		res.err = err
		return res
	}
	sum, fin, err := second.wait(ctx)
	res.exit = strconv.Itoa(second.code)
	if err != nil {
		res.err = fmt.Errorf("resumed coordinator: %w: %s", err, lastLine(stderr.String()))
		return res
	}
	res.status = sum.Status + "/" + sum.StopCause
	var codes []int
	for i, a := range agents {
		select {
		case <-agentDone[i]:
		case <-time.After(15 * time.Second):
			res.err = fmt.Errorf("agent %d still running 15 s after the run ended", i)
			return res
		}
		codes = append(codes, a.ProcessState.ExitCode())
	}
	rows := countLines(filepath.Join(second.bundle(), coordinator.MetricsJSONFile))
	want := runRounds/500 + 1
	res.happened = fmt.Sprintf("coordinator killed with %d rows written; resumed %v later: %d of %d rows, agents exited %v", rowsBefore, resumeGap, rows, want, codes)
	if uerr := d.unaffected(fin); uerr != nil {
		res.affected = "yes: " + uerr.Error()
		res.err = errors.New("result affected")
		return res
	}
	res.affected = "no (bit-identical)"
	for i, c := range codes {
		if c != 0 {
			res.err = fmt.Errorf("agent %d exited %d, want 0", i, c)
		}
	}
	if second.code != 0 || sum.Status != coordinator.StatusOK || sum.Rounds != runRounds || !sum.Resumed || rows != want || sum.MeasuredRounds != want {
		res.err = fmt.Errorf("want status ok after %d rounds, exit 0, resumed, %d rows; got %d rows (summary %d)", runRounds, want, rows, sum.MeasuredRounds)
	}
	return res
}

// countLines returns the number of lines of the file at path, 0 if it
// cannot be read.
func countLines(path string) int {
	b, _ := os.ReadFile(path)
	return bytes.Count(b, []byte("\n"))
}
