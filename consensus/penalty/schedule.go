package penalty

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

// Rule1 selects the parameters of Algorithm 1.
type Rule1 int

const (
	// Thm1 is the constant penalty of Theorem 1, (9): rho_k = rho =
	// K^{3/2}, beta_k = (k+1)/2, gamma_k = (k+1)/(4 (L_f + rho L_c2)).
	Thm1 Rule1 = iota + 1
	// Thm2 is the dynamic penalty of Theorem 2, (13): rho_k = (k+4)^{3/2},
	// beta_k = (k+4)/5, gamma_k = (k+4)/(10 (L_f + rho_k L_c2)).
	Thm2
)

// String returns the rule's name.
func (r Rule1) String() string {
	switch r {
	case Thm1:
		return "constant (Thm 1)"
	case Thm2:
		return "dynamic (Thm 2)"
	}
	return fmt.Sprintf("Rule1(%d)", int(r))
}

// Step1 holds the parameters of iteration k of Algorithm 1.
type Step1 struct {
	Rho, Beta, Gamma float64
}

// Params1 returns the parameters of iteration k >= 1 of Algorithm 1 under
// rule r for a run of K iterations (K is used by Thm1 only), with lf =
// L_grad_f and lc2 = L_grad_c2 of (7).
func Params1(r Rule1, bigK, k int, lf, lc2 float64) (Step1, error) {
	if k < 1 {
		return Step1{}, fmt.Errorf("penalty: Algorithm 1 iteration %d, want k >= 1", k)
	}
	fk := float64(k)
	switch r {
	case Thm1:
		if bigK < 2 {
			return Step1{}, fmt.Errorf("penalty: Theorem 1 needs K >= 2, got %d", bigK)
		}
		rho := math.Pow(float64(bigK), 1.5)
		return Step1{Rho: rho, Beta: (fk + 1) / 2, Gamma: (fk + 1) / (4 * (lf + rho*lc2))}, nil
	case Thm2:
		rho := math.Pow(fk+4, 1.5)
		return Step1{Rho: rho, Beta: (fk + 4) / 5, Gamma: (fk + 4) / (10 * (lf + rho*lc2))}, nil
	}
	return Step1{}, fmt.Errorf("penalty: unknown Algorithm 1 rule %d", int(r))
}

// Rule2 selects the parameters of Algorithm 2.
type Rule2 int

const (
	// Thm3i is Theorem 3 (constant penalty, (21)) with rho = s^{2/3} K^{4/3}.
	Thm3i Rule2 = iota + 1
	// Thm3ii is Theorem 3 with rho = sqrt(s) K (the statement's
	// "sqrt(sK)" is a misprint: Remark 3 and the rates use sqrt(s) K).
	Thm3ii
	// Thm4i is Theorem 4 (dynamic penalty, (27)) with schedule (28).
	Thm4i
	// Thm4ii is Theorem 4 with schedule (34).
	Thm4ii
)

// String returns the rule's name.
func (r Rule2) String() string {
	switch r {
	case Thm3i:
		return "constant rho=s^(2/3)K^(4/3) (Thm 3(i))"
	case Thm3ii:
		return "constant rho=sqrt(s)K (Thm 3(ii))"
	case Thm4i:
		return "dynamic (28) (Thm 4(i))"
	case Thm4ii:
		return "dynamic (34) (Thm 4(ii))"
	}
	return fmt.Sprintf("Rule2(%d)", int(r))
}

// ParseRule2 returns the rule spelled name: 3i, 3ii, 4i or 4ii for
// Theorem 3(i), 3(ii), 4(i) and 4(ii), as the scenario key preset of
// penalty_vrasg spells them.
func ParseRule2(name string) (Rule2, bool) {
	r, ok := map[string]Rule2{"3i": Thm3i, "3ii": Thm3ii, "4i": Thm4i, "4ii": Thm4ii}[name]
	return r, ok
}

// Dynamic reports whether the rule's penalty parameter changes with k.
func (r Rule2) Dynamic() bool { return r == Thm4i || r == Thm4ii }

// Step2 holds the parameters of outer iteration k of Algorithm 2.
type Step2 struct {
	K0    int // k_0
	T     int // T_k, inner iterations
	Alpha float64
	P     float64
	Rho   float64
	Gamma float64
}

// ThetaInner is theta_t = (gamma_k/alpha_k)(alpha_k + p_k) for t < T_k,
// the weight of x_t in the outer average (21), (27).
func (s Step2) ThetaInner() float64 { return s.Gamma / s.Alpha * (s.Alpha + s.P) }

// ThetaLast is theta_{T_k} = gamma_k/alpha_k.
func (s Step2) ThetaLast() float64 { return s.Gamma / s.Alpha }

// floorLog2 returns floor(log2 s) for s >= 1, exactly.
func floorLog2(s int) int { return bits.Len(uint(s)) - 1 }

