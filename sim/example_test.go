package sim_test

import (
	"context"
	"fmt"
	"os"

	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// Run a shipped scenario from Go, on the in-memory transport, and read
// the summary.
func ExampleRun() {
	out, _ := os.MkdirTemp("", "consim-example")
	defer os.RemoveAll(out)
	s, err := scenarios.LoadWith("../scenarios/quickstart.yaml",
		"rounds=2000", "runtime.transport=chan", "output.dir="+out)
	if err != nil {
		fmt.Println(err)
		return
	}
	sum, err := sim.Run(context.Background(), s, sim.Options{RunID: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum.Status, sum.Rounds, "rounds")
	fmt.Println("consensus error below 1e-2:", sum.Final.ConsensusErr < 1e-2)
	// Output:
	// ok 2000 rounds
	// consensus error below 1e-2: true
}
