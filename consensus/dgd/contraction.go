package dgd

import (
	"fmt"
	"math"
)

// Window selects the rounds over which Contraction fits the per-round
// factor, relative to the first value sq[0].
type Window struct {
	// Start skips the transient: the window opens at the first round t
	// with sq[t] <= Start sq[0], once the faster modes have died out.
	Start float64
	// Floor stops the window before the float noise floor: it closes at
	// the last round before the first t with sq[t] < Floor sq[0]. Floor
	// must lie well above the noise floor of the iteration, about
	// (eps max_i ||x_i||)^2 N / sq[0] with eps = 2^-52.
	Floor float64
}

// DefaultWindow opens the window once sq has fallen 1000-fold and closes
// it at 1e-20 of sq[0], eleven orders of magnitude above the float noise
// floor of iterates of the size of their spread.
var DefaultWindow = Window{Start: 1e-3, Floor: 1e-20}

// Fit is the observed contraction of a run.
type Fit struct {
	// Rate is the per-round factor exp(b), b the least-squares slope of
	// ln sq[t] against t over the window.
	Rate float64
	// From and To are the first and last rounds of the window.
	From, To int
}

// Contraction returns the observed per-round contraction factor of the
// squared disagreement sq[t] after t rounds (of one run, or averaged over
// runs for the mean-square factor): the least-squares fit of ln sq[t] =
// a + b t over the window of w, Rate = exp(b). It is a pure function of
// its arguments. It fails if the window holds fewer than 3 rounds or some
// value in it is not positive and finite.
func Contraction(sq []float64, w Window) (Fit, error) {
	if len(sq) == 0 || !(sq[0] > 0) {
		return Fit{}, fmt.Errorf("dgd: contraction: need sq[0] > 0")
	}
	if !(w.Floor > 0 && w.Floor < w.Start && w.Start <= 1) {
		return Fit{}, fmt.Errorf("dgd: contraction: window start %v and floor %v: need 0 < floor < start <= 1", w.Start, w.Floor)
	}
	from, to := -1, len(sq)-1
	for t, v := range sq {
		if from < 0 && v <= w.Start*sq[0] {
			from = t
		}
		if v < w.Floor*sq[0] {
			to = t - 1
			break
		}
	}
	if from < 0 || to-from < 2 {
		return Fit{}, fmt.Errorf("dgd: contraction: window [%d, %d] of %d rounds holds fewer than 3 rounds", from, to, len(sq))
	}
	var st, sy, stt, sty float64
	for t := from; t <= to; t++ {
		if !(sq[t] > 0) || math.IsInf(sq[t], 0) {
			return Fit{}, fmt.Errorf("dgd: contraction: sq[%d] = %v: must be positive and finite", t, sq[t])
		}
		x, y := float64(t-from), math.Log(sq[t])
		st, sy, stt, sty = st+x, sy+y, stt+float64(x*x), sty+float64(x*y)
	}
	k := float64(to - from + 1)
	b := (float64(k*sty) - float64(st*sy)) / (float64(k*stt) - float64(st*st))
	return Fit{Rate: math.Exp(b), From: from, To: to}, nil
}
