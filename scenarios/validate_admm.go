package scenarios

import (
	"math"
	"reflect"
	"slices"
	"strings"
)

// paramKeys lists the algorithm.params keys each algorithm reads; any
// other key set under algorithm.params is an error.
var paramKeys = map[string][]string{
	AlgorithmALM:              {"eta", "tau", "rho", "mu", "beta", "m_y", "c_tau", "c_beta", "scale"},
	AlgorithmDADMM:            {"c", "gamma"},
	AlgorithmDADMMLinearized:  {"c", "tau"},
	AlgorithmDADMMComposition: {"c", "eta", "rho", "k", "batch"},
}

// portfolio checks the keys of problem.kind portfolio.
func (v *validator) portfolio() {
	p := v.s.Problem
	if v.required("problem.assets", p.Assets == 0, "for portfolio, an integer >= 1") &&
		v.atLeast("problem.assets", p.Assets, 1) && p.Dim != 0 && p.Dim != p.Assets {
		v.fail("problem.dim", "%d differs from problem.assets = %d: for portfolio the dimension is the number of assets (leave dim out)", p.Dim, p.Assets)
	}
	if v.required("problem.periods", p.Periods == 0, "for portfolio, an integer >= 2 per agent") {
		if least := 2 * max(v.s.Agents, 1); p.Periods < least {
			v.fail("problem.periods", "%d periods for %d agents: need at least 2 per agent (%d)", p.Periods, v.s.Agents, least)
		}
	}
	if v.required("problem.cov", p.Cov == 0, "for portfolio, a condition number >= 1") && !(p.Cov >= 1 && !math.IsInf(p.Cov, 0)) {
		v.fail("problem.cov", "must be a finite condition number >= 1, got %s", formatFloat(p.Cov))
	}
	if v.required("problem.mu", p.Mu == 0, "for portfolio, a ridge weight > 0") {
		v.positive("problem.mu", p.Mu)
	}
	// The keys of the generated regression data mean nothing here; they
	// must keep their defaults (a resolved scenario writes them out).
	def := Default().Problem
	for _, k := range []struct {
		key     string
		changed bool
	}{
		{"problem.samples_per_agent", p.SamplesPerAgent != def.SamplesPerAgent},
		{"problem.batch", p.Batch != def.Batch},
		{"problem.noise", p.Noise != def.Noise},
		{"problem.reg", p.Reg != def.Reg},
		{"problem.heterogeneity", p.Heterogeneity != def.Heterogeneity},
		{"problem.box", p.Box != def.Box},
	} {
		if k.changed {
			v.fail(k.key, "does not apply to problem.kind portfolio (its keys: assets, periods, cov, mu, init); leave it at its default")
		}
	}
}

// notPortfolio rejects the portfolio keys on another problem kind.
func (v *validator) notPortfolio() {
	p := v.s.Problem
	for _, k := range []struct {
		key string
		set bool
	}{
		{"problem.assets", p.Assets != 0},
		{"problem.periods", p.Periods != 0},
		{"problem.cov", p.Cov != 0},
		{"problem.mu", p.Mu != 0},
	} {
		if k.set {
			v.fail(k.key, "only applies to %s, not %s", ProblemPortfolio, p.Kind)
		}
	}
}

// algorithmFit checks the parameters set under algorithm.params against
// the algorithm, the ranges of the dadmm family's parameters, and that the
// algorithm can solve the problem kind.
func (v *validator) algorithmFit() {
	a := v.s.Algorithm
	allowed, known := paramKeys[a.Name]
	if !known {
		return // algorithm.name is reported already
	}
	for _, k := range a.Params.setKeys() {
		if !slices.Contains(allowed, k) {
			v.fail("algorithm.params."+k, "does not apply to algorithm %s (its parameters: %s)", a.Name, strings.Join(allowed, ", "))
		}
	}
	if a.Name != AlgorithmALM {
		// Keys only the ALM reads: an error when given a value other than
		// the default (a resolved scenario writes every key out, so a
		// default value is no sign of intent).
		def := Default()
		for _, k := range []struct {
			key     string
			changed bool
		}{
			{"algorithm.preset", a.Preset != def.Algorithm.Preset},
			{"algorithm.tau_schedule", a.TauSchedule != def.Algorithm.TauSchedule},
			{"algorithm.safeguard", a.Safeguard != def.Algorithm.Safeguard},
			{"algorithm.safeguard_every", a.SafeguardEvery != def.Algorithm.SafeguardEvery},
			{"edges.same_draw", v.s.Edges.SameDraw != def.Edges.SameDraw},
		} {
			if k.changed {
				v.fail(k.key, "only applies to algorithm %s, not %s", AlgorithmALM, a.Name)
			}
		}
	}
	p := a.Params
	if p.C != nil && !(*p.C > 0 && !math.IsInf(*p.C, 0)) {
		v.fail("algorithm.params.c", "must be a finite number > 0, got %s", formatFloat(*p.C))
	}
	if p.Gamma != nil && !(*p.Gamma >= 0 && !math.IsInf(*p.Gamma, 0)) {
		v.fail("algorithm.params.gamma", "must be a finite number >= 0, got %s", formatFloat(*p.Gamma))
	}
	if p.K != nil && *p.K < 1 {
		v.fail("algorithm.params.k", "must be an integer >= 1 (rounds per outer iteration), got %d", *p.K)
	}
	if p.Batch != nil && *p.Batch < 1 {
		v.fail("algorithm.params.batch", "must be an integer >= 1 (mini-batch of g_hat), got %d", *p.Batch)
	}
	if a.Name == AlgorithmDADMMComposition && p.Rho != nil && !(*p.Rho > 0) {
		v.fail("algorithm.params.rho", "must be > 0 for %s (the penalty of x = w), got %s", a.Name, formatFloat(*p.Rho))
	}

	kind := v.s.Problem.Kind
	if !slices.Contains(ProblemKinds(), kind) {
		return // problem.kind is reported already
	}
	switch {
	case kind == ProblemPortfolio && a.Name != AlgorithmDADMMComposition:
		v.fail("algorithm.name", "%s cannot solve problem.kind portfolio: its objective is a stochastic composition, which only %s handles",
			a.Name, AlgorithmDADMMComposition)
	case a.Name == AlgorithmDADMMComposition && kind != ProblemPortfolio:
		v.fail("algorithm.name", "%s needs a composition objective: problem.kind must be %s, not %s", a.Name, ProblemPortfolio, kind)
	case a.Name == AlgorithmDADMM && kind != ProblemLeastSquares:
		v.fail("algorithm.name", "%s solves each subproblem with the exact prox of f_i, and problem.kind %s has none (only %s does); use %s",
			a.Name, kind, ProblemLeastSquares, AlgorithmDADMMLinearized)
	}
	box := v.s.Problem.Box
	if isADMM(a.Name) && kind != ProblemPortfolio && !(math.IsInf(box.Lo(), -1) && math.IsInf(box.Hi(), 1)) {
		v.fail("problem.box", "%s is unconstrained (it does not project onto X): need [-.inf, .inf], got %s", a.Name, formatInterval(box))
	}
}

// setKeys lists the YAML keys of the parameters that are set.
func (p Params) setKeys() []string {
	rv := reflect.ValueOf(p)
	var keys []string
	for _, f := range fieldsOf(rv.Type()) {
		if !rv.Field(f.index).IsNil() {
			keys = append(keys, f.name)
		}
	}
	return keys
}
