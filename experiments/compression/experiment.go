// Package compression runs the comparison of docs/compression.md:
// CHOCO-SGD with compressed messages (top_k 10% and 4-bit qsgd) against
// exact DGD on one scenario, over a real transport, with the bytes the
// transport counted (frame headers and MACs included), the optimality
// gap f(xbar) - f*, the rounds, and the parameters with how they were
// chosen.
//
// The step eta is the scenario's, the same for all three methods. The
// consensus step gamma of each operator is chosen before any
// optimization run, from CHOCO-gossip alone: the value of Config.Gammas
// whose gossip (no gradient, the scenario's graph, its dimension, random
// initial points drawn from Config.TuneSeed, not the scenario's seed)
// leaves the smallest consensus error after Config.TuneRounds rounds.
// Nothing is tuned to the observed gap.
//
// compression imports sim, scenarios and coordinator; it must not import
// node or cmd.
package compression

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// Config configures the comparison. The zero value of a field takes the
// default its doc names.
type Config struct {
	// Scenario is the scenario file (default scenarios/compress_a9a.yaml
	// relative to the working directory). Its algorithm block must be
	// choco_sgd; its step is eta for every method.
	Scenario string
	// Overrides are key=value assignments applied to the scenario before
	// anything else (e.g. problem.data.path=/data/a9a.gz).
	Overrides []string
	// Transport runs the three comparison runs (default nats-tcp: NATS
	// over TCP, every message sealed with its MAC).
	Transport string
	// Rounds overrides the scenario's rounds when > 0.
	Rounds int
	// Gammas is the grid gamma is chosen from (default DefaultGammas).
	Gammas []float64
	// TuneSeed is the seed of the gossip runs that choose gamma (default
	// 1001); TuneRounds their length (default 50, so that the errors
	// compared stay far above the float floor).
	TuneSeed   uint64
	TuneRounds int
	// Out is the parent directory of the runs' bundles (default
	// results).
	Out string
	// Logger receives progress; nil discards it.
	Logger hclog.Logger
}

// DefaultGammas is the default grid of gamma.
var DefaultGammas = []float64{0.05, 0.1, 0.2, 0.4, 0.8}

// The operators compared with exact DGD: compression.operator and its
// parameter, as scenario overrides.
var operators = []struct {
	label string
	set   []string
}{
	{"top_k 10%", []string{"algorithm.compression.operator=top_k", "algorithm.compression.fraction=0.1", "algorithm.compression.bits=0"}},
	{"qsgd 4 bits", []string{"algorithm.compression.operator=qsgd", "algorithm.compression.fraction=0", "algorithm.compression.bits=4"}},
}

// Tuned is one gossip run of the choice of gamma.
type Tuned struct {
	Operator string
	Gamma    float64
	// Start and End are the consensus error at round 0 and at the end;
	// End is +Inf when the run diverged.
	Start, End float64
}

// Method is one run of the comparison.
type Method struct {
	// Name is "dgd" or "choco_sgd <operator>".
	Name string
	// Operator is the compression operator ("none" for DGD).
	Operator string
	// Step is eta (DGD's alpha); Gamma and Delta CHOCO's consensus step
	// and the operator's contraction parameter (NaN for DGD).
	Step, Gamma, Delta float64
	// Rounds is the rounds run.
	Rounds int
	// Gap is f(xbar) - f* at the last round; Consensus the consensus
	// error (1/N) sum_i ||x_i - xbar||^2 there.
	Gap, Consensus float64
	// Bytes and Msgs are the run's bytes and messages sent, summed over
	// agents, as the transport counted them.
	Bytes, Msgs int64
	// Target is the first measured round whose gap is within 10% of
	// DGD's final gap (-1 if none), and TargetBytes the bytes sent up to
	// it.
	Target      int
	TargetBytes int64
	// Bundle is the run's results directory.
	Bundle string
	// rows are the measured (round, gap, bytes).
	rows []point
}

type point struct {
	round int
	gap   float64
	bytes int64
}

// Result is the outcome of Run.
type Result struct {
	Config  Config
	Tuning  []Tuned
	Methods []Method // DGD first
}

