// Package exptest holds the checks the experiments' tests share: their
// output files exist and are not empty, their CSV files parse, their
// table.md is the printed table and holds what a test expects.
//
// exptest is imported by tests only; it imports experiments, testing and
// the standard library.
package exptest

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/consim/consim/experiments"
)

// Publish runs run and publishes its report, with a wall time line, into
// a new directory under t's temporary directory; it returns the directory
// and the table.
func Publish[R experiments.Report](t *testing.T, run func(context.Context) (R, error)) (dir, table string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "out")
	if err := experiments.NewDir(dir); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r, err := run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if table, err = experiments.Publish(dir, r, start); err != nil {
		t.Fatal(err)
	}
	return dir, table
}

// ReadCSVRows returns the header and the data rows of path.
func ReadCSVRows(t *testing.T, path string) ([]string, [][]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s is empty", path)
	}
	return rows[0], rows[1:]
}

// CheckFiles fails unless every name exists in dir and is not empty.
func CheckFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		if st, err := os.Stat(filepath.Join(dir, n)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", n, err)
		}
	}
}

// CheckTable reads dir/table.md, checks that it is table (what Publish
// returned, the command's stdout), ends with the wall time and holds every
// line of want, and returns it.
func CheckTable(t *testing.T, dir, table string, want ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, experiments.TableFile))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	if table != md {
		t.Errorf("the table returned differs from table.md:\n%s\n---\n%s", table, md)
	}
	if !strings.Contains(md, "\nWall time: ") {
		t.Errorf("table.md has no wall time:\n%s", md)
	}
	for _, w := range want {
		if !strings.Contains(md, w) {
			t.Errorf("table.md lacks %q:\n%s", w, md)
		}
	}
	return md
}
