package scenarios

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// minimal is the smallest valid scenario; every required key is present.
const minimal = `agents: 4
graph: {topology: ring}
problem: {kind: least_squares, dim: 3}
algorithm: {name: alm}
rounds: 10
`

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string // exact error lines, in order
	}{
		{
			name: "unknown top-level key",
			yaml: "agents: 4\ngrpah: {topology: ring}\n",
			want: []string{`x.yaml:2:1: unknown key "grpah" at top level (did you mean "graph"? allowed: name, seed, agents, graph, edges, problem, algorithm, rounds, metrics, runtime, faults, async, output, sweep)`},
		},
		{
			name: "unknown key in a section",
			yaml: "graph:\n  topolgy: ring\n",
			want: []string{`x.yaml:2:3: unknown key "topolgy" in graph (did you mean "topology"? allowed: topology, rows, cols, q, radius, file, k, period, p, p_range)`},
		},
		{
			name: "unknown key two levels down",
			yaml: "problem:\n  init:\n    sigma: 2\n",
			want: []string{`x.yaml:3:5: unknown key "sigma" in problem.init (allowed: kind, scale)`},
		},
		{
			name: "unknown algorithm key",
			yaml: "algorithm:\n  name: alm\n  penaltyy: 2\n",
			want: []string{`x.yaml:3:3: unknown key "penaltyy" in algorithm (did you mean "penalty"? allowed: name, preset, schedule, safeguard, safeguard_every, dual_step, m_y, step, penalty, prox_weight, smoothing, c_step, c_smoothing, scale) (for name alm)`},
		},
		{
			name: "old keys of the params block",
			yaml: "algorithm:\n  name: alm\n  params:\n    eta: 0.1\n    rhoo: 2\n  tau_schedule: sqrt\n",
			want: []string{
				`x.yaml:4:5: algorithm.params.eta: renamed to algorithm.dual_step`,
				`x.yaml:5:5: algorithm.params.rhoo: unknown key (algorithm has no params: block any more; its keys are written in algorithm itself)`,
				`x.yaml:6:3: algorithm.tau_schedule: renamed to algorithm.schedule`,
			},
		},
		{
			name: "old keys of dgd",
			yaml: "algorithm:\n  name: dgd\n  alpha: 0.1\n  weights: {rule: uniform, alpha: 0.2}\n",
			want: []string{
				`x.yaml:3:3: algorithm.alpha: renamed to algorithm.step`,
				`x.yaml:4:13: algorithm.weights.rule: renamed to algorithm.mixing.rule`,
				`x.yaml:4:28: algorithm.weights.alpha: renamed to algorithm.mixing.weight`,
			},
		},
		{
			name: "algorithm keys before a name",
			yaml: "algorithm:\n  params:\n    rho: 2\n",
			want: []string{`x.yaml:2:3: algorithm.params: set algorithm.name first: the other keys of algorithm depend on it`},
		},
		{
			name: "malformed YAML",
			yaml: "agents: 4\ngraph: [ring\nrounds: 3\n",
			want: []string{`x.yaml:2: invalid YAML: did not find expected ',' or ']'`},
		},
		{
			name: "tab indentation",
			yaml: "graph:\n\ttopology: ring\n",
			want: []string{`x.yaml:2: invalid YAML: found character that cannot start any token`},
		},
		{
			name: "unclosed flow mapping further down",
			yaml: "agents: 4\nrounds: 3\nseed: 2\ngraph: {topology: ring\nedges: {}\n",
			want: []string{`x.yaml:4: invalid YAML: did not find expected ',' or '}'`},
		},
		{
			name: "unclosed flow sequence at the end of the file",
			yaml: "agents: [4\n",
			want: []string{`x.yaml:2: invalid YAML: did not find expected ',' or ']'`},
		},
		{
			name: "bad indentation",
			yaml: "agents: 4\nrounds: 3\n  seed: 2\n",
			want: []string{`x.yaml:3: invalid YAML: mapping values are not allowed in this context`},
		},
		{
			name: "string where an integer is needed",
			yaml: "agents: eight\n",
			want: []string{`x.yaml:1:9: agents: expected an integer, got string "eight"`},
		},
		{
			name: "float where an integer is needed",
			yaml: "rounds: 2.5\n",
			want: []string{`x.yaml:1:9: rounds: expected an integer, got 2.5`},
		},
		{
			name: "quoted number where a number is needed",
			yaml: "graph: {p: \"0.5\"}\n",
			want: []string{`x.yaml:1:12: graph.p: expected a number, got string "0.5"`},
		},
		{
			name: "negative seed",
			yaml: "seed: -1\n",
			want: []string{`x.yaml:1:7: seed: expected a non-negative integer below 2^64, got -1`},
		},
		{
			name: "yes is not a boolean",
			yaml: "edges: {same_draw: yes}\n",
			want: []string{`x.yaml:1:20: edges.same_draw: expected true or false, got string "yes"`},
		},
		{
			name: "bad duration",
			yaml: "runtime:\n  phase_deadline: 5 s\n",
			want: []string{`x.yaml:2:19: runtime.phase_deadline: "5 s" is not a duration (expected e.g. 500ms, 5s, 10m)`},
		},
		{
			name: "duration without unit",
			yaml: "runtime:\n  timeout: 30\n",
			want: []string{`x.yaml:2:12: runtime.timeout: expected a duration such as 500ms, 5s or 10m, got 30`},
		},
		{
			name: "box of three",
			yaml: "problem:\n  kind: least_squares\n  box: [0, 1, 2]\n",
			want: []string{`x.yaml:3:8: problem.box: expected a sequence [lo, hi] of two numbers, got a sequence of 3`},
		},
		{
			name: "box with a word",
			yaml: "problem:\n  kind: least_squares\n  box: [low, 1]\n",
			want: []string{`x.yaml:3:9: problem.box: element 1: expected a number, got string "low"`},
		},
		{
			name: "scalar where a section is needed",
			yaml: "graph: ring\n",
			want: []string{`x.yaml:1:8: graph: expected a mapping with keys topology, rows, cols, q, radius, file, k, period, p, p_range, got string "ring"`},
		},
		{
			name: "repeated key",
			yaml: "agents: 3\nagents: 4\n",
			want: []string{`x.yaml:2:1: agents: repeated key (first set at line 1)`},
		},
		{
			name: "p and p_range together",
			yaml: "graph:\n  p: 0.5\n  p_range: [0.1, 0.2]\n",
			want: []string{`x.yaml:3:12: graph.p_range: give either p or p_range, not both (p is set at x.yaml:2:6)`},
		},
		{
			name: "several errors at once",
			yaml: "agents: x\ngraph:\n  bogus: 1\nrounds: []\n",
			want: []string{
				`x.yaml:1:9: agents: expected an integer, got string "x"`,
				`x.yaml:3:3: unknown key "bogus" in graph (allowed: topology, rows, cols, q, radius, file, k, period, p, p_range)`,
				`x.yaml:4:9: rounds: expected an integer, got a sequence of 0`,
			},
		},
		{
			name: "empty file",
			yaml: "# nothing\n",
			want: []string{`x.yaml: empty scenario (expected a mapping with keys name, seed, agents, graph, edges, problem, algorithm, rounds, metrics, runtime, faults, async, output, sweep)`},
		},
		{
			name: "top level is a list",
			yaml: "- agents: 4\n",
			want: []string{`x.yaml:1:1: top level must be a mapping of keys name, seed, agents, graph, edges, problem, algorithm, rounds, metrics, runtime, faults, async, output, sweep`},
		},
		{
			name: "two documents",
			yaml: minimal + "---\nagents: 5\n",
			want: []string{`x.yaml: a scenario file holds exactly one YAML document`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(tt.yaml), "x.yaml")
			if err == nil {
				t.Fatalf("Parse succeeded with %+v; want errors %q", s, tt.want)
			}
			checkErrors(t, err, tt.want)
		})
	}
}

