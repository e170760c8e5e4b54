package node

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/alm"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// ringChords returns the ring on n agents plus one chord per agent to a
// hash-chosen partner: a fixed, irregular graph of mean degree about 4.
func ringChords(b testing.TB, n int) *graph.Graph {
	b.Helper()
	var edges []graph.Edge
	seen := map[[2]int]bool{}
	add := func(i, j int) {
		if i > j {
			i, j = j, i
		}
		if i != j && !seen[[2]int{i, j}] {
			seen[[2]int{i, j}] = true
			edges = append(edges, graph.Edge{I: i, J: j, P: 1})
		}
	}
	for i := range n {
		add(i, (i+1)%n)
		add(i, int(graph.Hash(2024, 0, 0, uint64(i), 0)%uint64(n)))
	}
	g, err := graph.New(n, edges)
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// BenchmarkRounds measures rounds per second for each algorithm,
// transport, number of agents N and dimension d, on one graph, so that
// ratios come from one run: "null" is the bare cost of one neighbour
// exchange per round (see consensus/null); "alm" is the distributed
// stochastic ALM with its practical preset and the default global
// safeguard (an all-reduce every 10 rounds) on noisy quadratics. One op is
// one round of all agents. N = 1,024 is run for null with d = 10 only.
// internal/bench (consim bench) compares with raw baselines.
func BenchmarkRounds(b *testing.B) {
	for _, algo := range []string{"null", "alm"} {
		for _, kind := range TransportKinds {
			for _, n := range []int{16, 64, 256, 1024} {
				for _, d := range []int{10, 100} {
					if n > 256 && (algo != "null" || d != 10) {
						continue // N = 1,024: the bare exchange only
					}
					b.Run(fmt.Sprintf("%s/%s/N=%d/d=%d", algo, kind, n, d), func(b *testing.B) {
						g := ringChords(b, n)
						var agents []consensus.Agent
						if algo == "null" {
							agents = nullAgents(b, g, d)
						} else {
							agents = almAgents(b, g, d, b.N)
						}
						benchRounds(b, kind, agents)
					})
				}
			}
		}
	}
}

// almAgents builds ALM agents on f_i(x) = (1/2) sum_k d_ik (x_k - c_ik)^2
// with Gaussian gradient noise, curvatures d_ik in [1, 2].
func almAgents(b testing.TB, g *graph.Graph, d, rounds int) []consensus.Agent {
	locals := make([]objective.Local, g.N)
	for i := range locals {
		diag, c := make([]float64, d), make([]float64, d)
		for k := range diag {
			diag[k] = 1 + graph.Uniform(7, 0, 0, uint64(i), uint64(k))
			c[k] = 2*graph.Uniform(7, 0, 1, uint64(i), uint64(k)) - 1
		}
		locals[i] = objective.QuadraticNoisy(diag, c, 0.1)
	}
	consts, err := alm.ConstantsFor(g, locals)
	if err != nil {
		b.Fatal(err)
	}
	cfg := alm.Config{Steps: alm.Practical(consts, rounds), Safeguard: alm.SafeguardGlobal, SafeguardEvery: 10, Seed: 1, Rounds: rounds}
	proc := graph.Bernoulli{G: g, Seed: 1}.Specialize()
	box := objective.Box{Lo: -10, Hi: 10}
	agents := make([]consensus.Agent, g.N)
	for i := range agents {
		a, err := alm.NewAgent(cfg, i, g, proc, locals[i], box, startValues(i, d))
		if err != nil {
			b.Fatal(err)
		}
		agents[i] = a
	}
	return agents
}

// benchRounds runs the agents for b.N rounds on a transport of the given
// kind and reports rounds/s.
func benchRounds(b *testing.B, kind TransportKind, agents []consensus.Agent) {
	b.ReportAllocs()
	elapsed := runRounds(b, kind, agents, b.N, b.ResetTimer)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "rounds/s")
}

// runRounds runs the agents for the given rounds on a fresh transport of
// the given kind and returns the wall time from the start control to the
// end of the last agent. started, if set, runs just before the start.
func runRounds(b testing.TB, kind TransportKind, agents []consensus.Agent, rounds int, started func()) time.Duration {
	n := len(agents)
	tr := newTestTransport(b, kind, n)
	obs, err := tr.Observer()
	if err != nil {
		b.Fatal(err)
	}
	defer obs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- RunAll(ctx, agents, tr, Options{Rounds: rounds, PhaseDeadline: time.Minute}) }()
	for ready := 0; ready < n; {
		s, err := DecodeStatus(<-obs.Statuses())
		if err != nil {
			b.Fatal(err)
		}
		if s.Kind == StatusReady {
			ready++
		}
	}
	if started != nil {
		started()
	}
	begin := time.Now()
	if err := obs.Control(EncodeControl(Control{Kind: ControlStart})); err != nil {
		b.Fatal(err)
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	return time.Since(begin)
}
