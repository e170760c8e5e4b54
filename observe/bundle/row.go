package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/consim/consim/observe"
)

// Row is one measured round: one line of metrics.jsonl and of metrics.csv,
// and the initial and final entries of summary.json.
type Row struct {
	observe.Metrics
	// Elapsed is the wall time from Start until the round was measured.
	Elapsed time.Duration
	// Msgs and Bytes are the messages and bytes sent through the round:
	// the sum over agents of Traffic.MsgsSent and Traffic.BytesSent in
	// their statuses of this round (a departed agent's last known ones).
	Msgs, Bytes int64
}

// column is one field of a Row in the files: its name and its value.
type column struct {
	name string
	get  func(*Row) float64
	set  func(*Row, float64)
	// count marks the columns that are never null: round, elapsed_s,
	// grad_evals, msgs and bytes.
	count bool
}

// columns fixes the order and names of the fields of metrics.csv and
// metrics.jsonl. Add new columns at the end only.
var columns = []column{
	{"round", func(r *Row) float64 { return float64(r.Round) }, func(r *Row, v float64) { r.Round = int(v) }, true},
	{"elapsed_s", func(r *Row) float64 { return r.Elapsed.Seconds() }, func(r *Row, v float64) { r.Elapsed = time.Duration(math.Round(v * float64(time.Second))) }, true},
	{"consensus_err", func(r *Row) float64 { return r.ConsensusErr }, func(r *Row, v float64) { r.ConsensusErr = v }, false},
	{"consensus_err_rel", func(r *Row) float64 { return r.ConsensusErrRel }, func(r *Row, v float64) { r.ConsensusErrRel = v }, false},
	{"obj_value", func(r *Row) float64 { return r.ObjValue }, func(r *Row, v float64) { r.ObjValue = v }, false},
	{"opt_gap", func(r *Row) float64 { return r.OptGap }, func(r *Row, v float64) { r.OptGap = v }, false},
	{"dist_to_opt", func(r *Row) float64 { return r.DistToOpt }, func(r *Row, v float64) { r.DistToOpt = v }, false},
	{"feasibility", func(r *Row) float64 { return r.Feasibility }, func(r *Row, v float64) { r.Feasibility = v }, false},
	{"grad_evals", func(r *Row) float64 { return float64(r.GradEvals) }, func(r *Row, v float64) { r.GradEvals = int64(v) }, true},
	{"dual_drift", func(r *Row) float64 { return r.DualDrift }, func(r *Row, v float64) { r.DualDrift = v }, false},
	{"msgs", func(r *Row) float64 { return float64(r.Msgs) }, func(r *Row, v float64) { r.Msgs = int64(v) }, true},
	{"bytes", func(r *Row) float64 { return float64(r.Bytes) }, func(r *Row, v float64) { r.Bytes = int64(v) }, true},
}

// extraKeys lists, in the order written, the keys of the JSON object data
// that are not fixed columns.
func extraKeys(data []byte) ([]string, error) {
	fixed := make(map[string]bool, len(columns))
	for _, c := range columns {
		fixed[c.name] = true
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		if !fixed[k] {
			keys = append(keys, k)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// Columns returns the header of metrics.csv, which is also the key set of
// each metrics.jsonl object, in order:
//
//	round, elapsed_s, consensus_err, consensus_err_rel, obj_value, opt_gap,
//	dist_to_opt, feasibility, grad_evals, dual_drift, msgs, bytes
//
// followed by the algorithm's declared measures (Row.Extra), e.g. the
// ALM's kkt, dual_norm and resets
//
// round is Metrics.Round (completed rounds), elapsed_s the seconds from
// Start, msgs and bytes Row.Msgs and Row.Bytes; the others are the fields
// of observe.Metrics of the same name.
func Columns() []string {
	names := make([]string, len(columns))
	for k, c := range columns {
		names[k] = c.name
	}
	return names
}

// Values appends to dst the row's values in the order of its metrics
// line: the fixed columns of Columns, then Extra's values. Non-finite
// values (written as null or empty) are returned as they are; round,
// elapsed_s, grad_evals, msgs and bytes as float64 (exact below 2^53).
func (r *Row) Values(dst []float64) []float64 {
	for _, c := range columns {
		dst = append(dst, c.get(r))
	}
	for _, e := range r.Extra {
		dst = append(dst, e.Value)
	}
	return dst
}

// appendValue appends c's value of r to b: counts in plain decimals,
// other finite values in the shortest exact form, non-finite ones (a
// missing value: an unknown optimum, a measure without data) as
// nonFinite: an empty field in the CSV, null in JSON.
func (c column) appendValue(b []byte, r *Row, nonFinite string) []byte {
	v := c.get(r)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return append(b, nonFinite...)
	case c.count:
		return strconv.AppendFloat(b, v, 'f', -1, 64)
	default:
		return strconv.AppendFloat(b, v, 'g', -1, 64)
	}
}

// CSVRecord returns the fields of r for metrics.csv; non-finite values
// are written as empty fields, as null in metrics.jsonl.
func (r *Row) CSVRecord() []string {
	rec := make([]string, len(columns), len(columns)+len(r.Extra))
	for k, c := range columns {
		rec[k] = string(c.appendValue(nil, r, ""))
	}
	for _, e := range r.Extra {
		rec = append(rec, string(appendFloat(nil, e.Value, "")))
	}
	return rec
}

// appendFloat appends v in the shortest exact form, or nonFinite.
func appendFloat(b []byte, v float64, nonFinite string) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, nonFinite...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// MarshalJSON writes r as an object with the keys of Columns in order,
// then the algorithm's declared measures (Extra) in theirs; non-finite
// values (an unknown optimum, a diverged run) are null.
func (r Row) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for k, c := range columns {
		if k > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, c.name)
		b = append(b, ':')
		b = c.appendValue(b, &r, "null")
	}
	for _, e := range r.Extra {
		b = append(b, ',')
		b = strconv.AppendQuote(b, e.Name)
		b = append(b, ':')
		b = appendFloat(b, e.Value, "null")
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads what MarshalJSON writes; null and absent keys read
// as NaN (0 for round, elapsed_s, grad_evals, msgs and bytes: rows written
// before msgs and bytes existed read 0 there). Keys that are not fixed
// columns are the algorithm's measures: they fill Extra in the order
// written (null reads as NaN).
func (r *Row) UnmarshalJSON(data []byte) error {
	var fields map[string]*float64
	if err := json.Unmarshal(data, &fields); err != nil {
		return fmt.Errorf("coordinator: metrics row: %w", err)
	}
	*r = Row{}
	extra, err := extraKeys(data)
	if err != nil {
		return fmt.Errorf("coordinator: metrics row: %w", err)
	}
	for _, name := range extra {
		v := math.NaN()
		if p := fields[name]; p != nil {
			v = *p
		}
		r.Extra = append(r.Extra, observe.Named{Name: name, Value: v})
	}
	for _, c := range columns {
		v, ok := fields[c.name]
		switch {
		case ok && v != nil:
			c.set(r, *v)
		case !c.count:
			c.set(r, math.NaN())
		}
	}
	return nil
}
