#!/usr/bin/env python3
"""Recompute f* of a regression export (`consim data export`) with numpy/scipy.

Usage: python3 docs/check_fstar.py DIR

DIR is the export of a scenario of kind least_squares, logistic or
nonconvex_regression: problem.json and one file of rows per agent
(problem.json's "shards", LIBSVM or CSV, the label first). The script
rebuilds f exactly as problem.json states it, with its weighting:

  rows:    f(x) = (1/M) sum_{k=1..M} ell(a_k^T x, b_k) + R(x)
  agents:  f(x) = (1/N) sum_i (1/m_i) sum_{k in S_i} ell(a_k^T x, b_k) + R(x)

and minimizes it over the box X on its own:

  least_squares  the normal equations (an L-BFGS-B solve if the box binds)
  logistic       Newton's method (L-BFGS-B if the box binds)
  nonconvex      f at consim's x* recomputed, a local solve (L-BFGS-B)
                 started there, and a multistart of L-BFGS-B from 20 random
                 points of the box: f* is the best of a multistart, so the
                 check is that no start finds a lower value and that the
                 best found equals consim's.

It passes (exit status 0) when its f* and consim's agree to 1e-8 relative
(|a - b| <= 1e-8 max(1, |b|)), and prints both. docs/check_export.py runs
it for the regression kinds.
"""
import json
import os
import sys

import numpy as np
from scipy import optimize

REL = 1e-8


def read_rows(path, dim):
    """Rows (A, b) of a LIBSVM or CSV (header, label first) file."""
    if path.endswith(".csv"):
        data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
        return data[:, 1:], data[:, 0]
    labels, rows = [], []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            labels.append(float(line[0]))
            row = np.zeros(dim)
            for tok in line[1:]:
                if tok.startswith("qid:"):
                    continue
                j, v = tok.split(":")
                row[int(j) - 1] = float(v)
            rows.append(row)
    return np.array(rows).reshape(len(rows), dim), np.array(labels)


def bound(v):
    return {"inf": np.inf, "-inf": -np.inf}.get(v, v) if isinstance(v, str) else float(v)


def agree(a, b):
    return abs(a - b) <= REL * max(1.0, abs(b))


class Regression:
    """f of a regression export: weights, loss and regularizer."""

    def __init__(self, d, p):
        self.kind, n = p["kind"], p["dim"]
        self.shards = [read_rows(os.path.join(d, name), n) for name in p["shards"]]
        N, M = len(self.shards), sum(len(b) for _, b in self.shards)
        if p["weighting"] == "rows":
            # f_i = (N m_i / M) (1/m_i) sum ell: every row weighs 1/M in f.
            self.w = [1.0 / M for _ in self.shards]
        elif p["weighting"] == "agents":
            self.w = [1.0 / (N * len(b)) for _, b in self.shards]
        else:
            raise SystemExit("unknown weighting %r" % p["weighting"])
        self.A = np.vstack([A for A, _ in self.shards])
        self.b = np.concatenate([b for _, b in self.shards])
        self.rw = np.concatenate([np.full(len(b), w) for (_, b), w in zip(self.shards, self.w)])
        c = p["constants"]
        self.reg, self.c = c["reg"], c.get("c", 1.0)
        self.lo, self.hi = bound(p["box"][0]), bound(p["box"][1])
        self.n = n

    def value_grad(self, x):
        z = self.A @ x
        if self.kind == "least_squares":
            r = z - self.b
            v, dz = np.sum(self.rw * r * r) / 2, self.rw * r
        elif self.kind == "logistic":
            m = -self.b * z
            v = np.sum(self.rw * np.logaddexp(0, m))
            dz = self.rw * (-self.b) / (1 + np.exp(-m))
        else:
            r = (z - self.b) / self.c
            v = np.sum(self.rw * self.c ** 2 / 2 * np.log1p(r * r))
            dz = self.rw * self.c * r / (1 + r * r)
        g = self.A.T @ dz
        if self.kind == "nonconvex_regression":
            v += self.reg * np.sum(x * x / (1 + x * x))
            g += self.reg * 2 * x / (1 + x * x) ** 2
        else:
            v += self.reg / 2 * x @ x
            g += self.reg * x
        return v, g

    def inside(self, x):
        return np.all(x >= self.lo) and np.all(x <= self.hi)

    def local(self, x0):
        bounds = [(None if np.isinf(self.lo) else self.lo, None if np.isinf(self.hi) else self.hi)] * self.n
        r = optimize.minimize(self.value_grad, x0, jac=True, method="L-BFGS-B", bounds=bounds,
                              options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 20000})
        return r.x

    def solve(self):
        """The minimizer over X of a convex kind."""
        n = self.n
        if self.kind == "least_squares":
            H = (self.A.T * self.rw) @ self.A + self.reg * np.eye(n)
            x = np.linalg.solve(H, self.A.T @ (self.rw * self.b))
        else:
            x = np.zeros(n)
            for _ in range(100):
                z = self.A @ x
                s = 1 / (1 + np.exp(self.b * z))  # sigmoid(-b z)
                g = self.A.T @ (self.rw * -self.b * s) + self.reg * x
                H = (self.A.T * (self.rw * s * (1 - s))) @ self.A + self.reg * np.eye(n)
                step = np.linalg.solve(H, g)
                x -= step
                if np.linalg.norm(step) < 1e-14 * (1 + np.linalg.norm(x)):
                    break
        if not self.inside(x):
            x = self.local(np.clip(x, self.lo, self.hi))
        return x


