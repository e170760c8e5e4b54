package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestReproduceADMMQuick(t *testing.T) {
	dir := t.TempDir()
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
			args := append([]string{"--out", t.TempDir()}, tc.args...)
			err := reproduceADMM(args, &out, &errw)
			if err == nil || !isUsage(err) {
				t.Fatalf("reproduceADMM(%q) = %v, want a usage error", tc.args, err)
			}
		})
	}
	var out, errw bytes.Buffer
	if err := reproduceADMM([]string{"--help"}, &out, &errw); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("--help: %v, want flag.ErrHelp", err)
	}
}
