package scenarios

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/observe"
)

// Setup is a scenario made concrete: everything every process of a run
// rebuilds identically from the scenario and its seed, without any data
// crossing the bus.
type Setup struct {
	Scenario *Scenario
	Graph    *graph.Graph
	// Process draws the edges present in each round and draw.
	Process graph.EdgeProcess
	// Env is what the algorithm was built against: graph, edge process,
	// problem instance and initial points.
	Env *registry.Env
	// Run is the algorithm resolved against Env: its agents and its
	// resolved parameters.
	Run registry.Run
}

// Build validates s and materialises its graph, edge process, problem
// instance and algorithm. The central optimum is not solved here (it can
// be costly); see Problem.
func (s *Scenario) Build() (*Setup, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	reg := s.registry()
	st := &Setup{Scenario: s}
	var (
		g    *graph.Graph
		dg   *graph.Digraph
		arcs graph.ArcProcess
		err  error
	)
	if Directed(s.Graph.Topology) {
		if dg, arcs, err = s.buildDirected(); err != nil {
			return nil, err
		}
		g, st.Process = dg.Underlying(), graph.EitherArc{Arcs: arcs}
	} else {
		if g, err = s.buildGraph(); err != nil {
			return nil, err
		}
		if g, st.Process, err = s.buildProcess(g); err != nil {
			return nil, err
		}
	}
	st.Graph = g
	pe, _ := reg.Problem(s.Problem.Kind)
	inst, err := pe.Build(s.Problem.Params, registry.ProblemEnv{N: s.Agents, Seed: s.Seed})
	if err != nil {
		return nil, s.blockError("problem", err)
	}
	st.Env = &registry.Env{
		N:        s.Agents,
		Seed:     s.Seed,
		Rounds:   s.Rounds,
		Graph:    g,
		Process:  st.Process,
		Digraph:  dg,
		Arcs:     arcs,
		SameDraw: s.Edges.SameDraw,
		Faulty:   s.Faults.Active(),
		Problem:  inst,
		Init:     st.InitialPoint,
	}
	if st.Run, err = reg.Build(s.Algorithm.Name, s.Problem.Kind, s.Algorithm.Params, st.Env); err != nil {
		var mm *registry.ProblemMismatch
		if errors.As(err, &mm) {
			return nil, s.errorAt("algorithm.name", err)
		}
		return nil, s.blockError("algorithm", err)
	}
	return st, nil
}

// blockError places an error of a registered block: the FieldErrors of a
// Build at their keys (relative to the block unless they name another
// section), anything else at the block itself.
func (s *Scenario) blockError(block string, err error) error {
	var fes registry.FieldErrors
	if !errors.As(err, &fes) {
		return s.errorAt(block, err)
	}
	v := validator{s: s}
	for _, fe := range fes {
		v.fail(s.blockKey(block, fe.Key), "%s", fe.Msg)
	}
	return v.errs.err()
}

// blockKey is the scenario key of key inside block: key itself when it
// starts with a top-level key of the scenario that the block does not
// have (agents, rounds, problem.box), block.key otherwise.
func (s *Scenario) blockKey(block, key string) string {
	top, _, _ := strings.Cut(key, ".")
	if _, ok := lookupField(reflect.TypeFor[Scenario](), top); ok && !s.blockHas(block, top) {
		return key
	}
	return joinKey(block, key)
}

// blockHas reports whether the registered block (algorithm or problem)
// has the key name.
func (s *Scenario) blockHas(block, name string) bool {
	for _, r := range []registered{&s.Algorithm, &s.Problem} {
		if r.section() != block {
			continue
		}
		own := reflect.ValueOf(r).Elem().Type()
		if _, ok := lookupField(own, name); ok {
			return true
		}
		if sv := settingsValue(r); sv.IsValid() {
			_, ok := lookupField(sv.Type(), name)
			return ok
		}
	}
	return false
}

// Problem builds the full problem with its central optimum: what the
// coordinator needs to measure the optimality gap.
func (st *Setup) Problem() (*objective.Problem, error) {
	p, err := st.Env.Problem.Central()
	if err != nil {
		return nil, st.Scenario.errorAt("problem", err)
	}
	return p, nil
}

