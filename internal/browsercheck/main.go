// Command browsercheck opens consim's pages in a headless Chromium and
// checks what a reader would see (make browser-test):
//
//  1. the live view: `consim run scenarios/quickstart.yaml --ui
//     127.0.0.1:0`, its page opened while the run runs; the page must
//     advance (more points at a later look), end with the run, and then
//     carry every metrics line of the bundle;
//  2. report.html of that bundle (`consim report`), opened from the file:
//     one plot per column, each with the bundle's number of lines and of
//     finite values, and the log/linear switch working;
//  3. report.html of a small sweep (the quickstart's problem at three
//     link probabilities, two seeds each): every point's mean on one
//     plot, each grid point with its runs, mean and min-max band, on the
//     rounds of its runs' bundles.
//
// No page may report a console error, an uncaught exception or a failed
// load. Screenshots of each page go to the output directory, printed at
// the end. It prints one line per check and "N passed, N failed", and
// exits 1 when a check failed, 2 when it could not run.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/consim/consim/internal/cdp"
)

func main() {
	var c checker
	flag.StringVar(&c.consim, "consim", "bin/consim", "the consim binary")
	flag.StringVar(&c.chromium, "chromium", "/usr/bin/chromium", "the Chromium binary")
	flag.StringVar(&c.out, "out", "", "directory for the runs and screenshots (default: a new temporary one)")
	flag.IntVar(&c.rounds, "rounds", 300000, "rounds of the live run: enough for it to outlast the page's first look")
	flag.Parse()
	os.Exit(c.main())
}

// checker runs the checks and counts them.
type checker struct {
	consim, chromium, out string
	rounds                int
	passed, failed        int
	shots                 []string
}

func (c *checker) main() int {
	if _, err := os.Stat(c.chromium); err != nil {
		fmt.Fprintf(os.Stderr, "browsercheck: no Chromium at %s (%v); install Debian's chromium or pass -chromium\n", c.chromium, err)
		return 2
	}
	if c.out == "" {
		dir, err := os.MkdirTemp("", "consim-browser-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "browsercheck:", err)
			return 2
		}
		c.out = dir
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "browsercheck:", err)
		return 2
	}
	var log bytes.Buffer
	b, err := cdp.Launch(c.chromium, &log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "browsercheck:", err)
		return 2
	}
	err = c.run(b)
	if cerr := b.Close(); cerr != nil && err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "browsercheck: %v\n", err)
		if log.Len() > 0 {
			fmt.Fprintf(os.Stderr, "chromium's log:\n%s\n", tail(log.String(), 40))
		}
		c.failed++
	}
	fmt.Printf("\nscreenshots and runs in %s:\n", c.out)
	for _, s := range c.shots {
		fmt.Printf("  %s\n", s)
	}
	fmt.Printf("browsercheck: %d passed, %d failed\n", c.passed, c.failed)
	if c.failed > 0 {
		return 1
	}
	return 0
}

// check records one check's outcome.
func (c *checker) check(ok bool, format string, a ...any) {
	status := "ok  "
	if ok {
		c.passed++
	} else {
		c.failed++
		status = "FAIL"
	}
	fmt.Printf("%s %s\n", status, fmt.Sprintf(format, a...))
}

func (c *checker) run(b *cdp.Browser) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	bundle, err := c.live(ctx, b)
	if err != nil {
		return err
	}
	if err := c.runReport(ctx, b, bundle); err != nil {
		return err
	}
	return c.sweepReport(ctx, b)
}

// chart is what the page's window.consim.describe() says of one plot.
type chart struct {
	Name   string   `json:"name"`
	Group  string   `json:"group"`
	Log    bool     `json:"log"`
	Series []string `json:"series"`
	Points int      `json:"points"`
	Finite []int    `json:"finite"`
}

// pageState is the page's window.consim.
type pageState struct {
	Ready  bool     `json:"ready"`
	Rows   int      `json:"rows"`
	Ended  bool     `json:"ended"`
	Errors []string `json:"errors"`
	Charts []chart  `json:"charts"`
}

const stateJS = `(() => { const s = window.consim; if (!s || !s.ready) return {ready: false};
  return {ready: true, rows: s.rows, ended: s.ended, errors: s.errors, charts: s.describe()}; })()`

func state(ctx context.Context, p *cdp.Page) (pageState, error) {
	var s pageState
	err := p.Eval(ctx, stateJS, &s)
	return s, err
}

