package tsp_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/consim/consim/consensus/tsp"
	"github.com/consim/consim/dataset"
)

// mnistDir is where the MNIST files are looked for (CONSIM_MNIST
// overrides it).
func mnistDir() string {
	if d := os.Getenv("CONSIM_MNIST"); d != "" {
		return d
	}
	return "/work/shared/data/mnist"
}

// loadMNIST returns the MNIST training and test digits, skipping the test
// when the files are missing.
func loadMNIST(t testing.TB) (train, test tsp.Digits) {
	t.Helper()
	dir := mnistDir()
	read := func(prefix string) tsp.Digits {
		im, lb, err := dataset.ReadMNIST(filepath.Join(dir, prefix+"-images-idx3-ubyte.gz"), filepath.Join(dir, prefix+"-labels-idx1-ubyte.gz"))
		if err != nil {
			if os.IsNotExist(err) || errorsIsNotExist(err) {
				t.Skipf("MNIST not found in %s", dir)
			}
			t.Fatal(err)
		}
		return tsp.Digits{N: im.N, Dim: im.Rows * im.Cols, Pixels: im.Pixels, Labels: lb}
	}
	if _, err := os.Stat(filepath.Join(dir, "train-images-idx3-ubyte.gz")); err != nil {
		t.Skipf("MNIST not found in %s", dir)
	}
	return read("train"), read("t10k")
}

func errorsIsNotExist(err error) bool {
	_, statErr := os.Stat(mnistDir())
	return statErr != nil
}
