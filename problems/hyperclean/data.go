package hyperclean

import (
	"fmt"
	"math/rand/v2"

	"github.com/consim/consim/graph"
)

// Digits is a labelled image set as read from the MNIST files: N images of
// Dim pixels (0 background .. 255 full ink), image k at
// Pixels[k*Dim:(k+1)*Dim], with labels 0..9.
type Digits struct {
	N, Dim int
	Pixels []uint8
	Labels []uint8
}

// validate checks the shape of d.
func (d Digits) validate(name string) error {
	if d.N <= 0 || d.Dim <= 0 || len(d.Pixels) != d.N*d.Dim || len(d.Labels) != d.N {
		return fmt.Errorf("hyperclean: %s digits: N = %d, Dim = %d with %d pixels and %d labels", name, d.N, d.Dim, len(d.Pixels), len(d.Labels))
	}
	for k, l := range d.Labels {
		if l >= numClasses {
			return fmt.Errorf("hyperclean: %s digits: label %d of image %d is not a digit", name, l, k)
		}
	}
	return nil
}

// numClasses is the number of digit classes.
const numClasses = 10

// CleaningConfig sets up a hyper-cleaning instance from MNIST.
type CleaningConfig struct {
	// Train and Val are the numbers of training and validation samples,
	// drawn without replacement from the MNIST training images (paper:
	// 5,000 and 5,000). The test set is the whole MNIST test set (10,000).
	Train, Val int
	// Corrupt is the fraction of training labels replaced by a wrong one
	// (paper: 0.5); round(Corrupt * Train) samples are corrupted.
	Corrupt float64
	// RhoBar is rho_bar of the regularizer (not given in the paper).
	RhoBar float64
	// Seed keys the split and the corruption.
	Seed uint64
}

// streamCleaning is the common-randomness stream of the hyper-cleaning
// data, a graph.NamedStream (graph's registry of streams lists the
// runtime's and the shared problems' streams; a package outside it takes a
// named one).
var streamCleaning = graph.NamedStream("consensus/tsp.hyper-cleaning")

// Keys of the two random generators of the data in streamCleaning.
const (
	keySplit   = 0
	keyCorrupt = 1
)

// dataRNG returns the generator of key for seed:
// PCG(Hash(seed, 0, streamCleaning, key, 0), Hash(seed, 0, streamCleaning, key, 1)).
func dataRNG(seed, key uint64) *rand.Rand {
	return streamCleaning.Rand(seed, 0, key)
}

// NewHyperCleaning builds the hyper-cleaning instance of cfg. The
// training images are permuted with the split stream; the first cfg.Train
// become the training set and the next cfg.Val the validation set. Then a
// permutation of the training set from the corruption stream picks the
// first round(Corrupt*Train) samples, and each gets a label drawn
// uniformly from the 9 wrong classes: l~ = (l + 1 + U{0..8}) mod 10.
// Pixels are scaled to [0, 1] by 1/255.
func NewHyperCleaning(train, test Digits, cfg CleaningConfig) (*HyperCleaning, error) {
	if err := train.validate("training"); err != nil {
		return nil, err
	}
	if err := test.validate("test"); err != nil {
		return nil, err
	}
	if train.Dim != test.Dim {
		return nil, fmt.Errorf("hyperclean: training images have %d pixels, test images %d", train.Dim, test.Dim)
	}
	if cfg.Train <= 0 || cfg.Val <= 0 || cfg.Train+cfg.Val > train.N {
		return nil, fmt.Errorf("hyperclean: %d training + %d validation samples from %d images", cfg.Train, cfg.Val, train.N)
	}
	if !(cfg.Corrupt >= 0 && cfg.Corrupt <= 1) || !(cfg.RhoBar >= 0) {
		return nil, fmt.Errorf("hyperclean: corrupted fraction %v must be in [0, 1] and rho_bar %v non-negative", cfg.Corrupt, cfg.RhoBar)
	}
	perm := dataRNG(cfg.Seed, keySplit).Perm(train.N)
	trIdx, valIdx := perm[:cfg.Train], perm[cfg.Train:cfg.Train+cfg.Val]

	labels := make([]int, cfg.Train)
	for k, i := range trIdx {
		labels[k] = int(train.Labels[i])
	}
	clean := make([]bool, cfg.Train)
	for i := range clean {
		clean[i] = true
	}
	rng := dataRNG(cfg.Seed, keyCorrupt)
	nBad := int(cfg.Corrupt*float64(cfg.Train) + 0.5)
	for _, i := range rng.Perm(cfg.Train)[:nBad] {
		labels[i] = (labels[i] + 1 + rng.IntN(numClasses-1)) % numClasses
		clean[i] = false
	}
	trSet, err := digitSet(train, trIdx, labels)
	if err != nil {
		return nil, err
	}
	valSet, err := digitSet(train, valIdx, nil)
	if err != nil {
		return nil, err
	}
	all := make([]int, test.N)
	for i := range all {
		all[i] = i
	}
	testSet, err := digitSet(test, all, nil)
	if err != nil {
		return nil, err
	}
	return &HyperCleaning{Train: trSet, Val: valSet, Test: testSet, Clean: clean, RhoBar: cfg.RhoBar,
		TrainIndex: append([]int(nil), trIdx...), ValIndex: append([]int(nil), valIdx...)}, nil
}

// digitSet returns the Set of images idx of d, scaled to [0, 1], with the
// given labels (nil: d's own).
func digitSet(d Digits, idx []int, labels []int) (*Set, error) {
	rows := make([]float64, len(idx)*d.Dim)
	if labels == nil {
		labels = make([]int, len(idx))
		for k, i := range idx {
			labels[k] = int(d.Labels[i])
		}
	}
	for k, i := range idx {
		px := d.Pixels[i*d.Dim : (i+1)*d.Dim]
		r := rows[k*d.Dim : (k+1)*d.Dim]
		for j, p := range px {
			r[j] = float64(p) / 255
		}
	}
	return NewSet(rows, d.Dim, labels, numClasses)
}
