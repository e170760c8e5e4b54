package penalty

import (
	"math"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/problems/constrlogistic"
)

// TestAgentsMatchSingleAgent drives the data-parallel agents of Algorithm
// 2 with consensus/lockstep and checks that after every round (outer
// iteration) every agent's x~ equals, bit for bit, that of the single-agent
// RunAlg2 whose full gradient is summed over the same shards, and agrees
// with the unsharded run to rounding.
func TestAgentsMatchSingleAgent(t *testing.T) {
	p := smallProblem(t, 150, 5, 4, 3)
	bounds := []int{0, 40, 41, 97, 150}
	for _, rule := range []Rule2{Thm3ii, Thm4ii, Thm4i} {
		const rounds = 12
		cfg := AgentConfig{Rule: rule, K: rounds, X0: p.X0, Seed: 9, Bounds: bounds, Lip: lipOf(p.F), Cons: p.Cons, Psi: p.Psi}
		agents, err := NewAgents(cfg, func(a int) constrlogistic.FiniteSum { return p.F.Slice(bounds[a], bounds[a+1]) })
		if err != nil {
			t.Fatal(err)
		}
		ca := make([]consensus.Agent, len(agents))
		for i, a := range agents {
			ca[i] = a
		}
		d, err := lockstep.New(ca)
		if err != nil {
			t.Fatal(err)
		}
		for k := 1; k <= rounds; k++ {
			if err := d.Round(k - 1); err != nil {
				t.Fatal(err)
			}
			_, want, err := RunAlg2(p.F, p.Cons, p.Psi, Alg2Config{Rule: rule, K: rounds, Outer: k, X0: p.X0, Seed: 9, Shards: bounds, Every: k})
			if err != nil {
				t.Fatal(err)
			}
			_, plain, err := RunAlg2(p.F, p.Cons, p.Psi, Alg2Config{Rule: rule, K: rounds, Outer: k, X0: p.X0, Seed: 9, Every: k})
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range agents {
				got := a.X()
				for j := range got {
					if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
						t.Fatalf("%v k=%d agent %d: x[%d] = %.17g, single-agent %.17g", rule, k, a.ID(), j, got[j], want[j])
					}
				}
			}
			if dd := maxAbsDiff(want, plain); dd > 1e-12 {
				t.Errorf("%v k=%d: sharded and unsharded full-gradient sums differ by %g", rule, k, dd)
			}
		}
		var evals int64
		for _, a := range agents {
			r := a.Report()
			if r.Round != rounds {
				t.Fatalf("agent %d reports %d rounds", r.ID, r.Round)
			}
			evals += r.GradEvals
		}
		tr, _, _ := RunAlg2(p.F, p.Cons, p.Psi, Alg2Config{Rule: rule, K: rounds, X0: p.X0, Seed: 9})
		if evals != tr.Last().GradEvals {
			t.Errorf("%v: agents evaluated %d gradients, single agent %d", rule, evals, tr.Last().GradEvals)
		}
	}
}
