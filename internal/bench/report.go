package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/consim/consim/internal/units"
	"github.com/consim/consim/node"
)

// Validate checks c's sizes, transports and algorithms; the errors name
// the flags of consim bench that set them.
func (c Config) Validate() error {
	switch {
	case len(c.N) == 0:
		return fmt.Errorf("--n: give at least one number of agents")
	case c.D < 1:
		return fmt.Errorf("--dim %d: want at least 1", c.D)
	case c.Rounds < 0:
		return fmt.Errorf("--rounds %d: want 0 (calibrate) or more", c.Rounds)
	case c.Reps < 1:
		return fmt.Errorf("--reps %d: want at least 1", c.Reps)
	case c.ReportEvery < 0:
		return fmt.Errorf("--report-every %d: want 0 or more", c.ReportEvery)
	case len(c.Algos) == 0:
		return fmt.Errorf("--algos: give at least one algorithm")
	}
	for _, n := range c.N {
		if _, err := Torus(n); err != nil {
			return fmt.Errorf("--n %d: %v", n, err)
		}
	}
	for _, k := range c.Transports {
		if !slices.Contains(node.TransportKinds, k) {
			return fmt.Errorf("--transports: unknown transport %q: want chan, nats or nats-tcp", k)
		}
	}
	for _, al := range c.Algos {
		if al != AlgoNull && al != AlgoALM {
			return fmt.Errorf("--algos: unknown algorithm %q: want %s or %s", al, AlgoNull, AlgoALM)
		}
	}
	return nil
}

// Report is the JSON of consim bench: the machine and the rows.
type Report struct {
	GoVersion  string `json:"go_version"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	CPUs       int    `json:"cpus"`
	Time       string `json:"time"`
	Rows       []Row  `json:"rows"`
}

// WriteJSON writes the Report of rows, indented, to w.
func WriteJSON(w io.Writer, rows []Row) error {
	b, err := json.MarshalIndent(Report{
		GoVersion: runtime.Version(), GOMAXPROCS: runtime.GOMAXPROCS(0), CPUs: runtime.NumCPU(),
		Time: time.Now().UTC().Format(time.RFC3339), Rows: rows,
	}, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// WriteTable prints the rows of Compare under cfg as a table, one line
// per transport, N and implementation, with a legend.
func WriteTable(w io.Writer, cfg Config, rows []Row) {
	fmt.Fprintf(w, "torus, d = %d, %d alternating runs each (medians), GOMAXPROCS %d\n\n", cfg.D, cfg.Reps, runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "%-9s %6s %-11s %8s %12s %7s %12s %9s %14s %13s %9s\n",
		"transport", "N", "impl", "rounds", "rounds/s", "ratio", "cpu us/round", "cpu ratio", "allocs/round", "bytes/round", "peak MiB")
	line := func(r Row, impl string, s Stats, ratio, cpuRatio string) {
		fmt.Fprintf(w, "%-9s %6d %-11s %8d %12.1f %7s %12.1f %9s %14.1f %13.0f %9.1f\n",
			r.Transport, r.N, impl, r.Rounds, s.RoundsPerSec, ratio, s.CPUPerRound, cpuRatio, s.AllocsPerRound, s.BytesPerRound, s.PeakMiB)
	}
	for _, r := range rows {
		line(r, "raw", r.Raw, "", "")
		for _, al := range cfg.Algos {
			line(r, "consim "+al, r.Consim[al], fmt.Sprintf("%.2f", r.Ratio[al]), fmt.Sprintf("%.2f", r.CPURatio[al]))
		}
	}
	fmt.Fprintln(w, "\nratio: consim rounds/s over the raw baseline's, median of the alternating pairs; "+
		"cpu ratio: raw CPU time per round over consim's. CPU, allocations and bytes are the whole process's "+
		"(NATS server and client included).")
}

// WriteMarkdown prints rows as the Markdown table of
// docs/benchmarks.md: per transport and N the raw baseline's rounds/s,
// then for each algorithm its rounds/s and ratios (and, for the first,
// its allocations per agent and round), then the peak memory of each.
func WriteMarkdown(w io.Writer, algos []string, rows []Row) {
	head := []string{"transport", "N", "rounds", "raw rounds/s"}
	for i, al := range algos {
		if i == 0 {
			head = append(head, al+" rounds/s", "ratio", "CPU ratio", "allocs / agent / round")
			continue
		}
		head = append(head, al+" rounds/s", al+" ratio", al+" CPU ratio")
	}
	head = append(head, "peak MiB raw / "+strings.Join(algos, " / "))
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
	for _, r := range rows {
		cells := []string{string(r.Transport), units.Thousands(float64(r.N)), fmt.Sprint(r.Rounds), units.Thousands(r.Raw.RoundsPerSec)}
		peaks := []string{fmt.Sprintf("%.0f", r.Raw.PeakMiB)}
		for i, al := range algos {
			s := r.Consim[al]
			cells = append(cells, units.Thousands(s.RoundsPerSec), fmt.Sprintf("%.2f", r.Ratio[al]), fmt.Sprintf("%.2f", r.CPURatio[al]))
			if i == 0 {
				cells = append(cells, fmt.Sprintf("%.2f", s.AllocsPerRound/float64(r.N)))
			}
			peaks = append(peaks, fmt.Sprintf("%.0f", s.PeakMiB))
		}
		cells = append(cells, strings.Join(peaks, " / "))
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}
