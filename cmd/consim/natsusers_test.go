package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/node"
)

// TestNATSUsersAgentCannotPublishAsAnother runs a multi-host run the way
// docs/multihost.md sets it up: `consim nats users` makes the run's users,
// `consim nats --users` serves with them, 8 `consim node` processes and a
// coordinator join with their own nkeys. All through the run, a client
// holding agent 3's nkey and the run key publishes data frames of agent 5,
// with a valid MAC, on agent 5's subjects. The server refuses every one
// (a permissions violation each), nothing reaches an agent (no refused or
// misrouted frame is counted), and the run ends ok with final iterates
// bit-identical to a run of the same scenario over channels.
func TestNATSUsersAgentCannotPublishAsAnother(t *testing.T) {
	exe := consimBinary(t)
	const n, rounds, run = 8, 300, "creds"
	dir := t.TempDir()
	creds := filepath.Join(dir, "creds")
	var stdout, stderr bytes.Buffer
	if code := mainExit([]string{"nats", "users", "--run-id", run, "--agents", strconv.Itoa(n), "--dir", creds}, &stdout, &stderr); code != exitOK {
		t.Fatalf("consim nats users: exit %d\n%s", code, stderr.String())
	}
	for _, name := range []string{"users.json", "run.key", "coordinator.nk", "agent-0.nk", "agent-7.nk"} {
		fi, err := os.Stat(filepath.Join(creds, name))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v, mode %v; want mode 0600", name, err, fi.Mode().Perm())
		}
	}

	srv := exec.Command(exe, "nats", "--port", "0", "--users", filepath.Join(creds, "users.json"))
	srvOut, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	lines := bufio.NewScanner(srvOut)
	if !lines.Scan() {
		t.Fatal("consim nats printed nothing")
	}
	first := strings.Fields(lines.Text()) // NATS server listening on URL ...
	if len(first) < 5 {
		t.Fatalf("consim nats: %q", lines.Text())
	}
	url := first[4]
	go func() {
		for lines.Scan() {
		}
	}()

	keyFile := filepath.Join(creds, "run.key")
	key, err := node.ReadRunKeyFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(node.EnvRunKeyFile, keyFile) // the coordinator's, in this process, and the agents' (inherited)
	sets := []string{"--set", "agents=" + strconv.Itoa(n), "--set", "rounds=" + strconv.Itoa(rounds), "--set", "metrics.every=100"}
	procs := startNodes(t, exe, n, func(i int) []string {
		return append([]string{"node", "--nats", url, "--run-id", run, "--id", strconv.Itoa(i), "--log-level", "error",
			"--nkey", filepath.Join(creds, "agent-"+strconv.Itoa(i)+".nk")}, sets...)
	})

	// Agent 3's credentials, publishing as agent 5: the frames a process
	// holding the run key could forge, sealed as docs/protocol.md says.
	var refused atomic.Int64
	var other atomic.Value
	nc, err := nats.Connect(url, mustNKey(t, filepath.Join(creds, "agent-3.nk")),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			if errors.Is(err, nats.ErrPermissionViolation) {
				refused.Add(1)
			} else {
				other.Store(err)
			}
		}))
	if err != nil {
		t.Fatalf("agent 3's nkey: %v", err)
	}
	defer nc.Close()
	ctx, stopAttack := context.WithCancel(context.Background())
	var published atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			for round := 0; round < rounds && ctx.Err() == nil; round++ {
				for _, to := range []int{4, 6} {
					frame, err := node.AppendFrameTo(nil, node.FrameData, 5, []int{to}, round, 0, make([]float64, 10))
					if err != nil {
						t.Error(err)
						return
					}
					msg := sealAgentFrame(key, run, frame)
					for _, subject := range []string{node.SubjectAgentTo(run, 5, to), node.SubjectAgent(run, 5), node.SubjectAgentAll(run, 5)} {
						if err := nc.Publish(subject, msg); err != nil {
							return
						}
						published.Add(1)
					}
				}
				_ = nc.Flush()
			}
		}
	}()

	out := filepath.Join(dir, "results")
	stdout.Reset()
	stderr.Reset()
	code := mainExit(append(append([]string{"coordinator", "--nats", url, "--run-id", run, "--out", out, "--log-level", "error",
		"--ready-timeout", "10m", "--nkey", filepath.Join(creds, "coordinator.nk")}, sets...), quickstart), &stdout, &stderr)
	stopAttack()
	wg.Wait()
	if code != exitOK {
		t.Fatalf("coordinator: exit %d\n%s", code, stderr.String())
	}
	for i, p := range procs {
		if err := p.cmd.Wait(); err != nil {
			t.Errorf("agent %d: %v\n%s", i, err, p.stderr.String())
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	t.Logf("the attacker published %d frames as agent 5; the server refused them with %d permission violations", published.Load(), refused.Load())
	if refused.Load() == 0 || published.Load() == 0 {
		t.Fatalf("%d frames published as agent 5, %d refused by the server; want some, all refused", published.Load(), refused.Load())
	}
	if e := other.Load(); e != nil {
		t.Errorf("attacker's connection: %v", e)
	}

	var sum coordinator.Summary
	data, err := os.ReadFile(filepath.Join(out, run, coordinator.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	tr := sum.Traffic
	if sum.Status != coordinator.StatusOK || sum.Rounds != rounds || tr.Dropouts != 0 || tr.Refused != 0 || tr.BusMalformed != 0 || tr.Unexpected != 0 {
		t.Fatalf("run: status %s, %d rounds, %d dropouts, %d refused, %d misrouted, %d unexpected; want ok, %d, and none",
			sum.Status, sum.Rounds, tr.Dropouts, tr.Refused, tr.BusMalformed, tr.Unexpected, rounds)
	}
	s, err := loadScenario(quickstart, []string{"agents=8", "rounds=300", "metrics.every=100", "runtime.transport=chan", "output.dir=" + filepath.Join(dir, "ref")})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := runScenario(context.Background(), s, "ref", hclog.NewNullLogger(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, want := readFinal(t, filepath.Join(out, run)), readFinal(t, ref.Bundle)
	if len(got.Agents) != n || len(want.Agents) != n {
		t.Fatalf("final iterates of %d and %d agents, want %d", len(got.Agents), len(want.Agents), n)
	}
	for i := range want.Agents {
		for k := range want.Agents[i].X {
			if math.Float64bits(got.Agents[i].X[k]) != math.Float64bits(want.Agents[i].X[k]) {
				t.Fatalf("agent %d x[%d]: %v attacked, %v over channels", i, k, got.Agents[i].X[k], want.Agents[i].X[k])
			}
		}
	}
}

// mustNKey is the nats.go option that authenticates with the nkey seed
// file at path.
func mustNKey(t *testing.T, path string) nats.Option {
	t.Helper()
	o, err := nats.NkeyOptionFromSeed(path)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// sealAgentFrame is frame followed by its MAC as docs/protocol.md states
// it: HMAC-SHA256(K, "consim" || 0x01 || 'a' || run || 0x00 || frame).
func sealAgentFrame(key []byte, run string, frame []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte("consim\x01a" + run + "\x00"))
	h.Write(frame)
	return h.Sum(append([]byte(nil), frame...))
}
