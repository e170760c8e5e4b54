package fairness

import (
	"fmt"
	"math"

	"github.com/consim/consim/dataset"
	"github.com/consim/consim/problems/datafile"
)

// Export writes the training examples after preprocessing (for Adult: the
// encoded features, a constant 1 last) as the rows "train", the label y_k
// in {-1, +1} first, and their sensitive attribute z_k as train-z.csv; the
// held-out set likewise as "test" and test-z.csv when there is one. It
// states problem (6.6) with the independent solve of its convex case.
func (in *instance) Export(e *datafile.Export) error {
	theta, fstar, ok, err := in.Optimum()
	if err != nil {
		return err
	}
	write := func(name string, d *Data) error {
		if _, err := e.WriteRows(name, &dataset.Dataset{X: d.X, Y: d.Y, Dim: d.Dim}); err != nil {
			return err
		}
		z := make([][]float64, d.Rows())
		for k, v := range d.Z {
			z[k] = []float64{v}
		}
		return e.WriteCSV(name+"-z.csv", []string{"z"}, z)
	}
	if err := write("train", in.train); err != nil {
		return err
	}
	if in.test != nil {
		if err := write("test", in.test); err != nil {
			return err
		}
	}
	m := &e.Manifest
	m.Dim = in.train.Dim
	v := map[string]string{
		"logistic": "V(t) = log(1 + exp(-t))",
		"logdiff":  "V(t) = log(1 + exp(-t)) - log(1 + exp(-t - 1))",
		"smooth01": "V(t) = 0 for t > 1, t^3/4 - 3t/4 + 1/2 on [-1, 1], 1 for t < -1",
	}[in.loss.Name()]
	if v == "" {
		v = "V = " + in.loss.Name()
	}
	m.Objective = fmt.Sprintf("min over theta in [-R, R]^d of L(theta) = (1/n) sum_{k=1..n} V(y_k theta^T x_k) s.t. |a^T theta| <= c, "+
		"a = (1/n) sum_k (z_k - zbar) x_k, zbar = (1/n) sum_k z_k; %s; (x_k, y_k) the n rows of train, z_k those of train-z.csv", v)
	m.Constants = map[string]float64{"c": in.c, "R": in.r}
	m.Box = datafile.BoxOf(-in.r, in.r)
	m.Convex = in.loss.Convex()
	if !ok {
		m.FStar = datafile.Value(math.NaN())
		m.FStarIs = in.FStarName()
		return nil
	}
	m.FStar, m.XStar = datafile.Value(fstar), theta
	// Reference certifies L(theta*) - L* <= Gap by weak duality and the
	// Frank-Wolfe gap (see Optimum): the optimum lies at most that below
	// f_star.
	o := in.opt
	m.References = map[string]datafile.Value{"multiplier": datafile.Value(o.Nu), "duality_gap_bound": datafile.Value(o.Gap),
		"lower_bound": datafile.Value(o.Lower), "kkt_residual": datafile.Value(o.KKT)}
	m.Notes = append(m.Notes,
		"f_star: Lagrangian duality on the covariance constraint, each inner problem by projected Newton to a projected gradient below 1e-10, the multiplier by a safeguarded secant search (fairness.Reference)",
		"f_star is the value of a feasible point, at most references.duality_gap_bound above the optimum: L* >= lower_bound = F(theta*) - FW(theta*) - |multiplier| c, F = L + multiplier a^T theta, FW its Frank-Wolfe gap on the box (weak duality)")
	return nil
}

// FStarName says what the reference value of the runs is: the optimum for
// a convex loss, none for the nonconvex ones.
func (in *instance) FStarName() string {
	if in.loss.Convex() {
		return "optimum"
	}
	return "none: the loss " + in.loss.Name() + " is nonconvex and consim solves no reference for it"
}
