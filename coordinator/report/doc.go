// Package report reads results bundles and sweep directories and writes
// their tables (CSV and Markdown) and plots (PNG and SVG, drawn with
// gonum.org/v1/plot).
//
// A run bundle is a directory with summary.json and metrics.jsonl (see
// coordinator); a sweep directory holds sweep.csv and runs/<run-id>/
// bundles. The bundle of a run that was killed before it ended has
// scenario.yaml and metric lines but no summary.json: it is read as an
// incomplete run from its complete lines (a line cut short at the end is
// skipped and counted), and its report says the run did not finish and
// leaves what only the summary holds unknown. Report detects which of the two a directory is and writes
// plots/, report.md and report.html into it; nothing else in the directory
// is touched, and a second Report overwrites the first one's files.
//
// report.html is self-contained (html/template, every asset inline; the
// charting library, uPlot, is vendored under assets/uplot): interactive
// plots of every column of the metrics lines, the summary and the
// resolved parameters, and for a sweep each grid point's runs with their
// mean and min-max band over the runs. The live view of a running run
// (LiveHTML) is the same page fed by server-sent events.
//
// report computes nothing itself: every statistic (means and spreads over
// seeds, rounds to tolerance, fitted linear rates, the spectral rate
// prediction) comes from observe.
//
// report imports coordinator (the bundle formats) and observe; it
// must not import scenarios or cmd, and nothing below it imports report.
package report