// checkErrors asserts err is an ErrorList of exactly the messages want,
// each matching ErrInvalid and *Error.
func checkErrors(t *testing.T, err error, want []string) {
	t.Helper()
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %v (%T) is not an ErrorList", err, err)
	}
	got := make([]string, len(list))
	for i, e := range list {
		got[i] = e.Error()
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n got: %s\nwant: %s", strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("errors.Is(%v, ErrInvalid) = false", err)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Errorf("errors.As(%v, *Error) = false", err)
	}
}

func TestParseAcceptsAnchorsAndNullSections(t *testing.T) {
	doc := minimal + "edges:\nmetrics: &m {every: 5}\n"
	s, err := Parse([]byte(doc), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Metrics.Every != 5 || !sameEdges(s.Edges, Default().Edges) {
		t.Errorf("metrics.every = %d, edges = %+v", s.Metrics.Every, s.Edges)
	}
}

func TestParseNameDefaultsToFileName(t *testing.T) {
	s, err := Parse([]byte(minimal), filepath.Join("some", "dir", "my-run.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "my-run" {
		t.Errorf("name = %q, want my-run", s.Name)
	}
	s, err = Parse([]byte("name: explicit\n"+minimal), "my-run.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "explicit" {
		t.Errorf("name = %q, want explicit", s.Name)
	}
}

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.yaml")
	_, err := Load(path)
	if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("Load(missing) = %v; want fs.ErrNotExist and ErrInvalid", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.File != path {
		t.Errorf("error %v does not name the file %s", err, path)
	}
}

func TestGraphFileIsRelativeToScenario(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	edges := filepath.Join(sub, "edges.txt")
	if err := os.WriteFile(edges, []byte("0 1\n1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := strings.Replace(minimal, "{topology: ring}", "{topology: file, file: sub/edges.txt}", 1)
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadWith(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Graph.File != edges {
		t.Errorf("graph.file = %q, want %q", s.Graph.File, edges)
	}
	if err := os.Remove(edges); err != nil {
		t.Fatal(err)
	}
	err = s.Validate()
	if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "s.yaml:2:31: graph.file: cannot read edge list") {
		t.Errorf("Validate with the edge list gone = %v", err)
	}
}
