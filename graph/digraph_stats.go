package graph

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// DirectedStats summarises a digraph: size, degrees, distances, arc
// probabilities and the spectra of its mean push-sum and push-pull
// matrices (see MeanColumnStochastic).
type DirectedStats struct {
	N, Arcs           int
	MinOut, MaxOut    int
	MinIn, MaxIn      int
	StronglyConnected bool
	Diameter          int     // directed; -1 if not strongly connected
	MinP, MeanP, MaxP float64 // over arcs; 0 without arcs
	// Period is the number of digraphs of a sequence, 1 for a digraph.
	Period int
	// RateC and RateR are the per-round rates of the mean dynamics:
	// |lambda_2(E[C])| and |lambda_2(E[R])| for a digraph, and for a
	// sequence |lambda_2(E[C_{P-1}] ... E[C_0])|^(1/P) (and the same with
	// R), since its rounds follow the schedule.
	RateC, RateR float64
	// PiMin and PiMax are the extreme entries of N pi, pi the Perron
	// vector of E[C] (of the period's product for a sequence): 1 on a
	// balanced digraph, and the spread of the weights y_i that push-sum's
	// ratio corrects.
	PiMin, PiMax float64
}

// Stats computes the summary of d with its arcs drawn independently with
// their p_ij (ArcBernoulli). It fails only if an eigendecomposition does
// not converge.
func (d *Digraph) Stats() (DirectedStats, error) {
	s := d.combinatorial()
	s.Period = 1
	if err := s.spectra(d.MeanColumnStochastic(), d.MeanRowStochastic(), 1); err != nil {
		return DirectedStats{}, err
	}
	return s, nil
}

// Stats computes the summary of the sequence: the union's size, degrees,
// distances and mean arc probabilities, and the rates of the period's
// product of mean matrices (SequenceArcs).
func (q *Sequence) Stats() (DirectedStats, error) {
	s := q.union.combinatorial()
	s.Period = q.Period()
	n := q.union.N
	c, r := identity(n), identity(n)
	for _, d := range q.phases {
		var nc, nr mat.Dense
		nc.Mul(d.MeanColumnStochastic(), c)
		nr.Mul(d.MeanRowStochastic(), r)
		c, r = &nc, &nr
	}
	if err := s.spectra(c, r, q.Period()); err != nil {
		return DirectedStats{}, err
	}
	return s, nil
}

// combinatorial fills the fields that need no spectrum.
func (d *Digraph) combinatorial() DirectedStats {
	s := DirectedStats{N: d.N, Arcs: len(d.Arcs), StronglyConnected: d.StronglyConnected(), Diameter: d.Diameter(),
		MinOut: d.N, MinIn: d.N}
	for i := range d.N {
		s.MinOut, s.MaxOut = min(s.MinOut, d.OutDegree(i)), max(s.MaxOut, d.OutDegree(i))
		s.MinIn, s.MaxIn = min(s.MinIn, d.InDegree(i)), max(s.MaxIn, d.InDegree(i))
	}
	if len(d.Arcs) > 0 {
		s.MinP, s.MaxP = d.Arcs[0].P, d.Arcs[0].P
		for _, a := range d.Arcs {
			s.MeanP += a.P
			s.MinP, s.MaxP = math.Min(s.MinP, a.P), math.Max(s.MaxP, a.P)
		}
		s.MeanP /= float64(len(d.Arcs))
	}
	return s
}

// spectra fills the rates and the Perron spread from the mean matrices c
// and r of a period of the given length.
func (s *DirectedStats) spectra(c, r *mat.Dense, period int) error {
	lc, err := SecondModulus(c)
	if err != nil {
		return fmt.Errorf("graph: directed stats: E[C]: %w", err)
	}
	lr, err := SecondModulus(r)
	if err != nil {
		return fmt.Errorf("graph: directed stats: E[R]: %w", err)
	}
	inv := 1 / float64(period)
	s.RateC, s.RateR = math.Pow(lc, inv), math.Pow(lr, inv)
	pi, err := PerronVector(c)
	if err != nil {
		return fmt.Errorf("graph: directed stats: E[C]: %w", err)
	}
	s.PiMin, s.PiMax = math.Inf(1), 0
	for _, v := range pi {
		v *= float64(s.N)
		s.PiMin, s.PiMax = math.Min(s.PiMin, v), math.Max(s.PiMax, v)
	}
	return nil
}

// String formats the summary as aligned "name  value" lines.
func (s DirectedStats) String() string {
	var b strings.Builder
	row := func(name, format string, v ...any) {
		fmt.Fprintf(&b, "%-28s "+format+"\n", append([]any{name}, v...)...)
	}
	row("arcs", "%d", s.Arcs)
	row("out-degree min/max", "%d / %d", s.MinOut, s.MaxOut)
	row("in-degree min/max", "%d / %d", s.MinIn, s.MaxIn)
	row("strongly connected", "%t", s.StronglyConnected)
	row("directed diameter", "%d", s.Diameter)
	row("arc p_ij min/mean/max", "%.4g / %.4g / %.4g", s.MinP, s.MeanP, s.MaxP)
	if s.Period > 1 {
		row("period", "%d", s.Period)
	}
	row("rate |lambda_2(E[C])|", "%.6g", s.RateC)
	row("rate |lambda_2(E[R])|", "%.6g", s.RateR)
	row("N pi_i min/max (E[C])", "%.4g / %.4g", s.PiMin, s.PiMax)
	return b.String()
}
