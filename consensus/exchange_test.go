package consensus

import (
	"slices"
	"strings"
	"testing"
)

// TestAscending: the agent itself comes at its place among the senders,
// a missing message is reported as nil, and a wrong length or an
// unexpected sender is an error.
func TestAscending(t *testing.T) {
	own := []float64{0}
	in := Inbox{Msgs: []Msg{{From: 1, Data: []float64{1}}, {From: 5, Data: []float64{5}}}}
	var order []int
	var got [][]float64
	err := in.Ascending(3, own, []int{1, 2, 5}, 1, func(j int, v []float64) {
		order = append(order, j)
		got = append(got, v)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, []int{1, 2, 3, 5}) || got[1] != nil || got[2][0] != 0 || got[3][0] != 5 {
		t.Errorf("order %v, values %v", order, got)
	}
	order = order[:0]
	if err := (Inbox{}).Ascending(9, own, []int{1, 2}, 1, func(j int, _ []float64) { order = append(order, j) }); err != nil || !slices.Equal(order, []int{1, 2, 9}) {
		t.Errorf("self last: order %v, %v", order, err)
	}
	for _, tc := range []struct {
		in   Inbox
		want string
	}{
		{Inbox{Msgs: []Msg{{From: 1, Data: []float64{1, 2}}}}, "message from agent 1 has 2 values, want 1"},
		{Inbox{Msgs: []Msg{{From: 4, Data: []float64{1}}}}, "unexpected message from agent 4"},
	} {
		if err := tc.in.Ascending(0, own, []int{1}, 1, func(int, []float64) {}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func TestBroadcast(t *testing.T) {
	var o Outbox
	data := []float64{1, 2}
	o.Broadcast(2, 7, []int{0, 4}, data, []int{1, 3})
	if len(o.Msgs) != 2 || o.Msgs[1].To != 4 || o.Msgs[0].From != 2 || o.Msgs[0].Round != 7 || &o.Msgs[1].Data[0] != &data[0] || !slices.Equal(o.Expect, []int{1, 3}) {
		t.Errorf("outbox %+v", o)
	}
	o.Broadcast(2, 8, nil, data, nil)
	if len(o.Msgs) != 0 || o.Expect != nil {
		t.Errorf("empty broadcast %+v", o)
	}
}
