package report

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/observe"
)

// Label is one grid assignment of a sweep point, e.g. graph.p = 0.5.
type Label struct {
	Key, Value string
}

// SweepRow is one run of a sweep: one line of sweep.csv.
type SweepRow struct {
	RunID   string
	Point   int
	Replica int
	Labels  []Label
	Seed    uint64
	Stats   RunStats
	// PredictedRate is the algorithm's parameter-free prediction of the
	// per-round factor of the squared consensus error (for the ALM,
	// rho(E[M])^2 of its round map; see alm.RateModel), NaN when the
	// algorithm or the run has none.
	PredictedRate float64
	// Error says why a run failed; empty when it did not.
	Error string
}

// SweepTable is sweep.csv: the grid keys and one row per run.
type SweepTable struct {
	Keys []string
	Rows []SweepRow
}

// quantity is one per-run measure aggregated over seeds.
type quantity struct {
	name, title string
	get         func(*RunStats) float64
	set         func(*RunStats, float64)
}

// quantities are the measures of sweep.csv and aggregate.csv, in order.
var quantities = []quantity{
	{"final_consensus_err", "final consensus error", func(s *RunStats) float64 { return s.FinalConsensusErr }, func(s *RunStats, v float64) { s.FinalConsensusErr = v }},
	{"rounds_to_tol", "rounds to tolerance", func(s *RunStats) float64 { return s.RoundsToTol }, func(s *RunStats, v float64) { s.RoundsToTol = v }},
	{"rate", "consensus rate per round", func(s *RunStats) float64 { return s.Rate }, func(s *RunStats, v float64) { s.Rate = v }},
	{"final_opt_gap", "final optimality gap", func(s *RunStats) float64 { return s.FinalOptGap }, func(s *RunStats, v float64) { s.FinalOptGap = v }},
	{"final_feasibility", "final feasibility", func(s *RunStats) float64 { return s.FinalFeasibility }, func(s *RunStats, v float64) { s.FinalFeasibility = v }},
	{"msgs", "messages", func(s *RunStats) float64 { return s.Msgs }, func(s *RunStats, v float64) { s.Msgs = v }},
	{"bytes", "bytes", func(s *RunStats) float64 { return s.Bytes }, func(s *RunStats, v float64) { s.Bytes = v }},
	{"dropouts", "dropouts", func(s *RunStats) float64 { return s.Dropouts }, func(s *RunStats, v float64) { s.Dropouts = v }},
	{"wall_s", "wall s", func(s *RunStats) float64 { return s.WallSeconds }, func(s *RunStats, v float64) { s.WallSeconds = v }},
}

// header returns the columns of sweep.csv:
//
//	run_id, point, replica, <grid keys>, seed, status, final_round,
//	tolerance, <quantities>, predicted_rate, error
func (t *SweepTable) header() []string {
	h := []string{"run_id", "point", "replica"}
	h = append(h, t.Keys...)
	h = append(h, "seed", "status", "final_round", "tolerance")
	for _, q := range quantities {
		h = append(h, q.name)
	}
	return append(h, "predicted_rate", "error")
}

// WriteCSV writes t as sweep.csv at path, which must not exist.
func (t *SweepTable) WriteCSV(path string) error {
	recs := [][]string{t.header()}
	for _, r := range t.Rows {
		rec := []string{r.RunID, strconv.Itoa(r.Point), strconv.Itoa(r.Replica)}
		for _, l := range r.Labels {
			rec = append(rec, l.Value)
		}
		rec = append(rec, strconv.FormatUint(r.Seed, 10), r.Stats.Status, strconv.Itoa(r.Stats.FinalRound), formatFloat(r.Stats.Tolerance))
		for _, q := range quantities {
			rec = append(rec, formatFloat(q.get(&r.Stats)))
		}
		recs = append(recs, append(rec, formatFloat(r.PredictedRate), r.Error))
	}
	return writeCSV(path, recs, true)
}

