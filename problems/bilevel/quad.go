package bilevel

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Params is the problem block of kind bilevel_quad.
type Params struct {
	Dim int `yaml:"dim" doc:"dimension d >= 1 of y and of every block x_k"`
}

// Validate checks dim >= 1.
func (p *Params) Validate() error {
	if p.Dim < 1 {
		return registry.FieldErrors{{Key: "dim", Msg: fmt.Sprintf("must be >= 1, got %d", p.Dim)}}
	}
	return nil
}

// Problem describes bilevel_quad, a tiny bilevel problem with a
// closed-form solution, split over K task agents (N - 1 of the run):
//
//	min_{x, y} (1/2) ||y - b||^2  s.t.  y in argmin_{y'} sum_{k=1..K} (1/2) ||y' - x_k||^2,
//
// x_k, y, b in R^d, b drawn standard normal from the run seed. The lower
// level gives y*(x) = (1/K) sum_k x_k, so the optimal value is f* = 0,
// reached at y = b by every x with mean b. Its measure y_err = ||y - b||
// is also the distance to the optimum in y.
func Problem() registry.Problem {
	return registry.Problem{
		Kind:    "bilevel_quad",
		Summary: "tiny bilevel problem with a closed-form solution: min ||y - b||^2/2 s.t. y in argmin sum_k ||y - x_k||^2/2 (f* = 0 at y = b)",
		New:     func() registry.Params { return &Params{Dim: 2} },
		Build: func(p registry.Params, env registry.ProblemEnv) (registry.Instance, error) {
			d := p.(*Params).Dim
			rng := streamQuad.Rand(env.Seed, 0, 0)
			b := make([]float64, d)
			for j := range b {
				b[j] = rng.NormFloat64()
			}
			return &quadInstance{b: b}, nil
		},
		Offers: []string{Cap},
	}
}

// streamQuad is the common-randomness stream of b. Its name predates the
// package: renaming it would change every bilevel_quad instance.
var streamQuad = graph.NamedStream("consensus/tsp.bilevel-quad")

// quadInstance is bilevel_quad.
type quadInstance struct{ b []float64 }

func (q *quadInstance) Dim() int { return 0 }
func (q *quadInstance) Central() (*objective.Problem, error) {
	return nil, fmt.Errorf("bilevel_quad: %w", registry.ErrNoCentral)
}
func (q *quadInstance) LowerTerms() int          { return 1 }
func (q *quadInstance) Optimum() (float64, bool) { return 0, true }
func (q *quadInstance) Columns() []consensus.Measure {
	return []consensus.Measure{{Name: "y_err", Reduce: consensus.ReduceMax, Doc: "||y - b||, the distance of y to the solution b"}}
}
func (q *quadInstance) Measure(_, y []float64) ([]float64, float64, error) {
	if len(y) != len(q.b) {
		return nil, 0, fmt.Errorf("bilevel_quad: y has %d values, want %d", len(y), len(q.b))
	}
	e := math.Sqrt(dist2(y, q.b))
	return []float64{e}, e, nil
}

// Split cuts the lower level into k tasks (1/2) ||y - x_k||^2.
func (q *quadInstance) Split(k int) (*Split, error) {
	d := len(q.b)
	s := &Split{NY: d, F0: quadUpper{b: q.b}}
	for range k {
		s.Tasks = append(s.Tasks, quadTask{})
		s.NX = append(s.NX, d)
	}
	return s, nil
}

// quadUpper is F0(y) = (1/2) ||y - b||^2.
type quadUpper struct{ b []float64 }

func (f quadUpper) Value(_, y []float64) float64 { return dist2(y, f.b) / 2 }
func (f quadUpper) Grad(_, y, gx, gy []float64) {
	clear(gx)
	for j := range gy {
		gy[j] = y[j] - f.b[j]
	}
}

// quadTask is G_k(x_k, y) = (1/2) ||y - x_k||^2.
type quadTask struct{}

func (quadTask) Value(x, y []float64) float64 { return dist2(y, x) / 2 }
func (quadTask) Grad(x, y, gx, gy []float64) {
	for j := range gx {
		gx[j] = x[j] - y[j]
	}
	for j := range gy {
		gy[j] = y[j] - x[j]
	}
}

// dist2 returns ||a - b||^2.
func dist2(a, b []float64) float64 {
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}
