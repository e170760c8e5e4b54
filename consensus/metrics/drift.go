package metrics

import "github.com/consim/consim/consensus"

// Drift is the disagreement between the two replicas of the edge duals:
// with y_ij^(i) agent i's replica of the dual of edge {i, j},
//
//	Sum = sum_{edges {i,j}} ||y_ij^(i) - y_ij^(j)||^2,
//	Max = max_{edges {i,j}} ||y_ij^(i) - y_ij^(j)||^2,
//
// over the edges both of whose endpoints report their replicas; Edges
// counts them. A lossless run keeps the replicas equal (Sum = 0): both
// endpoints apply the same update from the same x_i and x_j, and skip it
// together when an exchange fails both ways. One-sided loss lets one
// replica move without the other.
type Drift struct {
	Sum, Max float64
	Edges    int
}

// DualDrift computes the Drift of the reports reps. Edges are matched by
// Report.ID and EdgeDual.Peer, so any order of reps gives the same edges;
// the sums run in the order of reps and of each report's EdgeDuals, which
// for reports indexed by agent id (as Measure takes them) is ascending
// (i, j). It reports ok = false when no edge has both replicas reported.
// Replicas of different lengths are skipped.
func DualDrift(reps []consensus.Report) (d Drift, ok bool) {
	byID := make(map[int]*consensus.Report, len(reps))
	for k := range reps {
		if reps[k].EdgeDuals != nil {
			byID[reps[k].ID] = &reps[k]
		}
	}
	for k := range reps {
		ri := &reps[k]
		for _, e := range ri.EdgeDuals {
			if e.Peer <= ri.ID {
				continue // each edge once, from its lower endpoint
			}
			rj := byID[e.Peer]
			if rj == nil {
				continue
			}
			yj := peerDual(rj, ri.ID)
			if yj == nil || len(yj) != len(e.Y) {
				continue
			}
			sq := sqDist(e.Y, yj)
			d.Sum += sq
			d.Max = max(d.Max, sq)
			d.Edges++
		}
	}
	return d, d.Edges > 0
}

// peerDual returns r's replica of the dual of edge {r.ID, peer}, or nil.
func peerDual(r *consensus.Report, peer int) []float64 {
	for _, e := range r.EdgeDuals {
		if e.Peer == peer {
			return e.Y
		}
	}
	return nil
}
