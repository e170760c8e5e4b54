package scenarios

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/alm"
	"github.com/consim/consim/consensus/problem"
	"github.com/consim/consim/graph"
)

// Purposes that separate the streams derived from the run seed, so the
// graph sample, the initial points and the rounds' draws never share
// randomness.
const (
	purposeGraph = 0x6772617068 // "graph"
	purposeInit  = 0x696e6974   // "init"
)

// Setup is a scenario made concrete: everything every process of a run
// rebuilds identically from the scenario and its seed, without any data
// crossing the bus.
type Setup struct {
	Scenario *Scenario
	Graph    *graph.Graph
	// Process draws the edges present in each round and draw.
	Process graph.EdgeProcess
	Spec    problem.Spec
	Box     problem.Box
	// Locals are the agents' objectives f_i (data only; no central solve).
	Locals []problem.Local
	// ALM is the resolved ALM configuration: preset plus overrides.
	ALM alm.Config
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
	st.Process = graph.Bernoulli{G: g, Seed: s.Seed}.Specialize()
	st.Locals = make([]problem.Local, s.Agents)
	for i := range st.Locals {
		if st.Locals[i], err = problem.NewLocal(st.Spec, s.Agents, s.Seed, i); err != nil {
			return nil, s.errorAt("problem", err)
		}
	}
	if st.ALM, err = s.almConfig(g, st.Locals); err != nil {
		return nil, err
	}
	return st, nil
}

// Dim is n, the length of every agent's block.
func (s *Scenario) Dim() int { return s.Problem.Dim }

// Problem builds the full problem with its central optimum: what the
// coordinator needs to measure the optimality gap.
func (st *Setup) Problem() (*problem.Problem, error) {
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
	switch st.Scenario.Algorithm.Name {
	case AlgorithmALM:
		a, err := alm.NewAgent(st.ALM, i, st.Graph, st.Process, st.Locals[i], st.Box, st.InitialPoint(i))
		if err != nil {
			return nil, fmt.Errorf("scenarios: build agent %d: %w", i, err)
		}
		return a, nil
	}
	return nil, fmt.Errorf("scenarios: algorithm %q has no agent", st.Scenario.Algorithm.Name)
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
	var p alm.Params
	switch a.Preset {
	case PresetTheory:
		p = alm.Theory(c, s.Rounds)
	default:
		p = alm.PracticalWith(c, s.Rounds, orDefault(a.Params.CTau, alm.PracticalCTau), orDefault(a.Params.CBeta, alm.PracticalCBeta))
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
	return alm.Config{
		Params:         p,
		Safeguard:      a.Safeguard,
		SafeguardEvery: a.SafeguardEvery,
		SameDraw:       s.Edges.SameDraw,
		Seed:           s.Seed,
		Rounds:         s.Rounds,
	}, nil
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
