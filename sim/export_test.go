package sim_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consim/consim/dataset"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// TestExportErrors: an existing directory and an unknown format are
// refused before anything is written.
func TestExportErrors(t *testing.T) {
	s, err := scenarios.LoadWith(filepath.Join("..", "scenarios", "quickstart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := sim.ExportData(st, dir, dataset.FormatLIBSVM); !errors.Is(err, sim.ErrInput) || !strings.Contains(err.Error(), "exists") {
		t.Errorf("existing dir: %v, want an input error saying it exists", err)
	}
	out := filepath.Join(dir, "new")
	if _, err := sim.ExportData(st, out, "parquet"); !errors.Is(err, sim.ErrInput) || !strings.Contains(err.Error(), "libsvm or csv") {
		t.Errorf("format parquet: %v, want an input error naming libsvm and csv", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused export left %s behind (%v)", out, err)
	}
}
