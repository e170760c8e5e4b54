package slicing

import (
	"math"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/lockstep"
	problem "github.com/consim/consim/problems/slicing"
)

// TestAgentsMatchReference runs the agents in lockstep beside the
// matrix-form Reference on the same instance and checks that every
// block of w, z and y agrees to 1e-12 after every round.
func TestAgentsMatchReference(t *testing.T) {
	small, err := problem.DecodeInstance([]byte(problem.ExampleJSON))
	if err != nil {
		t.Fatal(err)
	}
	gen, err := problem.Generate(problem.GenOptions{Nodes: 12, Flows: 4, MinChain: 2, MaxChain: 3}, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		in          *problem.Instance
		reg, p, eps float64
		rounds      int
	}{
		{"example/lp", small, 0, 0.5, 0.1, 300},
		{"example/reg", small, 2, 0.5, 0.05, 300},
		{"generated/reg", gen, 1, 0.3, 0.1, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md, err := problem.NewModel(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			cfg := Practical(md, tc.reg, tc.p, tc.eps, 0)
			ref, err := NewReference(cfg, md)
			if err != nil {
				t.Fatal(err)
			}
			agents, err := Agents(cfg, md)
			if err != nil {
				t.Fatal(err)
			}
			as := make([]consensus.Agent, len(agents))
			for i, a := range agents {
				as[i] = a
			}
			d, err := lockstep.New(as)
			if err != nil {
				t.Fatal(err)
			}
			var moved float64
			w0 := ref.W()
			for r := 0; r < tc.rounds; r++ {
				if err := d.Round(r); err != nil {
					t.Fatal(err)
				}
				if err := ref.Step(r); err != nil {
					t.Fatal(err)
				}
				rw, rz, ry := ref.W(), ref.Z(), ref.Y()
				for i, a := range agents {
					lo, hi := md.VarOff[i], md.VarOff[i+1]
					assertClose(t, r, i, "w", a.W(), rw[lo:hi])
					assertClose(t, r, i, "z", a.Z(), rz[lo:hi])
					assertClose(t, r, i, "y", a.Y(), ry[md.RowOff[i]:md.RowOff[i+1]])
				}
				if t.Failed() {
					return
				}
			}
			for c, v := range ref.W() {
				moved = math.Max(moved, math.Abs(v-w0[c]))
			}
			if moved < 0.1 {
				t.Fatalf("the iterates barely moved (max |w_T - w_0| = %v): the comparison is vacuous", moved)
			}
		})
	}
}

func assertClose(t *testing.T, r, i int, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("round %d agent %d: %s has %d values, reference %d", r, i, what, len(got), len(want))
		return
	}
	for k := range got {
		if d := math.Abs(got[k] - want[k]); d > 1e-12*math.Max(1, math.Abs(want[k])) {
			t.Errorf("round %d agent %d: %s[%d] = %v, reference %v (diff %g)", r, i, what, k, got[k], want[k], d)
			return
		}
	}
}
