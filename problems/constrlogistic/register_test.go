package constrlogistic_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consim/consim/scenarios"
)

// TestFileScenarioResolvedForm: a constrained_logistic scenario on a
// LIBSVM file resolves without the synthetic key samples, and its memory
// estimate counts the iterate (w, b) of the file's 8 features plus one; a
// synthetic one resolves without rows, with n + 1 = 21.
func TestFileScenarioResolvedForm(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for k := range 30 {
		b.WriteString([]string{"1", "-1"}[k%2])
		for j := 1; j <= 8; j++ {
			b.WriteString(" " + string(rune('0'+j)) + ":0." + string(rune('1'+(k+j)%9)))
		}
		b.WriteString("\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "rows.svm"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		problem, absent string
		dim             int
	}{
		{"{kind: constrained_logistic, file: rows.svm, dim: 0, core: 4}", "samples:", 9},
		{"{kind: constrained_logistic}", "rows:", 21},
	} {
		path := filepath.Join(dir, "s.yaml")
		src := "agents: 2\ngraph: {topology: complete}\nproblem: " + c.problem + "\nalgorithm: {name: penalty_vrasg}\nrounds: 5\n"
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := scenarios.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		out, err := s.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(out), c.absent) {
			t.Errorf("%s: resolved form holds %s:\n%s", c.problem, c.absent, out)
		}
		e, err := scenarios.EstimateMemory(s)
		if err != nil {
			t.Fatal(err)
		}
		if e.Dim != c.dim {
			t.Errorf("%s: estimate's dim %d, want %d", c.problem, e.Dim, c.dim)
		}
		st, err := s.Build()
		if err != nil {
			t.Fatal(err)
		}
		if st.Env.Problem.Dim() != c.dim {
			t.Errorf("%s: the instance has dim %d, the estimate %d", c.problem, st.Env.Problem.Dim(), c.dim)
		}
	}
}
