package zosplm

import (
	"encoding/binary"
	"math"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/problems/qcqp"
)

// estimate returns the estimate of eq. (3) of grad f at x with the
// directions of key, through the requests, the oracle and the reduction.
func estimate(t *testing.T, q *qcqp.QCQP, est Estimator, key uint64, x []float64) []float64 {
	t.Helper()
	rq := newRequests(est, q.Dim(), q.Constraints())
	v0 := make([]float64, 1+q.Constraints())
	q.Eval(x, v0, nil)
	o := NewOracle(q)
	var res [][]float64
	for _, r := range rq.chunks(OpSums, key, v0, nil, x, nil) {
		v, err := o.Evaluate(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, v)
	}
	g, err := rq.reduce(res, (1+q.Constraints())*q.Dim())
	if err != nil {
		t.Fatal(err)
	}
	return append([]float64(nil), g[:q.Dim()]...)
}

// TestEstimatorUnbiased checks eq. (3) on the quadratic f of an NC-qcqp.QCQP,
// for which the smoothed gradient is grad f itself (the odd moments of
// the symmetric directions vanish): one large mini-batch lands within four
// standard deviations of grad f, and the mean squared error of many small
// mini-batches matches its exact value (n - 1)||g||^2 / k for sphere
// directions and (n + 1)||g||^2 / k for N(0, I/n) ones (up to O(r^2)),
// which a wrong scale n/(r k) or a wrong distribution would miss.
func TestEstimatorUnbiased(t *testing.T) {
	q, err := qcqp.New(5, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	n := q.Dim()
	x := []float64{0.3, -0.2, 0.5, 0.1, -0.4}
	g := make([]float64, n)
	q.GradF(x, g)
	gg := sumSq(g)
	for _, tc := range []struct {
		dist Dist
		c    float64 // E||g_hat - g||^2 = c ||g||^2 / k
	}{{Sphere, float64(n - 1)}, {Gaussian, float64(n + 1)}} {
		t.Run(tc.dist.String(), func(t *testing.T) {
			big := Estimator{K: 200000, R: 1e-6, Dist: tc.dist, Chunk: 20000}
			e := estimate(t, q, big, RoundKey(1, 0), x)
			var d2 float64
			for i := range g {
				d2 += (e[i] - g[i]) * (e[i] - g[i])
			}
			if sd := math.Sqrt(tc.c * gg / float64(big.K)); math.Sqrt(d2) > 4*sd {
				t.Errorf("||g_hat - g|| = %.3g with k = %d, want <= 4 sd = %.3g", math.Sqrt(d2), big.K, 4*sd)
			}
			small := Estimator{K: 50, R: 1e-6, Dist: tc.dist, Chunk: 16}
			const reps = 3000
			var mse float64
			for rep := range reps {
				e := estimate(t, q, small, RoundKey(2, rep), x)
				for i := range g {
					mse += (e[i] - g[i]) * (e[i] - g[i])
				}
			}
			mse /= reps
			want := tc.c * gg / float64(small.K)
			if r := mse / want; r < 0.9 || r > 1.1 {
				t.Errorf("mean squared error %.4g, want %.4g (ratio %.3f)", mse, want, r)
			}
		})
	}
}

// TestChunkSplitKeepsDirections checks that the chunk size changes only
// the order of summation: the estimates agree to rounding.
func TestChunkSplitKeepsDirections(t *testing.T) {
	q, _ := qcqp.New(6, 1, 2)
	x := []float64{0.1, 0.2, -0.3, 0.4, 0, -0.1}
	a := estimate(t, q, Estimator{K: 300, R: 1e-3, Chunk: 7}, RoundKey(5, 3), x)
	b := estimate(t, q, Estimator{K: 300, R: 1e-3, Chunk: 300}, RoundKey(5, 3), x)
	if d := relDiff(a, b); d > 1e-12 {
		t.Errorf("chunks of 7 and of 300 differ by %g", d)
	}
}

// wire encodes a request as it would travel (little-endian float64 bits)
// and decodes it again, so that workers never share memory with the
// server.
func wire(r consensus.EvalRequest) consensus.EvalRequest {
	b := make([]byte, 8*len(r.Arg))
	for i, v := range r.Arg {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	arg := make([]float64, len(r.Arg))
	for i := range arg {
		arg[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return consensus.EvalRequest{Op: r.Op, Key: r.Key, Arg: arg}
}

// fanOut drives agent for rounds rounds with W concurrent workers, each
// with its own Oracle, worker w taking requests w, w + W, ... in reverse
// order; results are delivered in request order.
func fanOut(t *testing.T, agent consensus.Agent, q *qcqp.QCQP, W, rounds int) {
	t.Helper()
	oracles := make([]*Oracle, W)
	for w := range oracles {
		oracles[w] = NewOracle(q)
	}
	for r := range rounds {
		for ph := range agent.Phases(r) {
			out := agent.Send(r, ph)
			reqs := make([]consensus.EvalRequest, len(out.Evals))
			for i, req := range out.Evals {
				reqs[i] = wire(req)
			}
			res := make([][]float64, len(reqs))
			errs := make([]error, W)
			var wg sync.WaitGroup
			for w := range W {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if w >= len(reqs) {
						return
					}
					last := w + ((len(reqs)-1-w)/W)*W
					for i := last; i >= w; i -= W {
						v, err := oracles[w].Evaluate(reqs[i], nil)
						if err != nil {
							errs[w] = err
							return
						}
						res[i] = v
					}
				}()
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			if err := agent.Receive(r, ph, consensus.Inbox{Evals: res}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestWorkersBitIdentical checks that every method's iterates are the same
// bit for bit with 1, 2, 4 or 8 concurrent workers (requests through an
// encoding round trip, evaluated out of order) and with the in-line
// driver.
func TestWorkersBitIdentical(t *testing.T) {
	const n, rounds = 12, 12
	q, err := qcqp.New(n, 1, 6)
	if err != nil {
		t.Fatal(err)
	}
	est := Estimator{K: 1000, R: 1e-5, Chunk: 90}
	mk := func(name string) Method {
		x0 := make([]float64, n)
		var (
			a   Method
			err error
		)
		switch name {
		case "zo-splm":
			p := DefaultSPLMParams(n)
			p.Estimator = est
			a, err = NewServer(0, q.Box, 1, x0, p, 8)
		case "zo-alm":
			p := DefaultALMParams(n)
			p.Estimator, p.Inner = est, 3
			a, err = NewALM(0, q.Box, 1, x0, p, 8)
		case "zo-conex":
			p := DefaultConExParams(n)
			p.Estimator, p.Inner = est, 4
			a, err = NewConEx(0, q.Box, 1, x0, p, 8)
		}
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, name := range []string{"zo-splm", "zo-conex", "zo-alm"} {
		t.Run(name, func(t *testing.T) {
			base := mk(name)
			if _, err := NewDriver(base, NewOracle(q)).Run(rounds, nil); err != nil {
				t.Fatal(err)
			}
			if relDiff(base.X(), make([]float64, n)) < 1e-3 {
				t.Fatal("x did not move: the comparison is vacuous")
			}
			for _, W := range []int{1, 2, 4, 8} {
				a := mk(name)
				fanOut(t, a, q, W, rounds)
				for i := range n {
					if math.Float64bits(a.X()[i]) != math.Float64bits(base.X()[i]) {
						t.Fatalf("W = %d: x[%d] = %v, in-line %v", W, i, a.X()[i], base.X()[i])
					}
				}
				if a.Evals() != int64(rounds*(est.K+1)) {
					t.Errorf("W = %d: %d oracle calls, want %d", W, a.Evals(), rounds*(est.K+1))
				}
			}
		})
	}
}

// ball is min (1/2)||x - a||^2 s.t. (1/2)||x||^2 - 1/2 <= 0 on
// [-10, 10]^n with ||a|| = 3: x* = a / 3, y* = ||a|| - 1 = 2.
func ball(t *testing.T, n int) (*qcqp.QCQP, []float64, float64) {
	t.Helper()
	a := make([]float64, n)
	for i := range a {
		a[i] = math.Cos(float64(3*i + 1))
	}
	s := 3 / math.Sqrt(sumSq(a))
	I := mat.NewSymDense(n, nil)
	for i := range n {
		a[i] *= s
		I.SetSym(i, i, 1)
	}
	d := make([]float64, n)
	xs := make([]float64, n)
	for i := range a {
		d[i] = -a[i]
		xs[i] = a[i] / 3
	}
	q, err := qcqp.FromData(I, d, []*mat.SymDense{I}, [][]float64{make([]float64, n)}, []float64{-0.5}, objective.Box{Lo: -10, Hi: 10})
	if err != nil {
		t.Fatal(err)
	}
	return q, xs, 2
}

// TestConvergesOnBall runs each method on the convex ball-constrained
// projection, whose KKT point is known in closed form, and checks that it
// gets there (the estimator's noise is proportional to ||grad L||, so it
// vanishes at the solution).
func TestConvergesOnBall(t *testing.T) {
	const n = 10
	q, xs, ys := ball(t, n)
	est := Estimator{K: 200, R: 1e-6, Chunk: 50}
	x0 := make([]float64, n)
	for _, tc := range []struct {
		name string
		mk   func() (Method, error)
	}{
		{"zo-splm", func() (Method, error) {
			return NewServer(0, q.Box, 1, x0, SPLMParams{C: 0.2, Alpha: 0.5, Beta: 0.5, P: 2, B: 10, Estimator: est}, 1)
		}},
		{"zo-splm exact prox", func() (Method, error) {
			e := est
			e.ExactProx = true
			return NewServer(0, q.Box, 1, x0, SPLMParams{C: 0.2, Alpha: 0.5, Beta: 0.5, P: 2, B: 10, Estimator: e}, 1)
		}},
		{"zo-alm", func() (Method, error) {
			return NewALM(0, q.Box, 1, x0, ALMParams{Step: 0.5, G2: 1, Rho0: 1, RhoGrowth: 1.5, RhoMax: 10, Gamma: 0.1, Inner: 10, Estimator: est}, 1)
		}},
		{"zo-conex", func() (Method, error) {
			return NewConEx(0, q.Box, 1, x0, ConExParams{C: 0.2, Tau: 1, Theta: 1, Mu: 0.1, Inner: 20, B: 10, Estimator: est}, 1)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := tc.mk()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := NewDriver(a, NewOracle(q)).Run(1500, nil); err != nil {
				t.Fatal(err)
			}
			hx := make([]float64, 1)
			y := make([]float64, 1)
			q.H(a.X(), hx)
			a.MeasureDual(hx, y)
			dx := math.Sqrt(sumSq(sub(a.X(), xs)))
			if dx > 1e-5 || math.Abs(y[0]-ys) > 1e-4 {
				t.Errorf("||x - x*|| = %.3g, y = %.8f (y* = %g)", dx, y[0], ys)
			}
			m, _ := q.Measure(a.X(), y)
			if m.Max() > 1e-4 {
				t.Errorf("measures %+v, want all below 1e-4", m)
			}
		})
	}
}

func sub(a, b []float64) []float64 {
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return d
}

func TestOracleRejectsBadRequests(t *testing.T) {
	q, _ := qcqp.New(4, 1, 1)
	o := NewOracle(q)
	x := make([]float64, 4)
	for _, tc := range []struct {
		name string
		req  consensus.EvalRequest
		want string
	}{
		{"unknown op", consensus.EvalRequest{Op: 9, Arg: x}, "operation 9 unknown"},
		{"short value", consensus.EvalRequest{Op: OpValue, Arg: x[:3]}, "want n = 4"},
		{"short chunk", consensus.EvalRequest{Op: OpSums, Arg: make([]float64, 7)}, "has 7 values"},
		{"zero count", consensus.EvalRequest{Op: OpSums, Arg: append([]float64{1e-5, 0, 0, 0, 0, 0}, x...)}, "invalid"},
		{"bad dist", consensus.EvalRequest{Op: OpSums, Arg: append([]float64{1e-5, 5, 0, 3, 0, 0}, x...)}, "invalid"},
		{"negative r", consensus.EvalRequest{Op: OpSums, Arg: append([]float64{-1, 0, 0, 3, 0, 0}, x...)}, "invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := o.Evaluate(tc.req, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestParamsValidate(t *testing.T) {
	good := DefaultSPLMParams(10)
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		mod  func(*SPLMParams)
	}{
		{"c", func(p *SPLMParams) { p.C = 0 }},
		{"beta", func(p *SPLMParams) { p.Beta = 1.5 }},
		{"y0", func(p *SPLMParams) { p.Y0 = p.B + 1 }},
		{"k", func(p *SPLMParams) { p.Estimator.K = 0 }},
		{"r", func(p *SPLMParams) { p.Estimator.R = math.Inf(1) }},
		{"p", func(p *SPLMParams) { p.P = math.NaN() }},
	} {
		p := good
		tc.mod(&p)
		if p.Validate() == nil {
			t.Errorf("%s: invalid parameters accepted", tc.name)
		}
	}
	if DefaultALMParams(10).Validate() != nil || DefaultConExParams(10).Validate() != nil {
		t.Error("default baseline parameters invalid")
	}
	if _, err := NewServer(0, objective.Box{Lo: -1, Hi: 1}, 1, []float64{2}, good, 0); err == nil {
		t.Error("x0 outside X accepted")
	}
}

// TestRoundAllocations checks that a steady-state iteration with the
// in-line driver allocates nothing, however many directions it draws.
func TestRoundAllocations(t *testing.T) {
	q, _ := qcqp.New(20, 1, 1)
	p := DefaultSPLMParams(20)
	p.Estimator.K = 5000
	s, err := NewServer(0, q.Box, 1, make([]float64, 20), p, 1)
	if err != nil {
		t.Fatal(err)
	}
	d := NewDriver(s, NewOracle(q))
	if err := d.Round(); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(3, func() {
		if err := d.Round(); err != nil {
			t.Fatal(err)
		}
	}); a > 0 {
		t.Errorf("%v allocations per iteration of k = 5000, want 0", a)
	}
}
