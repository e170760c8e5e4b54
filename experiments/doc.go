// Package experiments holds what every reproduction of a paper's
// experiment shares: the output directory a run writes into and never
// rewrites (NewDir, WriteFile, WriteCSV, Publish), the plot conventions
// (SavePlot and the tickers), the statistics its tables report
// (Summarize, MeanStd, MeanCI, Median, BatchMeans), the words of a claims
// table (Verdict).
//
// Each paper's experiment is a package below it (experiments/admm,
// experiments/zosplm, experiments/penalty, experiments/tsp,
// experiments/slicing, experiments/rates, experiments/storm,
// experiments/compare, experiments/fairness) with the same shape: a
// Config with documented defaults, Config.Run(ctx) returning a Result,
// and the Result's table (Table) and files (Write: CSV and figures),
// which Publish puts in a new directory. docs/reproduce.md lists them.
//
// experiments imports gonum only; it must not import consensus, node,
// coordinator, sim or cmd.
package experiments
