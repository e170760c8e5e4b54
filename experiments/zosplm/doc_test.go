package zosplm

import (
	"flag"
	"os"
	"strings"
	"testing"
)

// The reproduction's docs page and the run's files committed beside it
// (config.json, trials.csv, convergence.csv).
const (
	pagePath = "../../docs/reproductions/zosplm.md"
	dataDir  = "../../docs/reproductions/zosplm"
)

var updateDoc = flag.Bool("update-doc", false, "rewrite the generated block of "+pagePath+" from the files in "+dataDir)

// TestDocPage: the page's generated block is the table that the
// committed run's files render (DocTable), to the digit, so the page
// cannot drift from its data. Under -update-doc it rewrites the block.
func TestDocPage(t *testing.T) {
	want, err := DocTable(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	if *updateDoc {
		if err := DocBlock.Write(pagePath, want); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(pagePath)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DocBlock.Read(string(raw))
	if err != nil {
		t.Fatalf("%s: %v", pagePath, err)
	}
	if strings.TrimRight(got, "\n") != strings.TrimRight(want, "\n") {
		t.Errorf("%s: the generated block is stale relative to %s; rerun with -update-doc\ngot:\n%s\nwant:\n%s", pagePath, dataDir, got, want)
	}
}
