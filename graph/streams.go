package graph

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
)

// Stream names one independent stream of common randomness: the draw
// argument of Hash(seed, round, draw, a, b). Every random choice of a run
// (edge draws, stochastic samples, data generation, initial points,
// topologies, fault draws) belongs to exactly one stream, and the streams
// below are the only draw values a package may pass to Hash, Uniform or a
// PCG seeding: no package spells a draw number of its own.
//
// The values are the draw indices the code used before the registry
// existed, so every run keeps its bits. They are pairwise distinct, and the
// phased streams (Loss, Delay, Arc) stay distinct from everything else for
// every phase below MaxPhase (see Stream.Phase); TestStreamsDistinct
// checks both.
// A package outside this registry (a user's algorithm or problem) takes a
// stream from NamedStream, whose values lie in a half of the space no
// registered stream uses.
type Stream uint64

// Edge draws: the edge process's draw index d of round t, for the ALM's
// three independent edge draws zeta_0, zeta_1, zeta_2 (D-ADMM uses zeta_0
// only). An EdgeProcess is asked about draws 0..EdgeDraws-1.
const (
	StreamDual    Stream = DrawDual    // zeta_0: dual update, D-ADMM neighbours
	StreamAdjoint Stream = DrawAdjoint // zeta_1: the A^T y term
	StreamPenalty Stream = DrawPenalty // zeta_2: the rho A^T A x term
)

// EdgeDraws is the number of per-round edge draws: the edge streams are
// Stream(0) .. Stream(EdgeDraws-1).
const EdgeDraws = DrawPenalty + 1

// Per-round and per-run streams of the algorithms and problems.
const (
	// StreamSample is xi: agent i's stochastic samples of round t, seeded by
	// SeedSample as PCG(Hash(seed, t, 3, i, 0), Hash(seed, t, 3, i, 1)). The
	// admm reproduction experiment keys its rewards and method samples by
	// (round 0 | 1, Instance) in this stream too.
	StreamSample Stream = DrawSample
	// StreamProblem generates the problem data: key i for agent i's data,
	// reserved keys for the shared quantities (problems/regression and
	// package objective).
	StreamProblem Stream = 0x70726f626c656d // "problem"
	// StreamInit draws agent i's initial point x_i^0 (key i, round 0).
	StreamInit Stream = 0x696e6974 // "init"
	// StreamPortfolio generates the portfolio rewards of a portfolio
	// scenario (key 0, round 0).
	StreamPortfolio Stream = 0x706f7274 // "port"
)

// Topology streams. Round is the attempt number a of a forced-connected
// sample (ErdosRenyi, RandomGeometric) and 0 for WithRandomP.
const (
	// StreamGraph derives the topology seed from the run seed: round 0 for
	// the topology, round 1 for the random presence probabilities, round 2
	// for the split of a directed sequence.
	StreamGraph      Stream = 0x6772617068 // "graph"
	StreamErdosRenyi Stream = 1<<32 + 0    // pair {i, j} of G(n, q)
	StreamGeometric  Stream = 1<<32 + 1    // coordinates (i, 0), (i, 1)
	StreamRandomP    Stream = 1<<32 + 2    // p_ij of WithRandomP
	// StreamChain drives the Gilbert-Elliott chains: U(seed, t, chain, i, j).
	StreamChain Stream = 1<<33 + 1
)

// Directed-graph streams (digraph*.go, arcs.go, sequence.go). The
// topology streams take the round argument as RandomDigraph's part (0
// for the permutation, 1 for the extra arcs), KOut's attempt and 0 for
// SplitSequence. StreamArc is phased: draw d of the arc process in round
// t is U(seed, t, StreamArc.Phase(d), i, j) for the arc i -> j, taken in
// the arc's order, so i -> j and j -> i are drawn independently.
const (
	StreamDigraph  Stream = 1<<32 + 3 // RandomDigraph's cycle and arcs
	StreamKOut     Stream = 1<<32 + 4 // KOut's choices (i, r)
	StreamSequence Stream = 1<<32 + 5 // SplitSequence's phase of arc (i, j)
	StreamArc      Stream = 1<<35 + 4 // arc i -> j present in round t, draw d
)

