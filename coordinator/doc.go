// Package coordinator controls and observes one consim run: it waits until
// every agent is ready, publishes Start, gathers the agents' status frames,
// has an Evaluator turn each complete round of reports into metrics, stops
// the run (rounds done, tolerance reached, timeout, an agent failed or went
// silent) and writes the results bundle
//
//	<OutDir>/<RunID>/scenario.yaml   the resolved scenario, as given
//	<OutDir>/<RunID>/metrics.jsonl   one JSON object per measured round
//	<OutDir>/<RunID>/metrics.csv     the same rows, header Columns
//	<OutDir>/<RunID>/final.json      each agent's last iterate (FinalIterates)
//	<OutDir>/<RunID>/summary.json    Summary, written when the run ends
//
// in the one bundle format of package observe/bundle (the Recorder writes
// the rows for every engine: sim's stepped runs use it too). A run never
// rewrites earlier output: an existing bundle directory is an error.
// Metric lines are flushed one by one, so a crash keeps every line
// written before it.
//
// The coordinator does no math: it never computes or relays an iterate,
// and every measure comes from the Evaluator (see package observe).
// coordinator may import node, consensus, observe and graph; it must not
// import scenarios or cmd.
//
// # Protocol expected from the agents
//
// Each agent publishes one Status of kind ready once it is built, a
// progress Status right after Start with Report.Round == 0 (the initial
// point, before any round), a progress Status every ReportEvery completed
// rounds, and a final Status when it stops (after its last round or after
// a Stop control), whose Report describes its last completed round. A round
// is measured once every agent has reported it; the first measured round
// gives the initial metrics of the summary. Traffic counters in a status
// are cumulative for the agent, so the coordinator keeps each agent's
// latest and sums them.
package coordinator
