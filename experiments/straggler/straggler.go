// Package straggler measures what asynchrony buys when one agent is ten
// times slower than the others: the simulated time an asynchronous
// method, AD-PSGD (package adpsgd), and its synchronous counterpart,
// D-PSGD (package dgd, run on the event engine through
// async.Synchronous), take to bring the optimality gap f(xbar) - f* to a
// target, over seeds, on the same problem, graph, clocks and links and
// with the same step rule (docs/async.md shows the table Markdown
// renders; go run ./experiments/straggler/cmd rewrites it).
//
// Both run as scenarios through sim (async.mode simulated), so their
// measures come from the same observation path as every run's: each
// agent's clock interval is a compute time, exponential of mean 1 (10 for
// the straggler, agent 0). D-PSGD computes one gradient per round and
// then exchanges with every present neighbour, so a round ends when the
// slowest neighbour's message is in and every agent is held to the
// straggler's pace; AD-PSGD averages with one neighbour per gradient and
// waits for no one.
//
// straggler imports scenarios, sim and consensus/metrics; it must not
// import node or coordinator directly.
package straggler

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/observe"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// Config is the experiment.
type Config struct {
	// Seeds is the number of seeds (run seeds 1..Seeds): each draws its
	// own graph, data, clocks and links, shared by the two methods.
	Seeds int
	// Agents is N; Slowdown the straggler's factor.
	Agents   int
	Slowdown float64
	// Step is the common step alpha of both methods.
	Step float64
	// Target is the optimality gap to reach.
	Target float64
	// Horizon is the simulated time each run lasts.
	Horizon float64
}

// DefaultConfig is the experiment of docs/async.md: 10 seeds, 16 agents
// on an Erdos-Renyi graph (q = 0.3), least squares in dimension 10 (50
// rows per agent, minibatches of 8), alpha = 0.2, a target gap of 0.05
// (about 4% of the gap at x = 0), a 10x straggler and a latency of 0.05.
func DefaultConfig() Config {
	return Config{Seeds: 10, Agents: 16, Slowdown: 10, Step: 0.2, Target: 0.05, Horizon: 1000}
}

// scenario returns the run of algorithm name (adpsgd or dgd) for seed.
func (c Config) scenario(name string, seed int) string {
	return fmt.Sprintf(`name: straggler-%s
seed: %d
agents: %d
graph: {topology: erdos_renyi, q: 0.3}
problem: {kind: least_squares, dim: 10, samples_per_agent: 50, batch: 8}
algorithm: {name: %s, step: %v}
async:
  mode: simulated
  horizon: %v
  every: 1
  clock: {dist: exponential, mean: 1}
  stragglers: {agents: [0], slowdown: %v}
  latency: {dist: fixed, mean: 0.05}
`, name, seed, c.Agents, name, c.Step, c.Horizon, c.Slowdown)
}

// Methods are the two methods compared, asynchronous first.
var Methods = [2]string{"adpsgd", "dgd"}

// Reach is when one run first brought the gap to the target.
type Reach struct {
	// Time is the simulated time of the first sample with gap <= target
	// (NaN if none did); Updates the agents' updates by then.
	Time    float64
	Updates int
	// Final is the gap at the horizon.
	Final float64
}

// Result is the experiment's outcome.
type Result struct {
	Config Config
	// Runs[s][m] is seed s+1's run of Methods[m].
	Runs [][2]Reach
}

// Run runs every seed of both methods; bundles go to a temporary
// directory that is removed.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	dir, err := os.MkdirTemp("", "consim-straggler-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	res := &Result{Config: cfg, Runs: make([][2]Reach, cfg.Seeds)}
	for s := range cfg.Seeds {
		for m, name := range Methods {
			r, err := cfg.run(ctx, name, s+1, dir)
			if err != nil {
				return nil, err
			}
			res.Runs[s][m] = r
		}
	}
	return res, nil
}

