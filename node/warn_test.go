package node

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
)

// TestWarnLimiter feeds 12,346 warnings for one subject over 25 s of a
// fake clock and 1 for another: the first of each is logged at once, the
// rest as one line per 10 s with their count, and flush logs the
// remainder; the counts on the lines add up to what was noted.
func TestWarnLimiter(t *testing.T) {
	var buf bytes.Buffer
	w := newWarnLimiter(hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Warn}), 10*time.Second)
	now := time.Unix(0, 0)
	w.now = func() time.Time { return now }
	const n = 12346
	for k := range n {
		now = time.Unix(0, 0).Add(time.Duration(k) * 25 * time.Second / n)
		w.note("malformed frames", "from consim.x.a.3", errors.New("bad header"))
	}
	w.note("malformed frames", "from consim.x.a.4", nil)
	w.flush()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 5 (first, two summaries, flush, the other subject):\n%s", len(lines), buf.String())
	}
	var total int64
	for _, l := range lines {
		if strings.Contains(l, "consim.x.a.4") {
			continue
		}
		if strings.Contains(l, "further ones are summarized") {
			total++
			continue
		}
		var c string
		if i := strings.Index(l, "[WARN]"); i >= 0 {
			c = strings.Fields(l[i+6:])[0]
		}
		var v int64
		for _, r := range c {
			if r >= '0' && r <= '9' {
				v = v*10 + int64(r-'0')
			}
		}
		total += v
		if !strings.Contains(l, "malformed frames from consim.x.a.3 in the last 10s") && !strings.Contains(l, "in the last 5s") {
			t.Errorf("summary line %q", l)
		}
	}
	if total != n {
		t.Errorf("the lines count %d warnings, %d were noted:\n%s", total, n, buf.String())
	}
}
