package bilevel

import (
	"github.com/consim/consim/problems/datafile"
)

// QuadData is bilevel.json of an export of bilevel_quad: the data of the
// problem the run's star solves.
type QuadData struct {
	// B is b in R^d.
	B []float64 `json:"b"`
	// Tasks is K, the task agents (the run's agents but the upper one).
	Tasks int `json:"tasks"`
}

// Export writes b and K as bilevel.json and states the problem with its
// closed-form optimum f* = 0 at y = b.
func (q *quadInstance) Export(e *datafile.Export) error {
	m := &e.Manifest
	if err := e.WriteJSON("bilevel.json", QuadData{B: q.b, Tasks: m.Agents - 1}); err != nil {
		return err
	}
	m.Dim = len(q.b)
	m.Objective = "min over x_1..x_K, y in R^d of F(y) = (1/2) ||y - b||^2 s.t. y in argmin_{y'} sum_{k=1..K} (1/2) ||y' - x_k||^2 " +
		"(b and K in bilevel.json); the lower level gives y = (1/K) sum_k x_k"
	m.FStar, m.XStar, m.Convex = 0, append([]float64(nil), q.b...), true
	m.Notes = append(m.Notes, "f_star: 0 in closed form, attained at y = b by every x whose blocks have mean b; x_star is y* = b")
	return nil
}
