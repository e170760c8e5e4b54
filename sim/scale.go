package sim

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/internal/proc"
	"github.com/consim/consim/scenarios"
)

// ScaleResult is what a run costs, as `consim scale` reports it.
type ScaleResult struct {
	Scenario  string `json:"scenario"`
	Agents    int    `json:"agents"`
	Transport string `json:"transport"`
	// StartupSeconds is the wall time from Began (scenario loading,
	// graph, problem data, constants, agents, transport) until every
	// agent was ready and round 0 began.
	StartupSeconds float64 `json:"startup_s"`
	// Round0Seconds is the wall time from Began until round 0 was
	// measured (its reports gathered and reduced).
	Round0Seconds float64 `json:"round0_measured_s"`
	// Rounds is the number of rounds run after round 0, WallSeconds their
	// wall time and RoundsPerSec their rate (the summary's).
	Rounds       int     `json:"rounds"`
	WallSeconds  float64 `json:"wall_s"`
	RoundsPerSec float64 `json:"rounds_per_s"`
	// PeakRSSBytes is the process's peak resident set size (getrusage
	// ru_maxrss), 0 where the platform does not report it.
	PeakRSSBytes int64 `json:"peak_rss_bytes"`
	// CPUSeconds is the process's user + system CPU time over the whole
	// command: on a shared machine it says what the run cost when the
	// wall times say how long it waited.
	CPUSeconds float64 `json:"cpu_s"`
	GOMAXPROCS int     `json:"gomaxprocs"`
	Status     string  `json:"status"`
	Bundle     string  `json:"bundle"`
}

// Scale runs st as RunSetup does with opts and measures what it costs
// from began, when the caller started (before loading the scenario): the
// start-up until round 0, the rounds per second after it, the process's
// peak memory and CPU time. round0, if set, is called once round 0 has
// been measured, before opts.Observe. The result is nil when the run
// failed before its coordinator wrote a summary; the summary is in the
// bundle.
func Scale(ctx context.Context, st *scenarios.Setup, began time.Time, round0 func(), opts Options) (*ScaleResult, error) {
	var measured time.Time
	observe := opts.Observe
	opts.Observe = func(p coordinator.Progress) {
		if measured.IsZero() {
			measured = time.Now()
			if round0 != nil {
				round0()
			}
		}
		if observe != nil {
			observe(p)
		}
	}
	sum, err := RunSetup(ctx, st, opts)
	if sum == nil {
		return nil, err
	}
	s := st.Scenario
	res := &ScaleResult{
		Scenario:     s.Name,
		Agents:       s.Agents,
		Transport:    s.Runtime.Transport,
		Rounds:       sum.Rounds,
		WallSeconds:  sum.WallSeconds,
		RoundsPerSec: sum.RoundsPerSec,
		PeakRSSBytes: proc.PeakRSS(),
		CPUSeconds:   proc.CPUTime().Seconds(),
		GOMAXPROCS:   runtime.GOMAXPROCS(0),
		Status:       sum.Status,
		Bundle:       sum.Bundle,
	}
	if !sum.StartedAt.IsZero() {
		res.StartupSeconds = sum.StartedAt.Sub(began).Seconds() + sum.ReadySeconds
	}
	if !measured.IsZero() {
		res.Round0Seconds = measured.Sub(began).Seconds()
	}
	return res, err
}

// WriteText writes r as a two-column table, one measure a line.
func (r *ScaleResult) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "scenario        %s (%s)\n"+
		"agents          %d on %s, GOMAXPROCS %d\n"+
		"round 0 starts  %.2f s after the command (measured at %.2f s)\n"+
		"rounds          %d in %.2f s: %.3g rounds/s\n"+
		"peak RSS        %.1f MiB\n"+
		"CPU time        %.2f s (whole command)\n"+
		"bundle          %s\n",
		r.Scenario, r.Status, r.Agents, r.Transport, r.GOMAXPROCS, r.StartupSeconds, r.Round0Seconds,
		r.Rounds, r.WallSeconds, r.RoundsPerSec, float64(r.PeakRSSBytes)/(1<<20), r.CPUSeconds, r.Bundle)
	return err
}
