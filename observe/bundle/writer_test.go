package bundle

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCreateBundleResume: a new bundle refuses an existing directory; a
// resumed one replaces the bundle of a coordinator that died (no
// summary) and refuses a finished one (a summary).
func TestCreateBundleResume(t *testing.T) {
	root := t.TempDir()
	b, err := Create(root, "r", []byte("seed: 1\n"), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Append(Row{}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if _, err := Create(root, "r", nil, nil, false); !errors.Is(err, ErrExists) {
		t.Fatalf("second bundle: %v, want %v", err, ErrExists)
	}

	b, err = Create(root, "r", []byte("seed: 2\n"), nil, true)
	if err != nil {
		t.Fatalf("resume an unfinished bundle: %v", err)
	}
	b.Close()
	got, err := os.ReadFile(filepath.Join(root, "r", ScenarioFile))
	if err != nil || string(got) != "seed: 2\n" {
		t.Fatalf("scenario after the resume: %q, %v", got, err)
	}
	if rows, _ := os.ReadFile(filepath.Join(root, "r", MetricsJSONFile)); len(rows) != 0 {
		t.Fatalf("the dead coordinator's rows are still there: %q", rows)
	}

	if err := b.WriteSummary(map[string]string{"run_id": "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(root, "r", nil, nil, true); !errors.Is(err, ErrExists) {
		t.Fatalf("resume a finished bundle: %v, want %v", err, ErrExists)
	}
	if _, err := Create(root, "fresh", nil, nil, true); err != nil {
		t.Fatalf("resume with no bundle yet: %v", err)
	}
}
