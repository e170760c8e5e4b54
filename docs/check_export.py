#!/usr/bin/env python3
"""Recompute the reference values of `consim data export` directories.

Usage:
  python3 docs/check_export.py DIR [--mnist MNIST_DIR]
  python3 docs/check_export.py all --consim BIN [--data DATA_DIR] [--out DIR] SCENARIO...

The first form checks one export directory: it reads problem.json, rebuilds
the problem its "objective" states from the files beside it, and solves it
with numpy and scipy only, by a method of its own:

  least_squares, logistic,  docs/check_fstar.py: the normal equations,
  nonconvex_regression      Newton's method, or a multistart (nonconvex)
  portfolio      the normal equations of the quadratic (1/N) sum_i P_i
  qcqp           the S-lemma through scipy.linalg.eigh(Q, A_1) and brentq,
                 its certificate, and an SLSQP multistart that must not
                 find a lower feasible value
  slicing        slicing.mps parsed here: the LP relaxation by
                 scipy.optimize.linprog and the binary optimum by
                 scipy.optimize.milp (both HiGHS), and by GLPK's glpsol
                 when it is installed
  constrained_logistic  SLSQP on the split w = w+ - w- (smooth form of the
                 l1 term) with the constraint rows
  fairness       SLSQP with the covariance constraint (convex loss); where
                 consim's f* is further than 1e-8 from it, it must lie
                 within the duality gap bound problem.json states
  bilevel_quad   the lower level substituted, BFGS
  hyperclean     no reference value: the split, the noisy labels and,
                 with the MNIST files, every row against its image

and compares with consim's f* (and LP bound, binary optimum): they must
agree to 1e-8 relative, |a - b| <= 1e-8 max(1, |b|); for slicing, consim's
LP bound and binary optimum must equal HiGHS's (and GLPK's) to 1e-9. Exit
status 0 when every check passes, 1 otherwise.

The second form is what `make check-export` runs: it exports every
SCENARIO with BIN (`consim data export`) into a temporary directory (or
--out), checks each export, and adds the test cases of the check itself:
a logistic and a least-squares problem on a 400-row file over 7 agents
(58 and 57 rows) under both weightings, and a small generated slicing
instance whose binary optimum lies above its LP bound. A scenario whose
data files are absent is skipped, saying so. --data is the shared data
directory (default: ../shared/data beside the repository), where the
MNIST files of hyperclean are looked for.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy
from scipy import linalg, optimize, sparse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_fstar  # noqa: E402

REL = 1e-8
EXACT = 1e-9


def agree(a, b, tol=REL):
    return abs(a - b) <= tol * max(1.0, abs(b))


def rel(a, b):
    return abs(a - b) / max(1.0, abs(b))


def load(d, name):
    with open(os.path.join(d, name)) as fh:
        return json.load(fh)


def read_rows(d, name, dim):
    return check_fstar.read_rows(os.path.join(d, name), dim)


def read_column(d, name):
    return np.loadtxt(os.path.join(d, name), delimiter=",", skiprows=1, ndmin=2)


def compare(what, mine, theirs, tol=REL):
    ok = agree(mine, theirs, tol)
    return ok, "%s: scipy %.15g vs consim %.15g, relative difference %.2e%s" % (
        what, mine, theirs, rel(mine, theirs), "" if ok else " MISMATCH")


# --- portfolio ---------------------------------------------------------------

def check_portfolio(d, p, _):
    mu = p["constants"]["mu"]
    n = p["dim"]
    H, g = mu * np.eye(n), np.zeros(n)
    N = len(p["shards"])
    for name in p["shards"]:
        r = read_column(d, name)
        rbar = r.mean(axis=0)
        S = (r - rbar).T @ (r - rbar) / len(r)
        H += 2 * S / N
        g += rbar / N
    x = linalg.solve(H, g, assume_a="pos")
    f = -g @ x + 0.5 * x @ (H - mu * np.eye(n)) @ x + mu / 2 * x @ x
    ok, msg = compare("f*", f, p["f_star"])
    return ok, msg + ", ||x - x*|| = %.2e" % np.linalg.norm(x - np.array(p["x_star"]))


# --- bilevel_quad --------------------------------------------------------------

def check_bilevel_quad(d, p, _):
    data = load(d, "bilevel.json")
    b, K = np.array(data["b"]), data["tasks"]
    dim = len(b)

    def upper(x):  # the lower level gives y = (1/K) sum_k x_k
        y = x.reshape(K, dim).mean(axis=0)
        return 0.5 * np.sum((y - b) ** 2), np.tile((y - b) / K, K)

    r = optimize.minimize(upper, np.zeros(K * dim), jac=True, method="BFGS", options={"gtol": 1e-12})
    y = r.x.reshape(K, dim).mean(axis=0)
    ok, msg = compare("f*", r.fun, p["f_star"])
    ok2 = np.linalg.norm(y - np.array(p["x_star"])) <= 1e-6
    return ok and ok2, msg + ", ||y - y*|| = %.2e" % np.linalg.norm(y - np.array(p["x_star"]))


# --- qcqp ----------------------------------------------------------------------

def check_qcqp(d, p, _):
    q = load(d, "qcqp.json")
    Q, dv = np.array(q["Q"]), np.array(q["d"])
    A, bv, c = [np.array(a) for a in q["A"]], [np.array(b) for b in q["b"]], q["c"]
    lo, hi = (check_fstar.bound(v) for v in q["box"])
    f = lambda x: 0.5 * x @ Q @ x + dv @ x  # noqa: E731
    h = lambda x, j: 0.5 * x @ A[j] @ x + bv[j] @ x + c[j]  # noqa: E731
    if p["f_star"] is None:
        return True, "no reference value (%s): nothing to recompute" % p["f_star_is"]
    if len(A) != 1:
        return False, "consim reports f* for %d constraints; this check knows the one-constraint case" % len(A)
    # Generalized eigenvectors: V^T Q V = diag(lam), V^T A V = I. In x = V w
    # the Lagrangian stationarity of multiplier mu gives
    # w_j = -(g_j + mu e_j)/(lam_j + mu), and h(x(mu)) decreases in mu.
    lam, V = linalg.eigh(Q, A[0])
    g, e = V.T @ dv, V.T @ bv[0]
    w = lambda mu: -(g + mu * e) / (lam + mu)  # noqa: E731
    phi = lambda mu: 0.5 * w(mu) @ w(mu) + e @ w(mu) + c[0]  # noqa: E731
    lo_mu = max(0.0, -lam[0])
    if lam[0] > 0 and phi(0.0) <= 0:
        mu = 0.0  # the unconstrained minimizer is feasible
    else:
        a, b = lo_mu * (1 + 1e-15) + 1e-300, lo_mu + 1.0
        while phi(b) > 0:
            b = lo_mu + 2 * (b - lo_mu)
        mu = optimize.brentq(phi, a, b, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)
    x = V @ w(mu)
    cert = np.linalg.eigvalsh(Q + mu * A[0])[0]
    msgs = []
    ok, m = compare("f*", f(x), p["f_star"])
    msgs.append(m)
    msgs.append("mu = %.12g, lambda_min(Q + mu A) = %.2e, h(x) = %.1e, ||x - x*|| = %.2e"
                % (mu, cert, h(x, 0), np.linalg.norm(x - np.array(p["x_star"]))))
    ok = ok and cert >= -1e-9 and np.all(x >= lo) and np.all(x <= hi)
    # No local solve from random starts finds a lower feasible value.
    rng = np.random.default_rng(7)
    cons = [{"type": "ineq", "fun": lambda x, j=j: -h(x, j), "jac": lambda x, j=j: -(A[j] @ x + bv[j])} for j in range(len(A))]
    best = np.inf
    for _ in range(10):
        r = optimize.minimize(f, rng.uniform(-1, 1, len(dv)) * 0.1, jac=lambda x: Q @ x + dv, method="SLSQP",
                              constraints=cons, bounds=[(lo, hi)] * len(dv), options={"ftol": 1e-14, "maxiter": 2000})
        if r.success and all(h(r.x, j) <= 1e-9 for j in range(len(A))):
            best = min(best, r.fun)
    beaten = best < p["f_star"] - REL * max(1, abs(p["f_star"]))
    msgs.append("best of 10 SLSQP starts %.15g%s" % (best, " BELOW f*" if beaten else ""))
    return ok and not beaten, "; ".join(msgs)


# --- slicing ------------------------------------------------------------------

def read_mps(path):
    """A free MPS file: c, the rows by sense, bounds and integrality."""
    rows, sense, cols, entries, rhs, bnds, integer = [], {}, {}, [], {}, {}, set()
    section, obj, in_int = None, None, False
    with open(path) as fh:
        for line in fh:
            tok = line.split()
            if not tok or line.startswith("*"):
                continue
            if not line[0].isspace():
                section = tok[0]
                continue
            if section == "ROWS":
                if tok[0] == "N":
                    obj = obj or tok[1]
                else:
                    sense[tok[1]] = tok[0]
                    rows.append(tok[1])
            elif section == "COLUMNS":
                if len(tok) >= 3 and tok[1].strip("'") == "MARKER":
                    in_int = tok[2].strip("'") == "INTORG"
                    continue
                name = tok[0]
                if name not in cols:
                    cols[name] = len(cols)
                if in_int:
                    integer.add(name)
                for r, v in zip(tok[1::2], tok[2::2]):
                    entries.append((r, name, float(v)))
            elif section == "RHS":
                for r, v in zip(tok[1::2], tok[2::2]):
                    rhs[r] = float(v)
            elif section == "BOUNDS":
                kind, name = tok[0], tok[2]
                lo, hi = bnds.get(name, (0.0, np.inf))
                val = float(tok[3]) if len(tok) > 3 else None
                if kind == "BV":
                    lo, hi = 0.0, 1.0
                    integer.add(name)
                elif kind in ("UP", "UI"):
                    hi = val
                elif kind in ("LO", "LI"):
                    lo = val
                elif kind == "FX":
                    lo = hi = val
                elif kind == "FR":
                    lo, hi = -np.inf, np.inf
                elif kind == "MI":
                    lo = -np.inf
                bnds[name] = (lo, hi)
    n = len(cols)
    ridx = {r: i for i, r in enumerate(rows)}
    c = np.zeros(n)
    ri, ci, vals = [], [], []
    for r, name, v in entries:
        if r == obj:
            c[cols[name]] += v
        else:
            ri.append(ridx[r])
            ci.append(cols[name])
            vals.append(v)
    M = sparse.csr_matrix((vals, (ri, ci)), shape=(len(rows), n))
    b = np.array([rhs.get(r, 0.0) for r in rows])
    lo = np.array([bnds.get(name, (0.0, np.inf))[0] for name in cols])
    hi = np.array([bnds.get(name, (0.0, np.inf))[1] for name in cols])
    integ = np.array([1 if name in integer else 0 for name in cols])
    s = np.array([sense[r] for r in rows])
    return c, M, b, s, lo, hi, integ


def glpk(path, mip):
    """GLPK's optimum of the MPS file (LP relaxation or MIP), None without glpsol."""
    if shutil.which("glpsol") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "sol")
        args = ["glpsol", "--freemps", path, "-w", out] + ([] if mip else ["--nomip"])
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL, timeout=600)
        with open(out) as fh:
            for line in fh:
                t = line.split()
                if t[:1] == ["s"]:
                    status = t[4] if mip else t[4] + t[5]
                    if status not in ("o", "ff"):
                        raise RuntimeError("glpsol status %s" % status)
                    return float(t[-1])
    raise RuntimeError("glpsol wrote no solution line")


