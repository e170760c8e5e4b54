package objective

import (
	"errors"
	"fmt"
	"math"
)

// Problems from given rows. The caller hands over each agent's rows:
// drawn from the run seed (problems/regression's generator) or loaded and
// sharded from a file (package dataset does all file I/O). Both get the
// same local objectives, optimum solvers and f = (1/N) sum_i f_i.

// Weightings of GivenOptions.Weighting.
const (
	// WeightRows counts every row of the data set equally:
	//
	//	f_i(x) = (N/M) sum_{k in S_i} ell(a_k^T x, b_k) + R(x),
	//	f(x)   = (1/N) sum_i f_i(x) = (1/M) sum_{k=1}^M ell(a_k^T x, b_k) + R(x),
	//
	// where S_i holds agent i's m_i rows and M = sum_i m_i, so f is the
	// regularized empirical risk of the whole data set whatever the
	// sharding. f_i is the mean of agent i's losses weighted by
	// w_i = N m_i / M (w_i = 1 when all shards have the same size).
	WeightRows = "rows"
	// WeightAgents counts every agent equally, as the generated
	// regression problems do:
	//
	//	f_i(x) = (1/m_i) sum_{k in S_i} ell(a_k^T x, b_k) + R(x),
	//
	// so a row of a small shard weighs more than a row of a large one.
	WeightAgents = "agents"
)

// Shard is one agent's rows of a given data set: m rows a_k in R^Dim
// stored row-major in A (row k is A[k*Dim:(k+1)*Dim]) and their targets
// B (m values; labels in {-1, +1} for logistic). The problem keeps
// references to A and B: they must not be modified afterwards.
type Shard struct {
	A   []float64
	B   []float64
	Dim int
}

// Rows returns m, the number of rows.
func (s Shard) Rows() int { return len(s.B) }

// GivenOptions are the parameters of a problem built from given data.
// The zero value is valid for least squares: R^n, no regularizer, rows
// weighting, minibatch 1.
type GivenOptions struct {
	// Name names the data in Problem.Name (e.g. the file name).
	Name string
	// Reg is lambda >= 0, the regularizer weight:
	// (lambda/2)||x||^2 for least_squares and logistic,
	// lambda sum_j x_j^2/(1+x_j^2) for nonconvex_regression. logistic needs
	// lambda > 0 unless the box is bounded.
	Reg float64
	// Batch is b, the minibatch size of StochGrad; 0 means 1, and
	// 1 <= b <= m_i for every agent.
	Batch int
	// Lo and Hi bound the box X = [Lo, Hi]^n (BoxOf): Lo = Hi = 0 means
	// X = R^n.
	Lo, Hi float64
	// Scale is c > 0 of the Cauchy loss of nonconvex_regression; it must
	// be 0 for the other kinds.
	Scale float64
	// Seed drives the random starting points of the nonconvex reference
	// solve (see multistartOptimum); the other kinds ignore it.
	Seed uint64
	// Weighting is WeightRows (the default, "") or WeightAgents.
	Weighting string
	// Start is the second starting point of the nonconvex reference solve
	// (see multistartOptimum), length Dim; nil takes the ridge
	// least-squares fit of the rows. The generated problems pass their
	// ground truth x_true. The other kinds ignore it.
	Start []float64
}

