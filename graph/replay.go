package graph

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// Recording and replay of realized edge sets.
//
// A recording holds, for every round t < R and draw d < D, the set of
// edges present: the diagonal of the edge-selection matrix of zeta_d in
// round t. Its format is a text header followed by binary bitsets:
//
//	consim-edges 1
//	n <N> edges <M> rounds <R> draws <D>
//	<i> <j>            M lines: the edges in index order (i < j, sorted)
//	bits
//	<R*D records of ceil(M/8) bytes>
//
// Record (t, d) is the (t*D + d)-th; bit k%8 (least significant first) of
// its byte k/8 is 1 iff edge k is present. Padding bits are 0. Nothing
// follows the last record.

const replayMagic = "consim-edges 1"

// Record writes the realized edge sets of proc on g for rounds 0..rounds-1
// and draws 0..draws-1 to w in the recording format above.
func Record(w io.Writer, g *Graph, proc EdgeProcess, rounds, draws int) error {
	if g == nil || proc == nil {
		return fmt.Errorf("graph: record edges: need a graph and a process")
	}
	if rounds < 0 || draws < 1 {
		return fmt.Errorf("graph: record edges: %d rounds and %d draws: need rounds >= 0 and draws >= 1", rounds, draws)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\nn %d edges %d rounds %d draws %d\n", replayMagic, g.N, len(g.Edges), rounds, draws)
	for _, e := range g.Edges {
		fmt.Fprintf(bw, "%d %d\n", e.I, e.J)
	}
	bw.WriteString("bits\n")
	rec := make([]byte, stride(len(g.Edges)))
	for t := 0; t < rounds; t++ {
		for d := 0; d < draws; d++ {
			clear(rec)
			for k, e := range g.Edges {
				if proc.Active(t, d, e.I, e.J) {
					rec[k/8] |= 1 << (k % 8)
				}
			}
			if _, err := bw.Write(rec); err != nil {
				return fmt.Errorf("graph: record edges: round %d: %w", t, err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("graph: record edges: %w", err)
	}
	return nil
}

// stride is the number of bytes of one record for m edges.
func stride(m int) int { return (m + 7) / 8 }

// Replay is an edge process that plays back a recording exactly. It is
// immutable and safe for concurrent use.
type Replay struct {
	g      *Graph
	rounds int
	draws  int
	stride int
	bits   []byte
}

// ReadReplay reads a recording made by Record and returns the process
// that replays it on g. It fails if the recording is malformed or
// truncated, or was made on a different graph (other N or edge list).
func ReadReplay(r io.Reader, g *Graph) (*Replay, error) {
	if g == nil {
		return nil, fmt.Errorf("graph: read edge recording: graph is nil")
	}
	br := bufio.NewReader(r)
	line := func(what string) (string, error) {
		s, err := br.ReadString('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return "", fmt.Errorf("graph: read edge recording: %s: %w", what, err)
		}
		return s[:len(s)-1], nil
	}
	magic, err := line("header")
	if err != nil {
		return nil, err
	}
	if magic != replayMagic {
		return nil, fmt.Errorf("graph: read edge recording: first line %q: not a consim edge recording (want %q)", magic, replayMagic)
	}
	sizes, err := line("sizes")
	if err != nil {
		return nil, err
	}
	var n, m, rounds, draws int
	if _, err := fmt.Sscanf(sizes, "n %d edges %d rounds %d draws %d", &n, &m, &rounds, &draws); err != nil {
		return nil, fmt.Errorf("graph: read edge recording: line 2 %q: want \"n N edges M rounds R draws D\": %w", sizes, err)
	}
	if rounds < 0 || draws < 1 {
		return nil, fmt.Errorf("graph: read edge recording: %d rounds and %d draws: need rounds >= 0 and draws >= 1", rounds, draws)
	}
	if n != g.N || m != len(g.Edges) {
		return nil, fmt.Errorf("graph: read edge recording: recorded on a graph with %d agents and %d edges, replayed on one with %d agents and %d edges", n, m, g.N, len(g.Edges))
	}
	for k, e := range g.Edges {
		s, err := line(fmt.Sprintf("edge %d", k))
		if err != nil {
			return nil, err
		}
		var i, j int
		if _, err := fmt.Sscanf(s, "%d %d", &i, &j); err != nil {
			return nil, fmt.Errorf("graph: read edge recording: edge %d: %q: want \"i j\": %w", k, s, err)
		}
		if i != e.I || j != e.J {
			return nil, fmt.Errorf("graph: read edge recording: edge %d is {%d,%d} in the recording but {%d,%d} in the graph", k, i, j, e.I, e.J)
		}
	}
	if s, err := line("bits marker"); err != nil {
		return nil, err
	} else if s != "bits" {
		return nil, fmt.Errorf("graph: read edge recording: after the edge list: got %q, want \"bits\"", s)
	}
	st := stride(m)
	size := int64(rounds) * int64(draws) * int64(st)
	// Read through a limit so a corrupt header cannot make us allocate
	// more than the input holds.
	bits, err := io.ReadAll(io.LimitReader(br, size))
	if err != nil {
		return nil, fmt.Errorf("graph: read edge recording: bitsets: %w", err)
	}
	if int64(len(bits)) != size {
		return nil, fmt.Errorf("graph: read edge recording: truncated: %d bytes of bitsets, want %d (%d rounds x %d draws x %d bytes)", len(bits), size, rounds, draws, st)
	}
	if _, err := br.ReadByte(); err == nil {
		return nil, fmt.Errorf("graph: read edge recording: unexpected data after %d rounds x %d draws", rounds, draws)
	}
	return &Replay{g: g, rounds: rounds, draws: draws, stride: st, bits: bits}, nil
}

// Rounds is the number of recorded rounds R.
func (r *Replay) Rounds() int { return r.rounds }

// Draws is the number of recorded draws D per round.
func (r *Replay) Draws() int { return r.draws }

// Lookup reports whether {i, j} (either order) was present in draw d of
// round t. It fails for a round or draw outside the recording or a pair
// that is not an edge.
func (r *Replay) Lookup(t, d, i, j int) (bool, error) {
	if t < 0 || t >= r.rounds {
		return false, fmt.Errorf("graph: replay: round %d is beyond the recording, which holds rounds [0, %d)", t, r.rounds)
	}
	if d < 0 || d >= r.draws {
		return false, fmt.Errorf("graph: replay: draw %d is beyond the recording, which holds draws [0, %d)", d, r.draws)
	}
	k, ok := r.g.EdgeIndex(i, j)
	if !ok {
		return false, fmt.Errorf("graph: replay: {%d,%d} is not an edge of the graph", i, j)
	}
	rec := r.bits[(t*r.draws+d)*r.stride:]
	return rec[k/8]>>(k%8)&1 == 1, nil
}

// Active implements EdgeProcess with Lookup. Outside the recording (see
// Rounds and Draws) and for pairs that are not edges it reports absent;
// callers check Rounds against their horizon before running.
func (r *Replay) Active(t, d, i, j int) bool {
	ok, err := r.Lookup(t, d, i, j)
	return ok && err == nil
}
