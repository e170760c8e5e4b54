// Package layers states the module's layers and holds the test that
// every import points down (or across, within one layer), never up.
//
// From the bottom (a package may import its own layer and those below):
//
//	0  internal/{wallclock,cdp,proc,docscheck,units,buildinfo}: utilities
//	1  graph: topologies, edge processes, common randomness, spectra
//	2  objective, dataset, consensus/compress: oracles and solvers, data files, codecs
//	3  consensus: the agent and message interfaces
//	4  consensus/registry, engine: the registry; the synchronous phase core
//	5  observe, observe/bundle: every measure and the results-bundle writer
//	6  problems/*, consensus/{gossip,edgeadmm,exchange,lockstep}: problem
//	   kinds; code shared by sibling algorithms; the in-memory lockstep driver
//	7  consensus/<algorithm>, consensus/registry/registrytest: agents,
//	   references, registration
//	8  catalog: the shipped algorithms and problems
//	9  node, stepped, async, engine/conformance: the runtimes and drivers
//	10 async/realtime, scenarios: real-time asynchrony, the scenario file
//	11 coordinator, coordinator/live, coordinator/report: run control,
//	   observation and reports
//	12 internal/bench, internal/browsercheck: benchmarks and browser checks
//	13 sim: the library API
//	14 experiments/*: the reproductions
//	15 cmd/*, drills, internal/layers: the command, the fault drills, this test
//
// Packages this table does not name fail the test until they are placed.
package layers