// live runs the quickstart with --ui, watches its page advance and end,
// and compares the page with the bundle. It returns the bundle.
func (c *checker) live(ctx context.Context, b *cdp.Browser) (string, error) {
	results := filepath.Join(c.out, "results")
	cmd := exec.CommandContext(ctx, c.consim, "run", "scenarios/quickstart.yaml", "--ui", "127.0.0.1:0",
		"--out", results, "--run-id", "live", "--log-level", "warn",
		"--set", "rounds="+strconv.Itoa(c.rounds), "--set", "metrics.every=100")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", err
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("start %s: %w", c.consim, err)
	}
	exited := make(chan error, 1)
	urls := make(chan string, 1)
	var errText bytes.Buffer
	go func() {
		re := regexp.MustCompile(`live view of run live: (http://\S+) `)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			errText.WriteString(sc.Text() + "\n")
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		exited <- cmd.Wait()
	}()
	var url string
	select {
	case url = <-urls:
	case err := <-exited:
		return "", fmt.Errorf("consim run ended before printing its live view's URL (%v):\n%s", err, errText.String())
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		return "", errors.New("consim run printed no live view URL within a minute")
	}
	fmt.Printf("live view at %s\n", url)

	p, err := b.NewPage(ctx, 1400, 1000)
	if err != nil {
		return "", err
	}
	if err := p.Navigate(ctx, url); err != nil {
		return "", err
	}
	first, err := waitFor(ctx, p, time.Minute, func(s pageState) bool { return s.Rows > 0 })
	if err != nil {
		return "", fmt.Errorf("live page: no row within a minute: %w", err)
	}
	c.check(!first.Ended, "live page: first look at %d rows while the run runs (ended: %v)", first.Rows, first.Ended)
	later, err := waitFor(ctx, p, time.Minute, func(s pageState) bool { return s.Rows > first.Rows+10 || s.Ended })
	if err != nil {
		return "", err
	}
	c.check(later.Rows > first.Rows && len(later.Charts) > 0 && later.Charts[0].Points > first.Charts[0].Points,
		"live page advances: %d rows, then %d (first plot %d points, then %d)", first.Rows, later.Rows, pointsOf(first), pointsOf(later))
	shot := filepath.Join(c.out, "live-running.png")
	if err := p.Screenshot(ctx, shot, 1400, 4000); err != nil {
		return "", err
	}
	c.shots = append(c.shots, shot+"  (the live page while the run runs)")
	if err := p.Resize(ctx, 1400, 1000); err != nil {
		return "", err
	}
	if _, err := waitFor(ctx, p, 15*time.Minute, func(s pageState) bool { return s.Ended }); err != nil {
		return "", fmt.Errorf("live page: the run did not end: %w", err)
	}
	if err := <-exited; err != nil {
		return "", fmt.Errorf("consim run: %w\n%s", err, errText.String())
	}
	// Let the last redraw happen.
	end, err := waitFor(ctx, p, 10*time.Second, func(s pageState) bool { return len(s.Charts) > 0 && s.Charts[0].Points == s.Rows })
	if err != nil {
		return "", err
	}
	bundle := filepath.Join(results, "live")
	lines, err := readLines(filepath.Join(bundle, "metrics.jsonl"))
	if err != nil {
		return "", err
	}
	c.compareRun("live page at the end", end, lines)
	var summary string
	_ = p.Eval(ctx, `document.getElementById("summary-table").innerText`, &summary)
	c.check(strings.Contains(summary, "status\tok"), "live page: the summary says the run ended ok")
	shot = filepath.Join(c.out, "live-ended.png")
	if err := p.Screenshot(ctx, shot, 1400, 4000); err != nil {
		return "", err
	}
	c.shots = append(c.shots, shot+"  (the live page after the run ended)")
	c.problems("live page", p)
	return bundle, nil
}

func pointsOf(s pageState) int {
	if len(s.Charts) == 0 {
		return 0
	}
	return s.Charts[0].Points
}

// runReport writes report.html of bundle and compares it with the
// bundle.
func (c *checker) runReport(ctx context.Context, b *cdp.Browser, bundle string) error {
	p, s, err := c.openReport(ctx, b, bundle)
	if err != nil {
		return err
	}
	lines, err := readLines(filepath.Join(bundle, "metrics.jsonl"))
	if err != nil {
		return err
	}
	c.compareRun("report.html", s, lines)
	// The log/linear switch of the consensus error's plot.
	var flipped struct{ Before, After int }
	err = p.Eval(ctx, `(() => { const c = window.consim.charts.find(c => c.o.name === "consensus_err");
	  const before = c.u.scales.y.distr; c.logBox.click(); return {Before: before, After: c.u.scales.y.distr}; })()`, &flipped)
	c.check(err == nil && flipped.Before == 3 && flipped.After == 1,
		"report.html: consensus_err starts on a log axis and its switch makes it linear (distr %d -> %d, %v)", flipped.Before, flipped.After, err)
	_ = p.Eval(ctx, `window.consim.charts.find(c => c.o.name === "consensus_err").logBox.click()`, nil)
	shot := filepath.Join(c.out, "report-run.png")
	if err := p.Screenshot(ctx, shot, 1400, 6000); err != nil {
		return err
	}
	c.shots = append(c.shots, shot+"  (report.html of the live run's bundle)")
	c.problems("report.html", p)
	return nil
}

