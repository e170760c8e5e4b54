package sim

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/dataset"
	"github.com/consim/consim/scenarios"
)

// dataShards is what ExportData needs of a problem instance: each agent's
// rows.
type dataShards interface {
	DataShard(i int) (*dataset.Dataset, error)
}

// ExportManifest is DIR/problem.json of ExportData: what an outside solver
// needs to rebuild f and the optimum the bundle reports.
type ExportManifest struct {
	Scenario string `json:"scenario"`
	Kind     string `json:"kind"`
	Agents   int    `json:"agents"`
	Dim      int    `json:"dim"`
	// Objective states f in the files' terms.
	Objective string  `json:"objective"`
	Reg       float64 `json:"reg"`
	// Box is X = [lo, hi]^n, infinite bounds as "inf"/"-inf" strings.
	Box    [2]any    `json:"box"`
	Files  []string  `json:"files"`
	FStar  float64   `json:"f_star"`
	XStar  []float64 `json:"x_star"`
	Convex bool      `json:"convex"`
}

// ExportData writes dir, which must not exist, with one file per agent of
// st, agent-<i>.svm (LIBSVM) or agent-<i>.csv (label first) by format
// (dataset.FormatLIBSVM or dataset.FormatCSV), and problem.json (the
// manifest, which it returns). A problem kind without rows, an unknown
// format and an existing dir are errors wrapping ErrInput.
func ExportData(st *scenarios.Setup, dir, format string) (*ExportManifest, error) {
	s := st.Scenario
	ext, ok := map[string]string{dataset.FormatLIBSVM: "svm", dataset.FormatCSV: "csv"}[format]
	if !ok {
		return nil, inputError{fmt.Errorf("--format %q: want libsvm or csv", format)}
	}
	src, ok := st.Env.Problem.(dataShards)
	if !ok {
		return nil, inputError{fmt.Errorf("problem kind %s holds no rows to export", s.Problem.Kind)}
	}
	if _, err := os.Stat(dir); err == nil {
		return nil, inputError{fmt.Errorf("%s exists: data export writes a new directory", dir)}
	}
	prob, err := st.Problem()
	if err != nil {
		return nil, err
	}
	shards := make([]*dataset.Dataset, s.Agents)
	for i := range shards {
		if shards[i], err = src.DataShard(i); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	files, err := dataset.SaveShards(filepath.Join(dir, "agent-%d."+ext), shards, format)
	if err != nil {
		return nil, err
	}
	for i := range files {
		files[i] = filepath.Base(files[i])
	}
	m := &ExportManifest{
		Scenario:  s.Name,
		Kind:      s.Problem.Kind,
		Agents:    s.Agents,
		Dim:       prob.Dim(),
		Objective: objectiveText(s.Problem.Kind),
		Reg:       regOf(s.Problem.Params),
		Box:       [2]any{jsonBound(prob.Box.Lo), jsonBound(prob.Box.Hi)},
		Files:     files,
		FStar:     prob.FStar,
		XStar:     prob.XStar,
		Convex:    prob.Convex,
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "problem.json"), append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	return m, nil
}

// regOf is the regularizer weight of a problem block that has one.
func regOf(p registry.Params) float64 {
	if r, ok := p.(interface{ Lambda() float64 }); ok {
		return r.Lambda()
	}
	return 0
}

// objectiveText states f of a regression kind in terms of the exported
// rows (a_k, b_k) of agent i's file S_i, m_i its rows, N the agents.
func objectiveText(kind string) string {
	const mean = "f(x) = (1/N) sum_i f_i(x), f_i(x) = (1/m_i) sum_{k in S_i} "
	switch kind {
	case "least_squares":
		return mean + "(a_k^T x - b_k)^2 / 2 + (reg/2)||x||^2"
	case "logistic":
		return mean + "log(1 + exp(-b_k a_k^T x)) + (reg/2)||x||^2"
	case "nonconvex_regression":
		return mean + "(c^2/2) log(1 + ((a_k^T x - b_k)/c)^2) + reg sum_j x_j^2/(1 + x_j^2)"
	}
	return "see the problem's documentation"
}

// jsonBound is v, or "inf"/"-inf" for the infinities JSON cannot hold.
func jsonBound(v float64) any {
	switch {
	case v > 1e308:
		return "inf"
	case v < -1e308:
		return "-inf"
	}
	return v
}
