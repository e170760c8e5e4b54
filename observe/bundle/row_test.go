package bundle

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/consim/consim/observe"
)

func TestRowJSON(t *testing.T) {
	in := Row{Elapsed: 1500 * time.Millisecond, Metrics: observe.Metrics{
		Round: 40, ConsensusErr: 1e-7, ConsensusErrRel: 0.5, ObjValue: 2, OptGap: math.NaN(),
		DistToOpt: math.Inf(1), Feasibility: 3, GradEvals: 1 << 40,
		DualDrift: 0.25, Extra: []observe.Named{{Name: "kkt", Value: 4}, {Name: "dual_norm", Value: math.NaN()}, {Name: "resets", Value: 0.5}},
	}, Msgs: 1<<53 - 1, Bytes: 123456789012}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"round":40,"elapsed_s":1.5,"consensus_err":1e-07,"consensus_err_rel":0.5,"obj_value":2,"opt_gap":null,` +
		`"dist_to_opt":null,"feasibility":3,"grad_evals":1099511627776,"dual_drift":0.25,` +
		`"msgs":9007199254740991,"bytes":123456789012,"kkt":4,"dual_norm":null,"resets":0.5}`
	if string(data) != want {
		t.Fatalf("json\n got %s\nwant %s", data, want)
	}
	var out Row
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	in.DistToOpt = math.NaN() // null reads back as NaN
	if !reflect.DeepEqual(strings.Join(out.CSVRecord(), ","), strings.Join(in.CSVRecord(), ",")) {
		t.Errorf("round trip %v, want %v", out.CSVRecord(), in.CSVRecord())
	}
	if out.Msgs != in.Msgs || out.Bytes != in.Bytes {
		t.Errorf("round trip msgs %d bytes %d, want %d %d", out.Msgs, out.Bytes, in.Msgs, in.Bytes)
	}
	if got := strings.Join(in.CSVRecord(), ","); got != "40,1.5,1e-07,0.5,2,,,3,1099511627776,0.25,9007199254740991,123456789012,4,,0.5" {
		t.Errorf("csv record %s", got)
	}
	// Values gives the line's values in its key order.
	var keys []string
	dec := json.NewDecoder(strings.NewReader(string(data)))
	for tok, err := dec.Token(); err == nil; tok, err = dec.Token() {
		if k, ok := tok.(string); ok {
			keys = append(keys, k)
		}
	}
	vals := in.Values(nil)
	if len(vals) != len(keys) {
		t.Fatalf("%d values for the %d keys %v", len(vals), len(keys), keys)
	}
	var line map[string]*float64
	if err := json.Unmarshal(data, &line); err != nil {
		t.Fatal(err)
	}
	for k, key := range keys {
		v := line[key]
		switch {
		case v == nil && !math.IsNaN(vals[k]):
			t.Errorf("value %d (%s) = %v, want NaN for null", k, key, vals[k])
		case v != nil && *v != vals[k]:
			t.Errorf("value %d (%s) = %v, want %v", k, key, vals[k], *v)
		}
	}
}

// TestRowJSONWithoutTraffic reads a row written before the msgs and bytes
// columns existed: they read as 0, the other columns as written.
func TestRowJSONWithoutTraffic(t *testing.T) {
	old := `{"round":20,"elapsed_s":0.5,"consensus_err":0.01,"consensus_err_rel":0.1,"obj_value":1,"opt_gap":0.2,` +
		`"dist_to_opt":null,"feasibility":0.3,"kkt":null,"dual_norm":1,"resets":0,"grad_evals":80,"dual_drift":null}`
	var r Row
	if err := json.Unmarshal([]byte(old), &r); err != nil {
		t.Fatal(err)
	}
	if r.Round != 20 || r.GradEvals != 80 || r.OptGap != 0.2 || r.Msgs != 0 || r.Bytes != 0 {
		t.Errorf("read round %d grad evals %d opt gap %v msgs %d bytes %d; want 20 80 0.2 0 0", r.Round, r.GradEvals, r.OptGap, r.Msgs, r.Bytes)
	}
}

// TestMissingValuesAgree: a missing value (NaN or infinite) is null in
// metrics.jsonl and an empty field in metrics.csv, at the same columns,
// and a present one is the same number in both.
func TestMissingValuesAgree(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	in := Row{Metrics: observe.Metrics{
		Round: 7, ConsensusErr: 0, ConsensusErrRel: nan, ObjValue: -inf, OptGap: nan,
		DistToOpt: 2.5, Feasibility: inf, DualDrift: nan,
		Extra: []observe.Named{{Name: "kkt", Value: nan}, {Name: "dual_norm", Value: 1e-300}},
	}}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]*float64
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	names := append(Columns(), "kkt", "dual_norm")
	rec := in.CSVRecord()
	if len(rec) != len(names) {
		t.Fatalf("csv record has %d fields, want %d", len(rec), len(names))
	}
	missing := 0
	for k, name := range names {
		v, ok := obj[name]
		if !ok {
			t.Fatalf("json lacks %q: %s", name, data)
		}
		switch {
		case v == nil && rec[k] != "":
			t.Errorf("%s: null in JSON, %q in CSV; want an empty field", name, rec[k])
		case v != nil && rec[k] == "":
			t.Errorf("%s: %v in JSON, empty in CSV", name, *v)
		case v != nil:
			if got, err := strconv.ParseFloat(rec[k], 64); err != nil || got != *v {
				t.Errorf("%s: %v in JSON, %q in CSV", name, *v, rec[k])
			}
		default:
			missing++
		}
	}
	if missing != 6 {
		t.Errorf("%d missing values, want the 6 non-finite ones", missing)
	}
}
