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
	// RefObj and RefCov are L and a^T theta of the independent Reference
	// solve (convex loss only; NaN otherwise), RefTestAcc its test
	// accuracy.
	RefObj, RefCov, RefTestAcc float64
	// Samples counts the stochastic gradient samples.
	Samples int64
}

// Table solves (6.6) on train for every loss and threshold of cs with
// the parameters p (its C replaced), and evaluates each solution on test.
// For the convex logistic loss it also solves the problem by Reference
// (tolerance refTol), so that the table shows how far Algorithm 1 ends
// from the optimum. done, if not nil, is called with every row.
func Table(train, test *problem.Data, losses []problem.Loss, cs []float64, p fair.Config, refTol float64, done func(Row)) ([]Row, error) {
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
				RefObj: math.NaN(), RefCov: math.NaN(), RefTestAcc: math.NaN(),
			}
			if loss.Convex() && refTol > 0 {
				ref, _, err := problem.Reference(train, loss, c, res.Config.R, refTol)
				if err != nil {
					return nil, fmt.Errorf("%s, c = %g: %w", loss.Name(), c, err)
				}
				r.RefObj, r.RefCov, r.RefTestAcc = problem.Objective(train, loss, ref), problem.Covariance(train, ref), problem.Accuracy(test, ref)
			}
			rows = append(rows, r)
			if done != nil {
				done(r)
			}
		}
	}
	return rows, nil
}
