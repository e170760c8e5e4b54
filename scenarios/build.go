package scenarios

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/admm"
	"github.com/consim/consim/consensus/alm"
	"github.com/consim/consim/consensus/dadmm"
	"github.com/consim/consim/consensus/metrics"
	"github.com/consim/consim/consensus/problem"
	"github.com/consim/consim/graph"
)

// Purposes that separate the streams derived from the run seed, so the
// graph sample, the initial points and the rounds' draws never share
// randomness.
const (
	purposeGraph     = 0x6772617068 // "graph"
	purposeInit      = 0x696e6974   // "init"
	purposePortfolio = 0x706f7274   // "port": the portfolio rewards
)

// Defaults of the dadmm_composition parameters that have no other rule:
// the values of Yu and Huang's portfolio experiment. K defaults to the
// periods per agent (the paper takes K of the order of n).
const (
	DefaultCompositionEta   = 0.001
	DefaultCompositionRho   = 1.0
	DefaultCompositionBatch = 5
	// portfolioMeanHi bounds the mean rewards nu_k ~ U[0, 0.1], as in the
	// paper's experiment.
	portfolioMeanHi = 0.1
)

// Setup is a scenario made concrete: everything every process of a run
// rebuilds identically from the scenario and its seed, without any data
// crossing the bus.
type Setup struct {
	Scenario *Scenario
	Graph    *graph.Graph
	// Process draws the edges present in each round and draw.
	Process graph.EdgeProcess
	// Spec describes the generated regression data (not used by
	// problem.kind portfolio).
	Spec problem.Spec
	Box  problem.Box
	// Locals are the agents' objectives f_i (data only; no central solve).
	// For portfolio, Locals[i] is P_i = F_i + R of shard i
	// (dadmm.PortfolioLocal).
	Locals []problem.Local
	// Shards are the agents' portfolio problems, the reward matrix split
	// by periods (problem.kind portfolio only).
	Shards []*admm.Portfolio
	// ALM is the resolved ALM configuration: preset plus overrides
	// (algorithm alm only).
	ALM alm.Config
	// DADMM is the resolved configuration of dadmm and dadmm_linearized.
	DADMM dadmm.Config
	// Composition is the resolved configuration of dadmm_composition.
	Composition dadmm.CompositionConfig
}

// Build validates s and materialises its graph, edge process, local
// problems and algorithm parameters. The central optimum is not solved
// here (it can be costly); see Problem.
func (s *Scenario) Build() (*Setup, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	g, err := s.buildGraph()
	if err != nil {
		return nil, err
	}
	st := &Setup{Scenario: s, Graph: g, Spec: s.problemSpec()}
	st.Box = st.Spec.Box()
	if g, st.Process, err = s.buildProcess(g); err != nil {
		return nil, err
	}
	st.Graph = g
	if err := st.buildLocals(); err != nil {
		return nil, err
	}
	switch a := s.Algorithm.Name; a {
	case AlgorithmALM:
		if st.ALM, err = s.almConfig(g, st.Locals); err != nil {
			return nil, err
		}
	case AlgorithmDADMM, AlgorithmDADMMLinearized:
		st.DADMM = s.dadmmConfig()
	case AlgorithmDADMMComposition:
		st.Composition = s.compositionConfig()
	}
	return st, nil
}

// buildLocals generates the agents' data: the regression locals of
// problem.Spec, or for a portfolio the reward matrix, its shards and the
// objectives P_i of the shards.
func (st *Setup) buildLocals() error {
	s := st.Scenario
	st.Locals = make([]problem.Local, s.Agents)
	if s.Problem.Kind != ProblemPortfolio {
		for i := range st.Locals {
			l, err := problem.NewLocal(st.Spec, s.Agents, s.Seed, i)
			if err != nil {
				return s.errorAt("problem", err)
			}
			st.Locals[i] = l
		}
		return nil
	}
	shards, err := s.portfolioShards()
	if err != nil {
		return s.errorAt("problem", err)
	}
	st.Shards = shards
	for i, p := range shards {
		l, err := dadmm.NewPortfolioLocal(p, admm.Ridge{Mu: s.Problem.Mu})
		if err != nil {
			return s.errorAt("problem", err)
		}
		st.Locals[i] = l
	}
	return nil
}

