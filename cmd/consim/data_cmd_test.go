package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/catalog"
	"github.com/consim/consim/dataset"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// TestDataExportReproducesFStar: the exported shards of quickstart, read
// back as LIBSVM, give by the normal equations (solved here, not by
// consim's solvers) the f* that problem.json reports.
func TestDataExportReproducesFStar(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	m := exportScenario(t, "../../scenarios/quickstart.yaml", dir)
	n, N := m.Dim, len(m.Shards)
	h := mat.NewSymDense(n, nil)
	g := mat.NewVecDense(n, nil)
	var shards []*dataset.Dataset
	for _, f := range m.Shards {
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
		h.SetSym(j, j, h.At(j, j)+m.Constants["reg"])
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
	f = f/float64(N) + m.Constants["reg"]/2*mat.Dot(&x, &x)
	if fs := float64(m.FStar); math.Abs(f-fs) > 1e-12*(1+math.Abs(f)) {
		t.Fatalf("normal equations give f* = %.17g, problem.json %.17g", f, m.FStar)
	}
	var stdout, stderr bytes.Buffer
	if code := mainExit([]string{"data", "export", "../../scenarios/quickstart.yaml", dir}, &stdout, &stderr); code != exitUsage {
		t.Fatalf("export into an existing directory: exit %d, want %d", code, exitUsage)
	}
}

// exportScenario runs consim data export of the scenario file with the
// overrides sets into dir and returns the problem.json it wrote.
func exportScenario(t *testing.T, file, dir string, sets ...string) *sim.ExportManifest {
	t.Helper()
	args := []string{"data", "export", file, dir}
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	var stdout, stderr bytes.Buffer
	if code := mainExit(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("consim data export %s: exit %d: %s", file, code, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "problem.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m sim.ExportManifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return &m
}

// exportData names, per shipped scenario on a shared data set, the
// override of its data file (%s its path) and the file under sharedData.
var exportData = map[string][2]string{
	"compress_a9a":   {"problem.data={path: %s, format: libsvm, shard: random}", "a9a/a9a.gz"},
	"fairness_adult": {"problem.data=%s", "adult"},
	"penalty_a9a":    {"problem.file=%s", "a9a/a9a.gz"},
	"tsp_hyperclean": {"problem.mnist=%s", "mnist"},
}

// exportScale shrinks the shipped scenarios too large or too slow for a
// unit test (10,000 agents; the fairness reference on 2,000 Adult rows);
// every other key is the file's.
var exportScale = map[string][]string{
	"scale_10k":      {"agents=64", "graph.rows=8", "graph.cols=8"},
	"fairness_adult": {"problem.rows=400"},
}

// fstarNames is the name of f* of the shipped scenarios, by kind (push_sum
// aside, whose runs measure an objective of their own).
var fstarNames = map[string]string{
	"slicing":              "LP bound",
	"qcqp":                 "global optimum (S-lemma certificate)",
	"nonconvex_regression": "best of a multistart (nonconvex)",
	"least_squares":        "optimum",
}

// exportSlowCentral are the shipped scenarios whose central solve takes
// seconds (logistic regression on all of a9a): in -short mode their run's
// f* is not solved a second time to compare.
var exportSlowCentral = map[string]bool{"compress_a9a": true}

// TestDataExportShippedScenarios: `consim data export` succeeds for every
// shipped scenario (scenarios/*.yaml), so for every registered problem
// kind; every file problem.json lists exists and is not empty; and
// problem.json's f* and its name are the ones the scenario's run reports
// (the coordinator's meta f_star and f_star_is), bit for bit. push_sum is
// the exception: its runs measure the averaging of their initial points,
// not the problem's objective. A scenario on a shared data set reads it
// from sharedData, and is skipped when it is not there; -short leaves out
// the second solve of exportSlowCentral.
func TestDataExportShippedScenarios(t *testing.T) {
	kinds := map[string]bool{}
	skipped := false
	for _, name := range scenarios.Shipped() {
		t.Run(name, func(t *testing.T) {
			sets := slices.Clone(exportScale[name])
			if d, ok := exportData[name]; ok {
				path := filepath.Join(sharedData, d[1])
				if _, err := os.Stat(path); err != nil {
					skipped = true
					t.Skipf("data of %s not found: %v", name, err)
				}
				sets = append(sets, fmt.Sprintf(d[0], path))
			}
			file := filepath.Join("..", "..", "scenarios", name+".yaml")
			dir := filepath.Join(t.TempDir(), "export")
			m := exportScenario(t, file, dir, sets...)
			kinds[m.Kind] = true
			if m.Scenario != name || m.Objective == "" || m.FStarIs == "" || len(m.Files) == 0 {
				t.Errorf("manifest %+v: want the scenario's name, an objective, the name of f* and files", m)
			}
			for _, f := range m.Files {
				if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
					t.Errorf("%s: %v (size %v)", f, err, fi)
				}
			}
			fs := float64(m.FStar)
			if want, ok := fstarNames[m.Kind]; ok && m.FStarIs != want {
				t.Errorf("kind %s: f* named %q, want %q", m.Kind, m.FStarIs, want)
			}
			if math.IsNaN(fs) != strings.HasPrefix(m.FStarIs, "none: ") {
				t.Errorf("f* = %v named %q: a missing value is named none with the reason, a value is not", fs, m.FStarIs)
			}
			if testing.Short() && exportSlowCentral[name] {
				return
			}
			s, st, err := loadAndBuild(file, sets)
			if err != nil {
				t.Fatal(err)
			}
			if s.Algorithm.Name == "push_sum" {
				return
			}
			cfg, _, err := sim.CoordinatorConfig(st, "export", hclog.NewNullLogger(), nil)
			if err != nil {
				t.Fatal(err)
			}
			run := math.NaN()
			if v, ok := cfg.Meta["f_star"].(float64); ok {
				run = v
			}
			if math.Float64bits(fs) != math.Float64bits(run) && !(math.IsNaN(fs) && math.IsNaN(run)) {
				t.Errorf("problem.json f* = %v, the run reports %v", fs, run)
			}
			if runName := cfg.Meta["f_star_is"]; runName != m.FStarIs {
				t.Errorf("problem.json names f* %q, the run %q", m.FStarIs, runName)
			}
		})
	}
	if t.Failed() || skipped {
		return
	}
	for _, k := range catalog.Default().Problems() {
		if !kinds[k] {
			t.Errorf("no shipped scenario exports problem kind %s", k)
		}
	}
}
