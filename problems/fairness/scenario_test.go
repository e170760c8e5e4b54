package fairness_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/problems/fairness"
	"github.com/consim/consim/scenarios"
)

// adultDir is where the UCI Adult files are: beside the repository as the
// shipped scenario names them, else CONSIM_ADULT or /work/shared/data/adult;
// "" when none holds them.
func adultDir() string {
	for _, d := range []string{"../../../shared/data/adult", os.Getenv("CONSIM_ADULT"), "/work/shared/data/adult"} {
		if d == "" {
			continue
		}
		if _, err := os.Stat(fairness.AdultFile(d, "adult.data")); err == nil {
			abs, _ := filepath.Abs(d)
			return abs
		}
	}
	return ""
}

// TestShippedAdultScenario: scenarios/fairness_adult.yaml builds the
// fairness problem from the Adult files and the fair_alm agents, which run
// a few rounds through lockstep and measure finite values; outside -short
// the independent optimum is solved and the gap measured against it.
func TestShippedAdultScenario(t *testing.T) {
	dir := adultDir()
	if dir == "" {
		t.Skip("UCI Adult files not found (set CONSIM_ADULT)")
	}
	s, err := scenarios.LoadWith("../../scenarios/fairness_adult.yaml", "problem.data="+dir, "rounds=50")
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	inst := st.Env.Problem.(fairness.Provider)
	if n := inst.Data().Rows(); n != 2000 {
		t.Fatalf("%d training rows, want the scenario's 2000", n)
	}
	if inst.Test() == inst.Data() || inst.Test().Dim != inst.Data().Dim {
		t.Fatal("the held-out adult.test set is missing or encoded differently")
	}
	agents, err := st.Agents()
	if err != nil {
		t.Fatal(err)
	}
	d, err := lockstep.New(agents)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Run(0, s.Rounds); err != nil {
		t.Fatal(err)
	}
	ev, ok := st.Run.(registry.Evaluator)
	if !ok {
		t.Fatal("fair_alm does not measure itself")
	}
	if testing.Short() {
		return
	}
	reps := make([]consensus.Report, len(agents))
	for i, a := range agents {
		reps[i] = a.Report()
	}
	m, err := ev.Evaluate(reps)
	if err != nil {
		t.Fatal(err)
	}
	if m.ConsensusErr != 0 || !(m.OptGap > 0) || math.IsNaN(m.DistToOpt) {
		t.Errorf("after 50 rounds: consensus error %v (replicas must agree), gap %v, distance %v", m.ConsensusErr, m.OptGap, m.DistToOpt)
	}
}
