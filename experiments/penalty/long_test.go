package penalty

import (
	"bufio"
	"compress/gzip"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	penaltyalg "github.com/consim/consim/consensus/penalty"
	"github.com/consim/consim/problems/constrlogistic"
)

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

func skipShort(t *testing.T) {
	t.Helper()
	if os.Getenv("CONSIM_LONG") != "1" {
		t.Skip("long: set CONSIM_LONG=1")
	}
}

func logTrace(t *testing.T, tr penaltyalg.Trace, at []int) {
	t.Helper()
	for i, r := range tr.Records {
		for _, k := range at {
			if r.Iter == k || (k < 0 && i == len(tr.Records)-1) {
				t.Logf("  %-45s k=%5d evals=%10d F=%.6f |F-F*|=%.3e viol=%.3e rho=%.3g", tr.Method, r.Iter, r.GradEvals, r.Objective, tr.Gap(i), r.Violation, r.Rho)
			}
		}
	}
}

// TestLongExperiment51 reproduces Section 5.1 at the paper's sizes
// (n = 100, 10,000 samples, m = 50, K = 5,000) and reports the claims.
func TestLongExperiment51(t *testing.T) {
	skipShort(t)
	start := time.Now()
	r, err := Experiment51(constrlogistic.PaperSynthetic(1), 5000, 10)
	if err != nil {
		t.Fatal(err)
	}
	var xmax float64
	for _, v := range r.Opt.X {
		xmax = max(xmax, abs(v))
	}
	t.Logf("F* = %.8f, max|x*_j| = %.3g (constrlogistic.KKT %+v, %d outer, %d inner); reference and both runs %.1fs", r.Opt.F, xmax, r.Opt.KKT, r.Opt.Outer, r.Opt.Inner, time.Since(start).Seconds())
	at := []int{0, 10, 100, 1000, 2500, -1}
	logTrace(t, r.Constant, at)
	logTrace(t, r.Dynamic, at)
	for _, c := range r.Claims {
		t.Logf("claim %s %q holds=%v: %s", c.Section, c.Text, c.Holds, c.Detail)
	}
	if r.Opt.KKT.Max() > 1e-9 {
		t.Errorf("reference constrlogistic.KKT %+v", r.Opt.KKT)
	}
}

// readLIBSVM is a minimal reader of LIBSVM text (gzip) for the long test.
func readLIBSVM(t *testing.T, path string, n int) (constrlogistic.Sparse, []float64) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Skipf("a9a not available: %v", err)
	}
	defer fh.Close()
	gz, err := gzip.NewReader(fh)
	if err != nil {
		t.Fatal(err)
	}
	a := constrlogistic.Sparse{Cols: n, Ptr: []int{0}}
	var y []float64
	sc := bufio.NewScanner(gz)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		lab, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			t.Fatal(err)
		}
		y = append(y, lab)
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, ":")
			j, err1 := strconv.Atoi(k)
			val, err2 := strconv.ParseFloat(v, 64)
			if err1 != nil || err2 != nil || j < 1 || j > n {
				t.Fatalf("bad entry %q", kv)
			}
			a.Idx = append(a.Idx, j-1)
			a.Val = append(a.Val, val)
		}
		a.Ptr = append(a.Ptr, len(a.Idx))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return a, y
}

const a9aPath = "/work/shared/data/a9a/a9a.gz"

func a9aProblem(t *testing.T) *constrlogistic.FiniteSumProblem {
	t.Helper()
	a, y := readLIBSVM(t, a9aPath, 123)
	if a.Rows() != 32561 {
		t.Fatalf("a9a: %d rows", a.Rows())
	}
	start := time.Now()
	p, err := constrlogistic.NewFiniteSumProblemSparse(a, y, constrlogistic.PaperFiniteSum(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a9a: F* = %.8f (constrlogistic.KKT %+v, %d outer, %d inner); reference solves %.1fs", p.Opt.F, p.Opt.KKT, p.Opt.Outer, p.Opt.Inner, time.Since(start).Seconds())
	return p
}

// TestLongExperiment52 reproduces the comparison of Section 5.2 on a9a:
// Algorithm 2 under Theorems 3(ii) and 4(ii) against EAG, 500 iterations.
func TestLongExperiment52(t *testing.T) {
	skipShort(t)
	p := a9aProblem(t)
	start := time.Now()
	r, err := Experiment52On(p, 500, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("runs %.1fs", time.Since(start).Seconds())
	at := []int{0, 10, 50, 100, 250, -1}
	for _, tr := range r.Alg2 {
		logTrace(t, tr, at)
	}
	logTrace(t, r.EAG, at)
	for _, c := range r.Claims {
		t.Logf("claim %s %q holds=%v: %s", c.Section, c.Text, c.Holds, c.Detail)
	}
}
