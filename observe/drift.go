package observe

import "github.com/consim/consim/consensus"

// Drift is the disagreement between the two replicas of the edge duals:
// with y_ij^(i) agent i's replica of the dual of edge {i, j} and v_ij^(i)
// its version (consensus.EdgeDual.Version),
//
//	Sum = sum_{edges {i,j}: v_ij^(i) = v_ij^(j)} ||y_ij^(i) - y_ij^(j)||^2,
//	Max = max_{edges {i,j}: v_ij^(i) = v_ij^(j)} ||y_ij^(i) - y_ij^(j)||^2,
//
// over the edges both of whose endpoints report their replicas; Edges
// counts the edges compared. Two replicas that claim the same version of
// the dual and differ are a fork: the run's duals no longer satisfy
// sum_i (A^T y)_i = 0 and it solves a perturbed problem. Duals updated at
// both endpoints report version 0 and are always compared: a lossless
// run keeps them equal (both endpoints apply the same update from the
// same x_i and x_j), one-sided loss lets one move without the other.
//
// A dual with a single writer (the ALM's owner endpoint) carries the
// round of its last write; the reader's copy at an older version is the
// writer's value delayed by lost messages, not a fork. Such edges are not
// compared: Lagging counts them and MaxLag is the largest version gap
// |v_ij^(i) - v_ij^(j)|, in rounds.
type Drift struct {
	Sum, Max float64
	Edges    int
	Lagging  int
	MaxLag   int64
}

// DualDrift computes the Drift of the reports reps. Edges are matched by
// Report.ID and EdgeDual.Peer, so any order of reps gives the same edges;
// the sums run in the order of reps and of each report's EdgeDuals, which
// for reports indexed by agent id (as Measure takes them) is ascending
// (i, j). It reports ok = false when no edge has both replicas reported
// (compared or lagging). Replicas of different lengths are skipped.
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
			ej := peerDual(rj, ri.ID)
			if ej == nil || len(ej.Y) != len(e.Y) {
				continue
			}
			if e.Version != ej.Version {
				d.Lagging++
				d.MaxLag = max(d.MaxLag, e.Version-ej.Version, ej.Version-e.Version)
				continue
			}
			sq := sqDist(e.Y, ej.Y)
			d.Sum += sq
			d.Max = max(d.Max, sq)
			d.Edges++
		}
	}
	return d, d.Edges+d.Lagging > 0
}

// peerDual returns r's replica of the dual of edge {r.ID, peer}, or nil.
func peerDual(r *consensus.Report, peer int) *consensus.EdgeDual {
	for k := range r.EdgeDuals {
		if r.EdgeDuals[k].Peer == peer {
			return &r.EdgeDuals[k]
		}
	}
	return nil
}