// openReport runs consim report on dir and opens dir/report.html from
// its file, once its charts are drawn.
func (c *checker) openReport(ctx context.Context, b *cdp.Browser, dir string) (*cdp.Page, pageState, error) {
	if out, err := exec.CommandContext(ctx, c.consim, "report", dir).CombinedOutput(); err != nil {
		return nil, pageState{}, fmt.Errorf("consim report: %w\n%s", err, out)
	}
	p, err := b.NewPage(ctx, 1400, 1000)
	if err != nil {
		return nil, pageState{}, err
	}
	path, err := filepath.Abs(filepath.Join(dir, "report.html"))
	if err != nil {
		return nil, pageState{}, err
	}
	if err := p.Navigate(ctx, "file://"+path); err != nil {
		return nil, pageState{}, err
	}
	s, err := waitFor(ctx, p, 30*time.Second, func(s pageState) bool { return s.Ready })
	return p, s, err
}

// compareRun checks that the page has one plot per column of the
// metrics lines but round, each with as many points as lines and as
// many finite values as the column.
func (c *checker) compareRun(what string, s pageState, f *metricsFile) {
	keys, lines := f.keys, f.lines
	var names []string
	for _, ch := range s.Charts {
		names = append(names, ch.Name)
	}
	c.check(slices.Equal(names, keys[1:]), "%s: one plot per column but round (%d plots: %v)", what, len(names), names)
	bad := 0
	for _, ch := range s.Charts {
		want := 0
		for _, l := range lines {
			if l[ch.Name] != nil {
				want++
			}
		}
		if ch.Points != len(lines) || len(ch.Finite) != 1 || ch.Finite[0] != want || len(ch.Series) != 1 || ch.Series[0] != ch.Name {
			bad++
			c.check(false, "%s: plot %s: %d points, series %v with %v finite; the bundle has %d lines, %d finite", what, ch.Name, ch.Points, ch.Series, ch.Finite, len(lines), want)
		}
	}
	c.check(bad == 0 && len(s.Charts) > 0, "%s: every plot has the bundle's %d points and its finite values per column", what, len(lines))
	c.check(len(s.Errors) == 0, "%s: no script errors (%v)", what, s.Errors)
}

// problems checks that the page reported no error.
func (c *checker) problems(what string, p *cdp.Page) {
	ps := p.Problems()
	c.check(len(ps) == 0, "%s: no console errors, exceptions or failed loads (%d: %v)", what, len(ps), ps)
}

// sweepReport runs a small sweep, writes its report.html and compares
// the page with the runs' bundles.
func (c *checker) sweepReport(ctx context.Context, b *cdp.Browser) error {
	root := filepath.Join(c.out, "sweep")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	scenario := filepath.Join(root, "sweep.yaml")
	if err := os.WriteFile(scenario, []byte(sweepScenario), 0o644); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, c.consim, "sweep", scenario, "--out", root, "--sweep-id", "sw", "--parallel", "2").CombinedOutput()
	if err != nil {
		return fmt.Errorf("consim sweep: %w\n%s", err, tail(string(out), 30))
	}
	dir := filepath.Join(root, "sw")
	p, s, err := c.openReport(ctx, b, dir)
	if err != nil {
		return err
	}
	runs, err := sweepRuns(dir)
	if err != nil {
		return err
	}
	// The plots of consensus_err: first the means, then one per point.
	all := map[float64]bool{}
	for _, r := range runs {
		for _, round := range r.rounds {
			all[round] = true
		}
	}
	if len(s.Charts) == 0 {
		c.check(false, "sweep report.html: no plots")
		return nil
	}
	means := s.Charts[0]
	c.check(means.Group == "means" && len(means.Series) == len(points(runs)) && means.Points == len(all),
		"sweep report.html: one plot of every point's mean (%d series for %d points, %d rounds for %d in the bundles)",
		len(means.Series), len(points(runs)), means.Points, len(all))
	c.check(len(s.Charts) == 1+len(points(runs)), "sweep report.html: one plot per grid point (%d plots for %d points)", len(s.Charts)-1, len(points(runs)))
	for _, ch := range s.Charts[1:] {
		var mine []sweepRun
		for _, r := range runs {
			if r.point == ch.Group {
				mine = append(mine, r)
			}
		}
		rounds := map[float64]bool{}
		ok := len(ch.Series) == 3+len(mine) && slices.Equal(ch.Series[:3], []string{"max", "min", "mean"})
		for k, r := range mine {
			for _, round := range r.rounds {
				rounds[round] = true
			}
			ok = ok && strings.HasPrefix(ch.Series[3+k], r.id) && ch.Finite[3+k] == r.finite
		}
		c.check(ok && ch.Points == len(rounds) && len(mine) > 0,
			"sweep report.html: %s: max, min, mean and its %d runs (series %v, finite %v) on the %d rounds of its bundles (%d points)",
			ch.Group, len(mine), ch.Series, ch.Finite, len(rounds), ch.Points)
	}
	c.check(len(s.Errors) == 0, "sweep report.html: no script errors (%v)", s.Errors)
	shot := filepath.Join(c.out, "report-sweep.png")
	if err := p.Screenshot(ctx, shot, 1400, 6000); err != nil {
		return err
	}
	c.shots = append(c.shots, shot+"  (report.html of a 3-point, 2-seed sweep)")
	c.problems("sweep report.html", p)
	return nil
}

