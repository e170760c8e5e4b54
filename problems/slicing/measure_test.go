package slicing

import (
	"math"
	"strings"
	"testing"
)

// small returns the example instance (ExampleJSON) and its model.
func small(t *testing.T) (*Instance, *Model) {
	t.Helper()
	in, err := DecodeInstance([]byte(ExampleJSON))
	if err != nil {
		t.Fatal(err)
	}
	md, err := NewModel(in)
	if err != nil {
		t.Fatal(err)
	}
	return in, md
}

// TestEvaluateDetects moves a feasible binary point off each constraint
// family and checks the violation and binary measures respond.
func TestEvaluateDetects(t *testing.T) {
	_, md := small(t)
	bin, err := BinaryOptimum(md, 100)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := Evaluate(md, bin.W)
	if !base.Binary || base.Violation > 1e-9 || base.BinaryFrac != 1 {
		t.Fatalf("binary optimum: %+v", base)
	}
	// Half of a placement moved to the other host: conservation breaks by
	// 0.5, the point is no longer binary.
	w := append([]float64(nil), bin.W...)
	g := md.Group(0, 1)
	for _, c := range md.Groups[g] {
		w[c] = 0.5
	}
	ms, _ := Evaluate(md, w)
	if ms.Binary || math.Abs(ms.Violation-0.5) > 1e-12 {
		t.Errorf("split placement: %+v, want violation 0.5, not binary", ms)
	}
	// A link loaded to twice its capacity.
	w = append([]float64(nil), bin.W...)
	e := md.OutLink[0][0]
	cp := md.Inst.Links[e].Cap
	w[md.U(0, 0, 0, 0)] += 2 * cp / md.Inst.Flows[0].Rate
	ms, _ = Evaluate(md, w)
	if ms.Violation < 1 {
		t.Errorf("overloaded link: violation %v, want >= 1", ms.Violation)
	}
	// Regularizer: 0 at a binary assignment, positive at the centre.
	if p := Regularizer(md, bin.W, 0.5, 0.1); math.Abs(p) > 1e-12 {
		t.Errorf("P_eps at a binary point = %v, want 0", p)
	}
	if p := Regularizer(md, md.Initial(), 0.5, 0.1); !(p > 0) {
		t.Errorf("P_eps at the centre = %v, want > 0", p)
	}
}

// TestReadOptima checks the optima file reader on a good file and names
// what is wrong in bad ones.
func TestReadOptima(t *testing.T) {
	opt, err := ReadOptima(strings.NewReader("seed,binary_opt\n1,150.5\n7,2e2\n"))
	if err != nil || len(opt) != 2 || opt[1] != 150.5 || opt[7] != 200 {
		t.Fatalf("got %v, %v", opt, err)
	}
	for in, want := range map[string]string{
		"seed,opt\n1,2\n":             "header",
		"seed,binary_opt\nx,2\n":      "row 1: seed",
		"seed,binary_opt\n1,-2\n":     "binary_opt",
		"seed,binary_opt\n1,NaN\n":    "binary_opt",
		"seed,binary_opt\n1,2\n1,3\n": "repeated",
		"seed,binary_opt\n1,2,3\n":    "optima",
		"":                            "header",
	} {
		if _, err := ReadOptima(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one naming %q", in, err, want)
		}
	}
}
