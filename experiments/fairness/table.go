package fairness

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus/fair"
	problem "github.com/consim/consim/problems/fairness"
)

// Row is one cell of the fairness table: a loss and a threshold c, solved
// by Algorithm 1 on the training data and evaluated on the test data.
type Row struct {
	// Loss names the loss.
	Loss string
	// C is the covariance threshold (+Inf: unconstrained).
	C float64
	// Sampled is set for the stochastic-constraint form.
	Sampled bool
	// TrainCov is a^T theta on the training data.
	TrainCov float64
	// TrainObj is L(theta) on the training data.
	TrainObj float64
	// TestAcc is the test accuracy, in [0, 1].
	TestAcc float64
	// TestPRule is the p%-rule on the test data.
	TestPRule float64
	// Certificate is Result.Certificate.
	Certificate float64
	// RefObj and RefCov are L* and a^T theta* of the certified
	// independent solve (problem.Reference; convex loss only, NaN
	// otherwise), RefTestAcc and RefPRule its test accuracy and p%-rule,
	// RefGap its certified gap L* - lower bound and RefKKT the largest
	// entry of its projected Lagrangian gradient.
	RefObj, RefCov, RefTestAcc, RefPRule float64
	RefGap, RefKKT                       float64
	// Samples counts the stochastic gradient samples.
	Samples int64
}

// Table solves (6.6) on train for every loss and threshold of cs with
// the parameters p (its C replaced), and evaluates each solution on test.
// For the convex logistic loss it also solves the problem by Reference
// (if ref), so that the table shows how far Algorithm 1 ends from the
// certified optimum. done, if not nil, is called with every row.
func Table(train, test *problem.Data, losses []problem.Loss, cs []float64, p fair.Config, ref bool, done func(Row)) ([]Row, error) {
	if err := test.Validate(); err != nil {
		return nil, fmt.Errorf("test data: %w", err)
	}
	if test.Dim != train.Dim {
		return nil, fmt.Errorf("test data dim %d, train %d: want equal", test.Dim, train.Dim)
	}
	var rows []Row
	for _, loss := range losses {
		for _, c := range cs {
			q := p
			q.C = c
			res, err := fair.Solve(train, loss, q)
			if err != nil {
				return nil, fmt.Errorf("%s, c = %g: %w", loss.Name(), c, err)
			}
			r := Row{
				Loss: loss.Name(), C: c, Sampled: p.SampledConstraint,
				TrainCov: problem.Covariance(train, res.Theta), TrainObj: problem.Objective(train, loss, res.Theta),
				TestAcc: problem.Accuracy(test, res.Theta), TestPRule: problem.PRule(test, res.Theta),
				Certificate: res.Certificate, Samples: res.Samples,
				RefObj: math.NaN(), RefCov: math.NaN(), RefTestAcc: math.NaN(), RefPRule: math.NaN(),
				RefGap: math.NaN(), RefKKT: math.NaN(),
			}
			if loss.Convex() && ref {
				opt, err := problem.Reference(train, loss, c, res.Config.R)
				if err != nil {
					return nil, fmt.Errorf("%s, c = %g: %w", loss.Name(), c, err)
				}
				r.RefObj, r.RefCov, r.RefGap, r.RefKKT = opt.L, opt.Cov, opt.Gap, opt.KKT
				r.RefTestAcc, r.RefPRule = problem.Accuracy(test, opt.Theta), problem.PRule(test, opt.Theta)
			}
			rows = append(rows, r)
			if done != nil {
				done(r)
			}
		}
	}
	return rows, nil
}
