package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// reproduce runs `consim reproduce <name>` with args and returns its error
// (a usageError for bad flags or arguments) without printing it.
func reproduce(name string, args []string, stdout, stderr *bytes.Buffer) error {
	a := &app{stdout: stdout, stderr: stderr}
	_, err := a.execute(a.rootCmd(), append([]string{"reproduce", name}, args...))
	return err
}

// readCSVRows returns the header and the data rows of path.
func readCSVRows(t *testing.T, path string) ([]string, [][]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s is empty", path)
	}
	return rows[0], rows[1:]
}

// checkFiles fails unless every name exists in dir and is not empty.
func checkFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		if st, err := os.Stat(filepath.Join(dir, n)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", n, err)
		}
	}
}

// checkTable reads dir/table.md, checks that stdout is the table followed
// by nothing else and that it holds every line of want, and returns it.
func checkTable(t *testing.T, dir, stdout string, want ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "table.md"))
	if err != nil {
		t.Fatal(err)
	}
	table := string(b)
	if stdout != table {
		t.Errorf("stdout differs from table.md:\n%s\n---\n%s", stdout, table)
	}
	if !strings.Contains(table, "\nWall time: ") {
		t.Errorf("table.md has no wall time:\n%s", table)
	}
	for _, w := range want {
		if !strings.Contains(table, w) {
			t.Errorf("table.md lacks %q:\n%s", w, table)
		}
	}
	return table
}

// checkBadFlags runs `consim reproduce <name>` with each set of bad flags
// and checks exit code 2 and that no output directory was created.
func checkBadFlags(t *testing.T, name string, cases map[string][]string) {
	t.Helper()
	cases["positional"] = []string{"extra"}
	cases["unknown flag"] = []string{"--nope"}
	for what, args := range cases {
		t.Run(what, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			var stdout, stderr bytes.Buffer
			full := append([]string{"reproduce", name, "--out", dir}, args...)
			if code := mainExit(full, &stdout, &stderr); code != 2 {
				t.Fatalf("consim %q: exit %d, want 2; stderr %q", full, code, stderr.String())
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a rejected command created %s (stat: %v)", dir, err)
			}
		})
	}
}

func TestReproduceZOSPLMSmall(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	args := []string{"--out", dir, "--n", "6,8", "--trials", "2", "--k", "200", "--max-iter", "60",
		"--plot-k", "20", "--plot-iters", "15", "--seed", "3"}
	if err := reproduce("zo-splm", args, &stdout, &stderr); err != nil {
		t.Fatalf("reproduce zo-splm: %v\nstderr: %s", err, stderr.String())
	}
	var plots []string
	for _, n := range []string{"6", "8"} {
		for _, p := range []string{"objective", "measures"} {
			plots = append(plots, "zosplm_n"+n+"_"+p+".png", "zosplm_n"+n+"_"+p+".svg")
		}
	}
	checkFiles(t, dir, append(plots, "trials.csv", "traces.csv", "convergence.csv")...)

	// trials.csv: one row per (n, method, trial); a run that reached eps
	// stopped there.
	head, trials := readCSVRows(t, filepath.Join(dir, "trials.csv"))
	if got := strings.Join(head, ","); got != "n,k,method,trial,iters_to_eps,iters,evals,cpu_seconds,cpu_seconds_per_iter" {
		t.Fatalf("trials.csv header %q", got)
	}
	if len(trials) != 2*3*2 {
		t.Fatalf("trials.csv has %d rows, want 12", len(trials))
	}
	iters := map[string]int{}
	for _, r := range trials {
		toEps, _ := strconv.Atoi(r[4])
		it, _ := strconv.Atoi(r[5])
		evals, _ := strconv.Atoi(r[6])
		if toEps >= 0 && toEps != it || toEps < 0 && it != 60 {
			t.Errorf("row %v: %d iterations with eps at %d (limit 60)", r, it, toEps)
		}
		if evals != it*(200+1) {
			t.Errorf("row %v: %d evaluations, want k + 1 = 201 per iteration", r, evals)
		}
		iters[r[0]+"/"+r[2]+"/"+r[3]] = it
	}
	// traces.csv: iterations + 1 points per run (the start included).
	_, traces := readCSVRows(t, filepath.Join(dir, "traces.csv"))
	points := map[string]int{}
	for _, r := range traces {
		points[r[0]+"/"+r[2]+"/"+r[3]]++
	}
	for k, it := range iters {
		if points[k] != it+1 {
			t.Errorf("%s: %d trace points, want %d", k, points[k], it+1)
		}
	}
	// convergence.csv: every method runs all 15 iterations.
	_, conv := readCSVRows(t, filepath.Join(dir, "convergence.csv"))
	if len(conv) != 2*3*16 {
		t.Errorf("convergence.csv has %d rows, want %d", len(conv), 2*3*16)
	}
	checkTable(t, dir, stdout.String(), "| 6 | zo-splm | ", "| 8 | zo-alm | ", "| 6 | zo-conex | ",
		"ZO-SPLM needs fewer iterations than zo-conex", "| 8 | zo-splm | ")
}

func TestReproduceZOSPLMBadFlags(t *testing.T) {
	checkBadFlags(t, "zo-splm", map[string][]string{
		"n":          {"--n", "0"},
		"n list":     {"--n", "50,x"},
		"trials":     {"--trials", "0"},
		"k":          {"--k", "0"},
		"eps":        {"--eps", "-1"},
		"plot-k":     {"--plot-k", "-1"},
		"plot-iters": {"--plot-iters", "0"},
	})
}

func TestLogTicksLabels(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   []string
	}{
		{0.001, 1000, []string{"0.001", "1", "1000"}},
		{0.7, 20, []string{"1", "2", "5", "10", "20"}},
		{1e-12, 1, []string{"1e-12", "1e-10", "0.01"}},
		{1e4, 3e7, []string{"10000", "100000", "10000000"}},
		{1, 1e12, []string{"1", "100", "1e10", "1e12"}},
	} {
		var got []string
		for _, tk := range (logTicks{}).Ticks(tc.lo, tc.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		all := strings.Join(got, " ")
		for _, w := range tc.want {
			found := false
			for _, g := range got {
				found = found || g == w
			}
			if !found {
				t.Errorf("[%g, %g]: labels %q lack %q", tc.lo, tc.hi, all, w)
			}
		}
		if strings.Contains(all, "e+") {
			t.Errorf("[%g, %g]: labels %q in exponent form", tc.lo, tc.hi, all)
		}
	}
	for v, want := range map[float64]string{0.30000000000000004: "0.3", 12000: "12000", -0.05: "-0.05", 0: "0"} {
		if got := plainNumber(v); got != want {
			t.Errorf("plainNumber(%v) = %q, want %q", v, got, want)
		}
	}
}
