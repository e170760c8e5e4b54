package zosplm

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/problems/qcqp"
)

// Settings is the algorithm block of zo_splm: the estimator and optional
// overrides of DefaultParams(n).
type Settings struct {
	K         int     `yaml:"k" doc:"directions per iteration k >= 1 (the paper's Table 2: 10,000)"`
	R         float64 `yaml:"r" doc:"smoothing radius r > 0"`
	Dist      string  `yaml:"dist" doc:"directions: sphere|gaussian"`
	Chunk     int     `yaml:"chunk" doc:"directions per evaluation request (the unit of work of an oracle worker), >= 1"`
	ExactProx bool    `yaml:"exact_prox" doc:"add p (x - z) exactly instead of estimating it with the same directions"`
	Params    struct {
		C     *float64 `yaml:"c,omitempty" doc:"primal step c > 0" default:"1/(L + p), L = 4n"`
		Alpha *float64 `yaml:"alpha,omitempty" doc:"dual step alpha > 0" default:"10 c"`
		Beta  *float64 `yaml:"beta,omitempty" doc:"proximal averaging beta in (0, 1]" default:"1"`
		P     *float64 `yaml:"p,omitempty" doc:"proximal parameter p > 0" default:"1.2 L, L = 4n"`
		B     *float64 `yaml:"b,omitempty" doc:"dual box bound B > 0" default:"100"`
		Y0    *float64 `yaml:"y0,omitempty" doc:"every component of y_0, in [0, B]" default:"0"`
	} `yaml:"params"`
}

// Validate checks the values that need no instance.
func (s *Settings) Validate() error {
	var errs registry.FieldErrors
	if s.K < 1 {
		errs.Add("k", "must be >= 1, got %d", s.K)
	}
	if !(s.R > 0) || math.IsInf(s.R, 0) {
		errs.Add("r", "must be a finite number > 0, got %s", registry.Num(s.R))
	}
	errs.OneOf("dist", s.Dist, Sphere.String(), Gaussian.String())
	if s.Chunk < 1 {
		errs.Add("chunk", "must be >= 1, got %d", s.Chunk)
	}
	o := s.Params
	for _, c := range []struct {
		key string
		v   *float64
		ok  bool
	}{
		{"params.c", o.C, o.C == nil || *o.C > 0},
		{"params.alpha", o.Alpha, o.Alpha == nil || *o.Alpha > 0},
		{"params.beta", o.Beta, o.Beta == nil || (*o.Beta > 0 && *o.Beta <= 1)},
		{"params.p", o.P, o.P == nil || *o.P > 0},
		{"params.b", o.B, o.B == nil || *o.B > 0},
		{"params.y0", o.Y0, o.Y0 == nil || *o.Y0 >= 0},
	} {
		if !c.ok || (c.v != nil && math.IsInf(*c.v, 0)) {
			errs.Add(c.key, "out of range: %s (see the key's documentation)", registry.Num(*c.v))
		}
	}
	return errs.Err()
}

// params resolves s for n variables over DefaultParams(n).
func (s *Settings) params(n int) (Params, error) {
	p := DefaultParams(n)
	dist, err := ParseDist(s.Dist)
	if err != nil {
		return Params{}, err
	}
	p.Estimator = Estimator{K: s.K, R: s.R, Dist: dist, Chunk: s.Chunk, ExactProx: s.ExactProx}
	o := s.Params
	for _, f := range []struct{ dst, v *float64 }{{&p.C, o.C}, {&p.Alpha, o.Alpha}, {&p.Beta, o.Beta}, {&p.P, o.P}, {&p.B, o.B}, {&p.Y0, o.Y0}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	return p, p.Validate()
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
		New: func() registry.Params {
			e := DefaultEstimator()
			return &Settings{K: e.K, R: e.R, Dist: e.Dist.String(), Chunk: DefaultChunk}
		},
		Build: func(p registry.Params, env *registry.Env) (registry.Run, error) {
			inst, ok := env.Problem.(qcqp.Provider)
			if !ok {
				return nil, &registry.ProblemMismatch{Algorithm: "zo_splm", Needs: "a black-box constrained problem (f, h) over a box", Capability: qcqp.Cap}
			}
			if env.N != 1 {
				return nil, fmt.Errorf("zo_splm runs one server agent, its oracle workers are runtime.workers: set agents: 1, got %d", env.N)
			}
			q := inst.QCQP()
			prm, err := p.(*Settings).params(q.Dim())
			if err != nil {
				return nil, registry.FieldErrors{{Key: "params", Msg: err.Error()}}
			}
			x0 := env.Init(0)
			if err := checkX0(x0, q.Box); err != nil {
				return nil, fmt.Errorf("problem.init: %w", err)
			}
			return &SPLMRun{q: q, prm: prm, x0: x0, seed: graph.Hash(env.Seed, 0, drawDirection, 2, 0)}, nil
		},
	}
}

// SPLMRun is zo_splm resolved against one QCQP.
type SPLMRun struct {
	q    *qcqp.QCQP
	prm  Params
	x0   []float64
	seed uint64
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
	return []registry.Value{
		{Name: "L_f", Value: LfRule(r.q.Dim()), Note: "rule 4n (the methods see values only)"},
		{Name: "c", Value: p.C}, {Name: "alpha", Value: p.Alpha}, {Name: "beta", Value: p.Beta},
		{Name: "p", Value: p.P}, {Name: "B", Value: p.B}, {Name: "y0", Value: p.Y0},
		{Name: "k", Value: float64(p.Estimator.K)}, {Name: "r", Value: p.Estimator.R},
		{Name: "chunk", Value: float64(p.Estimator.chunk()), Note: fmt.Sprintf("%d evaluation requests per iteration", 1+p.Estimator.Chunks())},
	}
}

// Measures declares the server's own measure, dual_norm = ||y||.
func (r *SPLMRun) Measures() []consensus.Measure { return AgentMeasures() }

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

// Optimum returns NaN: the NC-QCQP's optimum is not known.
func (r *SPLMRun) Optimum() (float64, bool, error) { return math.NaN(), false, nil }

// Columns declares the three measures of the paper's stopping test.
func (r *SPLMRun) Columns() []consensus.Measure {
	return []consensus.Measure{
		{Name: "stationarity", Reduce: consensus.ReduceMax, Doc: "dist(0, grad f(x) + J_h(x)^T y + N_X(x)), exact gradients (6)"},
		{Name: "complementarity", Reduce: consensus.ReduceMax, Doc: "|<y, h(x)>| (8)"},
		{Name: "eps_stat", Reduce: consensus.ReduceMax, Doc: "max of stationarity, feasibility and complementarity: the paper stops when it is < eps = 1"},
	}
}

// Evaluate measures the server's (x, y) with exact gradients (Measure):
// ObjValue f(x), Feasibility ||max(h(x), 0)|| (7), and the columns
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
	return registry.Evaluation{ObjValue: ms.Objective, OptGap: math.NaN(), DistToOpt: math.NaN(),
		Feasibility: ms.Feasibility, Values: []float64{ms.Stationarity, ms.Complementarity, ms.Max()}}, nil
}
