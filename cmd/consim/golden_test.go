package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// update rewrites the golden files from the current code:
// go test ./cmd/consim -run Golden -update.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// sharedData is the shared data directory (a9a, MNIST, Adult) that the
// tests of every package read, when it is present.
const sharedData = "/work/shared/data"

// goldenCase is one run of a reproduce command at a small size.
type goldenCase struct {
	name string // directory under testdata/golden/reproduce
	cmd  string // the reproduce subcommand
	args []string
	// data is a file or directory under sharedData the run reads; the
	// case is skipped without it.
	data string
	// timeColumns are the CSV columns, timeCells the markdown table
	// columns (by header), that hold measured times.
	timeColumns, timeCells []string
	// timeText matches the other measured times in table.md, stdout and
	// stderr.
	timeText []*regexp.Regexp
	// timePlots are the plots drawn against measured time.
	timePlots []string
}

// wallText matches the times every reproduce command prints: the wall
// time under table.md and the progress lines' elapsed seconds.
var wallText = []*regexp.Regexp{
	regexp.MustCompile(`Wall time: [0-9.]+ s\.`),
	regexp.MustCompile(`after [0-9.]+ s\b`),
	regexp.MustCompile(`\([0-9.]+ ?s\)`),
}

// goldenCases are the reproduce commands at the small sizes of their
// tests, with every method each one offers.
func goldenCases() []goldenCase {
	// Six records of the Adult files, beside the experiments.
	adult := filepath.Join("..", "..", "experiments", "testdata", "adult-small")
	return []goldenCase{
		{name: "admm", cmd: "admm", args: []string{"--quick", "--seed", "3", "--outer", "6", "--alg2"},
			timeColumns: []string{"cpu_seconds"}, timePlots: []string{"admm_cov2_cpu", "admm_cov10_cpu"},
			timeText: []*regexp.Regexp{regexp.MustCompile(`\([0-9.]+ s\)`)}},
		{name: "zo-splm", cmd: "zo-splm", args: []string{"--n", "6,8", "--trials", "2", "--k", "200", "--max-iter", "60",
			"--plot-k", "20", "--plot-iters", "15", "--seed", "3"},
			timeColumns: []string{"cpu_seconds", "cpu_seconds_per_iter"},
			timeCells:   []string{"CPU s/iter median", "CPU s total (mean)"},
			timeText: []*regexp.Regexp{regexp.MustCompile(`[0-9.]+ CPU s/iteration`),
				regexp.MustCompile(`(?m)(takes less [^|]*\|).*$`)}},
		{name: "penalty-5.1", cmd: "penalty", args: []string{"--section", "5.1", "--k51", "150", "--every51", "5", "--n", "10",
			"--samples", "400", "--core", "5", "--seed", "2"}},
		{name: "penalty-5.2", cmd: "penalty", data: "a9a/a9a.gz", args: []string{"--section", "5.2", "--a9a", filepath.Join(sharedData, "a9a/a9a.gz"),
			"--a9a-rows", "1000", "--core", "5", "--k52", "8", "--every52", "2", "--rules", "3i,3ii,4i,4ii"}},
		{name: "tsp", cmd: "tsp", data: "mnist", args: []string{"--mnist", filepath.Join(sharedData, "mnist"), "--seeds", "2", "--seed", "3",
			"--rounds", "4", "--every", "2", "--train", "60", "--val", "60", "--parallel", "1"},
			timeColumns: []string{"seconds"}, timeCells: []string{"step time (s)"}},
		{name: "slicing", cmd: "slicing", args: []string{"--instances", "2", "--seed", "4", "--rounds", "60", "--every", "20",
			"--nodes", "12", "--flows", "3", "--losses", "0,0.2"}},
		{name: "rates", cmd: "rates", args: []string{"--p", "1,0.5", "--methods", "gossip,alm", "--n", "6", "--er-q", "0.5",
			"--budget", "2000", "--alm-seeds", "10", "--alm-rounds", "300", "--batches", "10"}},
		{name: "storm", cmd: "storm", args: []string{"--seeds", "2", "--horizons", "64,125,216", "--fit-from", "100",
			"--agents", "4", "--dim", "3", "--batch", "2", "--points", "4"},
			timeColumns: []string{"wall_s"}},
		{name: "compare", cmd: "compare", args: []string{"--seeds", "2", "--p", "1,0.5", "--rounds", "300", "--every", "50",
			"--methods", "alm,alm_storm,dgd,dgd_sqrt,tracking,penalty_asg,penalty_asg_constant,alm_nodual",
			"--consensus", "1e-3", "--stationarity", "0.03"},
			timeColumns: []string{"wall_s"}},
		{name: "fairness", cmd: "fairness", args: []string{"--adult", adult, "--losses", "logistic,logdiff,smooth01", "--cs", "inf,0.01",
			"--rounds", "200", "--batch", "2"}},
		{name: "fairness-adult", cmd: "fairness", data: "adult", args: []string{"--adult", filepath.Join(sharedData, "adult"),
			"--losses", "logdiff,smooth01", "--cs", "inf,0.01", "--rounds", "200", "--batch", "8", "--sampled", "--seed", "2"}},
	}
}

