#!/usr/bin/env python3
"""Recompute the optimum of a `consim data export` directory with numpy.

Usage: python3 docs/check_fstar.py DIR

Reads DIR/problem.json and the agents' LIBSVM files, rebuilds
f(x) = (1/N) sum_i f_i(x) as problem.json states it (least squares or
logistic with a ridge term), minimizes it without constraints (normal
equations; Newton's method for logistic), checks that the minimizer lies
in the box X (the shipped scenarios' boxes are inactive), and compares
f* with the f_star that consim reported. Exit status 0 when they agree
to 1e-9 (relative), 1 otherwise.
"""
import json
import os
import sys

import numpy as np


def read_libsvm(path, dim):
    rows, labels = [], []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            labels.append(float(parts[0]))
            row = np.zeros(dim)
            for tok in parts[1:]:
                j, v = tok.split(":")
                row[int(j) - 1] = float(v)
            rows.append(row)
    return np.array(rows), np.array(labels)


def main():
    d = sys.argv[1]
    with open(os.path.join(d, "problem.json")) as f:
        p = json.load(f)
    n, lam, kind = p["dim"], p["reg"], p["kind"]
    shards = [read_libsvm(os.path.join(d, name), n) for name in p["files"]]
    N = len(shards)
    # f_i is the mean over agent i's rows (problem.json states it).
    if "(1/m_i)" not in p["objective"]:
        sys.exit("this script handles the per-agent mean objective only: " + p["objective"])

    def value(x):
        total = 0.0
        for A, b in shards:
            z = A @ x
            if kind == "least_squares":
                total += np.mean((z - b) ** 2) / 2
            else:
                total += np.mean(np.logaddexp(0, -b * z))
        return total / N + lam / 2 * x @ x

    if kind == "least_squares":
        H = lam * np.eye(n)
        g = np.zeros(n)
        for A, b in shards:
            H += A.T @ A / (len(b) * N)
            g += A.T @ b / (len(b) * N)
        x = np.linalg.solve(H, g)
    elif kind == "logistic":
        x = np.zeros(n)
        for _ in range(100):
            grad, H = lam * x, lam * np.eye(n)
            for A, b in shards:
                z = A @ x
                s = 1 / (1 + np.exp(b * z))  # sigmoid(-b z)
                grad += A.T @ (-b * s) / (len(b) * N)
                H += (A.T * (s * (1 - s))) @ A / (len(b) * N)
            step = np.linalg.solve(H, grad)
            x -= step
            if np.linalg.norm(step) < 1e-14 * (1 + np.linalg.norm(x)):
                break
    else:
        sys.exit("kind %s: no closed-form check here (its optimum is a multistart's best)" % kind)

    lo = -np.inf if p["box"][0] == "-inf" else p["box"][0]
    hi = np.inf if p["box"][1] == "inf" else p["box"][1]
    if np.any(x < lo) or np.any(x > hi):
        sys.exit("the unconstrained minimizer leaves the box [%s, %s]: this check needs an inactive box" % (lo, hi))
    f = value(x)
    rel = abs(f - p["f_star"]) / max(1.0, abs(f))
    dist = np.linalg.norm(x - np.array(p["x_star"]))
    print("numpy f* = %.15g, consim f* = %.15g, relative difference %.2e, ||x - x*|| = %.2e"
          % (f, p["f_star"], rel, dist))
    sys.exit(0 if rel <= 1e-9 else 1)


if __name__ == "__main__":
    main()
