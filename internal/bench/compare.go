package bench

import (
	"fmt"
	"slices"
	"time"

	"github.com/consim/consim/node"
)

// Config selects what Compare measures.
type Config struct {
	// N lists the numbers of agents; each is a torus (see Torus).
	N []int
	// D is the dimension of every iterate.
	D int
	// Rounds per run; 0 calibrates, per transport and N, the rounds the
	// raw baseline runs in about Target.
	Rounds int
	// Target is the raw run's duration that calibration aims at
	// (default 300 ms).
	Target time.Duration
	// Reps is the number of alternating measurements of each
	// implementation (default 3); rates and ratios are their medians.
	Reps int
	// Transports lists the transports, Algos the algorithms run on
	// consim (AlgoNull, AlgoALM).
	Transports []node.TransportKind
	Algos      []string
	// ReportEvery is node.Options.ReportEvery of the consim runs.
	ReportEvery int
	// Progress, if set, is called before each measurement.
	Progress func(what string)
}

// Stats are the medians of one implementation's measurements.
type Stats struct {
	RoundsPerSec float64 `json:"rounds_per_s"`
	// CPUPerRound is process CPU time per round in microseconds.
	CPUPerRound float64 `json:"cpu_us_per_round"`
	// AllocsPerRound and BytesPerRound are heap allocations per round
	// (all agents); per agent, divide by N.
	AllocsPerRound float64 `json:"allocs_per_round"`
	BytesPerRound  float64 `json:"bytes_per_round"`
	// PeakMiB is the peak memory of a run (Cost.PeakBytes) in MiB.
	PeakMiB float64 `json:"peak_mib"`
}

// Row is the comparison at one transport and N.
type Row struct {
	Transport node.TransportKind `json:"transport"`
	N         int                `json:"n"`
	D         int                `json:"d"`
	Rounds    int                `json:"rounds"`
	Raw       Stats              `json:"raw"`
	// Consim and Ratio are keyed by algorithm; Ratio[a] is the median
	// over the repetitions of consim's rounds/s over the raw rounds/s of
	// the measurement before it.
	Consim map[string]Stats   `json:"consim"`
	Ratio  map[string]float64 `json:"ratio"`
	// CPURatio[a] is the raw CPU time per round over consim's, medians:
	// the share of the raw rate consim would reach on an idle machine
	// where both were CPU-bound, less sensitive than Ratio to other
	// load on a shared one.
	CPURatio map[string]float64 `json:"cpu_ratio"`
}

// Compare measures, for every transport and N of cfg, the raw baseline
// and consim's runtime with each algorithm, alternately, Reps times
// each: on a shared machine interleaving keeps the ratios meaningful
// when the absolute rates drift.
func Compare(cfg Config) ([]Row, error) {
	if cfg.D < 1 {
		return nil, fmt.Errorf("bench: dimension %d: need at least 1", cfg.D)
	}
	if cfg.Reps <= 0 {
		cfg.Reps = 3
	}
	if cfg.Target <= 0 {
		cfg.Target = 300 * time.Millisecond
	}
	var rows []Row
	for _, kind := range cfg.Transports {
		for _, n := range cfg.N {
			row, err := compareOne(cfg, kind, n)
			if err != nil {
				return rows, fmt.Errorf("bench: %s N=%d: %w", kind, n, err)
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

func compareOne(cfg Config, kind node.TransportKind, n int) (Row, error) {
	g, err := Torus(n)
	if err != nil {
		return Row{}, err
	}
	raw := func(rounds int) func() (Run, error) {
		return func() (Run, error) {
			switch kind {
			case node.TransportChan:
				return RawChan(g, cfg.D, rounds), nil
			case node.TransportNATS, node.TransportNATSTCP:
				return RawNATS(g, cfg.D, rounds, kind == node.TransportNATS)
			}
			return nil, fmt.Errorf("unknown transport %q: want one of %v", kind, node.TransportKinds)
		}
	}
	progress := func(what string, rounds int) {
		if cfg.Progress != nil {
			cfg.Progress(fmt.Sprintf("%s N=%d %s, %d rounds", kind, n, what, rounds))
		}
	}
	rounds := cfg.Rounds
	if rounds <= 0 {
		rounds = 20
		for {
			progress("calibrating raw", rounds)
			c, err := Measure(raw(rounds))
			if err != nil {
				return Row{}, err
			}
			if c.Wall >= 50*time.Millisecond || rounds >= 1<<24 {
				rounds = max(20, int(float64(rounds)*cfg.Target.Seconds()/c.Wall.Seconds()))
				break
			}
			rounds *= 4
		}
	}
	row := Row{Transport: kind, N: n, D: cfg.D, Rounds: rounds, Consim: map[string]Stats{}, Ratio: map[string]float64{}, CPURatio: map[string]float64{}}
	rawCosts := make([]Cost, 0, cfg.Reps)
	ours := map[string][]Cost{}
	ratios := map[string][]float64{}
	for range cfg.Reps {
		for _, algo := range cfg.Algos {
			progress("raw", rounds)
			r, err := Measure(raw(rounds))
			if err != nil {
				return Row{}, err
			}
			rawCosts = append(rawCosts, r)
			progress("consim "+algo, rounds)
			c, err := Measure(func() (Run, error) {
				agents, err := Agents(algo, g, cfg.D, rounds)
				if err != nil {
					return nil, err
				}
				return Consim(kind, agents, rounds, cfg.ReportEvery)
			})
			if err != nil {
				return Row{}, err
			}
			ours[algo] = append(ours[algo], c)
			ratios[algo] = append(ratios[algo], r.Wall.Seconds()/c.Wall.Seconds())
		}
	}
	row.Raw = stats(rawCosts, rounds)
	for _, algo := range cfg.Algos {
		row.Consim[algo] = stats(ours[algo], rounds)
		row.Ratio[algo] = median(ratios[algo])
		if c := row.Consim[algo].CPUPerRound; c > 0 {
			row.CPURatio[algo] = row.Raw.CPUPerRound / c
		}
	}
	return row, nil
}

// stats returns the medians of costs of runs of the given rounds.
func stats(costs []Cost, rounds int) Stats {
	pick := func(f func(Cost) float64) float64 {
		xs := make([]float64, len(costs))
		for i, c := range costs {
			xs[i] = f(c)
		}
		return median(xs)
	}
	r := float64(rounds)
	return Stats{
		RoundsPerSec:   pick(func(c Cost) float64 { return r / c.Wall.Seconds() }),
		CPUPerRound:    pick(func(c Cost) float64 { return float64(c.CPU.Microseconds()) / r }),
		AllocsPerRound: pick(func(c Cost) float64 { return float64(c.Allocs) / r }),
		BytesPerRound:  pick(func(c Cost) float64 { return float64(c.Bytes) / r }),
		PeakMiB:        pick(func(c Cost) float64 { return float64(c.PeakBytes) / (1 << 20) }),
	}
}

// median returns the median of xs (the upper one for an even count); it
// sorts xs.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}
