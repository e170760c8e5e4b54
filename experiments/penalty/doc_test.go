package penalty

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/consim/consim/experiments"
	"github.com/consim/consim/experiments/internal/exptest"
)

// pagePath is the reproduction's docs page.
const pagePath = "../../docs/reproductions/penalty.md"

// TestDocPage: the docs page has the generated block, and the generator
// (a small run's table through DocTable) rewrites a copy of the page so
// that the block reads back as the run's table, headings one level down.
// The page's block comes from the full run of the page's command; the
// test cannot rerun it in the time of a unit test.
func TestDocPage(t *testing.T) {
	raw, err := os.ReadFile(pagePath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DocBlock.Read(string(raw)); err != nil {
		t.Fatalf("%s: %v", pagePath, err)
	}
	c := DefaultConfig()
	c.Do52, c.Seed, c.K51, c.Every51, c.N, c.Samples, c.Core = false, 2, 60, 5, 10, 400, 5
	dir, md := exptest.Publish(t, c.Run)
	page := filepath.Join(t.TempDir(), "penalty.md")
	if err := os.WriteFile(page, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	table, err := DocTable(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := DocBlock.Write(page, table); err != nil {
		t.Fatal(err)
	}
	back, _ := os.ReadFile(page)
	got, err := DocBlock.Read(string(back))
	if err != nil {
		t.Fatal(err)
	}
	if want := experiments.DocSection(md); got != want {
		t.Errorf("block after the rewrite:\n%s\nwant\n%s", got, want)
	}
}
