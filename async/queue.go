package async

// event is one pending event of the engine's queue.
type event struct {
	t float64
	// key = class<<32 | id, with id the message's sender or the ticking
	// agent, and num the message's or the tick's number: events are
	// processed in ascending (t, key, num).
	key uint64
	num uint64
	// msg is the slab index of a delivery or return, -1 for a tick.
	msg int32
}

// Event classes, in processing order at equal times.
const (
	classMessage = 0 // deliveries and returns, by (sender, number)
	classTick    = 1 // clock ticks, by (agent, tick index)
)

func (a *event) less(b *event) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	if a.key != b.key {
		return a.key < b.key
	}
	return a.num < b.num
}

// queue is a binary min-heap of events.
type queue []event

func (q *queue) push(e event) {
	*q = append(*q, e)
	h := *q
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].less(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *queue) pop() event {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && h[r].less(&h[l]) {
			m = r
		}
		if !h[m].less(&h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}
