package async

// Sample is what a driver observes of a run at one time besides the
// agents' reports: the columns an asynchronous run adds to the measures
// of its results bundle (metrics.jsonl and metrics.csv), where the
// round column holds Updates.
type Sample struct {
	// Time is the simulated time of the sample.
	Time float64
	// Updates is the agents' updates so far, summed.
	Updates int64
	// Sent is the messages sent so far and Floats the float64 values
	// they carried (the run's msgs and bytes columns).
	Sent, Floats int64
	// Staleness is that of the values used since the previous sample.
	Staleness Staleness
}

// SampleColumns names the columns of Sample.Values, in order: the time,
// then the number of received values the agents used since the previous
// sample and their ages in time and in their senders' updates (mean,
// p50, p99, max; empty when none was used).
var SampleColumns = []string{
	"time", "stale_n",
	"stale_time_mean", "stale_time_p50", "stale_time_p99", "stale_time_max",
	"stale_updates_mean", "stale_updates_p50", "stale_updates_p99", "stale_updates_max",
}

// Values returns the sample's columns in the order of SampleColumns.
func (s Sample) Values() []float64 {
	t, u := s.Staleness.Time, s.Staleness.Updates
	return []float64{s.Time, float64(s.Staleness.Count), t.Mean, t.P50, t.P99, t.Max, u.Mean, u.P50, u.P99, u.Max}
}

// Sample returns the engine's sample at the current time; it takes the
// staleness of the values used since the last call (Staleness).
func (e *Engine) Sample() Sample {
	return Sample{Time: e.now, Updates: e.cnt.Updates, Sent: e.cnt.Sent, Floats: e.cnt.Values, Staleness: e.Staleness()}
}
