package objective

import "math"

// The exponential of the logistic loss's gradient, with the same bits on
// every architecture. math.Exp is assembly on amd64 (choosing a fused
// multiply-add variant at run time when the CPU has one) and on arm64, and
// portable Go elsewhere, so sigmoid(t) and with it every iterate of a
// logistic run would differ in the last bits between machines. exp is the
// portable algorithm of the Go standard library (math/exp.go, itself from
// FreeBSD's e_exp.c) with every product rounded explicitly, after the rule
// of package graph ("Floating point").
//
// Copyright 2009 The Go Authors. All rights reserved. Use of this source
// code is governed by a BSD-style license that can be found in the Go
// distribution's LICENSE file. The original C code, the long comment, and
// the constants are from FreeBSD's /usr/src/lib/msun/src/e_exp.c:
// Copyright (C) 2004 by Sun Microsystems, Inc. All rights reserved.
// Permission to use, copy, modify, and distribute this software is freely
// granted, provided that this notice is preserved.

// exp returns e^x, within one unit in the last place of the exact value,
// with the special cases of math.Exp: exp(+Inf) = +Inf, exp(NaN) = NaN,
// exp(x) = +Inf above about 709.78 and 0 below about -745.13.
func exp(x float64) float64 {
	const (
		ln2Hi = 6.93147180369123816490e-01
		ln2Lo = 1.90821492927058770002e-10
		log2e = 1.44269504088896338700e+00

		overflow  = 7.09782712893383973096e+02
		underflow = -7.45133219101941108420e+02
		nearZero  = 1.0 / (1 << 28) // 2^-28
	)
	switch {
	case math.IsNaN(x):
		return x
	case x > overflow:
		return math.Inf(1)
	case x < underflow:
		return 0
	case -nearZero < x && x < nearZero:
		return 1 + x
	}
	// Reduce: x = k ln2 + r, r = hi - lo, |r| <= ln2/2.
	var k int
	switch {
	case x < 0:
		k = int(float64(log2e*x) - 0.5)
	case x > 0:
		k = int(float64(log2e*x) + 0.5)
	}
	hi := x - float64(float64(k)*ln2Hi)
	lo := float64(float64(k) * ln2Lo)
	return expmulti(hi, lo, k)
}

// expmulti returns e^r 2^k where r = hi - lo and |r| <= ln2/2.
func expmulti(hi, lo float64, k int) float64 {
	const (
		p1 = 1.66666666666666657415e-01
		p2 = -2.77777777770155933842e-03
		p3 = 6.61375632143793436117e-05
		p4 = -1.65339022054652515390e-06
		p5 = 4.13813679705723846039e-08
	)
	r := hi - lo
	t := float64(r * r)
	p := float64(t*p5) + p4
	p = float64(t*p) + p3
	p = float64(t*p) + p2
	p = float64(t*p) + p1
	c := r - float64(t*p)
	y := 1 - ((lo - float64(r*c)/(2-c)) - hi)
	return math.Ldexp(y, k)
}
