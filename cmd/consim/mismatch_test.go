package main

import (
	"bytes"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/consim/consim/node"
)

// TestScenarioMismatchRefused runs the two mismatches of a multi-host run
// whose hosts keep their own scenario copies: a coordinator with --set
// rounds=3000 over agent processes at 2000, and one with --set seed=2
// over agents at seed 1. Each is refused before round 0: the coordinator
// and every agent process exit 2, naming the key and both values.
func TestScenarioMismatchRefused(t *testing.T) {
	exe := consimBinary(t)
	const n = 4
	for _, tc := range []struct {
		name, agents, coord, want string
	}{
		{"rounds", "rounds=2000", "rounds=3000", "rounds is 3000 at the coordinator and 2000 at agent "},
		{"seed", "seed=1", "seed=2", "seed is 2 at the coordinator and 1 at agent "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := node.StartNATSServer(node.NATSServerOptions{Port: server.RANDOM_PORT})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
			url, run := srv.ClientURL(), "mismatch-"+tc.name
			common := []string{"--nats", url, "--run-id", run, "--set", "agents=" + strconv.Itoa(n), "--set", "metrics.every=100"}
			procs := startNodes(t, exe, n, func(i int) []string {
				return append([]string{"node", "--id", strconv.Itoa(i), "--log-level", "error", "--set", tc.agents}, common...)
			})
			var stdout, stderr bytes.Buffer
			// The ready wait is the product's own bound: long, so that a
			// loaded machine cannot miss it; the refusal comes with the
			// first ready status.
			args := append([]string{"coordinator", "--out", t.TempDir(), "--ready-timeout", "10m", "--log-level", "off", "--set", tc.coord}, common...)
			code := mainExit(append(args, quickstart), &stdout, &stderr)
			if code != exitUsage || !strings.Contains(stderr.String(), tc.want) || !strings.Contains(stderr.String(), "scenario mismatch") {
				t.Fatalf("coordinator: exit %d, want %d naming %q; stderr:\n%s", code, exitUsage, tc.want, stderr.String())
			}
			t.Logf("coordinator: %s", strings.TrimSpace(stderr.String()))
			for i, p := range procs {
				err := p.cmd.Wait()
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != exitUsage {
					t.Errorf("agent %d: %v, want exit %d; stderr:\n%s", i, err, exitUsage, p.stderr.String())
					continue
				}
				if msg := p.stderr.String(); !strings.Contains(msg, "run refused by the coordinator") || !strings.Contains(msg, tc.want) {
					t.Errorf("agent %d's error does not name the refusal and %q:\n%s", i, tc.want, msg)
				}
			}
		})
	}
}

// nodeProc is an agent process started by startNodes.
type nodeProc struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
}

// startNodes starts n consim node processes of the binary exe, agent i
// with the arguments args(i) and the quickstart scenario; those still
// running at the end of the test are killed.
func startNodes(t *testing.T, exe string, n int, args func(i int) []string) []*nodeProc {
	t.Helper()
	procs := make([]*nodeProc, n)
	for i := range procs {
		p := &nodeProc{}
		p.cmd = exec.Command(exe, append(args(i), quickstart)...)
		p.cmd.Stderr = &p.stderr
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs[i] = p
	}
	t.Cleanup(func() {
		for _, p := range procs {
			if p.cmd.ProcessState == nil {
				_ = p.cmd.Process.Kill()
				_ = p.cmd.Wait()
			}
		}
	})
	return procs
}
