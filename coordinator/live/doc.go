// Package live serves the live view of one run over HTTP while it runs:
//
//	/         the page of report.html (coordinator/report.LiveHTML), its
//	          charts and summary filled from /events
//	/events   server-sent events: "hello" on connecting, then "row" (one
//	          metrics line each, as metrics.jsonl holds it; the rows
//	          measured so far first), "summary" and, once the run has
//	          ended, "end"
//	/metrics  the run's state in the Prometheus text format (see Metrics)
//
// A Server observes the coordinator's measured rows through Observe, a
// coordinator.Config.Progress callback, and the run's end through End. It
// computes nothing: every number it serves is one the coordinator
// measured or counted, and it never sees an iterate.
//
// Listen decides where: nothing is served unless an address is given; a
// bare port binds loopback, and an address other hosts can reach gets a
// warning, since the view has no authentication.
//
// live imports coordinator, coordinator/report and the Prometheus client
// library; it must not import node, the consensus packages, scenarios, sim
// or cmd.
package live
