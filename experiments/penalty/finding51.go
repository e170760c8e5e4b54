package penalty

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	penaltyalg "github.com/consim/consim/consensus/penalty"
	"github.com/consim/consim/problems/constrlogistic"
)

// Finding51 is why Section 5.1 cannot converge in objective under the
// printed parameters, whatever the code: its optimum is x* = 0 (the l1
// weight exceeds every partial derivative of the loss at 0), and the
// steps of (9) and (13) are so small that the prox of the l1 term can
// hardly move a coordinate, so the gap, which is mostly lambda ||w_1||_1
// at the random start, stays. Index 0 of the pairs is the constant
// penalty (9), index 1 the dynamic one (13).
type Finding51 struct {
	// MaxAbsXStar is max_j |x*_j| of the reference optimum, and
	// FStarMinusLn2 its F* - log 2 (F(0) = log 2).
	MaxAbsXStar, FStarMinusLn2 float64
	// Lambda is the l1 weight; MaxGradW0 is max_j |d fbar/d w_j (0)| of
	// the sample-average loss the paper plots (x = 0 is optimal for the
	// unconstrained l1 problem when it is at most Lambda).
	Lambda, MaxGradW0 float64
	// SteinFactor is E[sigma'(w^T X + b^)] for X ~ N(0, I) and the ground
	// truth (w^, b^): by Stein's lemma the population gradient at 0 is
	// grad_w f(0) = -SteinFactor w^, so MaxStein = SteinFactor max_j
	// |w^_j| is the population's largest partial derivative.
	SteinFactor, MaxStein float64
	// Lf = 0.25 and Lc2 = ||A||_F^2 are (7)'s constants the steps use;
	// SpectralSq is ||A||_2^2, the smallest valid L of the penalty's
	// gradient for linear constraints.
	Lf, Lc2, SpectralSq float64
	// StepSum is sum_k gamma_k over the run and ProxBound = Lambda
	// StepSum, the most the l1 prox can move a coordinate of the iterate.
	StepSum, ProxBound [2]float64
	// Moved is ||x_{K+1} - x_1||, how far the iterate moved, and Left is
	// ||x_{K+1} - x*||, how far it still is from the optimum.
	Moved, Left [2]float64
	// Sensitivity are the final gaps with L_c2 overridden.
	Sensitivity []Sensitivity51
}

// Sensitivity51 is the outcome of the runs of Algorithm 1 with L_c2
// overridden.
type Sensitivity51 struct {
	Lc2     float64
	Label   string
	StepSum [2]float64
	Gap     [2]float64
}

// steinFactor returns E[sigma'(Z)] for Z ~ N(b, v), by the trapezoidal
// rule on [b - 12 sqrt(v), b + 12 sqrt(v)] with 20,000 intervals (the
// integrand is smooth and bounded by 1/4; the tails beyond 12 standard
// deviations weigh below 1e-32).
func steinFactor(b, v float64) float64 {
	sd := math.Sqrt(v)
	if sd == 0 {
		s := 1 / (1 + math.Exp(-b))
		return s * (1 - s)
	}
	const m = 20000
	lo, h := b-12*sd, 24*sd/m
	var sum float64
	for i := 0; i <= m; i++ {
		z := lo + float64(i)*h
		s := 1 / (1 + math.Exp(-z))
		w := math.Exp(-(z-b)*(z-b)/(2*v)) / (sd * math.Sqrt(2*math.Pi))
		if i == 0 || i == m {
			w /= 2
		}
		sum += s * (1 - s) * w
	}
	return sum * h
}

// finding51 computes the finding on the instance p, its optimum, the
// runs' last iterates xc and xd, and the runs with L_c2 overridden by
// each of lc2s (0 stands for ||A||_2^2), with K iterations and sample
// seed seed.
func finding51(p *constrlogistic.Synthetic, opt constrlogistic.Optimum, bigK int, seed uint64, xc, xd []float64, lc2s []float64) (Finding51, error) {
	n := p.Spec.N
	f := Finding51{Lambda: p.Spec.Lambda, Lf: p.Model.Smoothness(), Lc2: p.Cons.LipGradSq()}
	sp := p.Cons.SpectralNorm()
	f.SpectralSq = sp * sp
	for _, v := range opt.X {
		f.MaxAbsXStar = math.Max(f.MaxAbsXStar, math.Abs(v))
	}
	f.FStarMinusLn2 = opt.F - math.Ln2
	g := make([]float64, n+1)
	p.Data.SumGrad(make([]float64, n+1), g)
	for _, v := range g[:n] {
		f.MaxGradW0 = math.Max(f.MaxGradW0, math.Abs(v)/float64(p.Data.Len()))
	}
	w := p.Model.W[:n]
	f.SteinFactor = steinFactor(p.Model.W[n], floats.Dot(w, w))
	f.MaxStein = f.SteinFactor * math.Max(floats.Max(w), -floats.Min(w))
	for i, rule := range []penaltyalg.Rule1{penaltyalg.Thm1, penaltyalg.Thm2} {
		sum, err := penaltyalg.StepSum1(rule, bigK, f.Lf, f.Lc2)
		if err != nil {
			return Finding51{}, err
		}
		f.StepSum[i], f.ProxBound[i] = sum, f.Lambda*sum
		x := [][]float64{xc, xd}[i]
		f.Moved[i] = floats.Distance(x, p.X1, 2)
		f.Left[i] = floats.Distance(x, opt.X, 2)
	}
	for _, lc2 := range lc2s {
		s := Sensitivity51{Lc2: lc2, Label: fmt.Sprintf("%g", lc2)}
		if lc2 == 0 {
			s.Lc2, s.Label = f.SpectralSq, fmt.Sprintf("||A||_2^2 = %.4g", f.SpectralSq)
		}
		for i, rule := range []penaltyalg.Rule1{penaltyalg.Thm1, penaltyalg.Thm2} {
			tr, _, err := penaltyalg.RunSynthetic(p, penaltyalg.SyntheticRun{Rule: rule, K: bigK, Seed: seed, Every: bigK, FStar: opt.F, Lc2: s.Lc2})
			if err != nil {
				return Finding51{}, err
			}
			s.Gap[i] = tr.Gap(len(tr.Records) - 1)
			if s.StepSum[i], err = penaltyalg.StepSum1(rule, bigK, f.Lf, s.Lc2); err != nil {
				return Finding51{}, err
			}
		}
		f.Sensitivity = append(f.Sensitivity, s)
	}
	return f, nil
}