// portfolioShards draws the periods x assets reward matrix of the
// portfolio problem (admm.GenerateReturns, covariance condition number
// problem.cov, mean rewards uniform on [0, 0.1]) from the run seed and
// splits it into one contiguous block of periods per agent.
func (s *Scenario) portfolioShards() ([]*admm.Portfolio, error) {
	p := s.Problem
	rng := rand.New(rand.NewPCG(
		graph.Hash(s.Seed, 0, purposePortfolio, 0, 0),
		graph.Hash(s.Seed, 0, purposePortfolio, 0, 1)))
	rets, err := admm.GenerateReturns(admm.ReturnsConfig{
		Assets: p.Assets, Periods: p.Periods, Cov: p.Cov, MeanHi: portfolioMeanHi,
	}, rng)
	if err != nil {
		return nil, fmt.Errorf("portfolio rewards: %w", err)
	}
	return dadmm.SplitPortfolio(rets, s.Agents)
}

// Dim is n, the length of every agent's block: problem.dim, or the number
// of assets of a portfolio.
func (s *Scenario) Dim() int {
	if s.Problem.Kind == ProblemPortfolio {
		return s.Problem.Assets
	}
	return s.Problem.Dim
}

// Problem builds the full problem with its central optimum: what the
// coordinator needs to measure the optimality gap. For a portfolio it is
// f = (1/N) sum_i P_i, P_i = F_i + (mu/2)||x||^2 the objective of agent
// i's shard of periods, the sharded objective the agents minimize, with
// its optimum solved exactly (dadmm.PortfolioProblem); with one agent it
// is the portfolio problem of the whole reward matrix (admm.Portfolio.Solve).
func (st *Setup) Problem() (*problem.Problem, error) {
	if st.Scenario.Problem.Kind == ProblemPortfolio {
		p, err := dadmm.PortfolioProblem(st.Shards, admm.Ridge{Mu: st.Scenario.Problem.Mu})
		if err != nil {
			return nil, st.Scenario.errorAt("problem", err)
		}
		return p, nil
	}
	p, err := problem.New(st.Spec, st.Scenario.Agents, st.Scenario.Seed)
	if err != nil {
		return nil, st.Scenario.errorAt("problem", err)
	}
	return p, nil
}

// InitialPoint returns agent i's x_0 = z_0: zero, or Gaussian with standard
// deviation problem.init.scale drawn from the run seed, projected onto X.
func (st *Setup) InitialPoint(i int) []float64 {
	s := st.Scenario
	x := make([]float64, s.Dim())
	if s.Problem.Init.Kind == InitRandom {
		rng := rand.New(rand.NewPCG(
			graph.Hash(s.Seed, 0, purposeInit, uint64(i), 0),
			graph.Hash(s.Seed, 0, purposeInit, uint64(i), 1)))
		for k := range x {
			x[k] = s.Problem.Init.Scale * rng.NormFloat64()
		}
	}
	st.Box.Project(x)
	return x
}