// Run chooses gamma for each operator, then runs DGD and CHOCO-SGD with
// each operator on the scenario.
func (c Config) Run(ctx context.Context) (*Result, error) {
	c = c.withDefaults()
	res := &Result{Config: c}
	base, err := c.load()
	if err != nil {
		return nil, err
	}
	step, n, err := shape(base)
	if err != nil {
		return nil, err
	}
	gammas := make([]float64, len(operators))
	for k, op := range operators {
		best := math.Inf(1)
		for _, g := range c.Gammas {
			tu, err := c.tune(ctx, base.Name, n, op.set, g)
			if err != nil {
				return nil, err
			}
			tu.Operator = op.label
			res.Tuning = append(res.Tuning, tu)
			if tu.End < best {
				best, gammas[k] = tu.End, g
			}
		}
		if math.IsInf(best, 1) {
			return nil, fmt.Errorf("compression: CHOCO-gossip with %s diverged for every gamma of %v", op.label, c.Gammas)
		}
		c.Logger.Info("gamma chosen", "operator", op.label, "gamma", gammas[k])
	}
	dgd, err := c.run(ctx, "dgd", "none", []string{"algorithm.name=dgd", "algorithm.step=" + strconv.FormatFloat(step, 'g', -1, 64)})
	if err != nil {
		return nil, err
	}
	res.Methods = append(res.Methods, dgd)
	for k, op := range operators {
		set := append([]string{"algorithm.gamma=" + strconv.FormatFloat(gammas[k], 'g', -1, 64)}, op.set...)
		m, err := c.run(ctx, "choco_sgd "+op.label, op.label, set)
		if err != nil {
			return nil, err
		}
		res.Methods = append(res.Methods, m)
	}
	target := 1.1 * res.Methods[0].Gap
	for k := range res.Methods {
		m := &res.Methods[k]
		m.Target = -1
		for _, p := range m.rows {
			if p.gap <= target {
				m.Target, m.TargetBytes = p.round, p.bytes
				break
			}
		}
	}
	return res, nil
}

func (c Config) withDefaults() Config {
	if c.Scenario == "" {
		c.Scenario = filepath.Join("scenarios", "compress_a9a.yaml")
	}
	if c.Transport == "" {
		c.Transport = "nats-tcp"
	}
	if len(c.Gammas) == 0 {
		c.Gammas = DefaultGammas
	}
	if c.TuneSeed == 0 {
		c.TuneSeed = 1001
	}
	if c.TuneRounds == 0 {
		c.TuneRounds = 50
	}
	if c.Out == "" {
		c.Out = "results"
	}
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	return c
}

// load returns the scenario with Overrides, then set, applied.
func (c Config) load(set ...string) (*scenarios.Scenario, error) {
	over := append(append([]string{"output.dir=" + c.Out}, c.Overrides...), set...)
	s, err := scenarios.LoadWith(c.Scenario, over...)
	if err != nil {
		return nil, fmt.Errorf("compression: %w", err)
	}
	if c.Rounds > 0 {
		s.Rounds = c.Rounds
	}
	return s, nil
}

// tune runs CHOCO-gossip with gamma g and the operator set on the graph
// of the scenario called name, in dimension n: a generated least-squares
// problem (the objective is not used) with random initial points from
// TuneSeed, on the stepped engine.
func (c Config) tune(ctx context.Context, name string, n int, set []string, g float64) (Tuned, error) {
	over := append([]string{
		"seed=" + strconv.FormatUint(c.TuneSeed, 10),
		"rounds=" + strconv.Itoa(c.TuneRounds),
		"metrics.every=" + strconv.Itoa(c.TuneRounds),
		"runtime.transport=stepped",
		"problem.kind=least_squares", "problem.dim=" + strconv.Itoa(n), "problem.samples_per_agent=2", "problem.batch=1", "problem.reg=1",
		"problem.init.kind=random",
		"algorithm.name=choco_gossip", "algorithm.gamma=" + strconv.FormatFloat(g, 'g', -1, 64),
	}, set...)
	s, err := c.load(over...)
	if err != nil {
		return Tuned{}, err
	}
	s.Name = name + "-tune"
	sum, err := sim.Run(ctx, s, sim.Options{Logger: c.Logger.Named("tune")})
	tu := Tuned{Gamma: g, Start: math.NaN(), End: math.Inf(1)}
	if sum != nil && sum.Initial != nil {
		tu.Start = sum.Initial.ConsensusErr
	}
	switch {
	case errors.Is(err, coordinator.ErrDiverged):
		return tu, nil
	case err != nil:
		return Tuned{}, fmt.Errorf("compression: gossip with gamma %g: %w", g, err)
	}
	if e := sum.Final.ConsensusErr; !math.IsNaN(e) {
		tu.End = e
	}
	return tu, nil
}

// run runs the scenario with set on the comparison's transport.
func (c Config) run(ctx context.Context, name, op string, set []string) (Method, error) {
	s, err := c.load(append([]string{"runtime.transport=" + c.Transport}, set...)...)
	if err != nil {
		return Method{}, err
	}
	m := Method{Name: name, Operator: op, Step: math.NaN(), Gamma: math.NaN(), Delta: math.NaN()}
	c.Logger.Info("run", "method", name, "transport", c.Transport, "rounds", s.Rounds)
	sum, err := sim.Run(ctx, s, sim.Options{Logger: c.Logger.Named(strings.ReplaceAll(name, " ", "_")), Observe: func(p coordinator.Progress) {
		m.rows = append(m.rows, point{p.Metrics.Round, p.Metrics.OptGap, p.Bytes})
	}})
	if err != nil {
		return Method{}, fmt.Errorf("compression: %s: %w", name, err)
	}
	for _, p := range sum.Params {
		switch p.Name {
		case "alpha", "eta":
			m.Step = p.Value
		case "gamma":
			m.Gamma = p.Value
		case "delta":
			m.Delta = p.Value
		}
	}
	m.Rounds, m.Gap, m.Consensus = sum.Rounds, sum.Final.OptGap, sum.Final.ConsensusErr
	m.Bytes, m.Msgs, m.Bundle = sum.Traffic.BytesSent, sum.Traffic.MsgsSent, sum.Bundle
	return m, nil
}

