package qcqp

import (
	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/problems/datafile"
)

// Data is qcqp.json of an export: the QCQP's matrices, each n x n matrix
// as its n rows.
type Data struct {
	Q [][]float64   `json:"Q"`
	D []float64     `json:"d"`
	A [][][]float64 `json:"A"`
	B [][]float64   `json:"b"`
	C []float64     `json:"c"`
	// Box is [lo, hi] of X = [lo, hi]^n.
	Box datafile.Interval `json:"box"`
}

// Export writes the matrices as qcqp.json and states the problem with its
// Reference.
func (i instance) Export(e *datafile.Export) error {
	q := i.q
	rows := func(s *mat.SymDense) [][]float64 {
		out := make([][]float64, q.n)
		for r := range out {
			out[r] = make([]float64, q.n)
			for c := range out[r] {
				out[r][c] = s.At(r, c)
			}
		}
		return out
	}
	d := Data{Q: rows(q.Q), D: q.D, B: q.B, C: q.C, Box: *datafile.BoxOf(q.Box.Lo, q.Box.Hi)}
	for _, a := range q.A {
		d.A = append(d.A, rows(a))
	}
	if err := e.WriteJSON("qcqp.json", d); err != nil {
		return err
	}
	m := &e.Manifest
	m.Dim = q.n
	m.Objective = "min over x in X of f(x) = (1/2) x^T Q x + d^T x s.t. h_j(x) = (1/2) x^T A_j x + b_j^T x + c_j <= 0, j = 1..m, " +
		"X = [lo, hi]^n (Q, d, A, b, c and box in qcqp.json; Q is indefinite, every A_j positive semidefinite)"
	m.Box = datafile.BoxOf(q.Box.Lo, q.Box.Hi)
	ref := q.Reference()
	m.FStar, m.XStar, m.Convex = datafile.Value(ref.F), ref.X, false
	m.FStarIs = i.FStarName()
	if ref.X != nil {
		m.References = map[string]datafile.Value{"multiplier": datafile.Value(ref.Mu)}
		m.Notes = append(m.Notes, "f_star: the global optimum of the generalized trust-region subproblem (one constraint): x* with (Q + mu A_1) x* = -(d + mu b_1), Q + mu A_1 positive semidefinite, h_1(x*) = 0, mu = references.multiplier; x* lies in the box")
	}
	return nil
}

// FStarName says what the reference value of the runs on the QCQP is.
func (i instance) FStarName() string {
	if ref := i.q.Reference(); ref.X == nil {
		return "none: " + ref.Why
	}
	return "global optimum (S-lemma certificate)"
}
