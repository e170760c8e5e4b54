package radmm

import "github.com/consim/consim/objective"

// The arithmetic of one agent's and one edge's steps, shared by the
// agents of this package and the asynchronous ADMM (package asyncadmm),
// which activates one edge at a time: the same expressions in the same
// order, so both get the bits of Reference.

// Lambda writes Lambda_i = sum_k sign[k] y_k into dst, summed in
// ascending k, for the agent's incident edges k with their duals y_k =
// y[k*n:(k+1)*n] (n = len(dst)) and signs s_ij (+1 when the agent is
// the edge's lower endpoint).
func Lambda(dst, y, sign []float64) {
	n := len(dst)
	clear(dst)
	for k, s := range sign {
		yk := y[k*n : (k+1)*n]
		for l := range dst {
			dst[l] += float64(s * yk[l])
		}
	}
}

// ExactX writes the exact x-step of an agent with d >= 1 incident edges
// into x:
//
//	x <- argmin_x (1/N) f_i(x) + <Lambda_i, x> + (rho/2) sum_{e at i} ||x - z_e||^2
//	   = prox_{f_i}(v, N rho d),  v = (sum_{e at i} z_e - Lambda_i / rho) / d,
//
// with lam = Lambda_i, z the edges' z_e (d blocks of n = len(x) values),
// invN = 1/N and v scratch of length n.
func ExactX(prox objective.ProxOperator, lam, z []float64, d int, rho, invN float64, v, x []float64) {
	n := len(x)
	clear(v)
	for k := range d {
		zk := z[k*n : (k+1)*n]
		for l := range v {
			v[l] += zk[l]
		}
	}
	fd := float64(d)
	for l := range v {
		v[l] = (v[l] - lam[l]/rho) / fd
	}
	prox.Prox(v, float64(rho*fd)/invN, x)
}

// EdgeStep writes the step of edge e = {lo, hi} (lo < hi) from the
// endpoints' new x:
//
//	z_e <- (x_lo + x_hi)/2,  y_e <- (y_e + y_e)/2 + (rho/2)(x_lo - x_hi),
//
// with (y + y)/2 = y exactly (the expression both replicas of the
// earlier one-phase protocol evaluated, kept for their bits).
func EdgeStep(z, y, xlo, xhi []float64, rho float64) {
	hr := 0.5 * rho
	for l := range z {
		z[l] = float64(0.5 * (xlo[l] + xhi[l]))
		y[l] = float64(0.5*(y[l]+y[l])) + float64(hr*(xlo[l]-xhi[l]))
	}
}
