package node

import (
	"math"
	"reflect"
	"testing"

	"github.com/consim/consim/consensus"
)

// fullStatus is a status with every field set, negative and extreme values
// among them.
func fullStatus() Status {
	s := Status{Kind: StatusFinal, ID: 1234567, PID: 99, Err: "boom: ünïcode", Stop: "tolerance",
		Report: consensus.Report{ID: 1234567, Round: 1 << 40, GradEvals: -3,
			X:         []float64{1, -2.5, math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(-1), math.Copysign(0, -1)},
			Measures:  []float64{0.5, 7},
			EdgeDuals: []consensus.EdgeDual{{Peer: 3, Y: []float64{1, 2}, Version: 42}, {Peer: -1}}},
		Traffic: Traffic{DropoutsByPeer: map[int]int64{7: 2, -1: math.MaxInt64}, InjectedLossByPeer: map[int]int64{0: math.MinInt64},
			RefusedBySubject: map[string]int64{"consim.r.a.1": 5, "": 1}},
	}
	for k, c := range trafficFields(&s.Traffic) {
		*c = int64(k+1) * -997
	}
	return s
}

// TestStatusRoundTrip: a status decodes to itself, floats bit for bit
// (NaN included), and its empty lists and maps decode as nil.
func TestStatusRoundTrip(t *testing.T) {
	for _, want := range []Status{fullStatus(), {Kind: StatusAlive, ID: 0, Report: consensus.Report{Round: 3}}, {Kind: StatusReady}} {
		f, err := EncodeStatus(want)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeStatus(f)
		if err != nil {
			t.Fatalf("%s: %v", want.Kind, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("round trip of a %s status:\n got %+v\nwant %+v", want.Kind, got, want)
		}
	}
	nan := Status{Kind: StatusProgress, Report: consensus.Report{X: []float64{math.Float64frombits(0x7ff8000000000123)}}}
	f, _ := EncodeStatus(nan)
	got, err := DecodeStatus(f)
	if err != nil || math.Float64bits(got.Report.X[0]) != 0x7ff8000000000123 {
		t.Errorf("NaN payload: %v, %x", err, math.Float64bits(got.Report.X[0]))
	}
	if _, err := EncodeStatus(Status{Kind: "bogus"}); err == nil {
		t.Error("a status of kind bogus encoded")
	}
}

// TestTrafficFieldsComplete: trafficFields names every int64 counter of
// Traffic once, so no counter is lost on the wire when one is added.
func TestTrafficFieldsComplete(t *testing.T) {
	var tr Traffic
	fields := trafficFields(&tr)
	if len(fields) != trafficCounters {
		t.Fatalf("trafficFields has %d counters, trafficCounters says %d", len(fields), trafficCounters)
	}
	for k, c := range fields {
		*c = int64(k + 1)
	}
	seen := map[int64]bool{}
	v := reflect.ValueOf(tr)
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() != reflect.Int64 {
			continue
		}
		if f.Int() == 0 || seen[f.Int()] {
			t.Errorf("Traffic.%s is not in trafficFields (or twice)", v.Type().Field(i).Name)
		}
		seen[f.Int()] = true
	}
	if len(seen) != trafficCounters {
		t.Errorf("Traffic has %d int64 counters, trafficFields %d", len(seen), trafficCounters)
	}
}

// TestDecodeStatusRejects: every proper prefix of a frame, a trailing
// byte, another format byte, unknown kinds and counts larger than the
// frame are malformed.
func TestDecodeStatusRejects(t *testing.T) {
	f, err := EncodeStatus(fullStatus())
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(f) {
		if _, err := DecodeStatus(f[:n]); err == nil {
			t.Fatalf("the first %d of %d bytes decoded", n, len(f))
		}
	}
	bad := [][]byte{
		append(append([]byte(nil), f...), 0),
		append([]byte{'{'}, f[1:]...),
		{StatusFormat, 0},
		{StatusFormat, byte(len(statusKinds) + 1)},
		// ready, id 0, pid 0, err of 2^62 bytes
		{StatusFormat, 1, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3f},
	}
	for _, b := range bad {
		if _, err := DecodeStatus(b); err == nil {
			t.Errorf("%x decoded", b)
		}
	}
}

// FuzzDecodeStatus: no input panics or allocates beyond its size, and
// what decodes encodes to a frame that decodes to the same status.
func FuzzDecodeStatus(f *testing.F) {
	for _, s := range []Status{fullStatus(), {Kind: StatusReady, ID: 3}} {
		b, _ := EncodeStatus(s)
		f.Add(b)
	}
	f.Add([]byte{StatusFormat, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeStatus(b)
		if err != nil {
			return
		}
		again, err := EncodeStatus(s)
		if err != nil {
			t.Fatalf("decoded %+v does not encode: %v", s, err)
		}
		s2, err := DecodeStatus(again)
		if err != nil {
			t.Fatalf("re-encoded status does not decode: %v", err)
		}
		if !reflect.DeepEqual(statusBits(s), statusBits(s2)) {
			t.Fatalf("re-encoded status differs:\n%+v\n%+v", s, s2)
		}
	})
}

// statusBits is s with its floats replaced by their bit patterns, so that
// DeepEqual compares NaNs too.
func statusBits(s Status) any {
	bits := func(v []float64) []uint64 {
		if v == nil {
			return nil
		}
		out := make([]uint64, len(v))
		for k, x := range v {
			out[k] = math.Float64bits(x)
		}
		return out
	}
	type dual struct {
		Peer    int
		Version int64
		Y       []uint64
	}
	var duals []dual
	for _, d := range s.Report.EdgeDuals {
		duals = append(duals, dual{d.Peer, d.Version, bits(d.Y)})
	}
	x, m := bits(s.Report.X), bits(s.Report.Measures)
	s.Report.X, s.Report.Measures, s.Report.EdgeDuals = nil, nil, nil
	return []any{s, x, m, duals}
}
