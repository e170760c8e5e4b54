package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/consim/consim/sim"
)

// TestScaleCommand runs `consim scale --json` on a small stepped run and
// on channels, and checks what it reports against the run's own counts.
func TestScaleCommand(t *testing.T) {
	for _, transport := range []string{"stepped", "chan"} {
		var stdout, stderr bytes.Buffer
		code := mainExit([]string{"scale", "../../scenarios/scale_10k.yaml", "--json", "--transport", transport,
			"--set", "agents=16", "--set", "graph.rows=4", "--set", "graph.cols=4", "--set", "rounds=30",
			"--out", t.TempDir(), "--log-level", "off"}, &stdout, &stderr)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", transport, code, stderr.String())
		}
		var r sim.ScaleResult
		if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v in %q", transport, err, stdout.String())
		}
		if r.Agents != 16 || r.Rounds != 30 || r.Transport != transport || r.Status != "ok" {
			t.Errorf("%s: %+v", transport, r)
		}
		if !(r.StartupSeconds > 0 && r.Round0Seconds >= r.StartupSeconds && r.RoundsPerSec > 0 && r.PeakRSSBytes > 1<<20 && r.CPUSeconds > 0) {
			t.Errorf("%s: start-up %v s, round 0 measured at %v s, %v rounds/s, peak RSS %d B, CPU %v s",
				transport, r.StartupSeconds, r.Round0Seconds, r.RoundsPerSec, r.PeakRSSBytes, r.CPUSeconds)
		}
	}
}
