package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runReproduce runs `consim reproduce <name>` with args and returns its error
// (a usageError for bad flags or arguments) without printing it.
func runReproduce(name string, args []string, stdout, stderr *bytes.Buffer) error {
	a := &app{stdout: stdout, stderr: stderr}
	_, err := a.execute(a.rootCmd(), append([]string{"reproduce", name}, args...))
	return err
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

func TestReproducePenaltyBadFlags(t *testing.T) {
	checkBadFlags(t, "penalty", map[string][]string{
		"section": {"--section", "5.3"},
		"k51":     {"--k51", "0"},
		"every52": {"--every52", "0"},
		"rules":   {"--rules", "3ii,5"},
		"n":       {"--n", "0"},
		"a9a":     {"--section", "5.2", "--a9a", filepath.Join(os.TempDir(), "no-such-a9a.gz")},
	})
}

func TestReproduceTSPBadFlags(t *testing.T) {
	checkBadFlags(t, "tsp", map[string][]string{
		"seeds":    {"--seeds", "0"},
		"rounds":   {"--rounds", "0"},
		"method":   {"--methods", "TSP,SGD"},
		"parallel": {"--parallel", "0"},
		"mnist":    {"--mnist", filepath.Join(os.TempDir(), "no-such-mnist")},
	})
}

func TestReproduceSlicingBadFlags(t *testing.T) {
	checkBadFlags(t, "slicing", map[string][]string{
		"instances": {"--instances", "0"},
		"rounds":    {"--rounds", "0"},
		"loss":      {"--losses", "1"},
		"loss list": {"--losses", "0,x"},
		"nodes":     {"--nodes", "1"},
	})
}

func TestReproduceStormBadFlags(t *testing.T) {
	checkBadFlags(t, "storm", map[string][]string{
		"seeds":    {"--seeds", "1"},
		"horizons": {"--horizons", "100,x"},
		"fit":      {"--horizons", "100,200", "--fit-from", "150"},
		"p":        {"--p", "0"},
		"agents":   {"--agents", "1"},
	})
}

// TestReproduceFairnessBadInput: missing data and a bad threshold are
// usage errors that name them.
func TestReproduceFairnessBadInput(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := runReproduce("fairness", []string{"--out", filepath.Join(t.TempDir(), "o"), "--adult", t.TempDir()}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "adult.data") {
		t.Errorf("missing data: error %v, want one naming adult.data", err)
	}
	err = runReproduce("fairness", []string{"--cs", "0,inf"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "threshold 0") {
		t.Errorf("--cs 0: error %v, want it named", err)
	}
}
