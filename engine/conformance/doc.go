// Package conformance holds the conformance test of consim's drivers: it
// runs every algorithm of the shipped registry (catalog.Default), and a
// test algorithm whose agents reduce over groups, give no reduce term and
// fan evaluations out, through every driver of the phase core (package
// engine): consensus/lockstep, stepped, and node's runtime on the channel
// and the in-process NATS transports, and requires the same final
// iterates, the same measures (observe, in the results bundle) and the
// same dropout counts, bit for bit, with dropouts from the graph's edge
// process, and from injected message loss under lockstep and stepped
// (node's loss is timed by its deadlines, see TestConformance). Sub-tests
// run deliberately deviating drivers (mutated inboxes) and require the
// comparison to fail. CONSIM_LONG=1 runs 60 rounds instead of 10.
//
// conformance has no non-test code; its test may import every package of
// consim, and no package may import conformance.
package conformance
