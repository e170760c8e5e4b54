package scenarios

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/admm"
	"github.com/consim/consim/consensus/dadmm"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/node"
	"github.com/consim/consim/observe"
	"github.com/consim/consim/problems/portfolio"
)

// Scenario sources of the ADMM tests: a least-squares problem like
// quickstart's without a box, and a small portfolio.
const (
	lsqSource = `name: lsq
agents: 6
graph: {topology: ring, p: 0.8}
problem: {kind: least_squares, dim: 4, samples_per_agent: 30, batch: 5}
algorithm: {name: dadmm}
rounds: 200
`
	portfolioSource = `name: pf
agents: 4
graph: {topology: complete, p: 0.6}
problem: {kind: portfolio, assets: 8, periods: 160, cov: 3, mu: 0.05}
algorithm: {name: dadmm_composition, step: 0.1, k: 40, batch: 2}
rounds: 200
`
)

// scenarioWith parses src and applies the overrides.
func scenarioWith(t *testing.T, src string, sets ...string) *Scenario {
	t.Helper()
	s, err := Parse([]byte(src), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range sets {
		if err := s.Set(kv); err != nil {
			t.Fatalf("set %s: %v", kv, err)
		}
	}
	return s
}

func TestValidateADMM(t *testing.T) {
	tests := []struct {
		name string
		src  string
		sets []string
		want []string // substrings of the error; none: valid
	}{
		{"dadmm least squares", lsqSource, nil, nil},
		{"dadmm with c and gamma", lsqSource, []string{"algorithm.penalty=0.5", "algorithm.prox_weight=0.1"}, nil},
		{"linearized logistic", lsqSource, []string{"algorithm.name=dadmm_linearized", "problem.kind=logistic", "problem.reg=0.1", "problem.dim=4", "algorithm.step=0.1"}, nil},
		{"linearized nonconvex", lsqSource, []string{"algorithm.name=dadmm_linearized", "problem.kind=nonconvex_regression", "problem.dim=4"}, nil},
		{"composition portfolio", portfolioSource, nil, nil},

		{"dadmm logistic has no prox", lsqSource, []string{"problem.kind=logistic", "problem.reg=0.1", "problem.dim=4"},
			[]string{"algorithm.name: algorithm dadmm cannot run on problem logistic: it needs the exact prox of each f_i (dadmm_linearized needs gradients only) (problems that offer it: least_squares)"}},
		{"dadmm nonconvex has no prox", lsqSource, []string{"problem.kind=nonconvex_regression", "problem.dim=4"},
			[]string{"algorithm.name: algorithm dadmm cannot run on problem nonconvex_regression", "dadmm_linearized needs gradients only"}},
		{"dadmm bounded box", lsqSource, []string{"problem.box=[-10, 10]"},
			[]string{"problem.box: dadmm is unconstrained (it does not project onto X): need [-.inf, .inf], got [-10, 10]"}},
		{"linearized half-bounded box", lsqSource, []string{"algorithm.name=dadmm_linearized", "problem.box=[0, .inf]"},
			[]string{"problem.box: dadmm_linearized is unconstrained"}},
		{"alm portfolio", portfolioSource, []string{"algorithm.name=alm"},
			[]string{"algorithm.name: algorithm alm cannot run on problem portfolio: it needs local objectives f_i", "(problems that offer it: least_squares, logistic, nonconvex_regression)"}},
		{"linearized portfolio", portfolioSource, []string{"algorithm.name=dadmm_linearized"},
			[]string{"algorithm.name: algorithm dadmm_linearized cannot run on problem portfolio"}},
		{"composition least squares", lsqSource, []string{"algorithm.name=dadmm_composition"},
			[]string{"algorithm.name: algorithm dadmm_composition cannot run on problem least_squares: it needs a composition objective split into shards (problems that offer it: portfolio)"}},

		{"alm key on dadmm", lsqSource, []string{"algorithm.c_step=20"},
			[]string{`unknown key "c_step" in algorithm`, "prox_weight"}},
		{"step on exact dadmm", lsqSource, []string{"algorithm.step=0.1"},
			[]string{"algorithm.step: only applies to dadmm_linearized"}},
		{"prox_weight on linearized", lsqSource, []string{"algorithm.name=dadmm_linearized", "algorithm.prox_weight=1"},
			[]string{"algorithm.prox_weight: only applies to dadmm (the exact method)"}},
		{"admm keys on alm", lsqSource, []string{"algorithm.name=alm", "algorithm.k=3"},
			[]string{`unknown key "k" in algorithm`}},
		{"smoothing on composition", portfolioSource, []string{"algorithm.smoothing=0.5"},
			[]string{`unknown key "smoothing" in algorithm`}},

		{"penalty zero", lsqSource, []string{"algorithm.penalty=0"}, []string{"algorithm.penalty: must be a finite number > 0, got 0"}},
		{"penalty infinite", lsqSource, []string{"algorithm.penalty=.inf"}, []string{"algorithm.penalty: must be a finite number > 0, got .inf"}},
		{"prox_weight negative", lsqSource, []string{"algorithm.prox_weight=-1"}, []string{"algorithm.prox_weight: must be a finite number >= 0, got -1"}},
		{"k zero", portfolioSource, []string{"algorithm.k=0"}, []string{"algorithm.k: must be an integer >= 1"}},
		{"batch zero", portfolioSource, []string{"algorithm.batch=0"}, []string{"algorithm.batch: must be an integer >= 1"}},
		{"composition split_penalty zero", portfolioSource, []string{"algorithm.split_penalty=0"}, []string{"algorithm.split_penalty: must be a finite number > 0 (the penalty of x = w)"}},
		{"composition step negative", portfolioSource, []string{"algorithm.step=-0.1"}, []string{"algorithm.step: must be a finite number > 0"}},

		{"portfolio keys missing", "agents: 2\ngraph: {topology: path}\nproblem: {kind: portfolio}\nalgorithm: {name: dadmm_composition}\nrounds: 5\n", nil,
			[]string{"problem.assets: required: an integer >= 1", "problem.periods: required", "problem.cov: required", "problem.mu: required"}},
		{"portfolio too few periods", portfolioSource, []string{"problem.periods=7"},
			[]string{"problem.periods: 7 periods for 4 agents: need at least 2 per agent (8)"}},
		{"portfolio cov below 1", portfolioSource, []string{"problem.cov=0.5"}, []string{"problem.cov: required: a finite condition number >= 1, got 0.5"}},
		{"portfolio mu negative", portfolioSource, []string{"problem.mu=-1"}, []string{"problem.mu: required: a finite ridge weight > 0, got -1"}},
		{"portfolio dim", portfolioSource, []string{"problem.dim=3"}, []string{`unknown key "dim" in problem`, "assets"}},
		{"portfolio regression keys", portfolioSource, []string{"problem.samples_per_agent=10"},
			[]string{`unknown key "samples_per_agent" in problem`}},
		{"portfolio keys on least squares", lsqSource, []string{"problem.assets=3"},
			[]string{`unknown key "assets" in problem`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(tt.src), "s.yaml")
			if err != nil {
				t.Fatal(err)
			}
			for _, kv := range tt.sets {
				if err = s.Set(kv); err != nil {
					break
				}
			}
			if err == nil {
				_, err = s.Build()
			}
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Build: %v", err)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrInvalid) {
				t.Fatalf("error = %v, want an ErrInvalid error", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// runOnChan runs the agents of st for the given rounds on the channel
// transport through the node runtime and returns them afterwards.
func runOnChan(t *testing.T, st *Setup, rounds int) []consensus.Agent {
	t.Helper()
	agents, err := st.Agents()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := node.NewChanTransport(len(agents))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	obs, err := tr.Observer()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background() // the run ends on its own, however long a loaded machine takes
	done := make(chan error, 1)
	go func() {
		done <- node.RunAll(ctx, agents, tr, node.Options{Rounds: rounds, PhaseDeadline: 10 * time.Second})
	}()
	if err := node.StartWhenReady(ctx, obs, len(agents)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("RunAll: %v", err)
	}
	return agents
}

// measure returns the metrics of the agents' current reports.
func measure(t *testing.T, st *Setup, agents []consensus.Agent) observe.Metrics {
	t.Helper()
	p, err := st.Problem()
	if err != nil {
		t.Fatal(err)
	}
	reps := make([]consensus.Report, len(agents))
	for i, a := range agents {
		reps[i] = a.Report()
	}
	m, err := observe.Measure(p, st.Graph, reps)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRunADMMOnChan builds each dadmm algorithm from a scenario, runs it
// on the channel transport through the node runtime, and checks that the
// iterates are the lockstep driver's on the same agents (the runtime adds
// no arithmetic) and that the optimality gap against the problem's exact
// optimum and the consensus error shrink by the given factors.
func TestRunADMMOnChan(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		sets      []string
		rounds    int
		gapFactor float64 // final gap <= gapFactor * initial gap
	}{
		{"dadmm", lsqSource, nil, 1000, 1e-8},
		{"dadmm_linearized", lsqSource, []string{"algorithm.name=dadmm_linearized", "algorithm.step=0.1"}, 400, 1e-2},
		{"dadmm_composition", portfolioSource, nil, 1600, 1e-6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A random spread, so that the consensus error has something
			// to remove (from the zero default it starts at 0).
			s := scenarioWith(t, tt.src, append([]string{"problem.init.kind=random"}, tt.sets...)...)
			st, err := s.Build()
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := st.Agents()
			if err != nil {
				t.Fatal(err)
			}
			start := measure(t, st, fresh)
			got := runOnChan(t, st, tt.rounds)
			end := measure(t, st, got)
			t.Logf("%s: consensus error %.3g -> %.3g, gap %.3g -> %.3g, ||xbar - x*|| %.3g after %d rounds",
				tt.name, start.ConsensusErr, end.ConsensusErr, start.OptGap, end.OptGap, end.DistToOpt, end.Round)
			if end.Round != tt.rounds {
				t.Fatalf("reports are of round %d, want %d", end.Round, tt.rounds)
			}
			if !(end.OptGap >= -1e-12 && end.OptGap <= tt.gapFactor*start.OptGap) {
				t.Errorf("gap %.3g -> %.3g, want a %g-fold reduction", start.OptGap, end.OptGap, 1/tt.gapFactor)
			}
			if !(end.ConsensusErr <= 1e-3*start.ConsensusErr) {
				t.Errorf("consensus error %.3g -> %.3g, want a 1000-fold reduction", start.ConsensusErr, end.ConsensusErr)
			}

			d, err := lockstep.New(fresh)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Run(0, tt.rounds); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				x, y := got[i].Report().X, fresh[i].Report().X
				for k := range x {
					if x[k] != y[k] {
						t.Fatalf("agent %d: x[%d] = %v on the runtime, %v in lockstep", i, k, x[k], y[k])
					}
				}
			}
		})
	}
}

// TestCompositionScenarioIsComSVRADMM checks the scenario wiring of
// dadmm_composition with one agent: after s outer iterations its x is x~
// of admm.ComSVRADMM with the scenario's eta, rho, K, mini-batch, ridge
// and start, fed the agent's per-outer-iteration generators.
func TestCompositionScenarioIsComSVRADMM(t *testing.T) {
	const outer, k = 3, 25
	s := scenarioWith(t, portfolioSource, "agents=1", "graph.p=1", "algorithm.k=25", "algorithm.split_penalty=0.5",
		"rounds=75", "seed=9")
	st, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	agents := runOnChan(t, st, outer*k)
	pf := st.Env.Problem.(portfolio.Provider)
	ref, err := admm.NewComSVRADMM(pf.Shard(0), pf.Reg(), st.InitialPoint(0),
		admm.Params{Eta: 0.1, Rho: 0.5, K: k, Batch: 2})
	if err != nil {
		t.Fatal(err)
	}
	for e := range outer {
		t0 := uint64(e * k)
		ref.Epoch(rand.New(rand.NewPCG(graph.Hash(s.Seed, t0, graph.DrawSample, 0, 0), graph.Hash(s.Seed, t0, graph.DrawSample, 0, 1))))
	}
	x, want := agents[0].Report().X, ref.Point()
	for i := range want {
		if math.Abs(x[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
			t.Fatalf("x[%d] = %v, com-SVR-ADMM x~ = %v", i, x[i], want[i])
		}
	}
	if n := resolved(t, st, "K"); n != k {
		t.Fatalf("resolved K = %v, want %d", n, k)
	}
}

// TestCompositionDefaults checks the documented defaults of
// dadmm_composition and of the dadmm configurations.
func TestCompositionDefaults(t *testing.T) {
	s := scenarioWith(t, strings.Replace(portfolioSource, ", step: 0.1, k: 40, batch: 2}", "}", 1))
	st, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]float64{
		"eta": dadmm.DefaultCompositionEta, "rho": dadmm.DefaultCompositionRho, "batch": dadmm.DefaultCompositionBatch,
		"K": 160 / 4, "c": 1, "mu": 0.05,
	} {
		if got := resolved(t, st, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	pf := st.Env.Problem.(portfolio.Provider)
	if pf.Dim() != 8 || pf.Shard(3).Dims().M != 40 {
		t.Errorf("dim %d, shard 3 has %d periods", pf.Dim(), pf.Shard(3).Dims().M)
	}

	l, err := scenarioWith(t, lsqSource, "algorithm.name=dadmm_linearized").Build()
	if err != nil {
		t.Fatal(err)
	}
	if c := resolved(t, l, "c"); c != 1 {
		t.Errorf("dadmm_linearized c = %v, want 1", c)
	}
	for _, v := range l.Resolved()[1:] {
		if v.Note != "N/L_i" || !(v.Value > 0) {
			t.Errorf("dadmm_linearized default %s = %v (%s), want N/L_i", v.Name, v.Value, v.Note)
		}
	}
}

// TestShippedADMMScenarios builds and briefly runs every shipped scenario
// of the dadmm family.
func TestShippedADMMScenarios(t *testing.T) {
	tests := []struct {
		name      string
		algorithm string
		agents    int
		rounds    int
	}{
		{"portfolio_cov2", "dadmm_composition", 1, 30},
		{"portfolio_cov10", "dadmm_composition", 1, 30},
		{"portfolio16", "dadmm_composition", 16, 30},
		{"admm_vs_alm", "dadmm_linearized", 8, 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := LoadShipped(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			if s.Algorithm.Name != tt.algorithm || s.Agents != tt.agents {
				t.Fatalf("algorithm %s on %d agents, want %s on %d", s.Algorithm.Name, s.Agents, tt.algorithm, tt.agents)
			}
			if err := s.Set("rounds=" + strconv.Itoa(tt.rounds)); err != nil {
				t.Fatal(err)
			}
			st, err := s.Build()
			if err != nil {
				t.Fatal(err)
			}
			m := measure(t, st, runOnChan(t, st, tt.rounds))
			if m.Round != tt.rounds || math.IsNaN(m.OptGap) || math.IsInf(m.OptGap, 0) || m.OptGap < -1e-12 {
				t.Errorf("after %d rounds: %+v", tt.rounds, m)
			}
		})
	}
}
