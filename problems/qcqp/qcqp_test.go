package qcqp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/objective"
)

func TestNew(t *testing.T) {
	for _, tc := range []struct{ n, m int }{{5, 1}, {20, 1}, {12, 3}} {
		q, err := New(tc.n, tc.m, 9)
		if err != nil {
			t.Fatal(err)
		}
		var eig mat.EigenSym
		if !eig.Factorize(q.Q, false) {
			t.Fatal("eigen")
		}
		if lmin := eig.Values(nil)[0]; math.Abs(lmin+0.1) > 1e-9 {
			t.Errorf("n=%d: lambda_min(Q) = %v, want -0.1", tc.n, lmin)
		}
		for j := range tc.m {
			eig.Factorize(q.A[j], false)
			if l := eig.Values(nil)[0]; l < -1e-9 {
				t.Errorf("n=%d: lambda_min(A_%d) = %v < 0", tc.n, j, l)
			}
			if q.C[j] != -1 {
				t.Errorf("c_%d = %v, want -1", j, q.C[j])
			}
		}
		again, _ := New(tc.n, tc.m, 9)
		other, _ := New(tc.n, tc.m, 10)
		if !mat.Equal(q.Q, again.Q) || mat.Equal(q.Q, other.Q) {
			t.Errorf("n=%d: the instance is not a function of the seed alone", tc.n)
		}
		// Eval against the formula (1/2) x^T M x + lin^T x + const.
		x := make([]float64, tc.n)
		for i := range x {
			x[i] = math.Sin(float64(i + 1))
		}
		xv := mat.NewVecDense(tc.n, x)
		wantF := 0.5*mat.Inner(xv, q.Q, xv) + mat.Dot(xv, mat.NewVecDense(tc.n, q.D))
		if got := q.F(x); math.Abs(got-wantF) > 1e-12*(1+math.Abs(wantF)) {
			t.Errorf("F = %v, want %v", got, wantF)
		}
		h := make([]float64, tc.m)
		q.H(x, h)
		for j := range tc.m {
			want := 0.5*mat.Inner(xv, q.A[j], xv) + mat.Dot(xv, mat.NewVecDense(tc.n, q.B[j])) + q.C[j]
			if math.Abs(h[j]-want) > 1e-12*(1+math.Abs(want)) {
				t.Errorf("h_%d = %v, want %v", j, h[j], want)
			}
		}
		// Gradients against central differences.
		g := make([]float64, tc.n)
		q.GradF(x, g)
		J := q.JacH(x)
		for i := range x {
			e := 1e-6
			xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
			xp[i] += e
			xm[i] -= e
			if fd := (q.F(xp) - q.F(xm)) / (2 * e); math.Abs(fd-g[i]) > 1e-5*(1+math.Abs(g[i])) {
				t.Errorf("grad f[%d] = %v, central difference %v", i, g[i], fd)
			}
			hp, hm := make([]float64, tc.m), make([]float64, tc.m)
			q.H(xp, hp)
			q.H(xm, hm)
			for j := range tc.m {
				if fd := (hp[j] - hm[j]) / (2 * e); math.Abs(fd-J.At(j, i)) > 1e-5*(1+math.Abs(fd)) {
					t.Errorf("J[%d][%d] = %v, central difference %v", j, i, J.At(j, i), fd)
				}
			}
		}
	}
}

// handMade is f = (1/2)||x||^2 + (1, -1)^T x, h = (1/2)||x||^2 - 1/2 on
// [-1, 1]^2.
func handMade(t *testing.T) *QCQP {
	t.Helper()
	I := mat.NewSymDense(2, []float64{1, 0, 0, 1})
	q, err := FromData(I, []float64{1, -1}, []*mat.SymDense{I}, [][]float64{{0, 0}}, []float64{-0.5}, objective.Box{Lo: -1, Hi: 1})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestMeasuresHandMade(t *testing.T) {
	q := handMade(t)
	for _, tc := range []struct {
		name string
		x, y []float64
		want Measures
	}{
		// grad f = (2, -1), grad h = (1, 0), g = (2.5, -1); x_0 at Hi keeps
		// max(g_0, 0) = 2.5, x_1 inside keeps |g_1| = 1; h = 0.
		{"upper bound", []float64{1, 0}, []float64{0.5}, Measures{Stationarity: math.Sqrt(7.25), Objective: 1.5}},
		// grad f = (0, -0.5), grad h = (-1, 0.5), g = (-0.2, -0.4); x_0 at
		// Lo keeps max(-g_0, 0) = 0.2; h = 0.125.
		{"lower bound", []float64{-1, 0.5}, []float64{0.2}, Measures{Stationarity: math.Sqrt(0.2), Feasibility: 0.125, Complementarity: 0.025, Objective: -0.875}},
		// x = (-1, 0), y = 0: g = grad f = (0, -1); x_0 at Lo keeps
		// max(-0, 0) = 0, x_1 inside keeps 1; h = 0 (active, y = 0).
		{"zero multiplier", []float64{-1, 0}, []float64{0}, Measures{Stationarity: 1, Objective: -0.5}},
		// Interior, strictly feasible: x = (0, 0), y = 1: g = (1, -1),
		// h = -0.5, |y h| = 0.5.
		{"slack", []float64{0, 0}, []float64{1}, Measures{Stationarity: math.Sqrt2, Complementarity: 0.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := q.Measure(tc.x, tc.y)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name      string
				got, want float64
			}{
				{"stationarity", got.Stationarity, tc.want.Stationarity},
				{"feasibility", got.Feasibility, tc.want.Feasibility},
				{"complementarity", got.Complementarity, tc.want.Complementarity},
				{"objective", got.Objective, tc.want.Objective},
			} {
				if math.Abs(c.got-c.want) > 1e-14 {
					t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
				}
			}
		})
	}
	if _, err := q.Measure([]float64{0}, []float64{0}); err == nil {
		t.Error("Measure accepted a point of the wrong length")
	}
	if m := (Measures{Stationarity: 0.9, Feasibility: 0.2, Complementarity: 1}); m.Below(1) || !m.Below(1.01) {
		t.Error("Below is not the strict test of all three measures")
	}
}