def check_slicing(d, p, _):
    path = os.path.join(d, "slicing.mps")
    c, M, b, s, lo, hi, integ = read_mps(path)
    eq, le, ge = s == "E", s == "L", s == "G"
    A_ub = sparse.vstack([M[le], -M[ge]])
    b_ub = np.concatenate([b[le], -b[ge]])
    lp = optimize.linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=M[eq], b_eq=b[eq], bounds=list(zip(lo, hi)), method="highs")
    if lp.status != 0:
        return False, "linprog: " + lp.message
    refs = p["references"]
    msgs = []
    ok, m = compare("LP bound", lp.fun, refs["lp_bound"], EXACT)
    msgs.append(m)
    ok = ok and refs["lp_bound"] == p["f_star"]
    t0 = time.time()
    mi = optimize.milp(c, integrality=integ, bounds=optimize.Bounds(lo, hi),
                       constraints=[optimize.LinearConstraint(M, np.where(le, -np.inf, b), np.where(ge, np.inf, b))],
                       options={"mip_rel_gap": 0, "time_limit": 900})
    if mi.status != 0:
        return False, "; ".join(msgs + ["milp: " + mi.message])
    if refs["binary_optimum"] is None:
        msgs.append("binary optimum (HiGHS, %.1f s) %.15g, %.2f%% above the LP bound; consim did not compute it"
                    % (time.time() - t0, mi.fun, 100 * (mi.fun / lp.fun - 1)))
    else:
        good, m = compare("binary optimum", mi.fun, refs["binary_optimum"], EXACT)
        ok = ok and good
        msgs.append(m + " (%.2f%% above the LP bound)" % (100 * (mi.fun / lp.fun - 1)))
    try:
        g_lp, g_mip = glpk(path, False), glpk(path, True)
    except (RuntimeError, subprocess.SubprocessError) as err:
        return False, "; ".join(msgs + ["glpsol: %s" % err])
    if g_lp is None:
        msgs.append("glpsol not installed: GLPK's reading of the file not checked")
    else:
        good = agree(g_lp, lp.fun, EXACT) and agree(g_mip, mi.fun, EXACT)
        ok = ok and good
        msgs.append("GLPK reads the file: LP %.15g, MIP %.15g%s" % (g_lp, g_mip, "" if good else " MISMATCH"))
    return ok, "; ".join(msgs)


