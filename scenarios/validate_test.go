package scenarios

import (
	"strings"
	"testing"

	"github.com/consim/consim/catalog"
)

// algorithmList is the registered algorithms as messages list them.
var algorithmList = strings.Join(catalog.Default().Algorithms(), ", ")

func TestValidateErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{
			name: "p above 1",
			yaml: "agents: 4\ngraph:\n  topology: ring\n  p: 1.5\nproblem: {kind: least_squares, dim: 3}\nalgorithm: {name: alm}\nrounds: 10\n",
			want: []string{`x.yaml:4:6: graph.p: 1.5 is outside (0, 1]`},
		},
		{
			name: "p zero",
			yaml: strings.Replace(minimal, "{topology: ring}", "{topology: ring, p: 0}", 1),
			want: []string{`x.yaml:2:28: graph.p: 0 is outside (0, 1]`},
		},
		{
			name: "p_range out of order",
			yaml: strings.Replace(minimal, "{topology: ring}", "{topology: ring, p_range: [0.5, 0.2]}", 1),
			want: []string{`x.yaml:2:34: graph.p_range: [0.5, 0.2]: need 0 < lo <= hi <= 1`},
		},
		{
			name: "agents zero",
			yaml: strings.Replace(minimal, "agents: 4", "agents: 0", 1),
			want: []string{`x.yaml:1:9: agents: must be an integer >= 1, got 0`},
		},
		{
			name: "agents negative",
			yaml: strings.Replace(minimal, "agents: 4", "agents: -3", 1),
			want: []string{`x.yaml:1:9: agents: must be an integer >= 1, got -3`},
		},
		{
			name: "required keys missing",
			yaml: "graph: {}\nproblem:\n  kind: least_squares\n",
			want: []string{
				`x.yaml:1:1: agents: missing (required: an integer >= 1)`,
				`x.yaml:1:1: rounds: missing (required: an integer >= 1)`,
				`x.yaml:1:1: algorithm.name: missing (required: an algorithm: one of ` + algorithmList + `)`,
				`x.yaml:1:8: graph.topology: missing (required: one of complete, ring, path, grid, torus, erdos_renyi, geometric, star, file, directed_ring, digraph, k_out, directed_sequence)`,
				`x.yaml:3:3: problem.dim: required: an integer >= 1, got 0`,
			},
		},
		{
			name: "bad topology",
			yaml: strings.Replace(minimal, "{topology: ring}", "{topology: rign}", 1),
			want: []string{`x.yaml:2:19: graph.topology: "rign" is not one of complete, ring, path, grid, torus, erdos_renyi, geometric, star, file, directed_ring, digraph, k_out, directed_sequence (did you mean "ring"?)`},
		},
		{
			name: "bad algorithm",
			yaml: strings.Replace(minimal, "{name: alm}", "{name: admm}", 1),
			want: []string{`x.yaml:4:19: algorithm.name: "admm" is not one of ` + algorithmList + ` (did you mean "dadmm"?)`},
		},
		{
			name: "bad enums in defaulted keys",
			yaml: minimal + "edges: {model: markov}\nruntime: {transport: tcp}\nalgorithm: {name: alm, preset: fast, safeguard: local}\n",
			want: nil, // repeated algorithm key: replaced below
		},
		{
			name: "grid size mismatch",
			yaml: strings.Replace(minimal, "{topology: ring}", "{topology: grid, rows: 3, cols: 2}", 1),
			want: []string{`x.yaml:2:31: graph.rows: rows*cols = 3*2 = 6 must equal agents = 4`},
		},
		{
			name: "grid without cols",
			yaml: strings.Replace(minimal, "{topology: ring}", "{topology: grid, rows: 2}", 1),
			want: []string{`x.yaml:2:8: graph.cols: missing (required: for topology grid, an integer >= 1)`},
		},
		{
			name: "small torus",
			yaml: strings.Replace(minimal, "{topology: ring}", "{topology: torus, rows: 2, cols: 2}", 1),
			want: []string{
				`x.yaml:2:32: graph.rows: must be an integer >= 3, got 2`,
				`x.yaml:2:41: graph.cols: must be an integer >= 3, got 2`,
			},
		},
		{
			name: "erdos_renyi needs q",
			yaml: strings.Replace(minimal, "{topology: ring}", "{topology: erdos_renyi}", 1),
			want: []string{`x.yaml:2:8: graph.q: missing (required: for topology erdos_renyi, a number in (0, 1])`},
		},
		{
			name: "erdos_renyi q out of range",
			yaml: strings.Replace(minimal, "{topology: ring}", "{topology: erdos_renyi, q: 1.2}", 1),
			want: []string{`x.yaml:2:35: graph.q: 1.2 is outside (0, 1]`},
		},
		{
			name: "geometric radius",
			yaml: strings.Replace(minimal, "{topology: ring}", "{topology: geometric, radius: -0.1}", 1),
			want: []string{`x.yaml:2:38: graph.radius: must be a finite number > 0, got -0.1`},
		},
		{
			name: "key of another topology",
			yaml: strings.Replace(minimal, "{topology: ring}", "{topology: ring, q: 0.5, rows: 2}", 1),
			want: []string{
				`x.yaml:2:28: graph.q: only used with topology erdos_renyi, digraph or directed_sequence, not ring`,
				`x.yaml:2:39: graph.rows: only used with topology grid or torus, not ring`,
			},
		},
		{
			name: "file topology without file",
			yaml: strings.Replace(minimal, "{topology: ring}", "{topology: file}", 1),
			want: []string{`x.yaml:2:8: graph.file: missing (required: for topology file, the path of an edge list)`},
		},
		{
			name: "batch above samples",
			yaml: strings.Replace(minimal, "dim: 3}", "dim: 3, samples_per_agent: 8, batch: 9}", 1),
			want: []string{`x.yaml:3:69: problem.batch: 9 is outside [1, 8] (1 <= batch <= samples_per_agent)`},
		},
		{
			name: "batch above default samples",
			yaml: strings.Replace(minimal, "dim: 3}", "dim: 3, batch: 101}", 1),
			want: []string{`x.yaml:3:47: problem.batch: 101 is outside [1, 100] (1 <= batch <= samples_per_agent)`},
		},
		{
			name: "empty box",
			yaml: strings.Replace(minimal, "dim: 3}", "dim: 3, box: [1, 1]}", 1),
			want: []string{`x.yaml:3:45: problem.box: [1, 1] is empty: need lo < hi`},
		},
		{
			name: "infinite box is fine, inverted infinite box is not",
			yaml: strings.Replace(minimal, "dim: 3}", "dim: 3, box: [.inf, -.inf]}", 1),
			want: []string{`x.yaml:3:45: problem.box: [.inf, -.inf] is empty: need lo < hi`},
		},
		{
			name: "negative noise and infinite reg",
			yaml: strings.Replace(minimal, "dim: 3}", "dim: 3, noise: -1, reg: .inf, init: {kind: ones}}", 1),
			want: []string{
				`x.yaml:3:47: problem.noise: must be a finite number >= 0, got -1`,
				`x.yaml:3:56: problem.reg: must be a finite number >= 0, got .inf`,
				`x.yaml:3:75: problem.init.kind: "ones" is not one of random, zero`,
			},
		},
		{
			name: "logistic noise and unbounded box",
			yaml: strings.Replace(minimal, "{kind: least_squares, dim: 3}", "{kind: logistic, dim: 3, noise: 0.5}", 1),
			want: []string{
				`x.yaml:3:10: problem.reg: logistic needs reg > 0 unless problem.box is bounded`,
				`x.yaml:3:42: problem.noise: 0.5 is outside [0, 0.5) (for logistic, noise is a label flip probability)`,
			},
		},
		{
			name: "param ranges",
			yaml: strings.Replace(minimal, "{name: alm}", "{name: alm, dual_step: 0, smoothing: 1.5, penalty: -1, m_y: .inf, c_step: .nan, safeguard_every: 0}", 1),
			want: []string{
				`x.yaml:4:35: algorithm.dual_step: must be a finite number > 0, got 0`,
				`x.yaml:4:49: algorithm.smoothing: must be in (0, 1], got 1.5`,
				`x.yaml:4:63: algorithm.penalty: must be a finite number >= 0, got -1`,
				`x.yaml:4:86: algorithm.c_step: must be a finite number > 0, got NaN`,
				`x.yaml:4:109: algorithm.safeguard_every: must be an integer >= 1, got 0`,
			},
		},
		{
			name: "metrics",
			yaml: minimal + "metrics: {every: 0, tolerance: -1e-3}\n",
			want: []string{
				`x.yaml:6:18: metrics.every: must be an integer >= 1, got 0`,
				`x.yaml:6:32: metrics.tolerance: must be a finite number >= 0, got -0.001`,
			},
		},
		{
			name: "runtime",
			yaml: minimal + "runtime:\n  transport: chan\n  nats_url: nats://h:4222\n  phase_deadline: 0s\n  agent_timeout: -1s\n",
			want: []string{
				`x.yaml:8:13: runtime.nats_url: only used with transport nats or nats-tcp, not chan`,
				`x.yaml:9:19: runtime.phase_deadline: must be a duration > 0, got 0s`,
				`x.yaml:10:18: runtime.agent_timeout: must be a duration > 0, got -1s`,
			},
		},
		{
			name: "nats url scheme",
			yaml: minimal + "runtime: {nats_url: 'http://h:4222'}\n",
			want: []string{`x.yaml:6:21: runtime.nats_url: "http://h:4222": scheme must be nats, tls, ws or wss`},
		},
		{
			name: "bad name and empty output dir",
			yaml: "name: my run\n" + minimal + "output: {dir: ''}\n",
			want: []string{
				`x.yaml:1:7: name: "my run" may hold only letters, digits, '-' and '_'`,
				`x.yaml:7:15: output.dir: must not be empty`,
			},
		},
	}
	// One entry above needs distinct sections; build it here to keep the
	// table readable.
	tests[8].yaml = `agents: 4
graph: {topology: ring}
problem: {kind: least_squares, dim: 3}
algorithm: {name: alm, preset: fast, safeguard: local}
rounds: 10
edges: {model: markov}
runtime: {transport: tcp}
`
	tests[8].want = []string{
		`x.yaml:4:32: algorithm.preset: "fast" is not one of practical, theory_steps`,
		`x.yaml:4:49: algorithm.safeguard: "local" is not one of global, edge, none`,
		`x.yaml:6:16: edges.model: "markov" is not one of bernoulli, gilbert_elliott`,
		`x.yaml:7:22: runtime.transport: "tcp" is not one of chan, nats, nats-tcp, stepped`,
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// An unknown algorithm or problem is found by Parse, which
			// needs the entry to read the block's other keys.
			s, err := Parse([]byte(tt.yaml), "x.yaml")
			if err == nil {
				err = s.Validate()
			}
			if err == nil {
				t.Fatalf("Validate succeeded; want %q", tt.want)
			}
			checkErrors(t, err, tt.want)
		})
	}
}

func TestValidateAccepts(t *testing.T) {
	const ring, ls = "{topology: ring}", "{kind: least_squares, dim: 3}"
	tests := []struct{ name, old, new string }{
		{"ring", ring, ring},
		{"complete with p_range", ring, "{topology: complete, p_range: [0.2, 0.9]}"},
		{"p exactly 1", ring, "{topology: path, p: 1}"},
		{"grid", ring, "{topology: grid, rows: 2, cols: 2}"},
		{"erdos_renyi", ring, "{topology: erdos_renyi, q: 1}"},
		{"geometric", ring, "{topology: geometric, radius: 0.4}"},
		{"star", ring, "{topology: star, p: 0.01}"},
		{"logistic with reg", ls, "{kind: logistic, dim: 3, reg: 0.1}"},
		{"logistic in a box", ls, "{kind: logistic, dim: 3, box: [-1, 1]}"},
		{"half-infinite box", ls, "{kind: least_squares, dim: 3, box: [0, .inf]}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := strings.Replace(minimal, tt.old, tt.new, 1)
			s, err := Parse([]byte(doc), "x.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}