// FromShards builds the problem min_{x in X} f(x) = (1/N) sum_i f_i(x) of
// the given kind (KindLeastSquares, KindLogistic or KindNonconvex) over
// the N = len(shards) agents' data. Agent i holds the m_i rows S_i of
// shards[i], M = sum_i m_i, and, by default (WeightRows),
//
//	f_i(x) = w_i (1/m_i) sum_{k in S_i} ell(a_k^T x, b_k) + R(x),  w_i = N m_i / M,
//	f(x)   = (1/M) sum_{k=1}^M ell(a_k^T x, b_k) + R(x),
//
// the regularized mean loss over all rows, whatever the sharding: the
// mean over the agent's rows times w_i, and exactly that mean (w_i = 1,
// the convention of the generated problems) when the shards have equal
// sizes or opt.Weighting is WeightAgents. ell and R are the kind's loss
// and regularizer (KindLeastSquares, KindLogistic, KindNonconvex). The
// optimum is computed by the central solvers: the normal equations (or
// the box-constrained active-set solve) for least squares, FISTA with the
// Newton polish for logistic, the multistart solve for
// nonconvex_regression (whose second start is opt.Start, by default a
// ridge least-squares fit of the rows).
//
// Agent i's f_i equals LocalFromShard(kind, shards[i], N, M, opt).
func FromShards(kind string, shards []Shard, opt GivenOptions) (*Problem, error) {
	if len(shards) == 0 {
		return nil, errors.New("problem: FromShards needs at least one shard")
	}
	if err := opt.validate(kind); err != nil {
		return nil, fmt.Errorf("problem: %w", err)
	}
	total := 0
	for _, s := range shards {
		total += s.Rows()
	}
	locals := make([]*glm, len(shards))
	for i, s := range shards {
		if s.Dim != shards[0].Dim {
			return nil, fmt.Errorf("problem: shard %d has Dim = %d, shard 0 has %d; want one feature count", i, s.Dim, shards[0].Dim)
		}
		l, err := givenLocal(kind, s, len(shards), total, opt)
		if err != nil {
			return nil, fmt.Errorf("problem: shard %d: %w", i, err)
		}
		locals[i] = l
	}
	name := opt.Name
	if name == "" {
		name = "given"
	}
	n := shards[0].Dim
	p := &Problem{
		Name:   fmt.Sprintf("%s(data=%s,n=%d,M=%d,N=%d)", kind, name, n, total, len(shards)),
		Locals: make([]Local, len(shards)),
		Box:    BoxOf(opt.Lo, opt.Hi),
		Convex: kind != KindNonconvex,
	}
	for i, l := range locals {
		p.Locals[i] = l
	}
	var err error
	switch kind {
	case KindLeastSquares:
		p.XStar, err = leastSquaresOptimum(locals, opt.Reg, p.Box)
	case KindLogistic:
		p.XStar, err = minimize(sumObjective(locals), p.Box, make([]float64, n))
	case KindNonconvex:
		start := opt.Start
		if start == nil {
			var lsErr error
			if start, lsErr = leastSquaresOptimum(locals, opt.Reg, p.Box); lsErr != nil {
				start = make([]float64, n)
			}
		} else if len(start) != n {
			return nil, fmt.Errorf("problem %s: Start has %d values, want Dim = %d", p.Name, len(start), n)
		}
		p.XStar, err = multistartOptimum(locals, p.Box, opt.Seed, start)
	}
	if err != nil {
		return nil, fmt.Errorf("problem %s: optimum: %w", p.Name, err)
	}
	p.FStar = p.Value(p.XStar)
	return p, nil
}

// LocalFromShard builds one agent's f_i from its shard alone, identical
// to FromShards(kind, shards, opt).Locals[i] with shard = shards[i],
// agents = N = len(shards) and totalRows = M, the rows of all shards
// (the row weighting needs N and M; WeightAgents ignores them). A node
// process calls it for its own agent.
func LocalFromShard(kind string, shard Shard, agents, totalRows int, opt GivenOptions) (Local, error) {
	if err := opt.validate(kind); err != nil {
		return nil, fmt.Errorf("problem: %w", err)
	}
	if agents < 1 {
		return nil, fmt.Errorf("problem: %d agents, want N >= 1", agents)
	}
	if totalRows < shard.Rows() {
		return nil, fmt.Errorf("problem: totalRows M = %d is below the shard's %d rows; want the rows of all shards", totalRows, shard.Rows())
	}
	l, err := givenLocal(kind, shard, agents, totalRows, opt)
	if err != nil {
		return nil, fmt.Errorf("problem: %w", err)
	}
	return l, nil
}