# --- constrained_logistic -----------------------------------------------------

def logistic_parts(A, y):
    """Value and gradient of (1/s) sum log(1 + exp(-y_i t_i)) in t = A x."""
    def vg(t):
        m = -y * t
        return np.mean(np.logaddexp(0, m)), -y / (1 + np.exp(-m)) / len(y)
    return vg


def check_constrained_logistic(d, p, _):
    n = p["dim"] - 1
    A, y = read_rows(d, p["files"][0], n)
    G = read_column(d, "constraints.csv")
    rhs, Gx = G[:, 0], G[:, 1:]
    lam, bd = p["constants"]["lambda"], p["constants"]["bound"]
    X = np.hstack([A, np.ones((len(y), 1))])
    vg = logistic_parts(A, y)

    def F(x):
        return vg(X @ x)[0] + lam * np.sum(np.abs(x[:n]))

    xs = np.array(p["x_star"])
    msgs = ["F(x*) from the files %.15g, max violation %.1e" % (F(xs), max(0, np.max(Gx @ xs - rhs)))]
    # Smooth form: x = (u, v, b) with w = u - v, u, v in [0, bound].
    E = np.hstack([np.eye(n), -np.eye(n), np.zeros((n, 1))])
    E = np.vstack([E, np.concatenate([np.zeros(2 * n), [1.0]])])  # z -> (w, b)

    def obj(z):
        x = E @ z
        v, dt = vg(X @ x)
        return v + lam * np.sum(z[:2 * n]), E.T @ (X.T @ dt) + np.concatenate([np.full(2 * n, lam), [0.0]])

    z0 = np.zeros(2 * n + 1)
    cons = [{"type": "ineq", "fun": lambda z: rhs - Gx @ (E @ z), "jac": lambda z: -(Gx @ E)}]
    bounds = [(0, bd)] * (2 * n) + [(-bd, bd)]
    r = optimize.minimize(obj, z0, jac=True, method="SLSQP", constraints=cons, bounds=bounds,
                          options={"ftol": 1e-16, "maxiter": 5000})
    x = E @ r.x
    viol = max(0, np.max(Gx @ x - rhs))
    ok, m = compare("f*", F(x), p["f_star"])
    msgs.append(m + " (SLSQP: %s, %d iterations, violation %.1e, ||x - x*|| = %.2e)" % (r.message, r.nit, viol, np.linalg.norm(x - xs)))
    return ok and viol <= 1e-9, "; ".join(msgs)


