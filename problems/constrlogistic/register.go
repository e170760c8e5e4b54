package constrlogistic

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/dataset"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/problems/datafile"
)

// Cap is the capability of the problems min fbar(x) + psi(x) s.t.
// A x - b <= 0 with a finite-sum fbar (Provider).
const Cap = "constrained_finite_sum"

// Provider is the capability Cap: problem (43) of Lu
// and Xiao, fbar = (1/s) sum_i f_i a logistic loss, deterministic linear
// constraints, psi = lambda ||w||_1 + the box [-1, 1], a start x^0 and a
// certified optimum. Dim is n + 1; Central fails with
// registry.ErrNoCentral (the objective is not a consensus sum of smooth
// local terms): the data-parallel agents of penalty_vrasg measure
// themselves (registry.Evaluator).
type Provider interface {
	registry.Instance
	// FiniteSum returns the loss f_1..f_s, Linear the constraints and Psi
	// the regularizer.
	FiniteSum() *Logistic
	Linear() *Linear
	Psi() L1Box
	// Start is x^0 (entries U[-1, 1] from the seed).
	Start() []float64
	// Optimum is the certified constrained optimum (SolveALM).
	Optimum() (Optimum, error)
}

// Params is the problem block of kind constrained_logistic: the
// constrained l1-regularized logistic regression of Lu and Xiao, synthetic
// (Section 5.1's generator) or from a LIBSVM file (Section 5.2's a9a).
type Params struct {
	File    registry.Path `yaml:"file,omitempty" doc:"LIBSVM data file, labels +-1 or 0/1 (e.g. a9a; relative to the scenario); empty: synthetic data from the seed"`
	Rows    int           `yaml:"rows" doc:"file: use the first rows samples (0: all)"`
	Dim     int           `yaml:"dim" doc:"synthetic: features n >= 1; file: LIBSVM feature count (0: the largest index)"`
	Samples int           `yaml:"samples" doc:"synthetic: samples s >= core (the paper: 10000)"`
	Core    int           `yaml:"core" doc:"core samples turned into constraints, >= 1 (the paper: 50)"`
	Lambda  float64       `yaml:"lambda" doc:"l1 weight lambda >= 0 (the paper: 0.1 synthetic, 0.03 a9a)"`
}

// DefaultParams returns synthetic data of n = 20 features, 400 samples and
// 10 core constraints, lambda = 0.1.
func DefaultParams() *Params { return &Params{Dim: 20, Samples: 400, Core: 10, Lambda: 0.1} }

// Validate checks the sizes.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	if p.Core < 1 {
		errs.Add("core", "must be >= 1, got %d", p.Core)
	}
	if !(p.Lambda >= 0) || math.IsInf(p.Lambda, 0) {
		errs.Add("lambda", "must be a finite number >= 0, got %s", registry.Num(p.Lambda))
	}
	if p.Rows < 0 {
		errs.Add("rows", "must be >= 0, got %d", p.Rows)
	}
	if p.File == "" {
		if p.Dim < 1 {
			errs.Add("dim", "must be >= 1, got %d", p.Dim)
		}
		if p.Samples < p.Core {
			errs.Add("samples", "must be >= core = %d, got %d", p.Core, p.Samples)
		}
	}
	return errs.Err()
}

