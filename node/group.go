package node

import (
	"sync/atomic"
)

// lastAll is the slice allAgents returned last.
var lastAll atomic.Pointer[[]int]

// allAgents returns the ids 0..n-1 in a slice that callers must not
// modify: the agents of a process share it, so the all-reduce's member
// list costs N ints per process, not per agent.
func allAgents(n int) []int {
	if p := lastAll.Load(); p != nil && len(*p) == n {
		return *p
	}
	all := make([]int, n)
	for j := range all {
		all[j] = j
	}
	lastAll.Store(&all)
	return all
}

// groupState holds the members of the current phase's reduce: all agents
// 0..N-1 (the all-reduce) or the agents of Outbox.Group. The root of a
// group reduce is its lowest member not known to have left; it gathers
// the other members' terms and sends the sum to each of them (where the
// all-reduce root broadcasts it), so agents outside the group see no
// frame of the reduce.
type groupState struct {
	members []int  // ascending; all when not grouped
	grouped bool   // members come from Outbox.Group
	member  []bool // member[j]: j is in the group (valid when grouped; made on the first group)
	all     []int  // 0..N-1, shared read-only by the agents of the process (allAgents)
	buf     []int  // storage of members when grouped
}

// set makes group the members of the phase's reduce in a run of n
// agents; nil selects all agents. group is one engine.CheckOutbox
// accepted.
func (g *groupState) set(group []int, n int) {
	if g.all == nil {
		g.all = allAgents(n)
	}
	if g.grouped {
		for _, j := range g.members {
			g.member[j] = false
		}
	}
	if group == nil {
		g.members, g.grouped = g.all, false
		return
	}
	if g.member == nil {
		g.member = make([]bool, n)
	}
	g.buf = append(g.buf[:0], group...)
	g.members, g.grouped = g.buf, true
	for _, j := range g.members {
		g.member[j] = true
	}
}

// has reports whether agent j takes part in the phase's reduce.
func (g *groupState) has(j int) bool { return !g.grouped || g.member[j] }

// sendGroupSum sends the sum of the current phase (t, ph), in one frame,
// to every other member of the group still in the run.
func (r *runner) sendGroupSum(t, ph int) {
	to := r.sumTo[:0]
	for _, j := range r.group.members {
		if j != r.id && r.leaveOf(j) > r.cur {
			to = append(to, j)
		}
	}
	r.sumTo = to
	if len(to) == 0 {
		return // an empty list would address every agent
	}
	f, err := r.encodeFrame(FrameSum, to, t, ph, r.sum)
	if err != nil {
		r.sendFailed(-1, err)
		return
	}
	if err := r.publishFrame(f, FrameSum, to); err != nil {
		for _, j := range to {
			r.sendFailed(j, err)
		}
		return
	}
	r.tr.MsgsSent += int64(len(to))
	r.tr.BytesSent += r.wireLen(f, len(to))
}
