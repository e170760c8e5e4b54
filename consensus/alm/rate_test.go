package alm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// rateCase is a graph with its ALM configuration on interpolating least
// squares (or, with noisy set, least squares without a common minimizer).
type rateCase struct {
	g      *graph.Graph
	cfg    Config
	locals []objective.Local
	xstar  []float64
}

func newRateCase(t *testing.T, g *graph.Graph, n int, noisy, same bool) rateCase {
	t.Helper()
	locals, xs, err := InterpolatingLS(g.N, n, n+3, 4)
	if err != nil {
		t.Fatal(err)
	}
	if noisy {
		rng := rand.New(rand.NewPCG(9, 9))
		for _, l := range locals {
			for k := range l.(*FullBatchLS).B {
				l.(*FullBatchLS).B[k] += rng.NormFloat64()
			}
		}
	}
	c, err := ConstantsFor(g, locals)
	if err != nil {
		t.Fatal(err)
	}
	sc := 1 / c.Lf
	cfg := Config{Steps: Practical(c.Scaled(sc), 1), Scale: sc, Safeguard: SafeguardNone, SameDraw: same}
	return rateCase{g: g, cfg: cfg, locals: locals, xstar: xs}
}

// stacked returns the reference's state (x, y, z).
func stacked(r *Reference) []float64 {
	out := append([]float64(nil), r.x.RawVector().Data...)
	if r.y != nil {
		out = append(out, r.y.RawVector().Data...)
	}
	return append(out, r.z.RawVector().Data...)
}

// TestRateModelStepMatchesReference checks the affine map built from the
// update against the matrix-form reference: w_{t+1} = M(zeta_t) w_t + c on
// the reference's own draws, to 1e-12 relative, for 40 rounds of a random
// graph with unequal p_e and least squares without a common minimizer,
// with independent draws and with SameDraw.
func TestRateModelStepMatchesReference(t *testing.T) {
	g, err := randomGraph(5, 0.4, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for k := range g.Edges {
		g.Edges[k].P = 0.2 + 0.7*rng.Float64()
	}
	for _, same := range []bool{false, true} {
		rc := newRateCase(t, g, 2, true, same)
		m, err := NewRateModel(rc.cfg, g, rc.locals)
		if err != nil {
			t.Fatal(err)
		}
		if !m.Deterministic {
			t.Fatal("full-batch least squares: not deterministic")
		}
		proc := graph.Bernoulli{G: g, Seed: 17}
		x0 := make([][]float64, g.N)
		for i := range x0 {
			x0[i] = []float64{rng.NormFloat64(), rng.NormFloat64()}
		}
		ref, err := NewReference(rc.cfg, g, proc, rc.locals, objective.Box{Lo: math.Inf(-1), Hi: math.Inf(1)}, x0)
		if err != nil {
			t.Fatal(err)
		}
		var worst, moved float64
		for r := range 40 {
			w := mat.NewVecDense(m.D(), stacked(ref))
			var pred mat.VecDense
			pred.MulVec(m.Matrix(proc, r), w)
			pred.AddVec(&pred, mat.NewVecDense(m.D(), m.C))
			if err := ref.Step(r); err != nil {
				t.Fatal(err)
			}
			got := stacked(ref)
			for k, v := range got {
				worst = math.Max(worst, math.Abs(v-pred.AtVec(k))/math.Max(1, math.Abs(v)))
				moved = math.Max(moved, math.Abs(v-w.AtVec(k)))
			}
		}
		if worst > 1e-12 || moved < 1e-3 {
			t.Errorf("same draw %v: M(zeta) w + c is off the reference by %.3g relative (largest step %.3g)", same, worst, moved)
		}
	}
}

// fixedDraws is an edge process that presents pattern bit d*|E| + e for
// draw d of edge e in every round.
type fixedDraws struct {
	g       *graph.Graph
	pattern int
}

func (f fixedDraws) Active(_, d, i, j int) bool {
	for e, ed := range f.g.Edges {
		if ed.I == i && ed.J == j {
			return f.pattern>>(d*len(f.g.Edges)+e)&1 == 1
		}
	}
	return false
}

// TestRateModelMomentsBruteForce compares E[M] and T(S) = E[M S M^T] with
// their definitions, summed over all 2^(3|E|) draw patterns of a path of
// three agents with unequal p_e, for random symmetric S, with independent
// draws and with SameDraw.
func TestRateModelMomentsBruteForce(t *testing.T) {
	g, err := graph.New(3, []graph.Edge{{I: 0, J: 1, P: 0.3}, {I: 1, J: 2, P: 0.65}})
	if err != nil {
		t.Fatal(err)
	}
	for _, same := range []bool{false, true} {
		rc := newRateCase(t, g, 2, true, same)
		m, err := NewRateModel(rc.cfg, g, rc.locals)
		if err != nil {
			t.Fatal(err)
		}
		D, E := m.D(), len(g.Edges)
		rng := rand.New(rand.NewPCG(1, 1))
		s := mat.NewDense(D, D, nil)
		for i := range D {
			for j := i; j < D; j++ {
				v := rng.NormFloat64()
				s.Set(i, j, v)
				s.Set(j, i, v)
			}
		}
		mean, second := mat.NewDense(D, D, nil), mat.NewDense(D, D, nil)
		for pat := range 1 << (3 * E) {
			if same && (pat>>(2*E)) != (pat>>E)&(1<<E-1) {
				continue // draw 2 is draw 1
			}
			prob := 1.0
			for d := range 3 {
				if same && d == graph.DrawPenalty {
					continue
				}
				for e, ed := range g.Edges {
					if pat>>(d*E+e)&1 == 1 {
						prob *= ed.P
					} else {
						prob *= 1 - ed.P
					}
				}
			}
			mz := m.Matrix(fixedDraws{g, pat}, 0)
			var tmp, mzs mat.Dense
			tmp.Scale(prob, mz)
			mean.Add(mean, &tmp)
			mzs.Mul(mz, s)
			tmp.Mul(&mzs, mz.T())
			tmp.Scale(prob, &tmp)
			second.Add(second, &tmp)
		}
		got := mat.NewDense(D, D, nil)
		m.SecondMoment(s, got)
		if d := maxDiff(mean, m.Mean); d > 1e-14 {
			t.Errorf("same draw %v: E[M] off by %.3g", same, d)
		}
		if d := maxDiff(second, got); d > 1e-12*mat.Norm(second, math.Inf(1)) {
			t.Errorf("same draw %v: E[M S M^T] off by %.3g", same, d)
		}
	}
}

func maxDiff(a, b *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, math.Inf(1))
}