// ReadSweepCSV reads a sweep.csv written by WriteCSV.
func ReadSweepCSV(path string) (*SweepTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: read sweep table: %w", ErrBadInput, err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%w: read sweep table %s: %w", ErrBadInput, path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%w: read sweep table %s: no header", ErrBadInput, path)
	}
	h := recs[0]
	seedCol := slices.Index(h, "seed")
	if len(h) < 3 || h[0] != "run_id" || h[1] != "point" || h[2] != "replica" || seedCol < 3 {
		return nil, fmt.Errorf("%w: read sweep table %s: unexpected header %v", ErrBadInput, path, h)
	}
	t := &SweepTable{Keys: slices.Clone(h[3:seedCol])}
	if want := t.header(); !slices.Equal(h, want) {
		return nil, fmt.Errorf("%w: read sweep table %s: header %v, want %v", ErrBadInput, path, h, want)
	}
	for n, rec := range recs[1:] {
		row, err := t.parseRow(rec, seedCol)
		if err != nil {
			return nil, fmt.Errorf("%w: read sweep table %s: line %d: %w", ErrBadInput, path, n+2, err)
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

func (t *SweepTable) parseRow(rec []string, seedCol int) (SweepRow, error) {
	var r SweepRow
	var err error
	r.RunID = rec[0]
	if r.Point, err = strconv.Atoi(rec[1]); err != nil {
		return r, fmt.Errorf("point: %w", err)
	}
	if r.Replica, err = strconv.Atoi(rec[2]); err != nil {
		return r, fmt.Errorf("replica: %w", err)
	}
	for k, key := range t.Keys {
		r.Labels = append(r.Labels, Label{Key: key, Value: rec[3+k]})
	}
	c := seedCol
	if r.Seed, err = strconv.ParseUint(rec[c], 10, 64); err != nil {
		return r, fmt.Errorf("seed: %w", err)
	}
	r.Stats.Status = rec[c+1]
	if r.Stats.FinalRound, err = strconv.Atoi(rec[c+2]); err != nil {
		return r, fmt.Errorf("final_round: %w", err)
	}
	nums := append([]string{rec[c+3]}, rec[c+4:c+4+len(quantities)]...)
	vals := make([]float64, len(nums))
	for k, s := range nums {
		if vals[k], err = parseFloat(s); err != nil {
			return r, fmt.Errorf("column %d: %w", c+3+k+1, err)
		}
	}
	r.Stats.Tolerance = vals[0]
	for k, q := range quantities {
		q.set(&r.Stats, vals[k+1])
	}
	end := c + 4 + len(quantities)
	if r.PredictedRate, err = parseFloat(rec[end]); err != nil {
		return r, fmt.Errorf("predicted_rate: %w", err)
	}
	r.Error = rec[end+1]
	return r, nil
}

// PointAgg aggregates the runs of one grid point over seeds.
type PointAgg struct {
	Point  int
	Labels []Label
	// Runs counts the point's runs, OK those with status ok (the only
	// ones aggregated) and Reached the ok ones that reached the tolerance.
	Runs, OK, Reached int
	// Stats holds one observe.Stats per quantity, in quantities order.
	Stats []observe.Stats
	// Predicted summarises the runs' predicted rates (random topologies
	// differ between seeds).
	Predicted observe.Stats
	// PredictedRate is Predicted.Mean: no constant is fitted to the
	// observed rates.
	PredictedRate float64
}

// Stat returns the Stats of the quantity called name (a sweep.csv column).
func (a *PointAgg) Stat(name string) observe.Stats {
	for k, q := range quantities {
		if q.name == name {
			return a.Stats[k]
		}
	}
	return observe.Summarize(nil)
}

// Aggregate groups t's rows by grid point, in point order, and summarises
// every quantity and the predicted rate over the ok runs with
// observe.Summarize.
func Aggregate(t *SweepTable) []PointAgg {
	byPoint := make(map[int][]SweepRow)
	var order []int
	for _, r := range t.Rows {
		if _, ok := byPoint[r.Point]; !ok {
			order = append(order, r.Point)
		}
		byPoint[r.Point] = append(byPoint[r.Point], r)
	}
	slices.Sort(order)
	aggs := make([]PointAgg, 0, len(order))
	for _, p := range order {
		rows := byPoint[p]
		a := PointAgg{Point: p, Labels: rows[0].Labels, Runs: len(rows), PredictedRate: math.NaN()}
		cols := make([][]float64, len(quantities))
		var preds []float64
		for _, r := range rows {
			if r.Stats.Status != coordinator.StatusOK {
				continue
			}
			a.OK++
			if !math.IsNaN(r.Stats.RoundsToTol) {
				a.Reached++
			}
			for k, q := range quantities {
				cols[k] = append(cols[k], q.get(&r.Stats))
			}
			preds = append(preds, r.PredictedRate)
		}
		for k := range quantities {
			a.Stats = append(a.Stats, observe.Summarize(cols[k]))
		}
		a.Predicted = observe.Summarize(preds)
		a.PredictedRate = a.Predicted.Mean
		aggs = append(aggs, a)
	}
	return aggs
}

// WriteAggregateCSV writes aggregate.csv at path (which must not exist):
// per grid point its labels, runs, ok, reached, for every quantity its
// mean, std, min and max over the ok seeds, and the mean predicted rate.
func WriteAggregateCSV(path string, keys []string, aggs []PointAgg) error {
	h := append([]string{"point"}, keys...)
	h = append(h, "runs", "ok", "reached")
	for _, q := range quantities {
		h = append(h, q.name+"_mean", q.name+"_std", q.name+"_min", q.name+"_max")
	}
	h = append(h, "predicted_rate")
	recs := [][]string{h}
	for _, a := range aggs {
		rec := []string{strconv.Itoa(a.Point)}
		for _, l := range a.Labels {
			rec = append(rec, l.Value)
		}
		rec = append(rec, strconv.Itoa(a.Runs), strconv.Itoa(a.OK), strconv.Itoa(a.Reached))
		for _, s := range a.Stats {
			rec = append(rec, formatFloat(s.Mean), formatFloat(s.Std), formatFloat(s.Min), formatFloat(s.Max))
		}
		recs = append(recs, append(rec, formatFloat(a.PredictedRate)))
	}
	return writeCSV(path, recs, true)
}

// writeCSV writes records to path; with fresh set the file must not exist.
func writeCSV(path string, recs [][]string, fresh bool) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if fresh {
		flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	w := csv.NewWriter(f)
	if err := w.WriteAll(recs); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}

// formatFloat writes x in the shortest exact form, and a missing value
// (NaN or infinite) as an empty field, as metrics.csv does.
func formatFloat(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// parseFloat reads what formatFloat writes: an empty field is a missing
// value, NaN ("NaN", as tables written before were, also reads as NaN).
func parseFloat(s string) (float64, error) {
	if s == "" {
		return math.NaN(), nil
	}
	return strconv.ParseFloat(s, 64)
}
