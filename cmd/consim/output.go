package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/consim/consim/coordinator"
)

// isTerminal reports whether w is a character device (an interactive
// terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// newProgressPrinter returns the coordinator's progress callback: on a
// terminal a live line (round/total, rounds/s, consensus error, ETA)
// redrawn in place; otherwise a plain line at most every 2 s.
func newProgressPrinter(w io.Writer) func(coordinator.Progress) {
	tty := isTerminal(w)
	var last time.Time
	return func(p coordinator.Progress) {
		total := p.Rounds
		// An asynchronous run plans no rounds (total 0): it counts updates
		// and ends at its horizon, followed by the summary.
		done := total > 0 && p.Metrics.Round >= total
		if !tty && !done && time.Since(last) < 2*time.Second {
			return
		}
		last = time.Now()
		var line string
		if total > 0 {
			eta := "-"
			if p.RoundsPerSec > 0 {
				eta = (time.Duration(float64(total-p.Metrics.Round) / p.RoundsPerSec * float64(time.Second))).Round(100 * time.Millisecond).String()
			}
			line = fmt.Sprintf("round %d/%d  %.0f rounds/s  consensus err %.3e  opt gap %.3e  ETA %s",
				p.Metrics.Round, total, p.RoundsPerSec, p.Metrics.ConsensusErr, p.Metrics.OptGap, eta)
		} else {
			line = fmt.Sprintf("updates %d  consensus err %.3e  opt gap %.3e", p.Metrics.Round, p.Metrics.ConsensusErr, p.Metrics.OptGap)
		}
		if tty {
			fmt.Fprintf(w, "\r\033[K%s", line)
			if done {
				fmt.Fprintln(w)
			}
			return
		}
		fmt.Fprintln(w, line)
	}
}
