package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestReproduceADMMQuick(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "out") // parents are created
	var stdout, stderr bytes.Buffer
	if err := reproduceADMM([]string{"--quick", "--out", dir, "--seed", "3"}, &stdout, &stderr); err != nil {
		t.Fatalf("reproduceADMM: %v\nstderr: %s", err, stderr.String())
	}
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
	if stdout.String() != string(table) {
		t.Error("stdout differs from table.md")
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

func TestReproduceADMMAlg2(t *testing.T) {
	base := []string{"--quick", "--cov", "2", "--seed", "5", "--outer", "6"}
	without, with := filepath.Join(t.TempDir(), "without"), filepath.Join(t.TempDir(), "with")
	var stdout, stderr bytes.Buffer
	if err := reproduceADMM(append(base, "--out", without), &stdout, &stderr); err != nil {
		t.Fatalf("reproduceADMM: %v\nstderr: %s", err, stderr.String())
	}
	stdout.Reset()
	if err := reproduceADMM(append(base, "--out", with, "--alg2"), &stdout, &stderr); err != nil {
		t.Fatalf("reproduceADMM --alg2: %v\nstderr: %s", err, stderr.String())
	}

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

func TestReproduceADMMBadFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"cov", []string{"--cov", "3"}},
		{"outer", []string{"--outer", "0"}},
		{"eta", []string{"--eta", "-1"}},
		{"mu", []string{"--mu", "-1"}},
		{"positional", []string{"extra"}},
		{"unknown flag", []string{"--nope"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errw bytes.Buffer
			dir := filepath.Join(t.TempDir(), "out")
			args := append([]string{"--out", dir}, tc.args...)
			err := reproduceADMM(args, &out, &errw)
			if err == nil || !isUsage(err) {
				t.Fatalf("reproduceADMM(%q) = %v, want a usage error", tc.args, err)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a rejected command created %s (stat: %v)", dir, err)
			}
		})
	}
	// --help is no error: the help, with the flags, goes to stdout.
	var out, errw bytes.Buffer
	if err := reproduceADMM([]string{"--help"}, &out, &errw); err != nil || !strings.Contains(out.String(), "--alg2") {
		t.Errorf("--help: %v, stdout %q; want no error and the flags", err, out.String())
	}
}

// snapshotDir maps every file name in dir to its contents and modification
// time.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap := map[string]string{}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		snap[e.Name()] = info.ModTime().String() + "\n" + string(b)
	}
	return snap
}

func TestReproduceADMMNeverOverwrites(t *testing.T) {
	args := []string{"reproduce", "admm", "--quick", "--cov", "2", "--outer", "2"}
	t.Run("second run", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "out")
		var stdout, stderr bytes.Buffer
		if code := mainExit(append(args, "--out", dir), &stdout, &stderr); code != 0 {
			t.Fatalf("first run exit %d: %s", code, stderr.String())
		}
		before := snapshotDir(t, dir)
		if len(before) == 0 {
			t.Fatal("first run wrote nothing")
		}
		stdout.Reset()
		stderr.Reset()
		// Another seed would change every file if it were written.
		if code := mainExit(append(args, "--out", dir, "--seed", "9"), &stdout, &stderr); code != 2 {
			t.Fatalf("second run into %s: exit %d, want 2; stderr: %s", dir, code, stderr.String())
		}
		if !strings.Contains(stderr.String(), dir) {
			t.Errorf("error does not name %s: %q", dir, stderr.String())
		}
		if stdout.Len() != 0 {
			t.Errorf("second run printed %q", stdout.String())
		}
		after := snapshotDir(t, dir)
		if len(after) != len(before) {
			t.Errorf("%d files after the second run, %d before", len(after), len(before))
		}
		for name, b := range before {
			if after[name] != b {
				t.Errorf("second run changed %s", name)
			}
		}
	})
	t.Run("existing empty dir", func(t *testing.T) {
		dir := t.TempDir()
		var stdout, stderr bytes.Buffer
		if code := mainExit(append(args, "--out", dir), &stdout, &stderr); code != 2 {
			t.Fatalf("run into existing %s: exit %d, want 2", dir, code)
		}
		if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
			t.Errorf("existing dir now holds %d entries (%v)", len(entries), err)
		}
	})
}

func TestReproduceADMMDefaultOut(t *testing.T) {
	t.Chdir(t.TempDir())
	var stdout, stderr bytes.Buffer
	if err := reproduceADMM([]string{"--quick", "--cov", "2", "--outer", "1"}, &stdout, &stderr); err != nil {
		t.Fatalf("reproduceADMM: %v", err)
	}
	entries, err := os.ReadDir("results")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("results holds %d entries, want 1", len(entries))
	}
	name := regexp.MustCompile(`^reproduce-admm-[0-9]{8}T[0-9]{6}-[0-9a-f]{4}$`)
	for _, e := range entries {
		if !e.IsDir() || !name.MatchString(e.Name()) {
			t.Errorf("results/%s: want a directory named reproduce-admm-<UTC time>-<4 hex>", e.Name())
		}
		if _, err := os.Stat(filepath.Join("results", e.Name(), "admm.csv")); err != nil {
			t.Errorf("results/%s: %v", e.Name(), err)
		}
	}
}
