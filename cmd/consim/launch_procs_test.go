package main

import "testing"

func TestChildProcs(t *testing.T) {
	for _, tc := range []struct {
		n, cpus int
		set     string
		want    int
	}{
		{16, 2, "", 1},  // 16 processes share 2 CPUs: one each
		{64, 2, "", 1},  // never below 1
		{2, 8, "", 4},   // 2 processes on 8 CPUs: 4 each
		{4, 8, "", 2},   // 4 on 8: 2 each
		{1, 8, "", 0},   // one process: all CPUs, left alone
		{16, 2, "3", 0}, // the user's GOMAXPROCS wins
		{2, 2, "", 1},   // 2 on 2: 1 each
		{2, 3, "", 1},
	} {
		if got := childProcs(tc.n, tc.cpus, tc.set); got != tc.want {
			t.Errorf("childProcs(%d agents, %d CPUs, GOMAXPROCS %q) = %d, want %d", tc.n, tc.cpus, tc.set, got, tc.want)
		}
	}
}