// Fault streams of the runtime (package node). Loss and Delay are phased:
// the draw of phase ph is StreamLoss.Phase(ph).
const (
	StreamLoss     Stream = 1<<35 + 1 // frame (t, ph) from i to j is lost
	StreamDelay    Stream = 1<<35 + 2 // delay of frame (t, ph) from i to j
	StreamStraggle Stream = 1<<35 + 3 // agent i's compute time in round t
)

// Streams of asynchronous runs (package async, its real-time driver and
// the asynchronous algorithms). Link is phased: the draw of a message's
// link is StreamLink.Phase(ph) (package async documents ph).
const (
	// StreamTick draws agent i's k-th clock interval: U(seed, k, ., i, 0).
	StreamTick Stream = 1<<36 + 1
	// StreamLatency draws the latency of message seq of agent i to agent
	// j: U(seed, seq, ., i, j).
	StreamLatency Stream = 1<<36 + 2
	// StreamPeer draws the neighbour agent i contacts on its k-th
	// attempt: U(seed, k, ., i, 0).
	StreamPeer Stream = 1<<36 + 4
	// StreamLink draws whether a message's link is present (phased).
	StreamLink Stream = 1<<37 + 3
)

// Streams of the algorithm packages beyond ALM and D-ADMM, at the values
// those packages used before the registry, so their runs keep their bits.
const (
	// StreamZODirection draws the random directions of the zeroth-order
	// oracle (package zosplm).
	StreamZODirection Stream = 16
	// StreamZOProblem generates the QCQP instances of package zosplm.
	StreamZOProblem Stream = 17
	// StreamSlicingLoss draws the injected message loss of package
	// slicing's runs: phase ph uses StreamSlicingLoss + ph, ph <
	// SlicingPhases.
	StreamSlicingLoss Stream = 1 << 20
	// StreamPenaltyData generates the synthetic data of package penalty.
	StreamPenaltyData Stream = 0x70656e616c7479 // "penalty"
	// StreamCompress draws the randomness of agent i's compression
	// operator in round t (rand_k's entries, qsgd's dithers; package
	// choco): key i.
	StreamCompress Stream = 0x636f6d7072657373 // "compress"
)

// SlicingPhases bounds the phases of StreamSlicingLoss, which steps by 1.
const SlicingPhases = 16

// PhaseStride is the spacing of a phased stream's phases: phase ph of
// stream s is s + PhaseStride*ph, so the phased streams, which differ in
// their low four bits, never meet.
const PhaseStride = 16

// MaxPhase bounds the phases a phased stream is guaranteed distinct for:
// 0 <= ph < MaxPhase.
const MaxPhase = 1 << 20

// namedBit marks the values of NamedStream; no registered stream has it.
const namedBit = 1 << 63

// StreamInfo describes a registered stream.
type StreamInfo struct {
	Stream Stream
	Name   string
	// Phased streams take a phase offset (Stream.Phase).
	Phased bool
}

