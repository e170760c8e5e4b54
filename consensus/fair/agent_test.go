package fair

import (
	"math"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/problems/fairness"
)

// TestAgentsMatchSolve runs 4 data-parallel agents in lockstep and checks
// that their replicas of (theta, s) equal Solve's on the same shards bit
// for bit, in the exact and the sampled-constraint forms, and that the
// agents' gradient counts add up to Solve's.
func TestAgentsMatchSolve(t *testing.T) {
	d, err := fairness.Synthetic(300, math.Pi/4, 7)
	if err != nil {
		t.Fatal(err)
	}
	bounds := []int{0, 100, 250, 420, 600}
	for _, sampled := range []bool{false, true} {
		p := Config{C: 0.2, Rounds: 300, Batch: 16, SampledConstraint: sampled, Seed: 9}
		want, err := Solve(d, fairness.Logistic{}, p, bounds...)
		if err != nil {
			t.Fatal(err)
		}
		agents, err := NewAgents(d, fairness.Logistic{}, p, bounds)
		if err != nil {
			t.Fatal(err)
		}
		as := make([]consensus.Agent, len(agents))
		for i, a := range agents {
			as[i] = a
		}
		drv, err := lockstep.New(as)
		if err != nil {
			t.Fatal(err)
		}
		if err := drv.Run(0, p.Rounds); err != nil {
			t.Fatal(err)
		}
		var evals int64
		for i, a := range agents {
			rep := a.Report()
			evals += rep.GradEvals
			if rep.Round != p.Rounds {
				t.Fatalf("agent %d: %d rounds, want %d", i, rep.Round, p.Rounds)
			}
			for j, v := range want.Theta {
				if rep.X[j] != v {
					t.Fatalf("sampled=%v agent %d: theta_%d = %v, Solve %v", sampled, i, j, rep.X[j], v)
				}
			}
			if rep.X[len(want.Theta)] != want.Slack {
				t.Fatalf("sampled=%v agent %d: slack %v, Solve %v", sampled, i, rep.X[len(want.Theta)], want.Slack)
			}
		}
		if evals != want.Samples {
			t.Errorf("agents evaluated %d samples, Solve %d", evals, want.Samples)
		}
	}
	// One shard or four: the same problem, different rounding only.
	one, err := Solve(d, fairness.Logistic{}, Config{C: 0.2, Rounds: 300, Batch: 16, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	four, _ := Solve(d, fairness.Logistic{}, Config{C: 0.2, Rounds: 300, Batch: 16, Seed: 9}, bounds...)
	for j := range one.Theta {
		if math.Abs(one.Theta[j]-four.Theta[j]) > 1e-9 {
			t.Errorf("theta_%d: one shard %v, four %v", j, one.Theta[j], four.Theta[j])
		}
	}
}
