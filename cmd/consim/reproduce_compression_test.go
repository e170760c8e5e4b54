package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consim/consim/experiments/compression"
)

// TestReproduceCompressionSmall runs the comparison on the experiment's
// small scenario over channels and writes its table into a page's
// generated block; bad flags are usage errors that name the flag.
func TestReproduceCompressionSmall(t *testing.T) {
	page := filepath.Join(t.TempDir(), "compression.md")
	if err := os.WriteFile(page, []byte("# x\n"+compression.BeginMarker+"\n"+compression.EndMarker+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"--scenario", filepath.Join("..", "..", "experiments", "compression", "testdata", "small.yaml"),
		"--transport", "chan", "--rounds", "100", "--gammas", "0.2,0.4", "--out", t.TempDir(), "--doc", page}
	err := runReproduce("compression", args, &stdout, &stderr)
	if err != nil && !strings.Contains(err.Error(), "not within 10%") {
		t.Fatalf("reproduce compression: %v\nstderr: %s", err, stderr.String())
	}
	for _, want := range []string{"| dgd | 0.1 | - | - | 100 |", "| choco_sgd qsgd 4 bits |", "wrote the table into " + page} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	b, _ := os.ReadFile(page)
	if !strings.Contains(string(b), "| choco_sgd top_k 10% |") {
		t.Errorf("the page has no table:\n%s", b)
	}
	for _, tc := range []struct{ args, want string }{
		{"--gammas 0.2,x", `--gammas: "x"`},
		{"--gammas 1.5", `--gammas: "1.5"`},
		{"extra", "unexpected arguments"},
	} {
		err := runReproduce("compression", strings.Fields(tc.args), &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !isUsage(err) {
			t.Errorf("%s: error %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
}