// registry lists every registered stream, in ascending value.
var registry = [...]StreamInfo{
	{StreamDual, "dual", false},
	{StreamAdjoint, "adjoint", false},
	{StreamPenalty, "penalty", false},
	{StreamSample, "sample", false},
	{StreamZODirection, "zo-direction", false},
	{StreamZOProblem, "zo-problem", false},
	{StreamSlicingLoss, "slicing-loss", false},
	{StreamInit, "init", false},
	{StreamPortfolio, "portfolio", false},
	{StreamErdosRenyi, "erdos-renyi", false},
	{StreamGeometric, "geometric", false},
	{StreamRandomP, "random-p", false},
	{StreamDigraph, "digraph", false},
	{StreamKOut, "k-out", false},
	{StreamSequence, "sequence", false},
	{StreamChain, "chain", false},
	{StreamLoss, "loss", true},
	{StreamDelay, "delay", true},
	{StreamStraggle, "straggle", false},
	{StreamArc, "arc", true},
	{StreamTick, "tick", false},
	{StreamLatency, "latency", false},
	{StreamPeer, "peer", false},
	{StreamLink, "link", true},
	{StreamGraph, "graph", false},
	{StreamPenaltyData, "penalty-data", false},
	{StreamProblem, "problem", false},
	{StreamCompress, "compress", false},
}

// Streams returns the registered streams in ascending value. The slice is
// a copy.
func Streams() []StreamInfo {
	out := make([]StreamInfo, len(registry))
	copy(out, registry[:])
	return out
}

// String returns the stream's registered name, "name/ph<k>" for phase k of
// a phased stream, "named:<hex>" for a NamedStream value and
// "stream(<hex>)" otherwise.
func (s Stream) String() string {
	for _, r := range registry {
		if s == r.Stream {
			return r.Name
		}
		if r.Phased && s > r.Stream && (s-r.Stream)%PhaseStride == 0 && (s-r.Stream)/PhaseStride < MaxPhase {
			return fmt.Sprintf("%s/ph%d", r.Name, (s-r.Stream)/PhaseStride)
		}
	}
	if s&namedBit != 0 {
		return fmt.Sprintf("named:%#x", uint64(s))
	}
	return fmt.Sprintf("stream(%#x)", uint64(s))
}

// Phase returns the draw of phase ph of the phased stream s: s +
// PhaseStride*ph. It panics if s is not a registered phased stream or ph is
// outside [0, MaxPhase), both programming errors.
func (s Stream) Phase(ph int) Stream {
	phased := false
	for _, r := range registry {
		if r.Stream == s {
			phased = r.Phased
			break
		}
	}
	if !phased || ph < 0 || ph >= MaxPhase {
		panic(fmt.Sprintf("graph: phase %d of stream %v: need a phased stream and 0 <= phase < %d", ph, s, MaxPhase))
	}
	return s + PhaseStride*Stream(ph)
}

// NamedStream returns the stream of a purpose outside the registry, e.g. an
// algorithm or problem a user registers: a 63-bit hash of name with the top
// bit set. Registered streams all have the top bit clear, so a named stream
// never meets one of them; two different names meet with probability
// 2^-63.
func NamedStream(name string) Stream {
	h := fnv.New64a()
	h.Write([]byte(name))
	return Stream(mix(h.Sum64()) | namedBit)
}

// Hash returns Hash(seed, round, s, a, b).
func (s Stream) Hash(seed, round, a, b uint64) uint64 {
	return Hash(seed, round, uint64(s), a, b)
}

// Uniform returns Uniform(seed, round, s, a, b), in [0, 1).
func (s Stream) Uniform(seed, round, a, b uint64) float64 {
	return Uniform(seed, round, uint64(s), a, b)
}

// Seed seeds pcg with key's generator of the stream in the given round:
// PCG(Hash(seed, round, s, key, 0), Hash(seed, round, s, key, 1)). It is the
// one rule behind every PCG source of common randomness (SeedSample is
// StreamSample.Seed(pcg, seed, t, i)).
func (s Stream) Seed(pcg *rand.PCG, seed, round, key uint64) {
	pcg.Seed(s.Hash(seed, round, key, 0), s.Hash(seed, round, key, 1))
}

// Rand returns a generator seeded as Seed does: key's generator of stream s
// in the given round.
func (s Stream) Rand(seed, round, key uint64) *rand.Rand {
	pcg := rand.NewPCG(0, 0)
	s.Seed(pcg, seed, round, key)
	return rand.New(pcg)
}