# --- fairness -----------------------------------------------------------------

def check_fairness(d, p, _):
    dim = p["dim"]
    X, y = read_rows(d, p["files"][0], dim)  # train, then train-z.csv
    z = read_column(d, "train-z.csv")[:, 0]
    cv, R = p["constants"]["c"], p["constants"]["R"]
    a = ((z - z.mean())[:, None] * X).mean(axis=0)
    if p["f_star"] is None:
        return True, "no reference value (%s): nothing to recompute" % p["f_star_is"]
    if "log(1 + exp(-t))" not in p["objective"] or "log(1 + exp(-t - 1))" in p["objective"]:
        return False, "consim reports f* for a loss this check does not know: " + p["objective"]
    Xy = X * y[:, None]
    vg = logistic_parts(Xy, np.ones(len(y)))

    def obj(t):
        v, dt = vg(Xy @ t)
        return v, Xy.T @ dt

    ts = np.array(p["x_star"])
    msgs = ["L(theta*) from the files %.15g, |a^T theta*| = %.6g (c = %g)" % (obj(ts)[0], abs(a @ ts), cv)]
    cons = [{"type": "ineq", "fun": lambda t: cv - a @ t, "jac": lambda t: -a},
            {"type": "ineq", "fun": lambda t: cv + a @ t, "jac": lambda t: a}]
    r = optimize.minimize(obj, np.zeros(dim), jac=True, method="SLSQP", constraints=cons, bounds=[(-R, R)] * dim,
                          options={"ftol": 1e-16, "maxiter": 5000})
    ok, m = compare("f*", r.fun, p["f_star"])
    msgs.append(m + " (SLSQP: %s, |a^T theta| = %.6g, ||theta - theta*|| = %.2e)" % (r.message, abs(a @ r.x), np.linalg.norm(r.x - ts)))
    if not ok:
        msgs[-1] = msgs[-1].replace(" MISMATCH", "")
        # consim's f* is a feasible value at most duality_gap_bound above
        # the optimum (problem.json's notes): hold it to that claim.
        gap = p["references"]["duality_gap_bound"]
        tol = REL * max(1.0, abs(r.fun))
        ok = r.fun - tol <= p["f_star"] <= r.fun + gap + tol
        msgs.append("consim's f* is %.2e above scipy's, %s its stated duality gap bound %.2e (not within 1e-8)"
                    % (p["f_star"] - r.fun, "within" if ok else "OUTSIDE", gap))
    return ok, "; ".join(msgs)