// Agent builds agent i's state machine.
func (st *Setup) Agent(i int) (consensus.Agent, error) {
	if i < 0 || i >= st.Scenario.Agents {
		return nil, fmt.Errorf("scenarios: agent id %d is outside [0, %d)", i, st.Scenario.Agents)
	}
	var (
		a   consensus.Agent
		err error
	)
	switch st.Scenario.Algorithm.Name {
	case AlgorithmALM:
		a, err = alm.NewAgent(st.ALM, i, st.Graph, st.Process, st.Locals[i], st.Box, st.InitialPoint(i))
	case AlgorithmDADMM, AlgorithmDADMMLinearized:
		a, err = dadmm.NewAgent(st.DADMM, i, st.Graph, st.Process, st.Locals[i], st.InitialPoint(i))
	case AlgorithmDADMMComposition:
		if len(st.Shards) != st.Scenario.Agents {
			return nil, fmt.Errorf("scenarios: build agent %d: %s needs the portfolio shards, have %d", i, AlgorithmDADMMComposition, len(st.Shards))
		}
		a, err = dadmm.NewCompositionAgent(st.Composition, i, st.Graph, st.Process, st.Shards[i], st.InitialPoint(i))
	default:
		return nil, fmt.Errorf("scenarios: algorithm %q has no agent", st.Scenario.Algorithm.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("scenarios: build agent %d: %w", i, err)
	}
	return a, nil
}

// Agents builds every agent of the run.
func (st *Setup) Agents() ([]consensus.Agent, error) {
	as := make([]consensus.Agent, st.Scenario.Agents)
	for i := range as {
		a, err := st.Agent(i)
		if err != nil {
			return nil, err
		}
		as[i] = a
	}
	return as, nil
}

// SpectralRatio is metrics.SpectralRatio of the expected graph: lambda_2
// of its p^2-weighted Laplacian over lambda_max of its unit-weight one,
// the quantity a sweep compares observed consensus rates with.
func (st *Setup) SpectralRatio() (float64, error) {
	l2, err := st.Graph.Lambda2(graph.ByP2)
	if err != nil {
		return 0, fmt.Errorf("scenarios: lambda_2(L_p2): %w", err)
	}
	lmax, err := st.Graph.LambdaMax(graph.Unit)
	if err != nil {
		return 0, fmt.Errorf("scenarios: lambda_max(L_1): %w", err)
	}
	return metrics.SpectralRatio(l2, lmax), nil
}

// buildGraph builds the topology, assigns presence probabilities and
// checks that the expected graph (edges with p_ij > 0) is connected: the
// consensus constraints of a disconnected graph do not force agreement.
func (s *Scenario) buildGraph() (*graph.Graph, error) {
	gs := s.Graph
	n := s.Agents
	seed := graph.Hash(s.Seed, 0, purposeGraph, 0, 0)
	var g *graph.Graph
	var err error
	switch gs.Topology {
	case TopologyComplete:
		g, err = graph.Complete(n)
	case TopologyRing:
		g, err = graph.Ring(n)
	case TopologyPath:
		g, err = graph.Path(n)
	case TopologyGrid, TopologyTorus:
		g, err = graph.Grid(gs.Rows, gs.Cols, gs.Topology == TopologyTorus)
	case TopologyErdosRenyi:
		g, err = graph.ErdosRenyi(n, gs.Q, seed)
	case TopologyGeometric:
		g, err = graph.RandomGeometric(n, gs.Radius, seed)
	case TopologyStar:
		g, err = graph.Star(n)
	case TopologyFile:
		g, err = readEdgeList(gs.File, n)
	default:
		err = fmt.Errorf("topology %q has no builder", gs.Topology)
	}
	if err != nil {
		return nil, s.errorAt("graph.topology", err)
	}
	if gs.Topology == TopologyFile && (gs.PRange != nil || gs.P != 1) && hasEdgeP(g) {
		key := "graph.p"
		if gs.PRange != nil {
			key = "graph.p_range"
		}
		return nil, s.errorAt(key, fmt.Errorf("the edge list %s gives each edge its own p: leave %s out, or drop the p column", gs.File, key))
	}
	if gs.PRange != nil {
		g, err = g.WithRandomP(gs.PRange.Lo(), gs.PRange.Hi(), graph.Hash(s.Seed, 1, purposeGraph, 0, 0))
		if err != nil {
			return nil, s.errorAt("graph.p_range", err)
		}
	} else if gs.P != 1 {
		if g, err = g.WithUniformP(gs.P); err != nil {
			return nil, s.errorAt("graph.p", err)
		}
	}
	if !g.Connected() {
		return nil, s.errorAt("graph.topology", fmt.Errorf(
			"the expected graph (%s on %d agents, %d edges) is disconnected: consensus needs a connected graph", gs.Topology, n, g.NumEdges()))
	}
	return g, nil
}

// hasEdgeP reports whether some edge of g has p_ij < 1: an edge list
// with a p column.
func hasEdgeP(g *graph.Graph) bool {
	for _, e := range g.Edges {
		if e.P != 1 {
			return true
		}
	}
	return false
}

func readEdgeList(path string, n int) (*graph.Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open edge list: %w", err)
	}
	defer f.Close()
	g, err := graph.ReadEdgeList(f, n)
	if err != nil {
		return nil, fmt.Errorf("edge list %s: %w", path, err)
	}
	return g, nil
}

// problemSpec maps the problem section onto problem.Spec.
func (s *Scenario) problemSpec() problem.Spec {
	p := s.Problem
	spec := problem.Spec{
		Kind:            p.Kind,
		Dim:             p.Dim,
		SamplesPerAgent: p.SamplesPerAgent,
		Batch:           p.Batch,
		Noise:           p.Noise,
		Reg:             p.Reg,
		Heterogeneity:   p.Heterogeneity,
		Lo:              p.Box.Lo(),
		Hi:              p.Box.Hi(),
	}
	if p.Kind == ProblemNonconvex {
		spec.Scale = p.Scale
		if spec.Scale == 0 {
			spec.Scale = 1
		}
		spec.Outliers = p.Outliers
	}
	return spec
}