// Problem describes the problem kind constrained_logistic,
// problems (42) and (43) of Lu and Xiao: min fbar(x) + lambda ||w||_1
// over the box [-1, 1]^{n+1}, fbar the mean logistic loss over the
// samples, subject to -y~_i (w^T a~_i + b) <= 0 for the core samples
// nearest to the decision boundary (of the true model when synthetic, of
// the unconstrained solution for a file). The run seed draws the
// synthetic data and the start x^0. The defaults are small (n = 20, 400
// samples, 10 core constraints).
func Problem() registry.Problem {
	return registry.Problem{
		Kind:    "constrained_logistic",
		Summary: "constrained l1-regularized logistic regression of Lu and Xiao (core samples as linear constraints), synthetic or from a LIBSVM file",
		New:     func() registry.Params { return DefaultParams() },
		Build: func(p registry.Params, env registry.ProblemEnv) (registry.Instance, error) {
			cp := p.(*Params)
			if cp.File == "" {
				syn, err := NewSynthetic(SyntheticSpec{N: cp.Dim, Samples: cp.Samples, Core: cp.Core, Lambda: cp.Lambda, Seed: env.Seed})
				if err != nil {
					return nil, err
				}
				return &clInstance{f: syn.Data, cons: syn.Cons, psi: syn.Psi, x0: syn.X1,
					solve: func() (Optimum, error) { return syn.Optimum(SolveOptions{}) }}, nil
			}
			d, err := dataset.LoadLIBSVM(string(cp.File), dataset.LIBSVMOptions{Dim: cp.Dim})
			if err != nil {
				return nil, registry.FieldErrors{{Key: "file", Msg: err.Error()}}
			}
			rows := d.Rows()
			if cp.Rows > 0 {
				rows = min(rows, cp.Rows)
			}
			if cp.Core > rows {
				return nil, registry.FieldErrors{{Key: "core", Msg: fmt.Sprintf("%d exceeds the %d rows of %s", cp.Core, rows, cp.File)}}
			}
			y, err := dataset.SignLabels(d.Y[:rows])
			if err != nil {
				return nil, registry.FieldErrors{{Key: "file", Msg: fmt.Sprintf("%s: %v", cp.File, err)}}
			}
			spec := FiniteSumSpec{Lambda: cp.Lambda, Core: cp.Core, Seed: env.Seed}
			fp, err := NewFiniteSumProblem(mat.NewDense(rows, d.Dim, d.X[:rows*d.Dim]), y, spec)
			if err != nil {
				return nil, err
			}
			return &clInstance{f: fp.F, cons: fp.Cons, psi: fp.Psi, x0: fp.X0,
				solve: func() (Optimum, error) { return fp.Opt, nil }}, nil
		},
		Offers: []string{Cap},
	}
}

// clInstance is a constrained_logistic instance: Provider.
type clInstance struct {
	f     *Logistic
	cons  *Linear
	psi   L1Box
	x0    []float64
	solve func() (Optimum, error)
}

func (c *clInstance) Dim() int                  { return c.f.Dim() }
func (c *clInstance) FiniteSum() *Logistic      { return c.f }
func (c *clInstance) Linear() *Linear           { return c.cons }
func (c *clInstance) Psi() L1Box                { return c.psi }
func (c *clInstance) Start() []float64          { return append([]float64(nil), c.x0...) }
func (c *clInstance) Optimum() (Optimum, error) { return c.solve() }
func (c *clInstance) Central() (*objective.Problem, error) {
	return nil, fmt.Errorf("constrained_logistic: %w", registry.ErrNoCentral)
}

// Size implements registry.Sizer for the memory estimate of a scenario:
// every agent holds the iterate (w, b) of n + 1 values and its share of
// the samples, n + 1 values each; n and the samples come from the keys
// for synthetic data and from the file's shape (dim when given) for a
// LIBSVM file, read without parsing the values (datafile.Shape). When the
// file cannot be read the estimate takes its defaults; Build names the
// error.
func (p *Params) Size(n int) registry.ProblemSize {
	features, rows := p.Dim, p.Samples
	if p.File != "" {
		r, f, err := datafile.Shape(dataset.FileSpec{Format: dataset.FormatLIBSVM, Path: string(p.File), Dim: p.Dim})
		if err != nil {
			return registry.ProblemSize{}
		}
		features, rows = f, r
		if p.Rows > 0 {
			rows = min(rows, p.Rows)
		}
	}
	if n < 1 || features < 1 {
		return registry.ProblemSize{}
	}
	return registry.ProblemSize{Dim: features + 1, Floats: math.Ceil(float64(rows)/float64(n)) * float64(features+1)}
}

// MarshalYAML writes the block without the key that does not apply to its
// source of samples (at its default): samples for a file, rows for
// synthetic data.
func (p Params) MarshalYAML() (any, error) {
	type plain Params
	var omit []string
	switch {
	case p.File != "" && p.Samples == DefaultParams().Samples:
		omit = append(omit, "samples")
	case p.File == "" && p.Rows == 0:
		omit = append(omit, "rows")
	}
	return datafile.Without(plain(p), omit...)
}
