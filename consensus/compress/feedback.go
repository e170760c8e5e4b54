package compress

import "math/rand/v2"

// Feedback is error feedback around an operator C (Seide et al. 2014;
// Stich, Cordonnier and Jaggi 2018; Karimireddy et al. 2019) for methods
// that send a compressed v_t each step and need the sum of what they sent
// to track the sum of the v_t: with memory e_0 = 0 it sends
//
//	q_t = C(e_t + v_t),   e_{t+1} = e_t + v_t - q_t,
//
// so sum_{s<t} q_s = sum_{s<t} v_s - e_t, and ||e_t|| stays bounded for a
// contraction C (E||e_{t+1}||^2 <= (1 - delta/2) E||e_t||^2 + (2/delta)
// E||v_t||^2 in expectation). CHOCO-gossip and CHOCO-SGD need none: their
// public copies xhat are the memory.
type Feedback struct {
	// C is the operator.
	C  Operator
	e  []float64
	ev []float64
}

// Compress writes q_t = C(e_t + v) into q, updates the memory and returns
// q's Encoding. v and q have the length of the first call.
func (f *Feedback) Compress(v, q []float64, rng *rand.Rand) Encoding {
	if f.e == nil {
		f.e = make([]float64, len(v))
		f.ev = make([]float64, len(v))
	}
	for l := range v {
		f.ev[l] = f.e[l] + v[l]
	}
	enc := f.C.Compress(f.ev, q, rng)
	for l := range v {
		f.e[l] = f.ev[l] - q[l]
	}
	return enc
}

// Memory returns e_t (the Feedback's own slice: read only).
func (f *Feedback) Memory() []float64 { return f.e }
