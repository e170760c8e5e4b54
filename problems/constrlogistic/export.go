package constrlogistic

import (
	"fmt"
	"strconv"

	"github.com/consim/consim/dataset"
	"github.com/consim/consim/problems/datafile"
)

// Export writes the logistic samples (a_i, y_i) as the rows "samples"
// (the label y_i in {-1, +1} first) and the constraint rows as
// constraints.csv, and states problem (43) with its certified optimum.
func (c *clInstance) Export(e *datafile.Export) error {
	opt, err := c.Optimum()
	if err != nil {
		return err
	}
	f := c.f
	n := f.A.Cols
	d := &dataset.Dataset{X: make([]float64, f.Len()*n), Y: f.Y, Dim: n}
	for i := range f.Len() {
		f.A.AddRow(i, 1, d.X[i*n:(i+1)*n])
	}
	name, err := e.WriteRows("samples", d)
	if err != nil {
		return err
	}
	header := []string{"rhs"}
	for j := range n {
		header = append(header, "w"+strconv.Itoa(j+1))
	}
	header = append(header, "b")
	rows := make([][]float64, c.cons.Len())
	for i := range rows {
		rows[i] = make([]float64, n+2)
		rows[i][0] = c.cons.B[i]
		c.cons.A.AddRow(i, 1, rows[i][1:])
	}
	if err := e.WriteCSV("constraints.csv", header, rows); err != nil {
		return err
	}
	m := &e.Manifest
	m.Dim = n + 1
	m.Objective = fmt.Sprintf("min over x = (w, b) in X = [-bound, bound]^(n+1) of F(x) = (1/s) sum_{i=1..s} log(1 + exp(-y_i (w^T a_i + b))) + lambda ||w||_1 "+
		"s.t. g_j^T x <= rhs_j for every row j of constraints.csv (columns rhs, then g_j over w_1..w_n, b); (a_i, y_i) the s rows of %s, the label first", name)
	m.Constants = map[string]float64{"lambda": c.psi.Lambda, "bound": c.psi.Bound}
	m.Box = datafile.BoxOf(-c.psi.Bound, c.psi.Bound)
	m.FStar, m.XStar, m.Convex = datafile.Value(opt.F), opt.X, true
	m.References = map[string]datafile.Value{
		"kkt_stationarity": datafile.Value(opt.KKT.Stationarity), "kkt_feasibility": datafile.Value(opt.KKT.Feasibility),
		"kkt_complementarity": datafile.Value(opt.KKT.Complementarity)}
	m.Notes = append(m.Notes, "f_star: the augmented Lagrangian solve (SolveALM) certified by its KKT residuals (references.kkt_*), a method independent of the penalty methods it measures")
	return nil
}
