package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/dataset"
	"github.com/consim/consim/sim"
)

// TestDataExportReproducesFStar: the exported shards of quickstart, read
// back as LIBSVM, give by the normal equations (solved here, not by
// consim's solvers) the f* that problem.json reports.
func TestDataExportReproducesFStar(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	if code := mainExit([]string{"data", "export", "../../scenarios/quickstart.yaml", dir}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var m sim.ExportManifest
	b, err := os.ReadFile(filepath.Join(dir, "problem.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	n, N := m.Dim, len(m.Files)
	h := mat.NewSymDense(n, nil)
	g := mat.NewVecDense(n, nil)
	var shards []*dataset.Dataset
	for _, f := range m.Files {
		d, err := dataset.LoadLIBSVM(filepath.Join(dir, f), dataset.LIBSVMOptions{Dim: n})
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d)
		w := 1 / float64(d.Rows()*N)
		a := mat.NewDense(d.Rows(), n, d.X)
		h.SymRankK(h, w, a.T())
		var atb mat.VecDense
		atb.MulVec(a.T(), mat.NewVecDense(d.Rows(), d.Y))
		g.AddScaledVec(g, w, &atb)
	}
	for j := range n {
		h.SetSym(j, j, h.At(j, j)+m.Reg)
	}
	var x mat.VecDense
	var chol mat.Cholesky
	if !chol.Factorize(h) {
		t.Fatal("normal equations not positive definite")
	}
	if err := chol.SolveVecTo(&x, g); err != nil {
		t.Fatal(err)
	}
	var f float64
	for _, d := range shards {
		var s float64
		for k := range d.Rows() {
			r := mat.Dot(mat.NewVecDense(n, d.Row(k)), &x) - d.Y[k]
			s += r * r / 2
		}
		f += s / float64(d.Rows())
	}
	f = f/float64(N) + m.Reg/2*mat.Dot(&x, &x)
	if math.Abs(f-m.FStar) > 1e-12*(1+math.Abs(f)) {
		t.Fatalf("normal equations give f* = %.17g, problem.json %.17g", f, m.FStar)
	}
	if code := mainExit([]string{"data", "export", "../../scenarios/quickstart.yaml", dir}, &stdout, &stderr); code != exitUsage {
		t.Fatalf("export into an existing directory: exit %d, want %d", code, exitUsage)
	}
}