// shape returns the step eta of a choco_sgd scenario and the dimension
// of its iterates.
func shape(s *scenarios.Scenario) (float64, int, error) {
	if s.Algorithm.Name != "choco_sgd" {
		return 0, 0, fmt.Errorf("compression: scenario %s: algorithm %s, want choco_sgd", s.Name, s.Algorithm.Name)
	}
	st, err := s.Build()
	if err != nil {
		return 0, 0, fmt.Errorf("compression: %w", err)
	}
	for _, v := range st.Resolved() {
		if v.Name == "eta" {
			return v.Value, len(st.InitialPoint(0)), nil
		}
	}
	return 0, 0, errors.New("compression: choco_sgd resolved no eta")
}

// Check returns an error naming every claim of docs/compression.md that
// the result does not meet: each CHOCO-SGD run within 10% of DGD's final
// gap, with at least 5 times fewer bytes.
func (r *Result) Check() error {
	var errs []error
	d := r.Methods[0]
	for _, m := range r.Methods[1:] {
		if !(m.Gap <= 1.1*d.Gap) {
			errs = append(errs, fmt.Errorf("%s: gap %.4g is not within 10%% of DGD's %.4g", m.Name, m.Gap, d.Gap))
		}
		if !(float64(d.Bytes) >= 5*float64(m.Bytes)) {
			errs = append(errs, fmt.Errorf("%s: %d bytes, not 5 times fewer than DGD's %d", m.Name, m.Bytes, d.Bytes))
		}
	}
	return errors.Join(errs...)
}

// Table returns the comparison and the choice of gamma as markdown.
func (r *Result) Table() string {
	var b strings.Builder
	d := r.Methods[0]
	fmt.Fprintf(&b, "| method | eta | gamma | delta | rounds | f(xbar) - f* | gap / DGD's | consensus error | bytes sent | DGD's bytes / bytes | first round within 10%% of DGD's gap | bytes to it |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, m := range r.Methods {
		target, tbytes := "never", "-"
		if m.Target >= 0 {
			target, tbytes = strconv.Itoa(m.Target), strconv.FormatInt(m.TargetBytes, 10)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %.4e | %.4f | %.3e | %d | %.2f | %s | %s |\n",
			m.Name, num(m.Step), num(m.Gamma), num(m.Delta), m.Rounds, m.Gap, m.Gap/d.Gap, m.Consensus, m.Bytes,
			float64(d.Bytes)/float64(m.Bytes), target, tbytes)
	}
	fmt.Fprintf(&b, "\nChoice of gamma (CHOCO-gossip, %d rounds, seed %d, consensus error at the end; the smallest wins):\n\n",
		r.Config.TuneRounds, r.Config.TuneSeed)
	fmt.Fprintf(&b, "| operator |")
	for _, g := range r.Config.Gammas {
		fmt.Fprintf(&b, " gamma = %g |", g)
	}
	fmt.Fprintf(&b, "\n|---|%s\n", strings.Repeat("---|", len(r.Config.Gammas)))
	for k := 0; k < len(r.Tuning); k += len(r.Config.Gammas) {
		fmt.Fprintf(&b, "| %s |", r.Tuning[k].Operator)
		for _, tu := range r.Tuning[k : k+len(r.Config.Gammas)] {
			if math.IsInf(tu.End, 1) {
				fmt.Fprintf(&b, " diverged |")
			} else {
				fmt.Fprintf(&b, " %.3e |", tu.End)
			}
		}
		fmt.Fprintln(&b)
	}
	return b.String()
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// Marker lines of the generated block of a docs page (see WriteDoc).
const (
	BeginMarker = "<!-- compression table: generated by consim reproduce compression -->"
	EndMarker   = "<!-- end of compression table -->"
)

// WriteDoc replaces the block between BeginMarker and EndMarker of the
// markdown file path with text.
func WriteDoc(path, text string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("compression: %w", err)
	}
	doc := string(b)
	i, j := strings.Index(doc, BeginMarker), strings.Index(doc, EndMarker)
	if i < 0 || j < i {
		return fmt.Errorf("compression: %s has no generated block (%q ... %q)", path, BeginMarker, EndMarker)
	}
	doc = doc[:i+len(BeginMarker)] + "\n" + text + doc[j:]
	return os.WriteFile(path, []byte(doc), 0o644)
}