// sweepScenario is the quickstart's problem swept over three link
// probabilities, two seeds each, in 2,000 rounds.
const sweepScenario = `name: browsercheck_sweep
seed: 1
agents: 8
graph: {topology: ring, p: 0.7}
problem: {kind: least_squares, dim: 10, samples_per_agent: 50, batch: 10, noise: 0.1, heterogeneity: 1, box: [-10, 10]}
algorithm: {name: alm, preset: practical}
rounds: 2000
metrics: {every: 50}
runtime: {transport: chan}
sweep:
  grid:
    graph.p: [1, 0.7, 0.4]
  seeds: 2
`

// sweepRun is one run of a sweep as its bundle has it.
type sweepRun struct {
	id, point string
	rounds    []float64
	finite    int // lines with a consensus error
}

func points(runs []sweepRun) []string {
	var ps []string
	for _, r := range runs {
		if !slices.Contains(ps, r.point) {
			ps = append(ps, r.point)
		}
	}
	return ps
}

// sweepRuns reads sweep.csv (run_id and the grid keys, which follow
// seed... as "key=value" labels) and each run's metrics.jsonl.
func sweepRuns(dir string) ([]sweepRun, error) {
	f, err := os.Open(filepath.Join(dir, "sweep.csv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) < 2 {
		return nil, fmt.Errorf("sweep.csv: %v (%d records)", err, len(recs))
	}
	h := recs[0]
	id, p := slices.Index(h, "run_id"), slices.Index(h, "graph.p")
	if id < 0 || p < 0 {
		return nil, fmt.Errorf("sweep.csv: header %v lacks run_id or graph.p", h)
	}
	var runs []sweepRun
	for _, rec := range recs[1:] {
		f, err := readLines(filepath.Join(dir, "runs", rec[id], "metrics.jsonl"))
		if err != nil {
			return nil, err
		}
		r := sweepRun{id: rec[id], point: "graph.p=" + rec[p]}
		for _, l := range f.lines {
			r.rounds = append(r.rounds, *l["round"])
			if l["consensus_err"] != nil {
				r.finite++
			}
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// waitFor polls the page's state until ok holds, for at most d.
func waitFor(ctx context.Context, p *cdp.Page, d time.Duration, ok func(pageState) bool) (pageState, error) {
	deadline := time.Now().Add(d)
	for {
		s, err := state(ctx, p)
		if err != nil {
			return s, err
		}
		if s.Ready && ok(s) {
			return s, nil
		}
		if time.Now().After(deadline) {
			return s, fmt.Errorf("page state after %v: ready %v, %d rows, ended %v, errors %v", d, s.Ready, s.Rows, s.Ended, s.Errors)
		}
		select {
		case <-ctx.Done():
			return s, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// metricsFile is a metrics.jsonl file: its lines, and the keys of its
// first line in their order.
type metricsFile struct {
	keys  []string
	lines []map[string]*float64
}

// readLines reads a metrics.jsonl file.
func readLines(path string) (*metricsFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &metricsFile{}
	for k, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var m map[string]*float64
		if err := json.Unmarshal(l, &m); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		f.lines = append(f.lines, m)
		if k > 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(l))
		for depth := 0; ; {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			switch t := tok.(type) {
			case json.Delim:
				if t == '{' {
					depth++
				}
			case string:
				if depth == 1 {
					f.keys = append(f.keys, t)
				}
			}
		}
	}
	if len(f.lines) == 0 {
		return nil, fmt.Errorf("%s: no lines", path)
	}
	return f, nil
}

func tail(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}
