package node

import (
	"bytes"
	"strings"
	"testing"
)

// takeAll returns the frames queued for agent id of tr.
func takeAll(t *testing.T, tr *ChanTransport, id int) [][]byte {
	t.Helper()
	frames, ok := tr.inbox[id].take(nil)
	if !ok {
		t.Fatalf("inbox of agent %d closed", id)
	}
	return frames
}

// TestPublishOwnedSharesFrames checks the round loop's publish without a
// copy: each frame reaches exactly its destinations with the bytes it was
// encoded with, frames encoded later into the same block (or into a block
// of their own, past slabMax) leave earlier ones intact, and a destination
// outside the run is refused before anything is queued.
func TestPublishOwnedSharesFrames(t *testing.T) {
	tr, err := NewChanTransport(4)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	ep, err := tr.Endpoint(0)
	if err != nil {
		t.Fatal(err)
	}
	var fp framePublisher = ep.(*chanEndpoint)

	type sent struct {
		to    []int
		frame []byte // a copy of what was published
	}
	var all []sent
	publish := func(to []int, round int, data []float64) {
		t.Helper()
		n := HeaderLen + 4*len(to) + 8*len(data)
		buf := fp.frameBuffer(n)
		if len(buf) != 0 || cap(buf) < n {
			t.Fatalf("frameBuffer(%d): len %d cap %d", n, len(buf), cap(buf))
		}
		f, err := AppendFrameTo(buf, FrameData, 0, to, round, 0, data)
		if err != nil {
			t.Fatal(err)
		}
		if err := fp.publishOwned(f, FrameData, to); err != nil {
			t.Fatal(err)
		}
		all = append(all, sent{to: to, frame: clone(f)})
	}
	// More frames than a block holds, a frame to every agent, and one
	// too large for a block.
	for round := range 3 * slabFrames {
		publish([]int{1 + round%3}, round, []float64{float64(round), -float64(round)})
	}
	publish(nil, 100, []float64{1, 2, 3})
	publish([]int{2, 3}, 101, make([]float64, slabMax/8+1))

	want := make([][][]byte, 4)
	for _, s := range all {
		to := s.to
		if len(to) == 0 {
			to = []int{0, 1, 2, 3}
		}
		for _, j := range to {
			want[j] = append(want[j], s.frame)
		}
	}
	for id := range 4 {
		got := takeAll(t, tr, id)
		if len(got) != len(want[id]) {
			t.Fatalf("agent %d got %d frames, want %d", id, len(got), len(want[id]))
		}
		for k := range got {
			if !bytes.Equal(got[k], want[id][k]) {
				t.Errorf("agent %d frame %d changed after later publishes", id, k)
			}
			if cap(got[k]) != len(got[k]) {
				t.Errorf("agent %d frame %d: cap %d > len %d lets a reader write into the next frame", id, k, cap(got[k]), len(got[k]))
			}
		}
	}

	buf := fp.frameBuffer(HeaderLen + 4 + 8)
	f, _ := AppendFrameTo(buf, FrameData, 0, []int{7}, 0, 0, []float64{1})
	err = fp.publishOwned(f, FrameData, []int{7})
	if err == nil || !strings.Contains(err.Error(), "ids are 0..3") {
		t.Errorf("publish to agent 7 of 4: error %v, want one naming the ids", err)
	}
	for id := range 4 {
		if got := takeAll(t, tr, id); len(got) != 0 {
			t.Errorf("agent %d got %d frames of a refused publish", id, len(got))
		}
	}
}
