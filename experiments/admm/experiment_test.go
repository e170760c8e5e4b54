package admm

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/consim/consim/experiments"
)

// publish runs c and writes its files into a new directory, returning it
// and the table.
func publish(t *testing.T, c Config) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "nested", "out") // parents are created
	if err := experiments.NewDir(dir); err != nil {
		t.Fatal(err)
	}
	r, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	md, err := experiments.Publish(dir, r, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return dir, md
}

// TestQuick runs QuickConfig (seed 3) and checks its files: the plots,
// admm.csv (every method for both cov values, oracle calls never
// decreasing, the variance-reduced methods making progress) and the table.
func TestQuick(t *testing.T) {
	c := QuickConfig()
	c.Experiment.Seed = 3
	dir, md := publish(t, c)
	for _, cov := range []string{"2", "10"} {
		for _, axis := range []string{"oracle", "cpu"} {
			for _, ext := range []string{".png", ".svg"} {
				name := filepath.Join(dir, "admm_cov"+cov+"_"+axis+ext)
				if st, err := os.Stat(name); err != nil || st.Size() == 0 {
					t.Errorf("plot %s missing or empty: %v", name, err)
				}
			}
		}
	}

	f, err := os.Open(filepath.Join(dir, "admm.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("admm.csv: %v", err)
	}
	if got := strings.Join(rows[0], ","); got != "method,cov,outer,oracle_calls,cpu_seconds,gap" {
		t.Fatalf("admm.csv header %q", got)
	}
	// Every method appears for both cov values; oracle calls never
	// decrease along a run; the variance-reduced methods make progress.
	type key struct{ method, cov string }
	first, last := map[key]float64{}, map[key]float64{}
	prevCalls := map[key]int64{}
	for _, r := range rows[1:] {
		k := key{r[0], r[1]}
		calls, err := strconv.ParseInt(r[3], 10, 64)
		if err != nil {
			t.Fatalf("row %v: %v", r, err)
		}
		gap, err := strconv.ParseFloat(r[5], 64)
		if err != nil {
			t.Fatalf("row %v: %v", r, err)
		}
		if calls < prevCalls[k] {
			t.Errorf("%v: oracle calls fell from %d to %d", k, prevCalls[k], calls)
		}
		prevCalls[k] = calls
		if _, ok := first[k]; !ok {
			first[k] = gap
		}
		last[k] = gap
	}
	for _, cov := range []string{"2", "10"} {
		for _, m := range []string{"com-SVR-ADMM", "com-SVRG-1", "com-SVRG-2", "SGD"} {
			k := key{m, cov}
			if _, ok := first[k]; !ok {
				t.Errorf("admm.csv has no rows for %v", k)
				continue
			}
			if m != "SGD" && !(last[k] < 1e-3*first[k]) {
				t.Errorf("%v: gap %g -> %g, want a 1000-fold decrease", k, first[k], last[k])
			}
		}
	}

	table, err := os.ReadFile(filepath.Join(dir, "table.md"))
	if err != nil {
		t.Fatal(err)
	}
	if md != string(table) {
		t.Error("the table returned differs from table.md")
	}
	for _, want := range []string{"| 2 | com-SVR-ADMM |", "| 10 | SGD |", "gap <= 1e-06", "gap <= 1e-10", "eta = 0.005"} {
		if !strings.Contains(string(table), want) {
			t.Errorf("table.md lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(string(table), alg2Name) {
		t.Errorf("table.md lists %s without --alg2", alg2Name)
	}
}

// readADMMCSV returns the data rows of dir/admm.csv.
func readADMMCSV(t *testing.T, dir string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "admm.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("admm.csv: %v", err)
	}
	return rows[1:]
}

// TestAlg2 checks that Algorithm 2 leaves the other runs as they are and
// makes its documented oracle calls.
func TestAlg2(t *testing.T) {
	c := QuickConfig()
	c.Covs, c.Experiment.Seed, c.Experiment.Outer = []float64{2}, 5, 6
	without, _ := publish(t, c)
	c.Experiment.Alg2 = true
	with, _ := publish(t, c)

	// The four default runs are unchanged by --alg2 (CPU time aside).
	strip := func(rows [][]string) []string {
		var out []string
		for _, r := range rows {
			if r[0] != alg2Name {
				out = append(out, strings.Join([]string{r[0], r[1], r[2], r[3], r[5]}, ","))
			}
		}
		return out
	}
	a, b := strip(readADMMCSV(t, without)), strip(readADMMCSV(t, with))
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Error("--alg2 changed the rows of the other methods")
	}

	// Algorithm 2: --outer outer iterations of exactly 2m + n + K(m + 4)
	// oracle calls each (quick: m = n = 200, K = 400), and progress.
	const perOuter = 2*200 + 200 + 400*(200+4)
	var calls []int64
	var gaps []float64
	for _, r := range readADMMCSV(t, with) {
		if r[0] != alg2Name {
			continue
		}
		c, err := strconv.ParseInt(r[3], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		g, err := strconv.ParseFloat(r[5], 64)
		if err != nil {
			t.Fatal(err)
		}
		calls, gaps = append(calls, c), append(gaps, g)
	}
	if len(calls) != 7 {
		t.Fatalf("%d rows for %s, want 7 (start and 6 outer iterations)", len(calls), alg2Name)
	}
	for i, c := range calls {
		if c != int64(i)*perOuter {
			t.Errorf("outer %d: %d oracle calls, want %d", i, c, int64(i)*perOuter)
		}
	}
	if !(gaps[6] < 0.1*gaps[0]) {
		t.Errorf("%s gap %g -> %g, want a 10-fold decrease", alg2Name, gaps[0], gaps[6])
	}

	table, err := os.ReadFile(filepath.Join(with, "table.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 2 | " + alg2Name + " |", "| 2 | com-SVR-ADMM |", "2m + n + K(m + 4)"} {
		if !strings.Contains(string(table), want) {
			t.Errorf("table.md lacks %q:\n%s", want, table)
		}
	}
	for _, axis := range []string{"oracle", "cpu"} {
		if st, err := os.Stat(filepath.Join(with, "admm_cov2_"+axis+".png")); err != nil || st.Size() == 0 {
			t.Errorf("plot %s missing or empty: %v", axis, err)
		}
	}
}