// floorFourThirdsLog2 returns floor((4/3) log2 s) for s >= 1, exactly: the
// largest j with 2^{3j} <= s^4.
func floorFourThirdsLog2(s int) int {
	s4 := new(big.Int).Exp(big.NewInt(int64(s)), big.NewInt(4), nil)
	j := 0
	for new(big.Int).Lsh(big.NewInt(1), uint(3*(j+1))).Cmp(s4) <= 0 {
		j++
	}
	return j
}

// K0 returns k_0 of rule r for s components: floor((4/3) log2 s) + 1 for
// Thm4i ((28)) and floor(log2 s) + 1 otherwise (Theorem 3 and (34)).
func K0(r Rule2, s int) int {
	if r == Thm4i {
		return floorFourThirdsLog2(s) + 1
	}
	return floorLog2(s) + 1
}

// MinK returns the smallest run length K for which the theorem of rule r
// states its bound: max(k0+1, 2(k0-3)) for Theorem 3, max(k0+1, 2(k0-7))
// for Theorem 4.
func MinK(r Rule2, s int) int {
	k0 := K0(r, s)
	if r.Dynamic() {
		return max(k0+1, 2*(k0-7))
	}
	return max(k0+1, 2*(k0-3))
}

// innerLen returns T_k of rule r.
func innerLen(r Rule2, k, k0 int) int {
	kk := min(k, k0)
	if r == Thm4i {
		return int(math.Ceil(math.Exp2(3 * float64(kk-1) / 4)))
	}
	return 1 << (kk - 1)
}

// Params2 returns the parameters of outer iteration k >= 1 of Algorithm 2
// under rule r with s components, run length K (used by the constant rules
// only), lf = L_grad_fbar of (20) and lc2 = L_grad_c2 of (7).
//
// Theorem 3 (21): alpha_k = 1/2 (k <= k0), 2/(k-k0+4) (k > k0); p_k = 1/2;
// T_k = 2^{k-1} (k <= k0), 2^{k0-1} (k > k0); gamma_k = 1/(3 (lf + rho lc2)
// alpha_k); rho = s^{2/3} K^{4/3} (i) or sqrt(s) K (ii).
//
// Theorem 4 (27): alpha_k = 6/7 (k <= k0), 6/(k-k0+7) (k > k0); p_k = 1/7;
// gamma_k = 1/(8 (lf + rho_k lc2) alpha_k); (28): k0 = floor((4/3) log2 s)+1,
// T_k = ceil(2^{3(k-1)/4}) (k <= k0), T_{k0} after, rho_k = 2^{k/2} (k <= k0),
// 3 s^{2/3} (k-k0+7)^{4/3}/32 after; (34): k0 = floor(log2 s)+1, T_k =
// 2^{k-1} (k <= k0), T_{k0} after, rho_k = 2^{k/2} (k <= k0),
// 3 sqrt(s) (k-k0+7)/16 after.
func Params2(r Rule2, s, bigK, k int, lf, lc2 float64) (Step2, error) {
	if s < 1 || k < 1 {
		return Step2{}, fmt.Errorf("penalty: Algorithm 2 with s = %d, k = %d: want s >= 1, k >= 1", s, k)
	}
	k0 := K0(r, s)
	fs := float64(s)
	st := Step2{K0: k0, T: innerLen(r, k, k0)}
	after := float64(k - k0)
	switch r {
	case Thm3i, Thm3ii:
		if bigK < 1 {
			return Step2{}, fmt.Errorf("penalty: %v needs K >= 1, got %d", r, bigK)
		}
		st.P = 0.5
		st.Alpha = 0.5
		if k > k0 {
			st.Alpha = 2 / (after + 4)
		}
		if r == Thm3i {
			st.Rho = math.Pow(fs, 2.0/3) * math.Pow(float64(bigK), 4.0/3)
		} else {
			st.Rho = math.Sqrt(fs) * float64(bigK)
		}
		st.Gamma = 1 / (3 * (lf + st.Rho*lc2) * st.Alpha)
	case Thm4i, Thm4ii:
		st.P = 1.0 / 7
		st.Alpha = 6.0 / 7
		if k > k0 {
			st.Alpha = 6 / (after + 7)
		}
		switch {
		case k <= k0:
			st.Rho = math.Exp2(float64(k) / 2)
		case r == Thm4i:
			st.Rho = 3 * math.Pow(fs, 2.0/3) * math.Pow(after+7, 4.0/3) / 32
		default:
			st.Rho = 3 * math.Sqrt(fs) * (after + 7) / 16
		}
		st.Gamma = 1 / (8 * (lf + st.Rho*lc2) * st.Alpha)
	default:
		return Step2{}, fmt.Errorf("penalty: unknown Algorithm 2 rule %d", int(r))
	}
	return st, nil
}
