// Package gossip is what the gossip methods (dgd, tracking) share: the
// keys of their blocks that mean the same (step, gradient, mixing), the
// exchange of a vector v with the neighbours present in a round and its
// mix
//
//	sum_j w_ij(zeta_t) v_j   (w_ii v_i for j = i; v_i in place of a missing v_j),
//
// with W(zeta_t) the mixing matrix of the round's present edges
// (graph.Mixing, edge stream graph.StreamDual), and an agent's gradient
// oracle g_i^t. Each method keeps its own iteration, agent and reference.
//
// gossip imports consensus, consensus/registry, objective and graph only;
// it must not import node, coordinator, scenarios or cmd.
package gossip

import (
	"fmt"
	"math/rand/v2"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Gradient oracles of the key gradient.
const (
	// GradientStochastic uses G_i(x_i, xi_i^t), one call of
	// objective.Local.StochGrad per round.
	GradientStochastic = "stochastic"
	// GradientFull uses grad f_i(x_i).
	GradientFull = "full"
)

// EdgeDraw is the draw index of the round's edges zeta_t.
const EdgeDraw = int(graph.StreamDual)

// Mixing is the block mixing: {rule, weight} of a gossip method's keys:
// the weights w_ij(zeta) of W(zeta). The zero value is Metropolis-Hastings.
type Mixing struct {
	// Rule is graph.MixMetropolis (also when empty) or graph.MixUniform.
	Rule string `yaml:"rule" doc:"mixing weights on the round's present edges: metropolis|uniform"`
	// Weight is the edge weight w of graph.MixUniform, in (0, 1/d_max).
	Weight float64 `yaml:"weight,omitempty" doc:"uniform only: edge weight w in (0, 1/d_max)"`
}

// Graph returns the mixing rule as package graph computes it.
func (m Mixing) Graph() graph.Mixing { return graph.Mixing{Rule: m.Rule, Alpha: m.Weight} }

// Check adds the errors of the keys step, gradient and mixing, which
// every gossip method has, to errs: step > 0 and finite, gradient
// stochastic or full (empty: the method's default), and the mixing rule
// (empty: metropolis) with its weight.
func Check(errs *registry.FieldErrors, step float64, gradient string, m Mixing) {
	errs.Check("step", &step, registry.Positive)
	if gradient != "" {
		errs.OneOf("gradient", gradient, GradientStochastic, GradientFull)
	}
	switch {
	case m.Rule != "" && !errs.OneOf("mixing.rule", m.Rule, graph.MixMetropolis, graph.MixUniform):
	case m.Rule == graph.MixUniform && !(m.Weight > 0 && m.Weight < 1):
		errs.Add("mixing.weight", "rule uniform needs 0 < weight < 1/d_max, got %s", registry.Num(m.Weight))
	case m.Rule != graph.MixUniform && m.Weight != 0:
		errs.Add("mixing.weight", "is only used by rule uniform: leave it out for metropolis, got %s", registry.Num(m.Weight))
	}
}

// CheckFor returns the error of m on graph g, keyed mixing.weight: the
// uniform weight must be below 1/d_max(g).
func (m Mixing) CheckFor(g *graph.Graph) error {
	if err := m.Graph().ValidateFor(g); err != nil {
		return registry.FieldErrors{{Key: "mixing.weight", Msg: err.Error()}}
	}
	return nil
}

// Renamed are the keys that the blocks of the gossip methods had before
// their keys were named after their concepts, with the keys that replace
// them.
var Renamed = map[string]string{"alpha": "step", "weights": "mixing", "weights.rule": "mixing.rule", "weights.alpha": "mixing.weight"}

// CheckAgent checks the arguments of a gossip agent id over graph g and
// edge process proc with objective f (may be nil where the method allows
// pure gossip) and initial point x0, and m on g.
func CheckAgent(m Mixing, id int, g *graph.Graph, proc graph.EdgeProcess, f objective.Local, x0 []float64) error {
	switch {
	case g == nil || proc == nil:
		return fmt.Errorf("graph and edge process are required")
	case id < 0 || id >= g.N:
		return fmt.Errorf("id must be in [0, %d)", g.N)
	case len(x0) == 0:
		return fmt.Errorf("empty initial point")
	case f != nil && f.Dim() != len(x0):
		return fmt.Errorf("initial point has length %d, objective dimension is %d", len(x0), f.Dim())
	}
	if err := m.Graph().ValidateFor(g); err != nil {
		return fmt.Errorf("mixing: %w", err)
	}
	return nil
}

// Oracle is the gradient g_i^t of an agent's objective f (nil: zero),
// full or stochastic, counting its calls.
type Oracle struct {
	full bool
	seed uint64
	f    objective.Local
	pcg  *rand.PCG
	rng  *rand.Rand
	// Evals counts full gradients, or stochastic samples.
	Evals int64
}

// NewOracle returns the oracle of f under gradient (GradientFull or
// GradientStochastic), whose samples come from the run seed.
func NewOracle(gradient string, seed uint64, f objective.Local) *Oracle {
	o := &Oracle{full: gradient == GradientFull, seed: seed, f: f, pcg: rand.NewPCG(0, 0)}
	o.rng = rand.New(o.pcg)
	return o
}

// Grad writes agent i's gradient of round t at x into d: grad f_i(x), or
// G_i(x, xi_i^t) with the samples of agent i's stream of round t.
func (o *Oracle) Grad(t, i int, x, d []float64) {
	switch {
	case o.f == nil:
		clear(d)
	case o.full:
		o.f.Grad(x, d)
		o.Evals++
	default:
		graph.SeedSample(o.pcg, o.seed, t, i)
		o.Evals += int64(o.f.StochGrad(x, d, o.rng))
	}
}

// Mixer is agent i's side of the one-phase exchange of a vector with the
// neighbours present in round t, and of its mix.
type Mixer struct {
	m    graph.Mixing
	g    *graph.Graph
	proc graph.EdgeProcess
	id   int
	w    []float64 // w_ij(zeta_t) of the k-th neighbour, 0 if absent
	wii  float64
	out  consensus.Outbox
}

// NewMixer returns agent id's mixer over graph g and edge process proc.
func NewMixer(m Mixing, id int, g *graph.Graph, proc graph.EdgeProcess) *Mixer {
	return &Mixer{m: m.Graph(), g: g, proc: proc, id: id, w: make([]float64, g.Degree(id))}
}

// Send computes row i of W(zeta_t) and returns the outbox that sends v to
// the present neighbours and expects their v_j. The outbox is the
// mixer's and stays valid until the next Send.
func (x *Mixer) Send(t int, v []float64) consensus.Outbox {
	x.wii = x.m.Row(x.g, x.proc, t, EdgeDraw, x.id, x.w)
	x.out.Msgs, x.out.Expect = x.out.Msgs[:0], x.out.Expect[:0]
	for k, j := range x.g.Neighbors(x.id) {
		if x.w[k] > 0 {
			x.out.Msgs = append(x.out.Msgs, consensus.Msg{From: x.id, To: j, Round: t, Data: v})
			x.out.Expect = append(x.out.Expect, j)
		}
	}
	return x.out
}

// Mix writes w_ii v + sum_j w_ij v_j into dst for the row of the last
// Send, with v in place of a missing v_j, adding in ascending neighbour
// order. Products are rounded (float64) before they are added, so that no
// platform fuses them and all get the same bits. A message of the wrong
// length or from an unexpected sender is an error.
func (x *Mixer) Mix(v []float64, in consensus.Inbox, dst []float64) error {
	for l, vl := range v {
		dst[l] = float64(x.wii * vl)
	}
	for k, j := range x.g.Neighbors(x.id) {
		vj := v // stands in for a missing v_j
		if x.w[k] == 0 {
			continue
		} else if len(in.Msgs) > 0 && in.Msgs[0].From == j {
			vj, in.Msgs = in.Msgs[0].Data, in.Msgs[1:]
		}
		if len(vj) != len(v) {
			return fmt.Errorf("the message of agent %d has %d values, want %d", j, len(vj), len(v))
		}
		for l, vl := range vj {
			dst[l] += float64(x.w[k] * vl)
		}
	}
	if len(in.Msgs) > 0 {
		return fmt.Errorf("unexpected message from agent %d", in.Msgs[0].From)
	}
	return nil
}