// run runs one method for one seed and returns when it reached the target.
func (c Config) run(ctx context.Context, name string, seed int, dir string) (Reach, error) {
	s, err := scenarios.Parse([]byte(c.scenario(name, seed)), name+".yaml")
	if err != nil {
		return Reach{}, err
	}
	s.Output.Dir = dir
	r := Reach{Time: math.NaN()}
	var rows []coordinator.Progress
	_, err = sim.Run(ctx, s, sim.Options{Observe: func(p coordinator.Progress) { rows = append(rows, p) }})
	if err != nil {
		return Reach{}, fmt.Errorf("straggler: %s, seed %d: %w", name, seed, err)
	}
	for _, p := range rows {
		t := column(p.Metrics, "time")
		if math.IsNaN(r.Time) && p.Metrics.OptGap <= c.Target {
			r.Time, r.Updates = t, p.Metrics.Round
		}
		r.Final = p.Metrics.OptGap
	}
	return r, nil
}

// column returns the value of the named extra column of m, NaN if absent.
func column(m observe.Metrics, name string) float64 {
	for _, e := range m.Extra {
		if e.Name == name {
			return e.Value
		}
	}
	return math.NaN()
}

// Times returns the times to target of method m over the seeds.
func (r *Result) Times(m int) []float64 {
	ts := make([]float64, len(r.Runs))
	for s := range r.Runs {
		ts[s] = r.Runs[s][m].Time
	}
	return ts
}

// Ratios returns, per seed, the synchronous method's time to target over
// the asynchronous one's.
func (r *Result) Ratios() []float64 {
	q := make([]float64, len(r.Runs))
	for s, run := range r.Runs {
		q[s] = run[1].Time / run[0].Time
	}
	return q
}

// Markdown renders the table of docs/async.md: one row per seed, then
// the means with their 95% intervals.
func (r *Result) Markdown() string {
	c := r.Config
	var b strings.Builder
	fmt.Fprintf(&b, "Simulated time to reach f(xbar) - f* <= %v, %d agents, agent 0 %vx slower, step alpha = %v, %d seeds; updates are the agents' updates summed (D-PSGD: rounds times agents), the gap at the horizon is at time %v:\n\n", c.Target, c.Agents, c.Slowdown, c.Step, c.Seeds, c.Horizon)
	b.WriteString("| seed | AD-PSGD time | AD-PSGD updates | D-PSGD time | D-PSGD updates | D-PSGD / AD-PSGD time | AD-PSGD gap at the horizon | D-PSGD gap at the horizon |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for s, run := range r.Runs {
		fmt.Fprintf(&b, "| %d | %s | %d | %s | %d | %s | %.3g | %.3g |\n", s+1, num(run[0].Time), run[0].Updates, num(run[1].Time), run[1].Updates,
			ratio(run[1].Time/run[0].Time), run[0].Final, run[1].Final)
	}
	fmt.Fprintf(&b, "| mean [95%% CI] | %s | | %s | | %s | | |\n", interval(r.Times(0)), interval(r.Times(1)), interval(r.Ratios()))
	return b.String()
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "not reached"
	}
	return fmt.Sprintf("%.0f", v)
}

func ratio(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

func interval(xs []float64) string {
	s := observe.Summarize(xs)
	lo, hi := s.Interval95()
	if s.N < len(xs) {
		return fmt.Sprintf("%d of %d reached", s.N, len(xs))
	}
	if s.Mean >= 10 {
		return fmt.Sprintf("%.1f [%.1f, %.1f]", s.Mean, lo, hi)
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", s.Mean, lo, hi)
}

// Table markers of docs/async.md.
const (
	TableOpen  = "<!-- straggler table: generated by go run ./experiments/straggler/cmd -write docs/async.md -->\n"
	TableClose = "<!-- end of straggler table -->"
)

// Splice returns doc with the text between TableOpen and TableClose
// replaced by table.
func Splice(doc, table string) (string, error) {
	i := strings.Index(doc, TableOpen)
	j := strings.Index(doc, TableClose)
	if i < 0 || j < i {
		return "", fmt.Errorf("straggler: no table block (%q ... %q)", strings.TrimSpace(TableOpen), TableClose)
	}
	return doc[:i+len(TableOpen)] + table + doc[j:], nil
}
