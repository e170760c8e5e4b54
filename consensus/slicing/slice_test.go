package slicing

import (
	"math"
	"testing"

	problem "github.com/consim/consim/problems/slicing"
)

// TestStageFixesOnePlacement checks that the final stage's flood and
// fixing leave every chain position on exactly one host, within the node
// capacities, with and without 10% message loss, on the example and on a
// medium instance.
func TestStageFixesOnePlacement(t *testing.T) {
	ex, err := problem.DecodeInstance([]byte(problem.ExampleJSON))
	if err != nil {
		t.Fatal(err)
	}
	med, err := problem.Generate(problem.Medium, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []*problem.Instance{ex, med} {
		md, err := problem.NewModel(in)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Practical(md, 2, 0.5, 0.1, 0)
		cfg.Stage = Stage{Start: 1000, Passes: 4, Flood: max(2*in.Nodes, 20), Fix: 200, Thresholds: []float64{0.9, 0.5, 0}}
		for _, loss := range []float64{0, 0.1} {
			res, err := Run(cfg, md, RunOptions{Rounds: cfg.Stage.Start + cfg.Stage.Rounds(), Loss: loss, LossSeed: 3})
			if err != nil {
				t.Fatal(err)
			}
			load := make([]float64, in.Nodes)
			for k, fl := range in.Flows {
				for m := 1; m <= len(fl.Chain); m++ {
					ones := 0
					for _, i := range md.GroupHosts[md.Group(k, m)] {
						switch x := res.W[md.X(i, k, m)]; x {
						case 1:
							ones++
							load[i] += fl.Rate
						case 0:
						default:
							t.Errorf("%d nodes, loss %v: x_%d(%d,%d) = %v, not fixed", in.Nodes, loss, i, k, m, x)
						}
					}
					if ones != 1 {
						t.Errorf("%d nodes, loss %v: position (%d,%d) on %d hosts", in.Nodes, loss, k, m, ones)
					}
				}
			}
			for i, l := range load {
				if l > in.NodeCap[i]*(1+1e-12) {
					t.Errorf("%d nodes, loss %v: node %d loaded %v > mu %v", in.Nodes, loss, i, l, in.NodeCap[i])
				}
			}
			if loss > 0 && res.Dropped == 0 {
				t.Errorf("loss %v dropped nothing", loss)
			}
		}
	}
}

// TestStageValidate checks the stage's field errors.
func TestStageValidate(t *testing.T) {
	for _, s := range []Stage{
		{Start: -1, Passes: 1, Flood: 1, Thresholds: []float64{0}},
		{Start: 10, Passes: 0, Flood: 1, Thresholds: []float64{0}},
		{Start: 10, Passes: 1, Flood: 1},
		{Start: 10, Passes: 1, Flood: 1, Thresholds: []float64{1.5}},
	} {
		if s.Validate() == nil {
			t.Errorf("%+v: no error", s)
		}
	}
	if err := (Stage{}).Validate(); err != nil {
		t.Errorf("no stage: %v", err)
	}
}

// TestStageRepairsToFeasible runs the default final stage on medium
// instance 1, whose flood-and-fix placement has no feasible routing
// (2.5% of the flow cannot be routed): the repair cycles move the
// positions next to the overloaded links until the slice is binary with
// violation <= 1e-4, and its placement routes (PathFixed) at about the
// agents' cost.
func TestStageRepairsToFeasible(t *testing.T) {
	if testing.Short() {
		t.Skip("about 10 s")
	}
	in, err := problem.Generate(problem.Medium, 1)
	if err != nil {
		t.Fatal(err)
	}
	md, err := problem.NewModel(in)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Practical(md, 2, 0.5, 0.1, 0)
	cfg.Stage = DefaultStage(cfg, md, 10000)
	res, err := Run(cfg, md, RunOptions{Rounds: 10000 + cfg.Stage.Rounds() + 10000, Every: 500, Tol: 1e-4})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Measures.Binary || res.Measures.Violation > 1e-4 {
		t.Fatalf("binary %v, violation %.2e: want a feasible binary slice", res.Measures.Binary, res.Measures.Violation)
	}
	place, ok := problem.Placement(md, res.W)
	if !ok {
		t.Fatal("no placement")
	}
	c, err := problem.PathFixed(md, place)
	if err != nil {
		t.Fatalf("the slice's placement does not route: %v", err)
	}
	if math.Abs(c-res.Measures.Objective) > 0.01*c {
		t.Errorf("agents' cost %v, the placement's optimal routing %v", res.Measures.Objective, c)
	}
	t.Logf("slice cost %.4f (placement routed optimally %.4f), violation %.1e, %d rounds", res.Measures.Objective, c, res.Measures.Violation, res.Rounds)
}
