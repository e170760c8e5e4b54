package sim_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// update rewrites the golden files of this package's golden tests from
// the current code: go test ./sim -run Golden -update.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// sharedData is the shared data directory (a9a, MNIST, Adult) the tests of
// every package read, when it is present.
const sharedData = "/work/shared/data"

// goldenRounds is how many rounds each shipped scenario runs in
// TestGoldenShippedScenarios.
const goldenRounds = 30

// goldenScale shrinks the shipped scenarios too large for a unit test to
// a size that runs in a second; every other key is the file's.
var goldenScale = map[string][]string{
	"scale_10k": {"agents=64", "graph.rows=8", "graph.cols=8"},
	// The crash falls inside the shortened run.
	"crash": {"faults.crashes=[{agent: 3, at: 20}]"},
}

// goldenAsync are the shipped asynchronous scenarios: they run for
// goldenRounds units of simulated time on the event engine (its runs
// replay bit for bit), which runtime.transport does not change.
var goldenAsync = map[string]bool{"async_gossip": true}

// goldenData names, per shipped scenario on a shared data set, the file
// under sharedData and the --set that points the scenario at it (%s: the
// file's path).
var goldenData = map[string][2]string{
	"penalty_a9a":    {"a9a/a9a.gz", "problem.file=%s"},
	"tsp_hyperclean": {"mnist", "problem.mnist=%s"},
	"compress_a9a":   {"a9a/a9a.gz", "problem.data={path: %s, format: libsvm, shard: random}"},
	"fairness_adult": {"adult", "problem.data=%s"},
}

// goldenTimed are the shipped scenarios whose iterates depend on timing:
// they set a phase deadline of 2 ms, a message lost or sent by a crashed
// agent is waited for until it, and on a loaded machine (or under the race
// detector) a message that was sent may miss it too. Their golden files
// pin the run's status and length only.
var goldenTimed = map[string]bool{"crash": true, "lossy": true, "slicing_dropout": true}

// TestGoldenShippedScenarios runs every shipped scenario (scenarios/*.yaml)
// for goldenRounds rounds on the in-memory chan transport, in lockstep,
// and compares the final measured row and the traffic with
// testdata/golden/scenarios/<name>.txt, every number written exactly
// (strconv 'g', -1): a change of layout that keeps the algorithms' math
// must leave them bit for bit. A scenario on a shared data set reads it
// from sharedData, and is skipped when it is not there or in -short mode.
func TestGoldenShippedScenarios(t *testing.T) {
	for _, name := range scenarios.Shipped() {
		t.Run(name, func(t *testing.T) {
			length := "rounds=" + strconv.Itoa(goldenRounds)
			if goldenAsync[name] {
				length = "async.horizon=" + strconv.Itoa(goldenRounds)
			}
			sets := append([]string{length, "runtime.transport=chan",
				"output.dir=" + t.TempDir()}, goldenScale[name]...)
			if d, ok := goldenData[name]; ok {
				if testing.Short() {
					t.Skip("reads a full data set (up to a minute under the race detector): make test-long")
				}
				path := filepath.Join(sharedData, d[0])
				if _, err := os.Stat(path); err != nil {
					t.Skipf("data of %s not found: %v", name, err)
				}
				sets = append(sets, fmt.Sprintf(d[1], path))
			}
			s, err := scenarios.LoadWith(filepath.Join("..", "scenarios", name+".yaml"), sets...)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := sim.Run(context.Background(), s, sim.Options{RunID: "golden"})
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			got := finalText(sum)
			if goldenTimed[name] {
				got = strings.Join(strings.SplitAfter(got, "\n")[:3], "")
			}
			checkGolden(t, filepath.Join("testdata", "golden", "scenarios", name+".txt"), got)
		})
	}
}

// finalText renders what a run's golden file pins: the final measured row
// (every metric column and the algorithm's own measures) and the traffic
// totals that do not depend on timing.
func finalText(sum *coordinator.Summary) string {
	var b strings.Builder
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	fmt.Fprintf(&b, "status %s\nrounds %d\nmeasured_rounds %d\n", sum.Status, sum.Rounds, sum.MeasuredRounds)
	if f := sum.Final; f != nil {
		m := f.Metrics
		fmt.Fprintf(&b, "round %d\nconsensus_err %s\nconsensus_err_rel %s\nobj_value %s\nopt_gap %s\ndist_to_opt %s\nfeasibility %s\ngrad_evals %d\ndual_drift %s\nmsgs %d\nbytes %d\n",
			m.Round, g(m.ConsensusErr), g(m.ConsensusErrRel), g(m.ObjValue), g(m.OptGap), g(m.DistToOpt), g(m.Feasibility),
			m.GradEvals, g(m.DualDrift), f.Msgs, f.Bytes)
		for _, e := range m.Extra {
			fmt.Fprintf(&b, "%s %s\n", e.Name, g(e.Value))
		}
	}
	tr := sum.Traffic
	fmt.Fprintf(&b, "msgs_sent %d\nbytes_sent %d\nmsgs_recv %d\nbytes_recv %d\ndropouts %d\ninjected_loss %d\n",
		tr.MsgsSent, tr.BytesSent, tr.MsgsRecv, tr.BytesRecv, tr.Dropouts, tr.InjectedLoss)
	return b.String()
}

// checkGolden compares got with the golden file path, or writes it with
// -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to record it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file:\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff lists the lines of want and got that differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			fmt.Fprintf(&b, "line %d:\n  want %s\n  got  %s\n", i+1, a, c)
		}
	}
	return b.String()
}