# --- hyperclean ---------------------------------------------------------------

def read_idx(path):
    import gzip
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as fh:
        data = fh.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def check_hyperclean(d, p, mnist):
    split = read_column(d, "split.csv")
    shards = [read_rows(d, name, 784) for name in p["shards"]]
    msgs, ok = [], p["f_star"] is None
    rows = sum(len(b) for _, b in shards)
    ok = ok and len(split) == rows and np.all(split[:, 0][:len(shards[0][1])] == 0)
    train = split[split[:, 0] >= 1]
    bad = int(np.sum(train[:, 3] == 0))
    msgs.append("%d validation and %d training rows, %d training labels corrupted (%.1f%%); f* %s"
                % (len(shards[0][1]), len(train), bad, 100 * bad / max(1, len(train)), p["f_star_is"]))
    if not mnist or not os.path.exists(os.path.join(mnist, "train-images-idx3-ubyte.gz")):
        msgs.append("MNIST files not given: the rows were not compared with the images")
        return ok, "; ".join(msgs)
    images = read_idx(os.path.join(mnist, "train-images-idx3-ubyte.gz")).reshape(-1, 784)
    labels = read_idx(os.path.join(mnist, "train-labels-idx1-ubyte.gz"))
    k = 0
    for a, (A, lab) in enumerate(shards):
        for r in range(len(lab)):
            agent, row, idx, clean = split[k]
            k += 1
            if agent != a or row != r or np.max(np.abs(A[r] - images[int(idx)] / 255.0)) > 0 \
                    or (lab[r] == labels[int(idx)]) != bool(clean):
                return False, "; ".join(msgs + ["agent %d row %d does not match MNIST training image %d" % (a, r, idx)])
    msgs.append("every row equals its MNIST image / 255, and its label is the image's exactly when split.csv says clean")
    return ok, "; ".join(msgs)


def check_regression(d, p, _):
    return check_fstar.check(d, p)


CHECKS = {
    "least_squares": check_regression, "logistic": check_regression, "nonconvex_regression": check_regression,
    "portfolio": check_portfolio, "qcqp": check_qcqp, "slicing": check_slicing,
    "constrained_logistic": check_constrained_logistic, "fairness": check_fairness,
    "bilevel_quad": check_bilevel_quad, "hyperclean": check_hyperclean,
}


def check_dir(d, mnist=None):
    p = load(d, "problem.json")
    fn = CHECKS.get(p["kind"])
    if fn is None:
        return False, "no check for kind %s" % p["kind"]
    return fn(d, p, mnist)


# --- the make target -----------------------------------------------------------

