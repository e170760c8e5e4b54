package node

import (
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/consim/consim/internal/units"
)

// DefaultWarnPeriod is how often repeated warnings are summarized.
const DefaultWarnPeriod = 10 * time.Second

// warnLimiter summarizes repeated warnings, so that a flood of bad
// frames costs a counter increment each, not a log line: the first
// warning of a (what, where) pair is logged at once, the following ones
// are counted and logged as one line per period,
//
//	12,345 malformed frames from consim.x.a.3 in the last 10s
//
// when the next one comes after the period, or at flush.
type warnLimiter struct {
	log    hclog.Logger
	period time.Duration
	now    func() time.Time

	mu     sync.Mutex
	counts map[warnKey]*warnCount
}

type warnKey struct{ what, subject string }

type warnCount struct {
	n     int64     // warnings since the last line
	since time.Time // start of the period they fall in
	err   error     // the latest one's error
}

func newWarnLimiter(log hclog.Logger, period time.Duration) *warnLimiter {
	if period <= 0 {
		period = DefaultWarnPeriod
	}
	return &warnLimiter{log: log, period: period, now: time.Now, counts: make(map[warnKey]*warnCount)}
}

// note records one warning: what happened (a plural noun phrase,
// "malformed frames") and where ("from consim.x.a.3", "to agent 3"), with
// an optional error.
func (w *warnLimiter) note(what, subject string, err error) {
	now := w.now()
	k := warnKey{what, subject}
	w.mu.Lock()
	c := w.counts[k]
	if c == nil {
		w.counts[k] = &warnCount{since: now}
		w.mu.Unlock()
		w.line(1, what, subject, 0, err)
		return
	}
	c.n++
	c.err = err
	if now.Sub(c.since) < w.period {
		w.mu.Unlock()
		return
	}
	n, d, e := c.n, now.Sub(c.since), c.err
	c.n, c.since, c.err = 0, now, nil
	w.mu.Unlock()
	w.line(n, what, subject, d, e)
}

// flush logs the warnings counted and not yet logged.
func (w *warnLimiter) flush() {
	now := w.now()
	w.mu.Lock()
	type pending struct {
		k warnKey
		c warnCount
	}
	var out []pending
	for k, c := range w.counts {
		if c.n > 0 {
			out = append(out, pending{k, *c})
			c.n, c.since, c.err = 0, now, nil
		}
	}
	w.mu.Unlock()
	for _, p := range out {
		w.line(p.c.n, p.k.what, p.k.subject, now.Sub(p.c.since), p.c.err)
	}
}

// line logs n warnings of what on subject over d (0: the first one).
func (w *warnLimiter) line(n int64, what, subject string, d time.Duration, err error) {
	var args []any
	if err != nil {
		args = append(args, "error", err)
	}
	if d == 0 {
		w.log.Warn(what+" "+subject+" (further ones are summarized every "+w.period.String()+")", args...)
		return
	}
	w.log.Warn(units.Thousands(float64(n))+" "+what+" "+subject+" in the last "+d.Round(time.Second).String(), args...)
}
