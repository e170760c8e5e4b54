package problems

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus/admm"
	"github.com/consim/consim/consensus/dadmm"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// portfolioMeanHi bounds the mean rewards nu_k ~ U[0, 0.1], as in the
// paper's experiment.
const portfolioMeanHi = 0.1

// Portfolio is the problem block of portfolio: Yu and Huang's
// mean-variance portfolio over generated rewards, split by periods.
type Portfolio struct {
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
func (p *Portfolio) Validate() error {
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

// PortfolioProblem describes portfolio to the registry.
func PortfolioProblem() registry.Problem {
	return registry.Problem{
		Kind:    "portfolio",
		Summary: "mean-variance portfolio (a stochastic composition objective), rewards generated from the seed and split by periods",
		New:     func() registry.Params { return &Portfolio{} },
		Build: func(p registry.Params, env registry.ProblemEnv) (registry.Instance, error) {
			return buildPortfolio(p.(*Portfolio), env)
		},
		Offers: []string{"portfolio shards"},
	}
}

// portfolio is a portfolio instance: the reward matrix drawn from the
// run seed and split into one contiguous block of periods per agent.
type portfolio struct {
	cfg    *Portfolio
	shards []*admm.Portfolio
}

func buildPortfolio(p *Portfolio, env registry.ProblemEnv) (*portfolio, error) {
	if least := 2 * env.N; p.Periods < least {
		return nil, registry.FieldErrors{{Key: "periods", Msg: fmt.Sprintf(
			"%d periods for %d agents: need at least 2 per agent (%d)", p.Periods, env.N, least)}}
	}
	rng := graph.StreamPortfolio.Rand(env.Seed, 0, 0)
	rets, err := admm.GenerateReturns(admm.ReturnsConfig{
		Assets: p.Assets, Periods: p.Periods, Cov: p.Cov, MeanHi: portfolioMeanHi,
	}, rng)
	if err != nil {
		return nil, fmt.Errorf("portfolio rewards: %w", err)
	}
	shards, err := dadmm.SplitPortfolio(rets, env.N)
	if err != nil {
		return nil, err
	}
	return &portfolio{cfg: p, shards: shards}, nil
}

func (p *portfolio) Dim() int                    { return p.cfg.Assets }
func (p *portfolio) Shard(i int) *admm.Portfolio { return p.shards[i] }
func (p *portfolio) Reg() admm.Ridge             { return admm.Ridge{Mu: p.cfg.Mu} }
func (p *portfolio) PeriodsPerAgent() int        { return p.cfg.Periods / len(p.shards) }

// Central is f = (1/N) sum_i P_i, P_i = F_i + (mu/2)||x||^2 the objective
// of agent i's shard of periods, with its optimum solved exactly
// (dadmm.PortfolioProblem); with one agent it is the portfolio problem of
// the whole reward matrix.
func (p *portfolio) Central() (*objective.Problem, error) {
	return dadmm.PortfolioProblem(p.shards, p.Reg())
}
