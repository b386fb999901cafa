#!/usr/bin/python3
"""SciPy peer of the fit benchmark (Debian python3-scipy): the same law,
the same rows, the same resamples and the same starting point as
bench_fit, fitted with least_squares(method="lm") and an analytic,
vectorised Jacobian. Prints the wall time for 1 and 2 processes.

usage: peer_scipy_fit.py OUT_PREFIX"""
import sys, time
import numpy as np
from multiprocessing import Pool
from scipy.optimize import least_squares

prefix = sys.argv[1]
point = [l.strip().split(',') for l in open(prefix + '.point.csv')]
names = [p[0] for p in point]
LOG = lambda n: n.startswith('S[') or n.startswith('P0[') or n.startswith('term[kv_cache')
x_point = np.array([np.log(float(v)) if LOG(n) else float(v) for n, v in point])
idx = {n: k for k, n in enumerate(names)}
import csv
rows = list(csv.DictReader(open(prefix + '.rows.csv')))
m = len(rows)
col = lambda key: np.array([float(r[key]) for r in rows])
G, lN, lf, y = col('G'), col('lN'), col('lf'), col('y')
ln = np.log(col('running') / 32.0)
iS = np.array([idx['S[%s]' % r['s_level']] for r in rows])
iT = np.array([idx['theta[%s]' % r['level']] for r in rows])
iw = np.array([idx.get(r['term_w'], -1) for r in rows])
ik = np.array([idx.get(r['term_kv'], -1) for r in rows])
D, G1, G2, K = idx['delta'], idx['gamma1'], idx['gamma2'], idx.get('kappa', -1)
resamples = np.loadtxt(prefix + '.resamples.csv', delimiter=',', ndmin=2)
rr = np.arange(m)

def parts(x):
    z = x[iT] + x[D] * lN + x[G1] * ln + x[G2] * ln * ln + np.where(iw >= 0, x[iw], 0.0)
    logscale = x[iS] + np.where(ik >= 0, x[ik], 0.0) + (x[K] * lf if K >= 0 else 0.0)
    return z, logscale

def residual(x, sw):
    z, logscale = parts(x)
    # log(G*S*m*phi*sigma(z)) - y, with log sigma(z) = -log1p(exp(-z))
    return sw * (np.log(G) + logscale - np.logaddexp(0.0, -z) - y)

def jacobian(x, sw):
    z, _ = parts(x)
    dz = 1.0 / (1.0 + np.exp(z))          # d log sigma / dz
    J = np.zeros((m, len(x)))
    J[rr, iS] += 1.0
    J[rr, iT] += dz
    J[:, D] = dz * lN
    J[:, G1] = dz * ln
    J[:, G2] = dz * ln * ln
    if K >= 0:
        J[:, K] = lf
    w = iw >= 0
    J[rr[w], iw[w]] += dz[w]
    k = ik >= 0
    J[rr[k], ik[k]] += 1.0
    return J * sw[:, None]

def fit_one(b, jac=jacobian):
    sw = np.sqrt(resamples[b])
    return least_squares(residual, x_point, jac=jac, args=(sw,), method='lm',
                         xtol=1e-10, gtol=1e-10, ftol=1e-10).x

if __name__ == '__main__':
    B = resamples.shape[0]
    t0 = time.perf_counter()
    est1 = [fit_one(b) for b in range(B)]
    t1 = time.perf_counter() - t0
    t0 = time.perf_counter()
    with Pool(2) as pool:
        est2 = pool.map(fit_one, range(B), chunksize=max(1, B // 16))
    t2 = time.perf_counter() - t0
    est = np.array(est2)
    # the same degrees-of-freedom correction as wattcast, then percentiles
    n_runs, p = m, len(names)
    dev = x_point + np.sqrt(n_runs / (n_runs - p)) * (est - x_point)
    nat = np.where([LOG(n) for n in names], np.exp(dev), dev)
    lo, hi = np.percentile(nat, 2.5, axis=0), np.percentile(nat, 97.5, axis=0)
    with open(prefix + '.scipy_intervals.csv', 'w') as f:
        for n, a, b in zip(names, lo, hi):
            f.write('%s,%.10g,%.10g\n' % (n, a, b))
    # For context: least_squares as most callers use it, finite differences.
    nfd = min(B, 100)
    t0 = time.perf_counter()
    for b in range(nfd):
        fit_one(b, jac='2-point')
    tfd = (time.perf_counter() - t0) * B / nfd
    print('scipy: %d resamples: %.3f s in 1 process, %.3f s in 2 processes '
          '(analytic Jacobian); %.3f s in 1 process with the default 2-point Jacobian '
          '(extrapolated from %d)' % (B, t1, t2, tfd, nfd))
    print('SCIPY_SECONDS_FD %.6f' % tfd)
    print('SCIPY_SECONDS_1 %.6f\nSCIPY_SECONDS_2 %.6f' % (t1, t2))
