package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/alm"
	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/internal/wallclock"
	"github.com/consim/consim/node"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// consim runs the command line in-process and returns the exit code and
// both outputs.
func consim(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := mainExit(args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeScenario(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunQuickstartEndToEnd runs the shipped quickstart (shortened) on the
// default transport and checks the summary and the bundle.
func TestRunQuickstartEndToEnd(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := consim(t, "run", "../../scenarios/quickstart.yaml", "--out", out, "--run-id", "qs", "--log-level", "warn", "--set", "rounds=2000")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"run qs: ok", "consensus error", "optimality gap", "f* ="} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{"scenario.yaml", "metrics.jsonl", "metrics.csv", "summary.json"} {
		if _, err := os.Stat(filepath.Join(out, "qs", f)); err != nil {
			t.Errorf("bundle: %v", err)
		}
	}
	var sum coordinator.Summary
	b, err := os.ReadFile(filepath.Join(out, "qs", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Initial == nil || sum.Initial.Round != 0 || sum.Final == nil || sum.Final.Round != 2000 {
		t.Fatalf("summary rows: initial %+v final %+v", sum.Initial, sum.Final)
	}
	// quickstart starts every agent at x_0 = 0: the consensus error is 0
	// at round 0, so there is no fall from round 0 to count; it peaks
	// while the agents pull towards their local models and falls from
	// there.
	if sum.Initial.ConsensusErr != 0 || sum.Reduction.ConsensusErr != nil {
		t.Errorf("round 0 consensus error %v, reduction %v; want 0 from the zero start and no ratio", sum.Initial.ConsensusErr, sum.Reduction.ConsensusErr)
	}
	if pk := sum.Reduction.ConsensusPeak; pk == nil || pk.Round <= 0 || pk.Round >= 2000 || pk.Reduction == nil || *pk.Reduction < 2 {
		t.Errorf("consensus peak %+v, want one inside (0, 2000) with a fall of >= 2-fold to round 2000", pk)
	} else if !strings.Contains(stdout, fmt.Sprintf("from the peak at round %d", pk.Round)) {
		t.Errorf("summary does not name the peak round %d:\n%s", pk.Round, stdout)
	}
	if !(sum.Final.OptGap < sum.Initial.OptGap) {
		t.Errorf("optimality gap did not fall: %v -> %v", sum.Initial.OptGap, sum.Final.OptGap)
	}
	// A second run with the same id must not rewrite the first.
	code, _, stderr = consim(t, "run", "../../scenarios/quickstart.yaml", "--out", out, "--run-id", "qs", "--log-level", "off", "--set", "rounds=10")
	if code == exitOK || !strings.Contains(stderr, "qs") {
		t.Fatalf("rerun with the same run id: exit %d, stderr %s", code, stderr)
	}
}

// TestBadInputExitsTwo: malformed YAML, unknown keys, out-of-range values,
// a disconnected graph and bad flags are usage errors naming the problem.
func TestBadInputExitsTwo(t *testing.T) {
	dir := t.TempDir()
	writeScenario(t, dir, "split.txt", "0 1\n2 3\n")
	base := "problem: {kind: least_squares, dim: 3}\nalgorithm: {name: alm}\nrounds: 10\n"
	cases := []struct {
		name, body string
		args       []string
		want       []string
	}{
		{"malformed yaml", "agents: [1, 2\n" + base, nil, []string{"bad.yaml:"}},
		{"unknown key", "agents: 4\ngrpah: {topology: ring}\n" + base, nil, []string{`unknown key "grpah"`, "graph"}},
		{"p outside (0,1]", "agents: 4\ngraph: {topology: ring, p: 1.5}\n" + base, nil, []string{"bad.yaml:2", "graph.p", "(0, 1]"}},
		{"no agents", "agents: 0\ngraph: {topology: ring}\n" + base, nil, []string{"agents", ">= 1"}},
		{"disconnected graph", "agents: 4\ngraph: {topology: file, file: split.txt}\n" + base, nil, []string{"disconnected"}},
		{"bad set", "agents: 4\ngraph: {topology: ring}\n" + base, []string{"--set", "graph.q=x"}, []string{"graph.q"}},
		{"bad transport", "agents: 4\ngraph: {topology: ring}\n" + base, []string{"--transport", "carrier-pigeon"}, []string{`--transport "carrier-pigeon"`, "chan, nats, nats-tcp, stepped"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeScenario(t, dir, "bad.yaml", tc.body)
			args := append([]string{"run", p, "--out", t.TempDir(), "--log-level", "off"}, tc.args...)
			code, _, stderr := consim(t, args...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
	if code, _, _ := consim(t, "run"); code != exitUsage {
		t.Errorf("run without a scenario: exit %d, want %d", code, exitUsage)
	}
	if code, _, _ := consim(t, "frobnicate"); code != exitUsage {
		t.Errorf("unknown command: exit %d, want %d", code, exitUsage)
	}
}

// TestUnreachableNATSFailsFast: a NATS URL where nothing listens is a
// clear error within 5 s.
func TestUnreachableNATSFailsFast(t *testing.T) {
	start := time.Now()
	code, _, stderr := consim(t, "run", "../../scenarios/quickstart.yaml", "--nats", "nats://127.0.0.1:1", "--out", t.TempDir(), "--log-level", "off")
	wallclock.Bound(t, "failing on an unreachable server", time.Since(start), 5*time.Second)
	if code != exitUsage || !strings.Contains(stderr, "127.0.0.1:1") {
		t.Fatalf("exit %d, stderr %q: want exit 2 naming the URL", code, stderr)
	}
}

// hangingAgent wraps an agent and blocks forever (until release) in the
// first phase of round at, like a process that stops answering.
type hangingAgent struct {
	consensus.Agent
	at      int
	release chan struct{}
}

func (h hangingAgent) Send(t, ph int) consensus.Outbox {
	if t == h.at {
		<-h.release
	}
	return h.Agent.Send(t, ph)
}

// TestAgentThatStopsAnswering: the coordinator names the silent agent,
// the run fails (non-zero exit) and the bundle keeps what was written.
func TestAgentThatStopsAnswering(t *testing.T) {
	defer func(g time.Duration) { agentGrace = g }(agentGrace)
	agentGrace = 200 * time.Millisecond
	s, err := scenarios.LoadWith("../../scenarios/quickstart.yaml",
		"rounds=100000", "metrics.every=10", "runtime.transport=chan",
		"runtime.agent_timeout=1s", "runtime.phase_deadline=100ms", "output.dir="+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	agents, err := st.Agents()
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	defer close(release)
	agents[3] = hangingAgent{Agent: agents[3], at: 50, release: release}

	sum, err := runAgents(context.Background(), st, agents, "hang", hclog.NewNullLogger(), nil)
	if !errors.Is(err, coordinator.ErrUnresponsive) || !strings.Contains(err.Error(), "agent 3") {
		t.Fatalf("error = %v; want an unresponsive-agent error naming agent 3", err)
	}
	if isUsage(err) {
		t.Fatalf("a run failure must not be a usage error: %v", err)
	}
	if sum == nil || sum.Status != coordinator.StatusFailed {
		t.Fatalf("summary = %+v, want status failed", sum)
	}
	csv, err := os.ReadFile(filepath.Join(sum.Bundle, "metrics.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(csv), "\n"); lines < 5 {
		t.Fatalf("metrics.csv kept %d lines, want the rows measured before the hang (round 0..40)", lines)
	}
	if _, err := os.Stat(filepath.Join(sum.Bundle, "summary.json")); err != nil {
		t.Fatal(err)
	}
}

// TestALMBitIdenticalAcrossTransports: the same scenario and seed give
// bit-identical final iterates under chan, NATS in-process and NATS TCP.
func TestALMBitIdenticalAcrossTransports(t *testing.T) {
	run := func(kind node.TransportKind) [][]float64 {
		s, err := scenarios.LoadWith("../../scenarios/quickstart.yaml", "rounds=300", "algorithm.safeguard_every=3",
			"algorithm.m_y=5", "runtime.transport="+string(kind), "output.dir="+t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.Build()
		if err != nil {
			t.Fatal(err)
		}
		agents, err := st.Agents()
		if err != nil {
			t.Fatal(err)
		}
		sum, err := runAgents(context.Background(), st, agents, "bits-"+string(kind), hclog.NewNullLogger(), nil)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if sum.Traffic.Dropouts != 0 {
			t.Fatalf("%s: %d dropouts in lockstep", kind, sum.Traffic.Dropouts)
		}
		xs := make([][]float64, len(agents))
		for i, a := range agents {
			xs[i] = append([]float64(nil), a.(*alm.Agent).X()...)
		}
		return xs
	}
	want := run(node.TransportChan)
	for _, kind := range []node.TransportKind{node.TransportNATS, node.TransportNATSTCP} {
		got := run(kind)
		for i := range want {
			for k := range want[i] {
				if math.Float64bits(got[i][k]) != math.Float64bits(want[i][k]) {
					t.Fatalf("%s: agent %d x[%d] = %v, chan gave %v", kind, i, k, got[i][k], want[i][k])
				}
			}
		}
	}
}

// TestGraphRecordReplays: `consim graph --record` writes the realized edge
// sets, and a run that replays them follows the recording, not its own
// draws: a p = 0.3 run replaying a p = 0.7 recording gives the iterates of
// the p = 0.7 run (parameters are pinned, so they do not depend on p).
func TestGraphRecordReplays(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "edges.rec")
	code, stdout, stderr := consim(t, "graph", "../../scenarios/quickstart.yaml", "--set", "rounds=200", "--set", "graph.p=0.7", "--record", rec)
	if code != exitOK || !strings.Contains(stdout, "recorded edges") {
		t.Fatalf("graph --record: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, _ := consim(t, "graph", "../../scenarios/quickstart.yaml", "--record", rec); code != exitUsage {
		t.Errorf("recording over an existing file: exit %d, want %d", code, exitUsage)
	}
	final := func(sets ...string) string {
		out := t.TempDir()
		args := []string{"run", "../../scenarios/quickstart.yaml", "--transport", "chan", "--out", out, "--run-id", "r", "--log-level", "off"}
		for _, kv := range append([]string{"rounds=200", "algorithm.dual_step=0.01", "algorithm.step=0.05",
			"algorithm.penalty=1", "algorithm.prox_weight=2", "algorithm.smoothing=0.05"}, sets...) {
			args = append(args, "--set", kv)
		}
		if code, _, stderr := consim(t, args...); code != exitOK {
			t.Fatalf("run %v: exit %d\n%s", sets, code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "r", coordinator.FinalFile))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	drawn07 := final("graph.p=0.7")
	if replayed := final("graph.p=0.3", "edges.replay="+rec); replayed != drawn07 {
		t.Fatalf("a p = 0.3 run replaying the p = 0.7 recording differs from the p = 0.7 run")
	}
	if drawn03 := final("graph.p=0.3"); drawn03 == drawn07 {
		t.Fatalf("p = 0.3 and p = 0.7 runs give identical iterates: the test cannot tell replay from drawing")
	}
}

// TestRunIDProblemsAreUsageErrors: a run id that cannot name subjects and
// directories, or whose bundle exists, is refused before any agent starts,
// with exit 2; a malformed bundle given to report is exit 2 too.
func TestRunIDProblemsAreUsageErrors(t *testing.T) {
	out := t.TempDir()
	if err := os.Mkdir(filepath.Join(out, "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ id, want string }{{"a/b", "run id"}, {"taken", "already exists"}} {
		for _, cmd := range []string{"run", "launch"} {
			code, _, stderr := consim(t, cmd, "../../scenarios/quickstart.yaml", "--transport", "chan", "--out", out, "--run-id", tc.id, "--log-level", "off")
			if cmd == "launch" {
				code, _, stderr = consim(t, cmd, "../../scenarios/quickstart.yaml", "--out", out, "--run-id", tc.id, "--log-level", "off")
			}
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("%s --run-id %q: exit %d, stderr %q; want exit 2 saying %q", cmd, tc.id, code, stderr, tc.want)
			}
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(out, "taken")); len(entries) != 0 {
		t.Errorf("the existing bundle directory was written to: %v", entries)
	}
	bad := filepath.Join(out, "bad")
	if err := os.Mkdir(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	writeScenario(t, bad, coordinator.SummaryFile, "{not json")
	writeScenario(t, bad, coordinator.MetricsJSONFile, "")
	if code, _, stderr := consim(t, "report", bad); code != exitUsage {
		t.Errorf("report on a malformed bundle: exit %d, stderr %q; want 2", code, stderr)
	}
}

// runAgents runs st with agents instead of its own through sim.RunSetup,
// as consim run does; the caller's input errors become usage errors.
func runAgents(ctx context.Context, st *scenarios.Setup, agents []consensus.Agent, runID string, logger hclog.Logger, progress func(coordinator.Progress)) (*coordinator.Summary, error) {
	sum, err := sim.RunSetup(ctx, st, sim.Options{RunID: runID, Logger: logger, Observe: progress, Agents: agents, AgentGrace: agentGrace})
	return sum, inputErr(err)
}

// runScenario runs s as consim run does: every agent a goroutine of this
// process on the scenario's transport, the coordinator beside them.
func runScenario(ctx context.Context, s *scenarios.Scenario, runID string, logger hclog.Logger, progress func(coordinator.Progress)) (*coordinator.Summary, error) {
	st, err := buildScenario(s)
	if err != nil {
		return nil, err
	}
	return runAgents(ctx, st, nil, runID, logger, progress)
}
