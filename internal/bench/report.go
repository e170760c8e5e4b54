package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

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
