package hyperclean

import (
	"fmt"
	"math"

	"github.com/consim/consim/dataset"
	"github.com/consim/consim/problems/datafile"
)

// Export writes the rows the run's agents hold, the label first and the
// 784 pixels scaled to [0, 1] after it (the model adds the bias): agent 0
// (the upper level) the validation set with its true labels, agent k >= 1
// training block k of Split(N - 1) with its noisy labels; then the test
// set and split.csv, which names each row's MNIST training image and
// whether its label was left clean. The problem has no reference value.
func (i instance) Export(e *datafile.Export) error {
	h := i.h
	m := &e.Manifest
	tasks := m.Agents - 1
	if tasks < 1 {
		return fmt.Errorf("hyperclean: %d agents: the star needs an upper-level agent and at least one task agent", m.Agents)
	}
	split := h.Split(tasks)
	var meta [][]float64
	write := func(base string, s *Set, agent int, index []int, clean func(k int) bool) error {
		name, err := e.WriteRows(base, s.pixels())
		if err != nil {
			return err
		}
		if agent >= 0 {
			m.Shards = append(m.Shards, name)
			for k, idx := range index {
				meta = append(meta, []float64{float64(agent), float64(k), float64(idx), b2f(clean(k))})
			}
		}
		return nil
	}
	if err := write("agent-0", h.Val, 0, h.ValIndex, func(int) bool { return true }); err != nil {
		return err
	}
	lo := 0
	for b, nx := range split.NX {
		hi := lo + nx
		off := lo
		if err := write(fmt.Sprintf("agent-%d", b+1), h.Train.rows(lo, hi), b+1, h.TrainIndex[lo:hi], func(k int) bool { return h.Clean[off+k] }); err != nil {
			return err
		}
		lo = hi
	}
	if err := write("test", h.Test, -1, nil, nil); err != nil {
		return err
	}
	if err := e.WriteCSV("split.csv", []string{"agent", "row", "mnist_train_index", "clean"}, meta); err != nil {
		return err
	}
	m.Objective = "min over x in R^m, y = vec(W), W in R^{10 x 785} row-major, of F(y) = (1/n_val) sum_{(a, l) in validation} CE(W (a, 1), l) " +
		"s.t. y in argmin_{y'} sum_{i=1..m} sigma(x_i) CE(W' (a_i, 1), l~_i) + rho_bar sum_j y'_j^2 / (1 + y'_j^2); " +
		"CE the softmax cross entropy, sigma the logistic function; the validation set is shards[0], the m training samples (a_i, l~_i) " +
		"with their noisy labels shards[1..N-1] in order"
	m.Constants = map[string]float64{"rho_bar": h.RhoBar}
	m.FStar, m.Convex = datafile.Value(math.NaN()), false
	m.FStarIs = i.FStarName()
	m.Notes = append(m.Notes,
		"rows: the label (0..9) first, then the 784 pixels of the image divided by 255; test holds the first MNIST test images with their labels",
		"split.csv: for each row of each shard, its MNIST training image (0-based index into train-images-idx3-ubyte) and whether its label is the image's own (clean = 1) or was corrupted")
	return nil
}

// FStarName says why hyper-cleaning has no reference value.
func (i instance) FStarName() string {
	return "none: a nonconvex bilevel problem; consim solves no reference (the runs measure test accuracy and the F1 score of the clean-sample detection)"
}

// pixels returns the set's features without the bias column and its
// labels as a dataset.
func (s *Set) pixels() *dataset.Dataset {
	n, f := s.Len(), s.Features()-1
	d := &dataset.Dataset{X: make([]float64, 0, n*f), Y: make([]float64, n), Dim: f}
	for k := range n {
		d.X = append(d.X, s.A.RawRowView(k)[:f]...)
		d.Y[k] = float64(s.Labels[k])
	}
	return d
}

// b2f is 1 for true, 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