// TestGoldenReproduce runs every reproduce command at a small size and
// compares what it writes (every CSV and table.md, stdout and stderr, and
// the SHA-256 of every plot) with testdata/golden/reproduce/<case>/, with
// the measured times masked: the commands must keep their outputs.
func TestGoldenReproduce(t *testing.T) {
	for _, c := range goldenCases() {
		t.Run(c.name, func(t *testing.T) {
			if c.data != "" {
				if _, err := os.Stat(filepath.Join(sharedData, c.data)); err != nil {
					t.Skipf("data not found: %v", err)
				}
			}
			out := filepath.Join(t.TempDir(), "out")
			var stdout, stderr bytes.Buffer
			if err := runReproduce(c.cmd, append([]string{"--out", out}, c.args...), &stdout, &stderr); err != nil {
				t.Fatalf("reproduce %s: %v\nstderr: %s", c.cmd, err, stderr.String())
			}
			golden := filepath.Join("testdata", "golden", "reproduce", c.name)
			got := map[string]string{
				"stdout.txt": c.maskText(stdout.String()),
				"stderr.txt": c.maskText(stderr.String()),
			}
			entries, err := os.ReadDir(out)
			if err != nil {
				t.Fatal(err)
			}
			var plots []string
			for _, e := range entries {
				b, err := os.ReadFile(filepath.Join(out, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				switch ext := filepath.Ext(e.Name()); ext {
				case ".csv":
					got[e.Name()] = c.maskCSV(t, b)
				case ".md":
					got[e.Name()] = c.maskText(string(b))
				case ".png", ".svg":
					if !slices.Contains(c.timePlots, strings.TrimSuffix(e.Name(), ext)) {
						plots = append(plots, fmt.Sprintf("%x  %s\n", sha256.Sum256(b), e.Name()))
					}
				default:
					t.Errorf("unexpected output file %s", e.Name())
				}
			}
			got["plots.sha256"] = strings.Join(plots, "")
			checkGoldenDir(t, golden, got)
		})
	}
}

// maskText replaces the measured times in s by "~".
func (c goldenCase) maskText(s string) string {
	for _, re := range append(slices.Clone(wallText), c.timeText...) {
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			if sub := re.FindStringSubmatch(m); len(sub) > 1 {
				return sub[1] + " ~"
			}
			return "~"
		})
	}
	return maskMarkdownColumns(s, c.timeCells)
}

// maskCSV returns the CSV b with the cells of c.timeColumns replaced by "~".
func (c goldenCase) maskCSV(t *testing.T, b []byte) string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 {
		return ""
	}
	for k, h := range recs[0] {
		if slices.Contains(c.timeColumns, h) {
			for _, r := range recs[1:] {
				r[k] = "~"
			}
		}
	}
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	if err := w.WriteAll(recs); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// maskMarkdownColumns replaces by "~" the cells of every markdown table
// of s whose column header is one of headers.
func maskMarkdownColumns(s string, headers []string) string {
	if len(headers) == 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	var mask []int
	for i, l := range lines {
		if !strings.HasPrefix(l, "|") {
			mask = nil
			continue
		}
		cells := strings.Split(l, "|")
		if mask == nil {
			mask = []int{}
			for k, c := range cells {
				if slices.Contains(headers, strings.TrimSpace(c)) {
					mask = append(mask, k)
				}
			}
			continue
		}
		if strings.HasPrefix(l, "|---") {
			continue
		}
		for _, k := range mask {
			if k < len(cells) {
				cells[k] = " ~ "
			}
		}
		lines[i] = strings.Join(cells, "|")
	}
	return strings.Join(lines, "\n")
}

// checkGoldenDir compares every file of got with the golden directory dir
// (which must hold these files and no others), or writes them with
// -update.
func checkGoldenDir(t *testing.T, dir string, got map[string]string) {
	t.Helper()
	if *update {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, s := range got {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("%v (run with -update to record it)", err)
	}
	for _, e := range entries {
		if _, ok := got[e.Name()]; !ok {
			t.Errorf("%s: the run no longer writes %s", dir, e.Name())
		}
	}
	for name, s := range got {
		checkGolden(t, filepath.Join(dir, name), s)
	}
}

// checkGolden compares got with the golden file path, or writes it with
// -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v (run with -update to record it)", err)
		return
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file:\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff lists the lines of want and got that differ, at most 20.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	n := 0
	for i := range max(len(w), len(g)) {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			if n++; n > 20 {
				b.WriteString("...\n")
				break
			}
			fmt.Fprintf(&b, "line %d:\n  want %s\n  got  %s\n", i+1, a, c)
		}
	}
	return b.String()
}
