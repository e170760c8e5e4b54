package pushsum

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/observe"
)

// PushSum describes push-sum ratio consensus to the registry: the agents
// average their initial points x_i(0) (problem.init), of the problem's
// dimension; the problem's data are not used. The run measures itself
// (registry.Evaluator) against the exact average.
func PushSum() registry.Algorithm {
	return registry.Algorithm{
		Name:     "push_sum",
		Summary:  "push-sum ratio consensus on the initial points over the round's present arcs (directed graphs)",
		New:      func() registry.Params { return &AverageParams{} },
		Directed: true,
		Build: func(_ registry.Params, env *registry.Env) (registry.Run, error) {
			if env.Problem.Dim() == 0 {
				return nil, &registry.ProblemMismatch{Algorithm: "push_sum", Needs: "agents that hold blocks of one dimension n"}
			}
			d, arcs := env.Directed()
			return &averageRun{env: env, d: d, arcs: arcs}, nil
		},
	}
}

var (
	_ registry.Referencer = (*averageRun)(nil)
	_ registry.Measurer   = (*averageRun)(nil)
	_ registry.Evaluator  = (*averageRun)(nil)
	_ registry.Referencer = (*gradientRun)(nil)
)

// SubgradientPush describes subgradient-push to the registry.
func SubgradientPush() registry.Algorithm {
	return registry.Algorithm{
		Name:     "subgradient_push",
		Summary:  "subgradient-push: push-sum with a gradient step on the estimate, over the round's present arcs (directed graphs)",
		New:      func() registry.Params { p := DefaultParams(); return &p },
		Directed: true,
		Build: registry.BuildWith(func(p registry.Params, env *registry.Env, inst registry.Locals) (registry.Run, error) {
			d, arcs := env.Directed()
			return &gradientRun{p: *p.(*Params), env: env, inst: inst, d: d, arcs: arcs}, nil
		}),
		Needs:    []string{registry.CapLocals},
		NeedsDoc: "local objectives f_i",
		Renamed:  map[string]string{"alpha": "step"},
	}
}

// gradientRun is subgradient-push resolved against one instance.
type gradientRun struct {
	p    Params
	env  *registry.Env
	inst registry.Locals
	d    *graph.Digraph
	arcs graph.ArcProcess
}

func (r *gradientRun) Agent(i int) (consensus.Agent, error) {
	if err := r.env.CheckAgent("subgradient_push", i); err != nil {
		return nil, err
	}
	return NewAgent(r.p, i, r.d, r.arcs, r.inst.Local(i), r.env.Init(i))
}

func (r *gradientRun) Resolved() []registry.Value {
	return []registry.Value{{Name: "alpha", Value: r.p.Step, Note: "step alpha(t) = alpha under schedule " + r.p.Schedule}}
}

// Reference runs the matrix-form subgradient-push on the same draws and
// returns the estimates z_i.
func (r *gradientRun) Reference(rounds int) ([][]float64, error) {
	ref, err := NewReference(r.p, r.d, r.arcs, registry.AllLocals(r.inst, r.env.N), r.env.InitialPoints())
	if err != nil {
		return nil, err
	}
	step := func(t int) error { ref.Step(t); return nil }
	return registry.StepReference(r.env.N, rounds, step, ref.Z)
}

// averageRun is push-sum resolved against one instance: the average of
// the initial points.
type averageRun struct {
	env  *registry.Env
	d    *graph.Digraph
	arcs graph.ArcProcess
	mean []float64 // xbar(0), set by Optimum
	fbar float64   // f* = f(xbar(0))
}

func (r *averageRun) Agent(i int) (consensus.Agent, error) {
	if err := r.env.CheckAgent("push_sum", i); err != nil {
		return nil, err
	}
	return NewAgent(Params{}, i, r.d, r.arcs, nil, r.env.Init(i))
}

func (r *averageRun) Resolved() []registry.Value { return nil }

