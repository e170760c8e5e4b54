package zosplm

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/problems/qcqp"
)

// Presets of Params.Preset.
const (
	// PresetTuned is DefaultSPLMParams(n): L = 4n, beta = 1.
	PresetTuned = "tuned"
	// PresetTheory is TheorySPLMParams with the instance's L_f.
	PresetTheory = "theory"
)

// Params is the algorithm block of zo_splm: the estimator, the preset
// rule of the steps and optional overrides of it.
type Params struct {
	Preset      string   `yaml:"preset" doc:"parameter rule: tuned (L = 4n, p = 1.2 L, c = 1/(L + p), beta = 1: projected primal-dual gradient)|theory (the analysis' regime with the instance's L_f = ||Q||_2: p = 2 L_f, beta = (p - L_f)/(24 p) = 1/48, c = 1/(L_f + p))"`
	Directions  int      `yaml:"directions" doc:"directions k >= 1 per iteration (the paper's Table 2: 10,000)"`
	R           float64  `yaml:"r" doc:"smoothing radius r > 0"`
	Dist        string   `yaml:"dist" doc:"directions: sphere|gaussian"`
	Chunk       int      `yaml:"chunk" doc:"directions per evaluation request (the unit of work of an oracle worker), >= 1"`
	ExactProx   bool     `yaml:"exact_prox" doc:"add p (x - z) exactly instead of estimating it with the same directions"`
	Step        *float64 `yaml:"step,omitempty" doc:"primal step c > 0" default:"preset"`
	DualStep    *float64 `yaml:"dual_step,omitempty" doc:"dual step alpha > 0" default:"preset"`
	Smoothing   *float64 `yaml:"smoothing,omitempty" doc:"smoothing step beta in (0, 1] of z <- z + beta (x - z); 1 makes z = x after every step (projected primal-dual gradient, outside the analysis, which needs beta <= (p - L_f)/(24 p) < 1/24)" default:"preset"`
	ProxWeight  *float64 `yaml:"prox_weight,omitempty" doc:"proximal weight p > 0 of (p/2)||x - z||^2" default:"preset"`
	B           *float64 `yaml:"b,omitempty" doc:"dual box bound B > 0" default:"100"`
	InitialDual *float64 `yaml:"initial_dual,omitempty" doc:"every component of y_0, in [0, B]" default:"0"`
}

// DefaultParams is the paper's estimator (DefaultEstimator) in chunks of
// DefaultChunk directions, with the tuned preset's steps.
func DefaultParams() Params {
	e := DefaultEstimator()
	return Params{Preset: PresetTuned, Directions: e.K, R: e.R, Dist: e.Dist.String(), Chunk: DefaultChunk}
}

// Validate checks the values that need no instance.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	errs.OneOf("preset", p.Preset, PresetTuned, PresetTheory)
	if p.Directions < 1 {
		errs.Add("directions", "must be >= 1, got %d", p.Directions)
	}
	errs.Check("r", &p.R, registry.Positive)
	errs.OneOf("dist", p.Dist, Sphere.String(), Gaussian.String())
	if p.Chunk < 1 {
		errs.Add("chunk", "must be >= 1, got %d", p.Chunk)
	}
	errs.Check("step", p.Step, registry.Positive)
	errs.Check("dual_step", p.DualStep, registry.Positive)
	errs.Check("smoothing", p.Smoothing, registry.UnitInterval)
	errs.Check("prox_weight", p.ProxWeight, registry.Positive)
	errs.Check("b", p.B, registry.Positive)
	bound := DefaultSPLMParams(1).B
	if p.B != nil {
		bound = *p.B
	}
	errs.Check("initial_dual", p.InitialDual, registry.Range{
		In: func(y float64) bool { return y >= 0 && y <= bound }, Want: "in [0, b = " + registry.Num(bound) + "]"})
	return errs.Err()
}