def write_rows(path, rng, m, n, kind):
    """A LIBSVM file of m rows of n features, made here (not by consim)."""
    A = rng.normal(size=(m, n)) / np.sqrt(n)
    x = rng.normal(size=n)
    b = np.sign(A @ x + 0.3 * rng.normal(size=m)) if kind == "logistic" else A @ x + 0.1 * rng.normal(size=m)
    with open(path, "w") as fh:
        for k in range(m):
            fh.write("%r %s\n" % (float(b[k]), " ".join("%d:%r" % (j + 1, float(v)) for j, v in enumerate(A[k]))))


def cases(tmp):
    """The check's own scenarios: (name, scenario file, overrides)."""
    rng = np.random.default_rng(28)
    out = []
    for kind in ("logistic", "least_squares"):
        rows = os.path.join(tmp, "rows-%s.svm" % kind)
        write_rows(rows, rng, 400, 6, kind)
        for w in ("rows", "agents"):
            sc = os.path.join(tmp, "uneven-%s-%s.json" % (kind, w))
            with open(sc, "w") as fh:
                json.dump({"name": "uneven_%s_%s" % (kind, w), "agents": 7, "rounds": 10, "graph": {"topology": "ring"},
                           "problem": {"kind": kind, "data": {"path": rows, "weighting": w}, "reg": 0.01, "batch": 5},
                           "algorithm": {"name": "alm"}}, fh)
            out.append(("uneven_%s_%s (7 agents, 58/57 rows)" % (kind, w), sc, []))
    return out


def run_all(args):
    consim, data, keep, scs = None, None, None, []
    it = iter(args)
    for a in it:
        if a == "--consim":
            consim = next(it)
        elif a == "--data":
            data = next(it)
        elif a == "--out":
            keep = next(it)
        else:
            scs.append(a)
    if consim is None:
        sys.exit("all: --consim BIN is required")
    # The repository as the caller names it ($PWD keeps a symbolic link,
    # as consim's relative paths do), so that ../shared/data is found
    # beside it.
    cwd = os.environ.get("PWD", "")
    if not cwd or not os.path.isdir(cwd) or not os.path.samefile(cwd, os.getcwd()):
        cwd = os.getcwd()
    repo = os.path.dirname(os.path.dirname(os.path.normpath(os.path.join(cwd, sys.argv[0]))))
    data = data or os.path.join(os.path.dirname(repo), "shared", "data")
    mnist = os.path.join(data, "mnist")
    tmp = keep or tempfile.mkdtemp(prefix="check-export-")
    os.makedirs(tmp, exist_ok=True)
    todo = [(os.path.basename(s).rsplit(".", 1)[0], s, []) for s in scs] + cases(tmp)
    todo.append(("slicing_generated (3 flows on 8 nodes)", os.path.join(repo, "scenarios", "slicing_sweep.yaml"),
                 ["agents=8", "problem.flows=3", "problem.min_chain=1", "problem.max_chain=2"]))
    passed = failed = skipped = 0
    print("scipy %s, numpy %s; exports in %s" % (scipy.__version__, np.__version__, tmp))
    for name, sc, sets in todo:
        out = os.path.join(tmp, name.split()[0])
        cmd = [consim, "data", "export", sc, out] + [x for s in sets for x in ("--set", s)]
        t0 = time.time()
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            if "no such file or directory" in r.stderr:
                skipped += 1
                print("SKIP %s: its data files are absent: %s" % (name, r.stderr.strip()))
            else:
                failed += 1
                print("FAIL %s: consim data export: %s" % (name, r.stderr.strip()))
            continue
        t1 = time.time()
        try:
            ok, msg = check_dir(out, mnist)
        except Exception as err:  # a check that breaks fails the scenario
            ok, msg = False, "%s: %s" % (type(err).__name__, err)
        p = load(out, "problem.json")
        print("%s %s [%s, export %.1f s, check %.1f s]: %s" % ("ok  " if ok else "FAIL", name, p["kind"], t1 - t0, time.time() - t1, msg))
        passed, failed = passed + ok, failed + (not ok)
    if keep is None:
        shutil.rmtree(tmp)
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return failed == 0


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        sys.exit(__doc__)
    if args[0] == "all":
        sys.exit(0 if run_all(args[1:]) else 1)
    mnist = None
    if "--mnist" in args:
        i = args.index("--mnist")
        mnist = args[i + 1]
        del args[i:i + 2]
    ok, msg = check_dir(args[0], mnist)
    print("%s: %s: %s" % ("ok" if ok else "FAIL", args[0], msg))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
