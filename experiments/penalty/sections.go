package penalty

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	penaltyalg "github.com/consim/consim/consensus/penalty"
	"github.com/consim/consim/problems/constrlogistic"
)

// Result51 is the outcome of Section 5.1's experiment.
type Result51 struct {
	Problem *constrlogistic.Synthetic
	// Opt is the optimum of the sample-average problem (F* of the gaps).
	Opt constrlogistic.Optimum
	// Constant and Dynamic are the Algorithm 1 traces under Theorems 1
	// and 2.
	Constant, Dynamic penaltyalg.Trace
	Claims            []Claim
}

// Experiment51 generates the instance of spec, solves its sample-average
// problem for F*, runs Algorithm 1 for K iterations under the constant
// (Theorem 1, rho = K^{3/2}) and dynamic (Theorem 2) penalties from the
// same start with the same samples (sample seed spec.Seed), recording every
// every-th iteration, and checks the claims of Claims51. The paper's run is
// Experiment51(PaperSynthetic(seed), 5000, 1).
func Experiment51(spec constrlogistic.SyntheticSpec, bigK, every int) (*Result51, error) {
	p, err := constrlogistic.NewSynthetic(spec)
	if err != nil {
		return nil, err
	}
	opt, err := p.Optimum(constrlogistic.SolveOptions{})
	if err != nil {
		return nil, fmt.Errorf("penalty: 5.1 reference: %w", err)
	}
	r := &Result51{Problem: p, Opt: opt}
	if r.Constant, err = penaltyalg.RunSynthetic(p, penaltyalg.Thm1, bigK, spec.Seed, every, opt.F); err != nil {
		return nil, err
	}
	if r.Dynamic, err = penaltyalg.RunSynthetic(p, penaltyalg.Thm2, bigK, spec.Seed, every, opt.F); err != nil {
		return nil, err
	}
	if r.Claims, err = Claims51(r.Constant, r.Dynamic); err != nil {
		return nil, err
	}
	return r, nil
}

// Result52 is the outcome of Section 5.2's experiment.
type Result52 struct {
	Problem *constrlogistic.FiniteSumProblem
	// Alg2 holds the Algorithm 2 traces in the order of the rules asked
	// for; EAG is the baseline's trace.
	Alg2 []penaltyalg.Trace
	EAG  penaltyalg.Trace
	// Claims are those of Claims52 over the Thm 3(ii) and Thm 4(ii)
	// traces among Alg2.
	Claims []Claim
}

// Experiment52 builds (43) from the data (x: s rows, n features; y: labels
// +-1; LIBSVM a9a in the paper), runs Algorithm 2 for K outer iterations
// under each rule of rules (nil: Thm3ii and Thm4ii, the pair compared with
// EAG; the paper's Figure 2 also has Thm3i and Thm4i) and EAG-V for K
// iterations, recording every every-th iteration, and checks the claims
// of Claims52 on the Thm 3(ii) and 4(ii) runs. The paper's run is
// Experiment52(a9a rows, labels, PaperFiniteSum(seed), 500, 1, nil).
func Experiment52(x mat.Matrix, y []float64, spec constrlogistic.FiniteSumSpec, bigK, every int, rules []penaltyalg.Rule2) (*Result52, error) {
	p, err := constrlogistic.NewFiniteSumProblem(x, y, spec)
	if err != nil {
		return nil, err
	}
	return Experiment52On(p, bigK, every, rules)
}

// Experiment52On runs the Algorithm 2 rules and EAG on p as Experiment52
// describes.
func Experiment52On(p *constrlogistic.FiniteSumProblem, bigK, every int, rules []penaltyalg.Rule2) (*Result52, error) {
	if rules == nil {
		rules = []penaltyalg.Rule2{penaltyalg.Thm3ii, penaltyalg.Thm4ii}
	}
	r := &Result52{Problem: p}
	var cmp []penaltyalg.Trace
	for _, rule := range rules {
		tr, err := penaltyalg.RunFiniteSum(p, rule, bigK, every, nil)
		if err != nil {
			return nil, fmt.Errorf("penalty: 5.2 %v: %w", rule, err)
		}
		r.Alg2 = append(r.Alg2, tr)
		if rule == penaltyalg.Thm3ii || rule == penaltyalg.Thm4ii {
			cmp = append(cmp, tr)
		}
	}
	var err error
	if r.EAG, err = penaltyalg.RunFiniteSumEAG(p, bigK, every); err != nil {
		return nil, fmt.Errorf("penalty: 5.2 EAG: %w", err)
	}
	if r.Claims, err = Claims52(r.EAG, cmp...); err != nil {
		return nil, err
	}
	return r, nil
}
