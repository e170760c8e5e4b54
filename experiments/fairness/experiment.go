// Package fairness is section 6.3 of Huang, Zhang and Alacaoglu behind
// `consim reproduce fairness`: fairness-constrained classification on
// UCI Adult (problem (6.6)), a linear classifier whose covariance with the
// sensitive attribute is at most c in absolute value, for the logistic
// loss and two nonconvex losses, solved by Algorithm 1 (Table), with an
// independent optimum beside the convex case.
//
// The problems are solved by consensus/fair's Solve, Algorithm 1 in one
// process: the table is about the solution's test accuracy, covariance
// and p%-rule per loss and threshold, which need the final theta, and the
// independent Reference solve is consensus/fair's too.
//
// fairness imports consensus/fair, dataset and experiments; it must not
// import node, coordinator, sim or cmd.
package fairness

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/consim/consim/consensus/fair"
	"github.com/consim/consim/dataset"
	"github.com/consim/consim/experiments"
	problem "github.com/consim/consim/problems/fairness"
)

// adultFile returns dir/name.gz if it exists, else dir/name.
func adultFile(dir, name string) string {
	gz := filepath.Join(dir, name+".gz")
	if _, err := os.Stat(gz); err == nil {
		return gz
	}
	return filepath.Join(dir, name)
}

// Adult is the encoded UCI Adult data: training and test sets.
type Adult struct{ Train, Test *problem.Data }

// LoadAdult reads and encodes the Adult training and test files of dir
// (adult.data and adult.test, gzip or plain): numeric fields
// standardized, categorical fields one-hot, sex, race and fnlwgt dropped,
// records with a missing field dropped. A missing file is an error
// wrapping fs.ErrNotExist.
func LoadAdult(dir string) (*Adult, error) {
	read := func(name string) ([]dataset.AdultRecord, error) {
		recs, _, err := dataset.LoadAdult(adultFile(dir, name))
		return recs, err
	}
	tr, err := read("adult.data")
	if err != nil {
		return nil, err
	}
	te, err := read("adult.test")
	if err != nil {
		return nil, err
	}
	enc, err := dataset.NewAdultEncoding(tr)
	if err != nil {
		return nil, err
	}
	x, y, z := enc.Encode(tr)
	train := &problem.Data{X: x, Y: y, Z: z, Dim: enc.Dim()}
	x, y, z = enc.Encode(te)
	test := &problem.Data{X: x, Y: y, Z: z, Dim: enc.Dim()}
	if err := train.Validate(); err != nil {
		return nil, fmt.Errorf("adult.data: %w", err)
	}
	if err := test.Validate(); err != nil {
		return nil, fmt.Errorf("adult.test: %w", err)
	}
	return &Adult{Train: train, Test: test}, nil
}

// Config is the experiment of `consim reproduce fairness`: every loss of
// Losses and threshold of Cs, solved by Algorithm 1 with Params from
// theta = 0 on Data.Train and evaluated on Data.Test.
type Config struct {
	// Losses name the losses (problem.ParseLoss): logistic, logdiff and
	// smooth01 (all three).
	Losses []string
	// Cs are the covariance thresholds c, +Inf for unconstrained (inf,
	// 0.1, 0.05, 0.01, 0.005, 0.001).
	Cs []float64
	// Params are Algorithm 1's: Rounds T (20,000), Batch (32), Rho (0:
	// 1, or 0.1 with SampledConstraint), Seed (1) and SampledConstraint
	// (the covariance row estimated on each mini-batch); C is set per
	// cell.
	Params fair.Config
	// Reference adds the certified optimum (problem.Reference) to the
	// convex cells (true).
	Reference bool
	// Data is the Adult data (LoadAdult; none by default, which Run
	// needs).
	Data *Adult
	// Log, if set, receives the data's sizes and a line per solved cell.
	Log io.Writer
}

// DefaultConfig is the paper's grid, without the data.
func DefaultConfig() Config {
	return Config{Losses: []string{"logistic", "logdiff", "smooth01"}, Cs: []float64{math.Inf(1), 0.1, 0.05, 0.01, 0.005, 0.001},
		Params: fair.Config{Rounds: 20000, Batch: 32, Seed: 1}, Reference: true}
}

