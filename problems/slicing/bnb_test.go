package slicing

import (
	"errors"
	"math"
	"testing"
)

// smallGen is an instance size whose placements can often be enumerated.
var smallGen = GenOptions{Nodes: 10, Flows: 3, MinChain: 2, MaxChain: 3}

// TestBranchAndBoundMatchesEnumeration checks BranchAndBound against
// BinaryOptimum's enumeration on the example and on the smallGen generated
// instances with at most 3,000 placements, and that the placement it
// returns routes at its objective.
func TestBranchAndBoundMatchesEnumeration(t *testing.T) {
	ex0, err := DecodeInstance([]byte(ExampleJSON))
	if err != nil {
		t.Fatal(err)
	}
	insts := []*Instance{ex0}
	for seed := uint64(1); seed <= 8; seed++ {
		in, err := Generate(smallGen, seed)
		if err != nil {
			t.Fatal(err)
		}
		insts = append(insts, in)
	}
	checked := 0
	for q, in := range insts {
		md, err := NewModel(in)
		if err != nil {
			t.Fatal(err)
		}
		bin, err := BinaryOptimum(md, 3000)
		if err != nil {
			continue // too many placements to enumerate
		}
		checked++
		ex, err := BranchAndBound(md, 10000)
		if err != nil {
			t.Fatalf("instance %d: %v", q, err)
		}
		if math.Abs(ex.Objective-bin.Objective) > 1e-7*bin.Objective {
			t.Errorf("instance %d: branch and bound %v, enumeration %v", q, ex.Objective, bin.Objective)
		}
		obj, err := PathFixed(md, ex.Place)
		if err != nil || math.Abs(obj-ex.Objective) > 1e-7*obj {
			t.Errorf("instance %d: the placement routes at %v (%v), want %v", q, obj, err, ex.Objective)
		}
		lp, err := PathLP(md)
		if err != nil || math.Abs(lp-ex.LPBound) > 1e-7*lp {
			t.Errorf("instance %d: LP bound %v, PathLP %v (%v)", q, ex.LPBound, lp, err)
		}
	}
	if checked < 3 {
		t.Fatalf("only %d instances smallGen enough to enumerate", checked)
	}
}

// TestBranchAndBoundLimits checks the node limit and an instance whose
// LP is feasible but no binary placement is.
func TestBranchAndBoundLimits(t *testing.T) {
	in, err := Generate(Medium, 2)
	if err != nil {
		t.Fatal(err)
	}
	md, err := NewModel(in)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := BranchAndBound(md, 3)
	if !errors.Is(err, ErrNodeLimit) {
		t.Errorf("3 nodes: %v, want ErrNodeLimit", err)
	}
	// Medium seed 2's binary optimum is 134.011164 (scipy's MILP; the
	// full search in TestBranchAndBoundMatchesMILP's logs).
	if !(ex.Bound >= ex.LPBound*(1-1e-9) && ex.Bound <= 134.011164) {
		t.Errorf("3 nodes: bound %v, want between the LP bound %v and the binary optimum 134.011164", ex.Bound, ex.LPBound)
	}
	bad, err := DecodeInstance([]byte(ExampleJSON))
	if err != nil {
		t.Fatal(err)
	}
	// The firewall hosts 1 and 4 get capacity 1.5 each: the LP splits
	// the flow of rate 2 between them, no binary placement fits it.
	bad.NodeCap[1], bad.NodeCap[4] = 1.5, 1.5
	md, err = NewModel(bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PathLP(md); err != nil {
		t.Fatalf("the LP of the cut example: %v, want feasible", err)
	}
	if _, err := BranchAndBound(md, 1000); !errors.Is(err, ErrInfeasible) {
		t.Errorf("cut example: %v, want ErrInfeasible", err)
	}
}
