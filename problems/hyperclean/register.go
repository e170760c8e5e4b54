// Package hyperclean is the data hyper-cleaning problem of Lu (ICML 2025,
// Section 4): a linear 784 -> 10 softmax model y trained on MNIST samples
// whose labels are partly corrupted, and one weight x_i per training
// sample, as a bilevel problem of package problems/bilevel's form. It owns
// the digit sets and the instance (Digits, CleaningConfig,
// NewHyperCleaning), the oracles of both levels (WeightedLoss, MeanLoss,
// Regularizer; the training samples in compressed sparse rows), the
// measures (Accuracy, F1), the reading of the MNIST files, the problem
// block, the registration of kind hyperclean (Problem) and its export.
//
// Every random choice (the train/validation split, the corrupted labels)
// comes from PCG generators of the named common-randomness stream
// graph.NamedStream("consensus/tsp.hyper-cleaning"), named where the
// problem lived first, so that instances stay the same. hyperclean reads
// files only in Problem's Build (through package dataset) and writes them
// only in its export (through problems/datafile). It may import
// problems/bilevel, problems/datafile, objective, graph, dataset, consensus
// and consensus/registry; it must not import an algorithm package
// (consensus/<algorithm>), node, coordinator, scenarios or cmd.
package hyperclean

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/dataset"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/problems/bilevel"
)

// Params is the problem block of kind hyperclean: data hyper-cleaning on
// MNIST, by default at a small size.
type Params struct {
	MNIST   registry.Path `yaml:"mnist" doc:"directory of the four MNIST files {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz (relative to the scenario)"`
	Train   int           `yaml:"train" doc:"training samples m >= 1, drawn from the MNIST training images (the paper: 5000)"`
	Val     int           `yaml:"val" doc:"validation samples >= 1 (the paper: 5000)"`
	Test    int           `yaml:"test" doc:"test images, the first of the MNIST test set, 1..10000 (the paper: 10000)"`
	Corrupt float64       `yaml:"corrupt" doc:"fraction of corrupted training labels in [0, 1] (the paper: 0.5)"`
	RhoBar  float64       `yaml:"rho_bar" doc:"weight rho_bar >= 0 of the lower-level regularizer rho_bar sum_j y_j^2/(1+y_j^2)"`
}

// Validate checks the sizes and ranges.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	if p.MNIST == "" {
		errs.Add("mnist", "required: the directory of the MNIST files")
	}
	if p.Train < 1 || p.Val < 1 || p.Train+p.Val > 60000 {
		key := "train"
		if p.Train >= 1 {
			key = "val"
		}
		errs.Add(key, "need train, val >= 1 and train + val <= 60000 (the MNIST training images), got %d and %d", p.Train, p.Val)
	}
	if p.Test < 1 || p.Test > 10000 {
		errs.Add("test", "must be in 1..10000, got %d", p.Test)
	}
	if !(p.Corrupt >= 0 && p.Corrupt <= 1) {
		errs.Add("corrupt", "must be in [0, 1], got %s", registry.Num(p.Corrupt))
	}
	if !(p.RhoBar >= 0) || math.IsInf(p.RhoBar, 0) {
		errs.Add("rho_bar", "must be a finite number >= 0, got %s", registry.Num(p.RhoBar))
	}
	return errs.Err()
}

// Problem describes the problem kind hyperclean: the data
// hyper-cleaning problem of Lu (ICML 2025, Section 4) on MNIST, a linear
// 784 -> 10 model y and one weight x_i per training sample, its training
// set split over the task agents of the algorithm (tsp). The run seed
// draws the split and the corrupted labels (NewHyperCleaning with Seed =
// the run seed).
// The defaults are small (1000 training, 1000 validation, 2000 test
// images) so that a scenario runs in seconds.
func Problem() registry.Problem {
	return registry.Problem{
		Kind:    "hyperclean",
		Summary: "data hyper-cleaning on MNIST (bilevel: sample weights x, linear model y), the training set split over task agents",
		New: func() registry.Params {
			return &Params{MNIST: "../shared/data/mnist", Train: 1000, Val: 1000, Test: 2000, Corrupt: 0.5, RhoBar: 0.01}
		},
		Build: func(p registry.Params, env registry.ProblemEnv) (registry.Instance, error) {
			hp := p.(*Params)
			train, err := ReadDigits(string(hp.MNIST), "train", 0)
			if err != nil {
				return nil, registry.FieldErrors{{Key: "mnist", Msg: err.Error()}}
			}
			test, err := ReadDigits(string(hp.MNIST), "t10k", hp.Test)
			if err != nil {
				return nil, registry.FieldErrors{{Key: "mnist", Msg: err.Error()}}
			}
			h, err := NewHyperCleaning(train, test, CleaningConfig{Train: hp.Train, Val: hp.Val, Corrupt: hp.Corrupt, RhoBar: hp.RhoBar, Seed: env.Seed})
			if err != nil {
				return nil, err
			}
			return instance{h}, nil
		},
		Offers: []string{bilevel.Cap},
	}
}

// ReadDigits reads MNIST set prefix (train or t10k) from dir, keeping the
// first keep images (all when keep is 0).
func ReadDigits(dir, prefix string, keep int) (Digits, error) {
	im, lb, err := dataset.ReadMNIST(filepath.Join(dir, prefix+"-images-idx3-ubyte.gz"), filepath.Join(dir, prefix+"-labels-idx1-ubyte.gz"))
	if err != nil {
		return Digits{}, err
	}
	d := Digits{N: im.N, Dim: im.Rows * im.Cols, Pixels: im.Pixels, Labels: lb}
	if keep > 0 && keep < d.N {
		d.N, d.Pixels, d.Labels = keep, d.Pixels[:keep*d.Dim], d.Labels[:keep]
	}
	return d, nil
}

// instance is a hyper-cleaning instance: bilevel.Provider.
type instance struct{ h *HyperCleaning }

func (i instance) Dim() int { return 0 }
func (i instance) Central() (*objective.Problem, error) {
	return nil, fmt.Errorf("hyperclean: %w", registry.ErrNoCentral)
}
func (i instance) Split(k int) (*bilevel.Split, error) { return i.h.Split(k), nil }
func (i instance) LowerTerms() int                     { return i.h.Train.Len() }
func (i instance) Optimum() (float64, bool)            { return math.NaN(), false }
func (i instance) Columns() []consensus.Measure {
	return []consensus.Measure{
		{Name: "test_acc", Reduce: consensus.ReduceMax, Doc: "test accuracy of the model y"},
		{Name: "f1", Reduce: consensus.ReduceMax, Doc: "F1 score of the clean-sample detection x_i >= 0"},
	}
}
func (i instance) Measure(x, y []float64) ([]float64, float64, error) {
	acc, f1, err := i.h.Measure(x, y)
	if err != nil {
		return nil, 0, err
	}
	return []float64{acc, f1}, math.NaN(), nil
}