// givenLocal validates one shard and builds its f_i; the options have
// been validated.
// Least squares carries the weight w_i in the rows,
// sqrt(w_i) (a_k, b_k), since the exact solver reads the rows; the other
// kinds carry it in the loss, w_i ell.
func givenLocal(kind string, s Shard, agents, total int, opt GivenOptions) (*glm, error) {
	m := s.Rows()
	batch := opt.Batch
	if batch == 0 {
		batch = 1
	}
	switch {
	case s.Dim < 1:
		return nil, fmt.Errorf("Dim = %d, want >= 1", s.Dim)
	case m < 1:
		return nil, errors.New("no rows, want at least one")
	case len(s.A) != m*s.Dim:
		return nil, fmt.Errorf("len(A) = %d, want rows*Dim = %d*%d", len(s.A), m, s.Dim)
	case batch < 1 || batch > m:
		return nil, fmt.Errorf("Batch = %d, want 1 <= Batch <= %d (the shard's rows)", batch, m)
	}
	for p, v := range s.A {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("row %d feature %d: value %g, want a finite number", p/s.Dim, p%s.Dim, v)
		}
	}
	for k, v := range s.B {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("row %d: target %g, want a finite number", k, v)
		}
		if kind == KindLogistic && v != 1 && v != -1 {
			return nil, fmt.Errorf("row %d: label %g, want -1 or +1 for logistic (map 0/1 labels first)", k, v)
		}
	}
	w := 1.0
	if opt.Weighting != WeightAgents && m*agents != total {
		w = float64(agents) * float64(m) / float64(total)
	}
	smp := samples{n: s.Dim, m: m, A: s.A, b: s.B}
	var (
		l loss
		r regularizer
	)
	switch kind {
	case KindLeastSquares:
		l, r = squared{}, ridge{opt.Reg}
		if w != 1 {
			c := math.Sqrt(w)
			smp.A = make([]float64, len(s.A))
			smp.b = make([]float64, m)
			for p, v := range s.A {
				smp.A[p] = c * v
			}
			for k, v := range s.B {
				smp.b[k] = c * v
			}
		}
	case KindLogistic:
		l, r = weightLoss(logLoss{}, w), ridge{opt.Reg}
	case KindNonconvex:
		l, r = weightLoss(cauchy{opt.Scale}, w), saturating{opt.Reg}
	}
	f, err := newGLM(smp, l, r, batch)
	if err != nil {
		return nil, fmt.Errorf("smoothness: %w", err)
	}
	return f, nil
}

// validate checks the options for kind and names the first offending
// field with its allowed range.
func (o GivenOptions) validate(kind string) error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch kind {
	case KindLeastSquares, KindLogistic, KindNonconvex:
	default:
		return fmt.Errorf("kind %q unknown; want one of least_squares, logistic, nonconvex_regression", kind)
	}
	switch {
	case o.Weighting != "" && o.Weighting != WeightRows && o.Weighting != WeightAgents:
		return fmt.Errorf("Weighting %q unknown; want rows or agents", o.Weighting)
	case o.Batch < 0:
		return fmt.Errorf("Batch = %d, want >= 1 (or 0 for 1)", o.Batch)
	case !finite(o.Reg) || o.Reg < 0:
		return fmt.Errorf("Reg = %g, want a finite Reg >= 0", o.Reg)
	case math.IsNaN(o.Lo) || math.IsNaN(o.Hi) || math.IsInf(o.Lo, 1) || math.IsInf(o.Hi, -1):
		return fmt.Errorf("box [Lo, Hi] = [%g, %g], want -inf <= Lo < Hi <= +inf", o.Lo, o.Hi)
	case o.Lo >= o.Hi && !(o.Lo == 0 && o.Hi == 0):
		return fmt.Errorf("box [Lo, Hi] = [%g, %g], want Lo < Hi (or Lo = Hi = 0 for R^n)", o.Lo, o.Hi)
	case kind == KindLogistic && o.Reg == 0 && !BoxOf(o.Lo, o.Hi).bounded():
		return errors.New("Reg = 0 with an unbounded box, want Reg > 0 or finite Lo and Hi for logistic (the minimizer may not exist)")
	case kind == KindNonconvex && (!finite(o.Scale) || o.Scale <= 0):
		return fmt.Errorf("Scale = %g, want a finite Scale > 0 for nonconvex_regression", o.Scale)
	case kind != KindNonconvex && o.Scale != 0:
		return fmt.Errorf("Scale = %g is only used by nonconvex_regression, want 0 for %s", o.Scale, kind)
	}
	return nil
}

// weighted is the loss w ell(z, b), w > 0.
type weighted struct {
	w float64
	l loss
}

// weightLoss returns w ell, or ell itself when w = 1.
func weightLoss(l loss, w float64) loss {
	if w == 1 {
		return l
	}
	return weighted{w: w, l: l}
}

func (l weighted) value(z, b float64) float64 { return l.w * l.l.value(z, b) }
func (l weighted) deriv(z, b float64) float64 { return l.w * l.l.deriv(z, b) }
func (l weighted) curv(z, b float64) float64  { return l.w * l.l.curv(z, b) }
func (l weighted) maxCurv() float64           { return l.w * l.l.maxCurv() }