// losses parses c.Losses.
func (c Config) losses() ([]problem.Loss, error) {
	var out []problem.Loss
	for _, name := range c.Losses {
		l, err := problem.ParseLoss(name)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// Validate checks the grid and Algorithm 1's sizes.
func (c Config) Validate() error {
	if _, err := c.losses(); err != nil {
		return err
	}
	switch p := c.Params; {
	case len(c.Losses) == 0 || len(c.Cs) == 0:
		return fmt.Errorf("fairness: no losses or thresholds")
	case p.Rounds < 1:
		return fmt.Errorf("fairness: rounds %d: want >= 1", p.Rounds)
	case p.Batch < 1:
		return fmt.Errorf("fairness: batch %d: want >= 1", p.Batch)
	case p.Rho < 0 || math.IsNaN(p.Rho) || math.IsInf(p.Rho, 0):
		return fmt.Errorf("fairness: rho %g: want finite >= 0", p.Rho)
	}
	for _, t := range c.Cs {
		if !(t > 0) {
			return fmt.Errorf("fairness: threshold %g: want positive or +Inf", t)
		}
	}
	return nil
}

// Result is the outcome of Run: one row per (loss, threshold).
type Result struct {
	Config Config
	Rows   []Row
}

// Run solves every cell.
func (c Config) Run(ctx context.Context) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Data == nil {
		return nil, fmt.Errorf("fairness: no Adult data (LoadAdult)")
	}
	losses, err := c.losses()
	if err != nil {
		return nil, err
	}
	train, test := c.Data.Train, c.Data.Test
	if c.Log != nil {
		fmt.Fprintf(c.Log, "Adult: %d training and %d test records, %d features; %d losses x %d thresholds, T = %d\n",
			train.Rows(), test.Rows(), train.Dim, len(c.Losses), len(c.Cs), c.Params.Rounds)
	}
	start := time.Now()
	rows, err := Table(train, test, losses, c.Cs, c.Params, c.Reference, func(r Row) {
		if c.Log != nil {
			fmt.Fprintf(c.Log, "%s c = %g: test accuracy %.4f, covariance %.3g, p%%-rule %.1f (%.0f s)\n", r.Loss, r.C, r.TestAcc, r.TrainCov, r.TestPRule, time.Since(start).Seconds())
		}
	})
	if err != nil {
		return nil, err
	}
	return &Result{Config: c, Rows: rows}, ctx.Err()
}

// Write writes fairness.csv.
func (r *Result) Write(dir string) error {
	var csv strings.Builder
	csv.WriteString("loss,c,sampled,train_cov,train_obj,test_acc,test_p_rule,certificate,ref_obj,ref_cov,ref_test_acc,samples,ref_test_p_rule,ref_gap,ref_kkt\n")
	for _, r := range r.Rows {
		fmt.Fprintf(&csv, "%s,%s,%t,%s,%s,%s,%s,%s,%s,%s,%s,%d,%s,%s,%s\n", r.Loss, csvNum(r.C), r.Sampled,
			csvNum(r.TrainCov), csvNum(r.TrainObj), csvNum(r.TestAcc), csvNum(r.TestPRule), csvNum(r.Certificate),
			csvNum(r.RefObj), csvNum(r.RefCov), csvNum(r.RefTestAcc), r.Samples, csvNum(r.RefPRule), csvNum(r.RefGap), csvNum(r.RefKKT))
	}
	return experiments.WriteFile(filepath.Join(dir, "fairness.csv"), strings.NewReader(csv.String()))
}

// csvNum formats v for the CSV: %g, empty for NaN.
func csvNum(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Table renders the rows as markdown: Algorithm 1's final theta beside
// the certified optimum of the stated problem (logistic loss).
func (r *Result) Table() string {
	rows, p := r.Rows, r.Config.Params
	var b strings.Builder
	form := "exact covariance row"
	if p.SampledConstraint {
		form = "covariance row estimated on each mini-batch"
	}
	fmt.Fprintf(&b, "**Algorithm 1** columns: its final theta after T = %d rounds (batch %d, seed %d, %s), which has not converged: L − L* is its distance to the optimum. **Optimum** columns (logistic loss only): the certified solution of the stated problem (mean loss, box [-R, R]^d, |a^T theta| <= c; problems/fairness Reference), with its certified gap L* − lower bound and KKT residual. Accuracy and p%%-rule on adult.test, L and covariance on adult.data.\n\n", p.Rounds, p.Batch, p.Seed, form)
	b.WriteString("| loss | c | Algorithm 1: test accuracy | covariance | p%-rule | certificate | L − L* | optimum: L* | certified gap | KKT residual | covariance | test accuracy | p%-rule |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		ref := "— | — | — | — | — | — | —"
		if !math.IsNaN(r.RefObj) {
			ref = fmt.Sprintf("%+.1e | %.6f | %.1e | %.1e | %.4g | %.2f%% | %.1f", r.TrainObj-r.RefObj, r.RefObj, r.RefGap, r.RefKKT, r.RefCov, 100*r.RefTestAcc, r.RefPRule)
		}
		c := strconv.FormatFloat(r.C, 'g', -1, 64)
		if math.IsInf(r.C, 1) {
			c = "∞"
		}
		fmt.Fprintf(&b, "| %s | %s | %.2f%% | %.2g | %.1f | %.1e | %s |\n", r.Loss, c, 100*r.TestAcc, r.TrainCov, r.TestPRule, r.Certificate, ref)
	}
	return b.String()
}

// ReadCSV reads the rows of a fairness.csv that Write wrote, so that a
// table can be rendered again from a run's data.
func ReadCSV(r io.Reader) ([]Row, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("fairness.csv: %w", err)
	}
	if len(recs) == 0 || len(recs[0]) != 15 || recs[0][0] != "loss" {
		return nil, fmt.Errorf("fairness.csv: want the 15-column header of Write")
	}
	var rows []Row
	for n, rec := range recs[1:] {
		var f [15]float64
		for q, s := range rec {
			if q == 0 || q == 2 || q == 11 {
				continue
			}
			if s == "" {
				f[q] = math.NaN()
				continue
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("fairness.csv: row %d column %s: %w", n+1, recs[0][q], err)
			}
			f[q] = v
		}
		sampled, err := strconv.ParseBool(rec[2])
		if err != nil {
			return nil, fmt.Errorf("fairness.csv: row %d sampled: %w", n+1, err)
		}
		samples, err := strconv.ParseInt(rec[11], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("fairness.csv: row %d samples: %w", n+1, err)
		}
		rows = append(rows, Row{Loss: rec[0], C: f[1], Sampled: sampled, TrainCov: f[3], TrainObj: f[4], TestAcc: f[5],
			TestPRule: f[6], Certificate: f[7], RefObj: f[8], RefCov: f[9], RefTestAcc: f[10], Samples: samples,
			RefPRule: f[12], RefGap: f[13], RefKKT: f[14]})
	}
	return rows, nil
}
