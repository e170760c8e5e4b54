package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// canonicalOf loads the scenario at path with the overrides and returns
// its canonical form.
func canonicalOf(t *testing.T, path string, sets ...string) Canonical {
	t.Helper()
	s, err := LoadWith(path, sets...)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCanonicalSameScenarioSameFingerprint(t *testing.T) {
	a, b := canonicalOf(t, "quickstart.yaml"), canonicalOf(t, "quickstart.yaml")
	if a.Fingerprint() != b.Fingerprint() || a.Differences(b, "here", "there") != "" {
		t.Fatalf("one scenario, two canonical forms:\n%s\n%s", a, b)
	}
	// Every default is filled in: writing a default explicitly changes
	// nothing.
	if c := canonicalOf(t, "quickstart.yaml", "runtime.phase_deadline=5s", "faults.on_departure=fail"); c.Fingerprint() != a.Fingerprint() {
		t.Errorf("explicit defaults changed the canonical form: %s", a.Differences(c, "implicit", "explicit"))
	}
	for _, want := range []string{"seed: 1\n", "rounds: 40000\n", "graph.p: 0.7\n", "problem.box: [-10, 10]\n", "runtime.phase_deadline: 5s\n"} {
		if !strings.Contains(string(a), want) {
			t.Errorf("canonical form lacks %q:\n%s", want, a)
		}
	}
}

// TestCanonicalLeavesOutLocalKeys: what one process alone reads (its
// results directory, its way to the bus, its memory, the coordinator's
// timeout and tolerance, the file's name) does not enter the fingerprint.
func TestCanonicalLeavesOutLocalKeys(t *testing.T) {
	a := canonicalOf(t, "quickstart.yaml")
	b := canonicalOf(t, "quickstart.yaml", "name=other", "output.dir=/tmp/elsewhere", "runtime.transport=nats-tcp",
		"runtime.nats_url=nats://10.0.0.1:4222", "runtime.memory_limit=1GiB", "runtime.timeout=1h", "metrics.tolerance=1e-9")
	if a.Fingerprint() != b.Fingerprint() {
		t.Errorf("local keys changed the fingerprint: %s", a.Differences(b, "a", "b"))
	}
	for _, k := range localKeys {
		if strings.HasPrefix(string(b), k+":") || strings.Contains(string(b), "\n"+k+":") || strings.Contains(string(b), "\n"+k+".") {
			t.Errorf("canonical form holds local key %s:\n%s", k, b)
		}
	}
}

// TestCanonicalDifferencesNameKeys is the mismatch of a coordinator with
// --set rounds=3000 (or seed=2) over agents at 2000 (seed 1): the keys
// and both values are named.
func TestCanonicalDifferencesNameKeys(t *testing.T) {
	agents := canonicalOf(t, "quickstart.yaml", "rounds=2000")
	for _, tc := range []struct {
		set, want string
	}{
		{"rounds=3000", "rounds is 3000 at the coordinator and 2000 at agent 4"},
		{"seed=2", "seed is 2 at the coordinator and 1 at agent 4"},
	} {
		coord := canonicalOf(t, "quickstart.yaml", "rounds=2000", tc.set)
		if coord.Fingerprint() == agents.Fingerprint() {
			t.Fatalf("--set %s: same fingerprint", tc.set)
		}
		if got := coord.Differences(agents, "the coordinator", "agent 4"); got != tc.want {
			t.Errorf("--set %s: differences %q, want %q", tc.set, got, tc.want)
		}
	}
	many := canonicalOf(t, "quickstart.yaml", "seed=3", "agents=6", "graph.p=0.5", "rounds=10", "metrics.every=5")
	got := many.Differences(agents, "A", "B")
	if !strings.HasPrefix(got, "seed is 3 at A and 1 at B; agents is 6 at A and 8 at B; graph.p is 0.5 at A and 0.7 at B; and 2 more keys") {
		t.Errorf("five differences: %q", got)
	}
	// A key only one side has.
	lsq := canonicalOf(t, "portfolio16.yaml")
	if got := lsq.Differences(agents, "A", "B"); !strings.Contains(got, "at A and not set at B") && !strings.Contains(got, "not set at A") {
		t.Errorf("problem kinds differ: %q", got)
	}
}

// TestCanonicalFilesByContent: a file the scenario names enters by its
// base name and content, not its directory.
func TestCanonicalFilesByContent(t *testing.T) {
	edges := "0 1\n1 2\n2 3\n3 0\n"
	write := func(dir, content string) string {
		if err := os.WriteFile(filepath.Join(dir, "edges.txt"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(p, []byte("agents: 4\ngraph: {topology: file, file: edges.txt}\nrounds: 10\n"+
			"problem: {kind: least_squares, dim: 2}\nalgorithm: {name: dgd}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := canonicalOf(t, write(t.TempDir(), edges))
	b := canonicalOf(t, write(t.TempDir(), edges))
	if a.Fingerprint() != b.Fingerprint() {
		t.Errorf("one edge list in two directories: %s", a.Differences(b, "a", "b"))
	}
	if !strings.Contains(string(a), "graph.file: edges.txt sha256:") {
		t.Errorf("graph.file not by content:\n%s", a)
	}
	c := canonicalOf(t, write(t.TempDir(), edges+"0 2\n"))
	if got := a.Differences(c, "a", "c"); !strings.HasPrefix(got, "graph.file is edges.txt sha256:") {
		t.Errorf("edge lists that differ: %q", got)
	}
}

func TestCanonicalMissingFile(t *testing.T) {
	s, err := LoadWith("quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s.Graph.Topology, s.Graph.File = TopologyFile, filepath.Join(t.TempDir(), "gone.txt")
	if _, err := s.Canonical(); err == nil || !strings.Contains(err.Error(), "graph.file") {
		t.Errorf("missing graph.file: %v", err)
	}
}