// almConfig resolves the ALM parameters: the preset computed from the
// problem and graph constants for the horizon T = rounds, then every
// parameter given in algorithm.params.
func (s *Scenario) almConfig(g *graph.Graph, locals []problem.Local) (alm.Config, error) {
	a := s.Algorithm
	c, err := alm.ConstantsFor(g, locals)
	if err != nil {
		return alm.Config{}, s.errorAt("algorithm", err)
	}
	// The practical preset runs the agents on sigma f with sigma = 1/L_f,
	// so the preset sees L_f = 1 (the implementation notes: "scale f so
	// L_f ~ 1"); the theory preset keeps the paper's f (sigma = 1).
	var p alm.Params
	scale := 1.0
	switch a.Preset {
	case PresetTheory:
		scale = orDefault(a.Params.Scale, 1)
		p = alm.Theory(c.Scaled(scale), s.Rounds)
	default:
		if c.Lf > 0 {
			scale = 1 / c.Lf
		}
		scale = orDefault(a.Params.Scale, scale)
		p = alm.PracticalWith(c.Scaled(scale), s.Rounds, orDefault(a.Params.CTau, alm.PracticalCTau), orDefault(a.Params.CBeta, alm.PracticalCBeta))
	}
	override := func(dst *float64, v *float64) {
		if v != nil {
			*dst = *v
		}
	}
	override(&p.Eta, a.Params.Eta)
	override(&p.Tau, a.Params.Tau)
	override(&p.Rho, a.Params.Rho)
	override(&p.Mu, a.Params.Mu)
	override(&p.Beta, a.Params.Beta)
	override(&p.My, a.Params.MY)
	p.TauSchedule = a.TauSchedule
	return alm.Config{
		Params:         p,
		Safeguard:      a.Safeguard,
		SafeguardEvery: a.SafeguardEvery,
		SameDraw:       s.Edges.SameDraw,
		Seed:           s.Seed,
		Rounds:         s.Rounds,
		ReportDuals:    s.Faults.Active(),
		Scale:          scale,
	}, nil
}

// dadmmConfig resolves the parameters of dadmm (MethodExact) and
// dadmm_linearized (MethodLinearized): c (default dadmm.DefaultC), gamma
// (default 0) and tau (default 0, i.e. tau_i = N/L_i per agent).
func (s *Scenario) dadmmConfig() dadmm.Config {
	p := s.Algorithm.Params
	method := dadmm.MethodExact
	if s.Algorithm.Name == AlgorithmDADMMLinearized {
		method = dadmm.MethodLinearized
	}
	return dadmm.Config{
		Method: method,
		C:      orDefault(p.C, dadmm.DefaultC),
		Gamma:  orDefault(p.Gamma, 0),
		Tau:    orDefault(p.Tau, 0),
		Seed:   s.Seed,
	}
}

// compositionConfig resolves the parameters of dadmm_composition: eta,
// rho and the mini-batch default to the paper's values, K to the periods
// per agent, c to dadmm.DefaultC; R = (mu/2)||w||^2 with problem.mu.
func (s *Scenario) compositionConfig() dadmm.CompositionConfig {
	p := s.Algorithm.Params
	k := max(1, s.Problem.Periods/max(1, s.Agents))
	if p.K != nil {
		k = *p.K
	}
	batch := DefaultCompositionBatch
	if p.Batch != nil {
		batch = *p.Batch
	}
	return dadmm.CompositionConfig{
		Params: admm.Params{
			Eta:   orDefault(p.Eta, DefaultCompositionEta),
			Rho:   orDefault(p.Rho, DefaultCompositionRho),
			K:     k,
			Batch: batch,
		},
		C:    orDefault(p.C, dadmm.DefaultC),
		Reg:  admm.Ridge{Mu: s.Problem.Mu},
		Seed: s.Seed,
	}
}

func orDefault(v *float64, def float64) float64 {
	if v == nil || math.IsNaN(*v) {
		return def
	}
	return *v
}

// errorAt wraps err, found while building, as an *Error placed at key.
func (s *Scenario) errorAt(key string, err error) error {
	v := validator{s: s}
	return &Error{Pos: v.at(key), Key: key, Msg: err.Error(), Err: err}
}