// params resolves p for q over its preset: DefaultSPLMParams(n), or
// TheorySPLMParams(||Q||_2).
func (p *Params) params(q *qcqp.QCQP) (SPLMParams, error) {
	s := DefaultSPLMParams(q.Dim())
	if p.Preset == PresetTheory {
		s = TheorySPLMParams(q.LipF())
	}
	dist, err := ParseDist(p.Dist)
	if err != nil {
		return SPLMParams{}, err
	}
	s.Estimator = Estimator{K: p.Directions, R: p.R, Dist: dist, Chunk: p.Chunk, ExactProx: p.ExactProx}
	for _, f := range []struct{ dst, v *float64 }{{&s.C, p.Step}, {&s.Alpha, p.DualStep}, {&s.Beta, p.Smoothing}, {&s.P, p.ProxWeight}, {&s.B, p.B}, {&s.Y0, p.InitialDual}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	return s, s.Validate()
}

// Algorithm describes zo_splm to the registry: one server agent (agent 0)
// runs Algorithm 1 and fans its k + 1 evaluations per iteration out to
// the run's oracle workers (scenario key runtime.workers; 0 evaluates in
// the server's own goroutine). Its iterates do not depend on the number
// of workers or on the transport.
func Algorithm() registry.Algorithm {
	return registry.Algorithm{
		Name:    "zo_splm",
		Summary: "ZO-SPLM (Dong et al.): zeroth-order smoothed proximal Lagrangian, a server agent with its evaluations fanned out to runtime.workers oracle workers",
		New:     func() registry.Params { p := DefaultParams(); return &p },
		Build: registry.BuildWith(func(p registry.Params, env *registry.Env, inst qcqp.Provider) (registry.Run, error) {
			q := inst.QCQP()
			prm, err := p.(*Params).params(q)
			if err != nil {
				return nil, err
			}
			x0 := env.Init(0)
			if err := checkX0(x0, q.Box); err != nil {
				return nil, fmt.Errorf("problem.init: %w", err)
			}
			return &SPLMRun{q: q, prm: prm, preset: p.(*Params).Preset, x0: x0, seed: graph.Hash(env.Seed, 0, drawDirection, 2, 0)}, nil
		}),
		Needs:    []string{qcqp.Cap},
		NeedsDoc: "a black-box constrained problem (f, h) over a box",
		Roles:    registry.Server,
		FansOut:  true,
		Renamed: map[string]string{"k": "directions", "params.c": "step", "params.alpha": "dual_step", "params.beta": "smoothing",
			"params.p": "prox_weight", "params.b": "b", "params.y0": "initial_dual"},
	}
}

var (
	_ registry.Referencer = (*SPLMRun)(nil)
	_ registry.Measurer   = (*SPLMRun)(nil)
	_ registry.Evaluator  = (*SPLMRun)(nil)
	_ registry.Oracles    = (*SPLMRun)(nil)
)

// SPLMRun is zo_splm resolved against one QCQP.
type SPLMRun struct {
	q      *qcqp.QCQP
	prm    SPLMParams
	preset string
	x0     []float64
	seed   uint64
}

// serverAgent is the Server as the run's agent 0: its report's X is the
// state (x_{t+1}, y_t) the measurement needs, n + m values.
type serverAgent struct{ *Server }

// Report returns the Server's report with X = (x, y).
func (a serverAgent) Report() consensus.Report {
	r := a.Server.Report()
	r.X = append(r.X, a.y...)
	return r
}

// Agent builds the server (agent 0).
func (r *SPLMRun) Agent(i int) (consensus.Agent, error) {
	if i != 0 {
		return nil, fmt.Errorf("zosplm: agent id %d: the run has one server agent, id 0", i)
	}
	s, err := NewServer(0, r.q.Box, r.q.Constraints(), r.x0, r.prm, r.seed)
	if err != nil {
		return nil, err
	}
	return serverAgent{s}, nil
}

// Oracle makes worker w's oracle: the values of f and h of the QCQP.
func (r *SPLMRun) Oracle(int) consensus.Oracle { return NewOracle(r.q) }

// Resolved lists the parameters.
func (r *SPLMRun) Resolved() []registry.Value {
	p := r.prm
	lf := registry.Value{Name: "L_f", Value: LfRule(r.q.Dim()), Note: "rule 4n (the methods see values only)"}
	if r.preset == PresetTheory {
		lf = registry.Value{Name: "L_f", Value: r.q.LipF(), Note: "||Q||_2 of the instance (preset theory)"}
	}
	return []registry.Value{
		lf,
		{Name: "c", Value: p.C}, {Name: "alpha", Value: p.Alpha}, {Name: "beta", Value: p.Beta},
		{Name: "p", Value: p.P}, {Name: "B", Value: p.B}, {Name: "y0", Value: p.Y0},
		{Name: "k", Value: float64(p.Estimator.K)}, {Name: "r", Value: p.Estimator.R},
		{Name: "chunk", Value: float64(p.Estimator.chunk()), Note: fmt.Sprintf("%d evaluation requests per iteration", 1+p.Estimator.Chunks())},
	}
}

// Measures declares the server's own measure, dual_norm = ||y||, and the
// three measures of the paper's stopping test, which Evaluate computes.
func (r *SPLMRun) Measures() []consensus.Measure {
	return append(AgentMeasures(),
		consensus.Measure{Name: "stationarity", Reduce: consensus.ReduceMax, Evaluated: true, Doc: "dist(0, grad f(x) + J_h(x)^T y + N_X(x)), exact gradients (6)"},
		consensus.Measure{Name: "complementarity", Reduce: consensus.ReduceMax, Evaluated: true, Doc: "|<y, h(x)>| (8)"},
		consensus.Measure{Name: "eps_stat", Reduce: consensus.ReduceMax, Evaluated: true, Doc: "max of stationarity, feasibility and complementarity: the paper stops when it is < eps = 1"},
	)
}

// Reference runs Algorithm 1 in matrix form (Reference) and returns the
// server's report state (x_T, y_{T-1}) after T rounds (the server takes
// the dual step of iteration t - 1 in round t).
func (r *SPLMRun) Reference(rounds int) ([][]float64, error) {
	ref, err := NewReference(r.q, r.q.Box, r.x0, r.prm, r.seed)
	if err != nil {
		return nil, err
	}
	y := make([]float64, r.q.Constraints())
	for j := range y {
		y[j] = r.prm.Y0
	}
	step := func(int) error {
		copy(y, ref.Y.RawVector().Data)
		ref.Step()
		return nil
	}
	state := func(int) []float64 { return append(append([]float64(nil), ref.X.RawVector().Data...), y...) }
	return registry.StepReference(1, rounds, step, state)
}

// Optimum returns the QCQP's reference value (qcqp.QCQP.Reference): its
// global optimum when it has one constraint, NaN when it has none.
func (r *SPLMRun) Optimum() (float64, bool, error) { return r.q.Reference().F, false, nil }

// Evaluate measures the server's (x, y) with exact gradients (Measure):
// ObjValue f(x), OptGap f(x) - f* and DistToOpt ||x - x*|| against the
// QCQP's Reference (NaN without one), Feasibility ||max(h(x), 0)|| (7), and the columns
// stationarity (6), complementarity (8) and their maximum with the
// feasibility, eps_stat. ConsensusErr is 0 (one agent).
func (r *SPLMRun) Evaluate(reps []consensus.Report) (registry.Evaluation, error) {
	n, m := r.q.Dim(), r.q.Constraints()
	if len(reps) != 1 || len(reps[0].X) != n+m {
		return registry.Evaluation{}, fmt.Errorf("zosplm: want one report with (x, y) of %d values", n+m)
	}
	ms, err := r.q.Measure(reps[0].X[:n], reps[0].X[n:])
	if err != nil {
		return registry.Evaluation{}, err
	}
	ref, dist := r.q.Reference(), math.NaN()
	if ref.X != nil {
		dist = floats.Distance(reps[0].X[:n], ref.X, 2)
	}
	return registry.Evaluation{ObjValue: ms.Objective, OptGap: ms.Objective - ref.F, DistToOpt: dist,
		Feasibility: ms.Feasibility, Values: []float64{ms.Stationarity, ms.Complementarity, ms.Max()}}, nil
}