// InitialPoint returns agent i's x_0 = z_0: zero, or Gaussian with standard
// deviation problem.init.scale drawn from the run seed, projected onto X
// when the problem has a box.
func (st *Setup) InitialPoint(i int) []float64 {
	s := st.Scenario
	x := make([]float64, st.Env.Problem.Dim())
	if s.Problem.Init.Kind == InitRandom {
		rng := graph.StreamInit.Rand(s.Seed, 0, uint64(i))
		for k := range x {
			x[k] = s.Problem.Init.Scale * rng.NormFloat64()
		}
	}
	if l, ok := st.Env.Problem.(registry.Locals); ok {
		l.Box().Project(x)
	}
	return x
}

// Agent builds agent i's state machine.
func (st *Setup) Agent(i int) (consensus.Agent, error) {
	if i < 0 || i >= st.Scenario.Agents {
		return nil, fmt.Errorf("scenarios: agent id %d is outside [0, %d)", i, st.Scenario.Agents)
	}
	a, err := st.Run.Agent(i)
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

// Resolved lists every parameter and constant the agents run with, after
// presets and computed constants.
func (st *Setup) Resolved() []registry.Value { return st.Run.Resolved() }

// SpectralRatio is observe.SpectralRatio of the expected graph: lambda_2
// of its p^2-weighted Laplacian over lambda_max of its unit-weight one,
// the fraction of the slowest disagreement removed per round by a p^2
// heuristic (not a contraction factor, and no prediction of a rate).
func (st *Setup) SpectralRatio() (float64, error) {
	l2, err := st.Graph.Lambda2(graph.ByP2)
	if err != nil {
		return 0, fmt.Errorf("scenarios: lambda_2(L_p2): %w", err)
	}
	lmax, err := st.Graph.LambdaMax(graph.Unit)
	if err != nil {
		return 0, fmt.Errorf("scenarios: lambda_max(L_1): %w", err)
	}
	return observe.SpectralRatio(l2, lmax), nil
}

// buildGraph builds the topology, assigns presence probabilities and
// checks that the expected graph (edges with p_ij > 0) is connected: the
// consensus constraints of a disconnected graph do not force agreement.
func (s *Scenario) buildGraph() (*graph.Graph, error) {
	gs := s.Graph
	n := s.Agents
	seed := graph.StreamGraph.Hash(s.Seed, 0, 0, 0)
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
	if g, err = withP(s, g); err != nil {
		return nil, err
	}
	if !g.Connected() {
		return nil, s.errorAt("graph.topology", fmt.Errorf(
			"the expected graph (%s on %d agents, %d edges) is disconnected: consensus needs a connected graph", gs.Topology, n, g.NumEdges()))
	}
	return g, nil
}

// presence is a graph or digraph whose presence probabilities can be set.
type presence[G any] interface {
	WithRandomP(lo, hi float64, seed uint64) (G, error)
	WithUniformP(p float64) (G, error)
}

// withP returns g with the presence probabilities of graph.p_range (drawn
// from round 1 of graph.StreamGraph) or graph.p, g itself for p = 1.
func withP[G presence[G]](s *Scenario, g G) (G, error) {
	gs := s.Graph
	if gs.PRange != nil {
		p, err := g.WithRandomP(gs.PRange.Lo(), gs.PRange.Hi(), graph.StreamGraph.Hash(s.Seed, 1, 0, 0))
		if err != nil {
			return p, s.errorAt("graph.p_range", err)
		}
		return p, nil
	}
	if gs.P == 1 {
		return g, nil
	}
	p, err := g.WithUniformP(gs.P)
	if err != nil {
		return p, s.errorAt("graph.p", err)
	}
	return p, nil
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

// errorAt wraps err, found while building, as an *Error placed at key.
func (s *Scenario) errorAt(key string, err error) error {
	v := validator{s: s}
	return &Error{Pos: v.at(key), Key: key, Msg: err.Error(), Err: err}
}
