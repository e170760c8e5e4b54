package bilevel

import (
	"math"
	"testing"

	"github.com/consim/consim/consensus/registry"
)

// TestJoinSumsTheBlocks: the joined lower level of a split is G0 plus the
// tasks on their blocks of x, values and gradients, and the joined upper
// level is F0 with a zero x-gradient.
func TestJoinSumsTheBlocks(t *testing.T) {
	b := []float64{1, -2}
	s := &Split{NY: 2, F0: quadUpper{b: b}, Tasks: []Objective{quadTask{}, quadTask{}, quadTask{}}, NX: []int{2, 2, 2}}
	pb, err := s.Join()
	if err != nil {
		t.Fatal(err)
	}
	if pb.NX != 6 || pb.NY != 2 {
		t.Fatalf("joined dims %d, %d, want 6, 2", pb.NX, pb.NY)
	}
	x := []float64{0.5, 1, -1, 2, 3, 0}
	y := []float64{0.25, -0.5}
	gx, gy := make([]float64, 6), make([]float64, 2)
	v := pb.G.(ValueGrader).ValueGrad(x, y, gx, gy)
	var want float64
	wantGy := make([]float64, 2)
	for k := range 3 {
		xk := x[2*k : 2*k+2]
		want += dist2(y, xk) / 2
		for j := range 2 {
			wantGy[j] += y[j] - xk[j]
			if g := gx[2*k+j]; g != xk[j]-y[j] {
				t.Errorf("grad_x g block %d[%d] = %v, want %v", k, j, g, xk[j]-y[j])
			}
		}
	}
	if math.Abs(v-want) > 1e-15 || math.Abs(gy[0]-wantGy[0]) > 1e-15 || math.Abs(gy[1]-wantGy[1]) > 1e-15 {
		t.Errorf("g = %v, grad_y g = %v; want %v, %v", v, gy, want, wantGy)
	}
	pb.F.Grad(x, y, gx, gy)
	for _, g := range gx {
		if g != 0 {
			t.Fatalf("grad_x f = %v, want 0", gx)
		}
	}
	if f := pb.F.Value(x, y); f != dist2(y, b)/2 {
		t.Errorf("f = %v, want ||y - b||^2/2 = %v", f, dist2(y, b)/2)
	}
	if err := (&Split{NY: 2, F0: quadUpper{b: b}}).Validate(); err == nil {
		t.Error("a split without tasks validated")
	}
	if err := pb.CheckStart(make([]float64, 5), y); err == nil {
		t.Error("CheckStart accepted x0 of the wrong length")
	}
}

// TestQuadProblem: bilevel_quad's instance splits into k tasks, its
// optimum f* = 0 is known and its measure is ||y - b||, zero at y = b.
func TestQuadProblem(t *testing.T) {
	p := Problem()
	prm := p.New()
	if err := prm.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := (&Params{}).Validate(); err == nil {
		t.Error("dim 0 validated")
	}
	inst, err := p.Build(prm, registry.ProblemEnv{N: 4, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	pv := inst.(Provider)
	if f, convex := pv.Optimum(); f != 0 || !convex {
		t.Errorf("optimum %v, convex %v; want 0, true", f, convex)
	}
	s, err := pv.Split(3)
	if err != nil || len(s.Tasks) != 3 {
		t.Fatalf("split: %v, %d tasks", err, len(s.Tasks))
	}
	b := inst.(*quadInstance).b
	vals, d, err := pv.Measure(nil, b)
	if err != nil || vals[0] != 0 || d != 0 {
		t.Errorf("measure at y = b: %v, %v, %v; want 0", vals, d, err)
	}
	if _, err := inst.Central(); err == nil {
		t.Error("bilevel_quad has a Central problem")
	}
}