// Reference runs the matrix-form push-sum on the same draws and returns
// the estimates z_i.
func (r *averageRun) Reference(rounds int) ([][]float64, error) {
	ref, err := NewReference(Params{}, r.d, r.arcs, nil, r.env.InitialPoints())
	if err != nil {
		return nil, err
	}
	step := func(t int) error { ref.Step(t); return nil }
	return registry.StepReference(r.env.N, rounds, step, ref.Z)
}

// Optimum implements registry.Evaluator. Averaging is the minimization of
// f(x) = (1/N) sum_i (1/2) ||x - x_i(0)||^2, whose minimizer is the
// average xbar(0) = (1/N) sum_i x_i(0) (summed in ascending i) and whose
// optimal value f* = (1/N) sum_i (1/2) ||xbar(0) - x_i(0)||^2 is returned.
func (r *averageRun) Optimum() (float64, bool, error) {
	x0 := r.env.InitialPoints()
	r.mean = make([]float64, len(x0[0]))
	for _, x := range x0 {
		for l, v := range x {
			r.mean[l] += v
		}
	}
	inv := 1 / float64(len(x0))
	for l := range r.mean {
		r.mean[l] *= inv
	}
	r.fbar = 0
	for _, x := range x0 {
		r.fbar += float64(0.5 * sqDist(x, r.mean))
	}
	r.fbar *= inv
	return r.fbar, true, nil
}

// Measures declares max_err, which Evaluate computes.
func (r *averageRun) Measures() []consensus.Measure {
	return []consensus.Measure{{Name: "max_err", Reduce: consensus.ReduceMax, Evaluated: true,
		Doc: "max_i ||z_i - xbar(0)||_inf: the largest deviation of an estimate from the exact average of the initial points"}}
}

// Evaluate implements registry.Evaluator for the estimates z_i of the
// agents present: the consensus error (1/N) sum_i ||z_i - zbar||^2 and the
// feasibility sqrt(sum_{edges {i,j}} p_ij^2 ||z_i - z_j||^2) over the
// run's (underlying) graph as observe.Measure computes them for every
// consensus run, the gap f(zbar) - f* = (1/2) ||zbar - xbar(0)||^2
// (computed directly, not as a difference), the distance
// ||zbar - xbar(0)||, and max_err. The mean zbar of the estimates is the
// average at round 0 already (z_i(0) = x_i(0)), so the gap and the
// distance start at 0; max_err is the measure of push-sum's progress.
func (r *averageRun) Evaluate(reps []consensus.Report) (registry.Evaluation, error) {
	if r.mean == nil {
		if _, _, err := r.Optimum(); err != nil {
			return registry.Evaluation{}, err
		}
	}
	m, err := observe.Measure(nil, r.env.Graph, reps)
	if err != nil {
		return registry.Evaluation{}, fmt.Errorf("pushsum: %w", err)
	}
	zbar := make([]float64, len(r.mean))
	var maxErr float64
	n := 0
	for i, rep := range reps {
		if rep.X == nil {
			continue
		}
		if len(rep.X) != len(r.mean) {
			return registry.Evaluation{}, fmt.Errorf("pushsum: agent %d reports %d values, want %d", i, len(rep.X), len(r.mean))
		}
		n++
		for l, v := range rep.X {
			zbar[l] += v
			maxErr = math.Max(maxErr, math.Abs(v-r.mean[l]))
		}
	}
	for l := range zbar {
		zbar[l] /= float64(n)
	}
	d2 := sqDist(zbar, r.mean)
	return registry.Evaluation{
		ConsensusErr: m.ConsensusErr,
		ObjValue:     r.fbar + float64(0.5*d2),
		OptGap:       0.5 * d2,
		DistToOpt:    math.Sqrt(d2),
		Feasibility:  m.Feasibility,
		Values:       []float64{maxErr},
	}, nil
}

func sqDist(a, b []float64) float64 {
	var s float64
	for l := range a {
		d := a[l] - b[l]
		s += float64(d * d)
	}
	return s
}