def check(d, p):
    """Checks the export in d with manifest p; returns (ok, message)."""
    f = Regression(d, p)
    fstar, xstar = p["f_star"], np.array(p["x_star"])
    at = f.value_grad(xstar)[0]
    sizes = sorted({len(b) for _, b in f.shards}, reverse=True)
    msg = ["weighting %s, %d agents, %d rows (%s per agent)" % (p["weighting"], len(f.shards), len(f.b), "/".join(map(str, sizes)))]
    ok = agree(at, fstar)
    msg.append("f(x*) from the files = %.15g vs consim's f* = %.15g (%s)" % (at, fstar, "ok" if ok else "MISMATCH"))
    if p["kind"] != "nonconvex_regression":
        x = f.solve()
        v = f.value_grad(x)[0]
        good = agree(v, fstar)
        msg.append("numpy/scipy f* = %.15g, relative difference %.2e, ||x - x*|| = %.2e"
                   % (v, abs(v - fstar) / max(1, abs(fstar)), np.linalg.norm(x - xstar)))
        return ok and good, "; ".join(msg)
    # Nonconvex: f* is the best of consim's multistart; polish it, then a
    # multistart of our own must find nothing lower.
    polished = f.value_grad(f.local(xstar))[0]
    rng = np.random.default_rng(12345)
    lo = -1.0 if np.isinf(f.lo) else f.lo
    hi = 1.0 if np.isinf(f.hi) else f.hi
    vals = [polished]
    for _ in range(20):
        vals.append(f.value_grad(f.local(rng.uniform(lo, hi, f.n)))[0])
    vals.append(f.value_grad(f.local(np.zeros(f.n)))[0])
    best = min(vals)
    reached = sum(1 for v in vals[1:] if agree(v, fstar))
    good = agree(polished, fstar) and best >= fstar - REL * max(1, abs(fstar))
    msg.append("local solve from x*: %.15g; best of %d scipy starts %.15g (%d of them reach consim's f*)"
               % (polished, len(vals) - 1, best, reached))
    if best < fstar - REL * max(1, abs(fstar)):
        msg.append("A START FOUND A LOWER VALUE")
    return ok and good, "; ".join(msg)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    with open(os.path.join(d, "problem.json")) as fh:
        p = json.load(fh)
    if p["kind"] not in ("least_squares", "logistic", "nonconvex_regression"):
        sys.exit("%s: kind %s is not a regression kind; use docs/check_export.py" % (d, p["kind"]))
    ok, msg = check(d, p)
    print("%s: %s: %s" % ("ok" if ok else "FAIL", d, msg))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
