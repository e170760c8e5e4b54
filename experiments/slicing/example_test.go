package slicing_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/consim/consim/experiments"
	"github.com/consim/consim/experiments/slicing"
)

// Run a small network-slicing experiment from Go and publish it into a
// new directory: the data, the figures and table.md.
func ExampleConfig_Run() {
	c := slicing.DefaultConfig()
	c.Seeds, c.Rounds, c.Every, c.Losses = []uint64{4}, 60, 20, []float64{0, 0.2}
	c.Gen.Nodes, c.Gen.Flows = 12, 3
	r, err := c.Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, row := range r.Rows {
		fmt.Printf("seed %d, loss %g: messages dropped: %v\n", row.Seed, row.Loss, row.Dropped > 0)
	}

	tmp, err := os.MkdirTemp("", "consim-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "slicing") // must not exist
	if err := experiments.NewDir(dir); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := experiments.Publish(dir, r, time.Now()); err != nil {
		fmt.Println(err)
		return
	}
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		fmt.Println(f.Name())
	}
	// Output:
	// seed 4, loss 0: messages dropped: false
	// seed 4, loss 0.2: messages dropped: true
	// runs.csv
	// slicing_gap.png
	// slicing_gap.svg
	// slicing_violation.png
	// slicing_violation.svg
	// table.md
}
