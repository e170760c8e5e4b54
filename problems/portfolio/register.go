// Package portfolio is the mean-variance portfolio problem of Yu and
// Huang's com-SVR-ADMM experiments (eq. 24, after Lian, Wang and Liu):
// its rewards generated from a seed (GenerateReturns), the problem as a
// stochastic composition with all of its oracles (Portfolio, the form
// Composition), its exact solution (Portfolio.Solve), the split of the
// periods over agents (Split), each agent's objective as an
// objective.Local and the consensus problem with its optimum (Central),
// the problem block, the registration of kind portfolio (Problem) and its
// export.
//
// portfolio is pure: no I/O but its export's (through problems/datafile),
// no goroutines, no clocks; every random choice comes from a *rand.Rand
// the caller passes in (the registration draws it from
// graph.StreamPortfolio). It may import objective, graph,
// consensus/registry, problems/datafile and gonum; it must not import an
// algorithm package (consensus/<algorithm>), node, coordinator, scenarios
// or cmd.
package portfolio

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// portfolioMeanHi bounds the mean rewards nu_k ~ U[0, 0.1], as in the
// paper's experiment.
const portfolioMeanHi = 0.1

// Cap is the capability of the problems split into composition shards
// (Provider); dadmm's composition agents need it.
const Cap = "portfolio shards"

// Provider is the capability Cap: agent i's portfolio problem over its
// own periods, and the regularizer R of the whole problem.
type Provider interface {
	registry.Instance
	// Shard returns agent i's portfolio problem.
	Shard(i int) *Portfolio
	// Reg is R(x) = (mu/2)||x||^2.
	Reg() Ridge
	// PeriodsPerAgent is the number of periods of the smallest shard.
	PeriodsPerAgent() int
}

// Params is the problem block of portfolio: Yu and Huang's
// mean-variance portfolio over generated rewards, split by periods.
type Params struct {
	// Assets is the number of assets, the length of x.
	Assets int `yaml:"assets" doc:"number of assets, the length of x" default:"required"`
	// Periods is n, the number of periods (rows of the reward matrix),
	// split contiguously across the agents.
	Periods int `yaml:"periods" doc:"periods n, >= 2 per agent, split contiguously across agents" default:"required"`
	// Cov is the condition number of the covariance of the rewards.
	Cov float64 `yaml:"cov" doc:"condition number of the reward covariance, >= 1" default:"required"`
	// Mu is mu, the weight of the regularizer (mu/2)||x||^2.
	Mu float64 `yaml:"mu" doc:"ridge weight mu > 0 of R(x) = (mu/2)||x||^2" default:"required"`
}

// Validate checks the keys' ranges.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	if p.Assets < 1 {
		errs.Add("assets", "required: an integer >= 1, got %d", p.Assets)
	}
	if p.Periods < 2 {
		errs.Add("periods", "required: an integer >= 2 per agent, got %d", p.Periods)
	}
	if !(p.Cov >= 1) || math.IsInf(p.Cov, 0) {
		errs.Add("cov", "required: a finite condition number >= 1, got %s", registry.Num(p.Cov))
	}
	if !(p.Mu > 0) || math.IsInf(p.Mu, 0) {
		errs.Add("mu", "required: a finite ridge weight > 0, got %s", registry.Num(p.Mu))
	}
	return errs.Err()
}

// Problem describes portfolio to the registry.
func Problem() registry.Problem {
	return registry.Problem{
		Kind:    "portfolio",
		Summary: "mean-variance portfolio (a stochastic composition objective), rewards generated from the seed and split by periods",
		New:     func() registry.Params { return &Params{} },
		Build: func(p registry.Params, env registry.ProblemEnv) (registry.Instance, error) {
			return build(p.(*Params), env)
		},
		Offers: []string{Cap},
	}
}

// instance is a portfolio instance (Provider): the reward matrix drawn
// from the run seed and split into one contiguous block of periods per
// agent.
type instance struct {
	cfg    *Params
	shards []*Portfolio
}

func build(p *Params, env registry.ProblemEnv) (*instance, error) {
	if least := 2 * env.N; p.Periods < least {
		return nil, registry.FieldErrors{{Key: "periods", Msg: fmt.Sprintf(
			"%d periods for %d agents: need at least 2 per agent (%d)", p.Periods, env.N, least)}}
	}
	rng := graph.StreamPortfolio.Rand(env.Seed, 0, 0)
	rets, err := GenerateReturns(ReturnsConfig{
		Assets: p.Assets, Periods: p.Periods, Cov: p.Cov, MeanHi: portfolioMeanHi,
	}, rng)
	if err != nil {
		return nil, fmt.Errorf("portfolio rewards: %w", err)
	}
	shards, err := Split(rets, env.N)
	if err != nil {
		return nil, err
	}
	return &instance{cfg: p, shards: shards}, nil
}

func (p *instance) Dim() int               { return p.cfg.Assets }
func (p *instance) Shard(i int) *Portfolio { return p.shards[i] }
func (p *instance) Reg() Ridge             { return Ridge{Mu: p.cfg.Mu} }
func (p *instance) PeriodsPerAgent() int   { return p.cfg.Periods / len(p.shards) }

// Central is f = (1/N) sum_i P_i, P_i = F_i + (mu/2)||x||^2 the objective
// of agent i's shard of periods, with its optimum solved exactly
// (Central); with one agent it is the portfolio problem of the whole
// reward matrix.
func (p *instance) Central() (*objective.Problem, error) {
	return Central(p.shards, p.Reg())
}