// TestRateModelRadii checks MeanSquare against the eigenvalues of the
// dense D^2 x D^2 matrix of T on a triangle and a path, and the cycle
// theorem of the file comment: on the triangle (a cycle) with p < 1,
// rho(T) >= 1 while rho(E[M])^2 < 1; on the path (a tree) rho(T) < 1;
// with p = 1, rho(T) = rho(E[M])^2 < 1 on both.
func TestRateModelRadii(t *testing.T) {
	ring, _ := graph.Ring(3)
	path, _ := graph.Path(3)
	for _, tc := range []struct {
		name  string
		g     *graph.Graph
		p     float64
		cycle bool
	}{{"triangle", ring, 0.5, true}, {"path", path, 0.5, false}, {"triangle", ring, 1, false}, {"path", path, 1, false}} {
		g, err := tc.g.WithUniformP(tc.p)
		if err != nil {
			t.Fatal(err)
		}
		rc := newRateCase(t, g, 1, false, false)
		m, err := NewRateModel(rc.cfg, g, rc.locals)
		if err != nil {
			t.Fatal(err)
		}
		mean, err := m.MeanRadius()
		if err != nil {
			t.Fatal(err)
		}
		ms, err := m.MeanSquare(MeanSquareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		D := m.D()
		if tc.p < 1 {
			full := mat.NewDense(D*D, D*D, nil)
			for k := range D * D {
				e := mat.NewDense(D, D, nil)
				e.Set(k/D, k%D, 1)
				out := mat.NewDense(D, D, nil)
				m.SecondMoment(e, out)
				for l, v := range out.RawMatrix().Data {
					full.Set(l, k, v)
				}
			}
			var eig mat.Eigen
			if !eig.Factorize(full, mat.EigenNone) {
				t.Fatal("eigen of T")
			}
			var rho float64
			for _, v := range eig.Values(nil) {
				rho = math.Max(rho, math.Hypot(real(v), imag(v)))
			}
			if math.Abs(rho-ms.Rate) > 1e-8 {
				t.Errorf("%s p=%g: rho(T) %.12f by Arnoldi, %.12f dense", tc.name, tc.p, ms.Rate, rho)
			}
		}
		t.Logf("%s p=%g: rho(E[M])^2 %.8f, rho(T) %.8f", tc.name, tc.p, mean*mean, ms.Rate)
		switch {
		case !(mean < 1):
			t.Errorf("%s p=%g: rho(E[M]) = %v, want < 1", tc.name, tc.p, mean)
		case tc.cycle && ms.Rate < 1-1e-9:
			t.Errorf("%s p=%g: rho(T) = %.10f, want >= 1 on a cycle", tc.name, tc.p, ms.Rate)
		case !tc.cycle && !(ms.Rate < 1):
			t.Errorf("%s p=%g: rho(T) = %.10f, want < 1", tc.name, tc.p, ms.Rate)
		case mean*mean > ms.Rate+1e-12:
			t.Errorf("%s p=%g: rho(E[M])^2 %.10f above rho(T) %.10f", tc.name, tc.p, mean*mean, ms.Rate)
		case tc.p == 1 && math.Abs(mean*mean-ms.Rate) > 1e-12:
			t.Errorf("%s p=1: rho(T) %.12f, rho(E[M])^2 %.12f", tc.name, ms.Rate, mean*mean)
		}
	}
}

// TestRatePredictionMatchesAgents runs the agents (lockstep driver) on a
// path of three agents with p = 0.5 from one fixed start, over 1600 edge
// seeds, and checks the exact moment predictions after 40 rounds against
// the observed ones: the mean of x_t - x* against (Mbar^t d_0)_x and the
// mean of ||x_t - x*||^2 against the trace of the x-block of T^t(d_0 d_0^T),
// within 4 standard errors; the covariance part of the latter must exceed
// 8 standard errors, so that the first moment alone would fail.
func TestRatePredictionMatchesAgents(t *testing.T) {
	path, _ := graph.Path(3)
	g, err := path.WithUniformP(0.5)
	if err != nil {
		t.Fatal(err)
	}
	rc := newRateCase(t, g, 1, false, false)
	m, err := NewRateModel(rc.cfg, g, rc.locals)
	if err != nil {
		t.Fatal(err)
	}
	const rounds, seeds = 40, 1600
	x0 := [][]float64{{1.5}, {-0.5}, {0.25}}
	D, nx := m.D(), g.N
	d := mat.NewVecDense(D, nil)
	for i := range g.N {
		d.SetVec(m.XAt(i), x0[i][0]-rc.xstar[0])
		d.SetVec(m.ZAt(i), x0[i][0]-rc.xstar[0])
	}
	s := mat.NewDense(D, D, nil)
	s.Outer(1, d, d)
	next := mat.NewDense(D, D, nil)
	for range rounds {
		m.SecondMoment(s, next)
		s, next = next, s
		var md mat.VecDense
		md.MulVec(m.Mean, d)
		d = &md
	}
	var predSq, predMeanSq float64
	for i := range nx {
		predSq += s.At(m.XAt(i), m.XAt(i))
		predMeanSq += d.AtVec(m.XAt(i)) * d.AtVec(m.XAt(i))
	}
	box := objective.Box{Lo: math.Inf(-1), Hi: math.Inf(1)}
	sum, sumSq := make([]float64, nx), make([]float64, nx)
	var q, q2 float64
	for seed := range seeds {
		proc := graph.Bernoulli{G: g, Seed: uint64(seed)}
		ls := &lockstep{}
		for i := range g.N {
			a, err := NewAgent(rc.cfg, i, g, proc, rc.locals[i], box, x0[i])
			if err != nil {
				t.Fatal(err)
			}
			ls.agents = append(ls.agents, a)
		}
		for r := range rounds {
			if err := ls.round(r); err != nil {
				t.Fatal(err)
			}
		}
		var sq float64
		for i, x := range ls.xs() {
			e := x[0] - rc.xstar[0]
			sum[i] += e
			sumSq[i] += e * e
			sq += e * e
		}
		q, q2 = q+sq, q2+sq*sq
	}
	mq := q / seeds
	se := math.Sqrt((q2/seeds - mq*mq) / seeds)
	t.Logf("E||x_t - x*||^2: observed %.6g +- %.2g, predicted %.6g (first moment alone %.6g)", mq, se, predSq, predMeanSq)
	if math.Abs(mq-predSq) > 4*se || se > 0.05*predSq {
		t.Errorf("mean square: observed %.6g +- %.2g, predicted %.6g", mq, se, predSq)
	}
	if predSq-predMeanSq < 8*se {
		t.Errorf("the covariance part %.3g is within 8 standard errors (%.2g): the test does not discriminate", predSq-predMeanSq, se)
	}
	for i := range nx {
		mi := sum[i] / seeds
		sei := math.Sqrt((sumSq[i]/seeds - mi*mi) / seeds)
		if want := d.AtVec(m.XAt(i)); math.Abs(mi-want) > 4*sei {
			t.Errorf("agent %d: mean deviation %.6g +- %.2g, predicted %.6g", i, mi, sei, want)
		}
	}
}
