package slicing

import (
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
