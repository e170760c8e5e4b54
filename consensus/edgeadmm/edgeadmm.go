// Package edgeadmm is what the decentralized ADMM methods on the graph's
// edges (dadmm, radmm) share: the local subproblem of an agent, solved
// exactly with the prox of f_i (MethodExact) or by one stochastic gradient
// step with proximal weight 1/tau_i (MethodLinearized); the stacked form
// of the agents' blocks that their matrix-form references step; and the
// registration of a method pair, its keys and its resolved values. Each
// method keeps its own iteration, agent and reference.
//
// edgeadmm imports consensus, consensus/registry, objective and graph and
// gonum only; it must not import node, coordinator, scenarios or cmd.
package edgeadmm

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Methods of the local subproblem.
const (
	// MethodExact solves the agent's subproblem exactly with the local
	// prox. It needs objective.ProxOf(f_i) to succeed.
	MethodExact = "exact"
	// MethodLinearized takes one stochastic gradient step on the
	// linearized subproblem with proximal weight 1/tau_i.
	MethodLinearized = "linearized"
)

// CheckMethod returns the error of a configuration's method and step tau
// (0 selects N/L_i per agent), nil when both are allowed.
func CheckMethod(method string, tau float64) error {
	switch {
	case method != MethodExact && method != MethodLinearized:
		return fmt.Errorf("method %q: must be %q or %q", method, MethodExact, MethodLinearized)
	case !Finite(tau) || tau < 0:
		return fmt.Errorf("tau = %v: must be positive and finite (0 for the default)", tau)
	}
	return nil
}

// Normalize fills in the defaults of a configuration's method
// (MethodExact when empty) and penalty (def when 0, the key penalty named
// name) and checks both and the step tau (0 selects N/L_i per agent).
func Normalize(method *string, penalty *float64, def float64, name string, tau float64) error {
	if *method == "" {
		*method = MethodExact
	}
	if *penalty == 0 {
		*penalty = def
	}
	if !Finite(*penalty) || *penalty < 0 {
		return fmt.Errorf("%s = %v: must be positive and finite", name, *penalty)
	}
	return CheckMethod(*method, tau)
}

// Finite reports whether v is neither NaN nor infinite.
func Finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// TauFor returns tau_i of agent objective f among N agents: tau, or
// N / L_i (L_i = f.Smoothness()) when tau is 0, so that the proximal
// weight 1/tau_i = L_i/N dominates the curvature of the linearized term
// (1/N) f_i.
func TauFor(tau float64, f objective.Local, N int) (float64, error) {
	if tau > 0 {
		return tau, nil
	}
	l := f.Smoothness()
	if !(l > 0) || math.IsInf(l, 0) {
		return 0, fmt.Errorf("default tau = N/L_i needs a positive finite L_i, objective has %v", l)
	}
	return float64(N) / l, nil
}

// CheckPoint validates an initial point against the objective.
func CheckPoint(f objective.Local, x0 []float64) error {
	n := f.Dim()
	if n < 1 {
		return fmt.Errorf("objective dimension %d: must be at least 1", n)
	}
	if len(x0) != n {
		return fmt.Errorf("initial point has length %d, objective dimension is %d", len(x0), n)
	}
	return nil
}

// Local is agent i's objective f_i among N agents with what its method
// needs: the exact prox of f_i (MethodExact), or the step tau_i and the
// sampler of the agent's stochastic gradients (MethodLinearized).
type Local struct {
	F objective.Local
	// Prox is the exact prox of F (MethodExact only).
	Prox objective.ProxOperator
	// Tau is the step tau_i (MethodLinearized only).
	Tau float64
	// InvN is 1/N of f = (1/N) sum_i f_i.
	InvN float64
	// GradEvals counts the stochastic gradient samples drawn.
	GradEvals int64

	id   int
	seed uint64
	pcg  *rand.PCG
	rng  *rand.Rand
}

// NewLocal returns agent id's local objective f among N agents under
// method, with step tau (0: N/L_i) and the run seed of the samples.
// MethodExact fails if f has no exact prox (objective.ProxOf);
// MethodLinearized with the default tau fails if f has no positive finite
// smoothness constant.
func NewLocal(method string, tau float64, f objective.Local, id, N int, seed uint64) (*Local, error) {
	l := &Local{F: f, InvN: 1 / float64(N), id: id, seed: seed, pcg: rand.NewPCG(0, 0)}
	l.rng = rand.New(l.pcg)
	var err error
	switch method {
	case MethodExact:
		if l.Prox, err = objective.ProxOf(f); err != nil {
			return nil, fmt.Errorf("exact method: %w", err)
		}
	case MethodLinearized:
		if l.Tau, err = TauFor(tau, f, N); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// AgentLocal checks the arguments of agent id of a method over graph g and
// edge process proc with objective f and initial point x0, and returns
// its Local under method, step tau (0: N/L_i) and the run seed. Its
// errors start with the agent's id.
func AgentLocal(method string, tau float64, seed uint64, id int, g *graph.Graph, proc graph.EdgeProcess, f objective.Local, x0 []float64) (*Local, error) {
	if g == nil || proc == nil || f == nil {
		return nil, fmt.Errorf("agent %d: graph, edge process and objective are required", id)
	}
	if id < 0 || id >= g.N {
		return nil, fmt.Errorf("agent id %d: must be in [0, %d)", id, g.N)
	}
	if err := CheckPoint(f, x0); err != nil {
		return nil, fmt.Errorf("agent %d: %w", id, err)
	}
	l, err := NewLocal(method, tau, f, id, g.N, seed)
	if err != nil {
		return nil, fmt.Errorf("agent %d: %w", id, err)
	}
	return l, nil
}

// Sample writes G_i(x, xi_i^t), the stochastic gradient of f_i at x with
// agent i's samples of round t (graph.SeedSample), into g and counts them.
func (l *Local) Sample(t int, x, g []float64) {
	graph.SeedSample(l.pcg, l.seed, t, l.id)
	l.GradEvals += int64(l.F.StochGrad(x, g, l.rng))
}

// KKTSq returns ||(1/N) grad f_i(x) + lambda||^2 with the full local
// gradient, g its scratch.
func (l *Local) KKTSq(x, lambda, g []float64) float64 {
	l.F.Grad(x, g)
	var s float64
	for k := range g {
		r := float64(g[k]*l.InvN) + lambda[k]
		s += float64(r * r)
	}
	return s
}

// Sq returns ||v||^2.
func Sq(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += float64(x * x)
	}
	return s
}
