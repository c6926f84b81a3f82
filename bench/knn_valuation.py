"""Intervals of the estimators on data valuation at many players: the K-nearest-neighbour utility, whose Shapley values
have a closed form (Jia et al., 2019), at p = 50 and 100 training points and budget 4p.

The utility of a set S of training points is the mean, over the test points, of the fraction of the test point's K
nearest neighbours within S (fewer when |S| < K) that share its label. For one test point with the training points
sorted by distance (a_1 nearest, ..., a_p farthest) and m_j = 1[label of a_j = test label], the exact values are

    s(a_p) = m_p / p,    s(a_j) = s(a_{j+1}) + (m_j - m_{j+1}) / K * min(K, j) / j    (j = p-1, ..., 1),

averaged over the test points. The script checks them against `exact_shapley` at p = 10, then runs `shapleig`,
`kernel_shap` and `gp_surrogate_shap` with their defaults and prints, per method and p, the root mean square of the
standardised errors (value - exact) / se, the share outside +-1.96, the largest |z| and the root mean squared error
(seeds 0..SEEDS-1):

  python bench/knn_valuation.py [SEEDS] [METHOD ...]   # default 3 seeds, every method; about ten minutes on one core

A 95% interval that holds has rms z near 1 and about 5% outside."""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, time, warnings
import numpy as np
import shapnb

K = 5

def knn_data(p: int, seed: int, n_test: int = 30):
    "Two overlapping Gaussian classes in 2-D: p training points (a few labels flipped) and n_test test points."
    rng = np.random.default_rng(seed)
    def draw(n):
        label = rng.integers(0, 2, n)
        return rng.normal(size=(n, 2)) + 1.2 * label[:, None], label
    X, y = draw(p)
    flip = rng.random(p) < 0.1
    y[flip] = 1 - y[flip]                                   # noisy labels: the points data valuation should find
    Xt, yt = draw(n_test)
    return X, y, Xt, yt

class KNNUtility:
    "u(S): the mean over test points of the share of their K nearest neighbours in S with the test point's label."
    def __init__(self, X, y, Xt, yt):
        self.order = np.argsort(((Xt[:, None, :] - X[None, :, :]) ** 2).sum(-1), axis=1, kind="stable")   # (n_test, p)
        self.match = (y[self.order] == yt[:, None]).astype(float)                                        # m_j per test point
    def __call__(self, Z):
        Z = np.asarray(Z, bool)
        out = np.zeros(len(Z))
        for t in range(len(self.order)):
            inside = Z[:, self.order[t]]                                   # (k, p): which sorted neighbours are in S
            first = np.cumsum(inside, axis=1) <= K                         # the first K of them
            out += (inside & first) @ self.match[t] / K
        return out / len(self.order)
    def exact(self):
        p = self.order.shape[1]
        phi = np.zeros(p)
        for order, m in zip(self.order, self.match):
            s = np.zeros(p)
            s[p - 1] = m[p - 1] / p
            for j in range(p - 2, -1, -1):                                 # 0-based j: the (j+1)-th nearest
                rank = j + 1
                s[j] = s[j + 1] + (m[j] - m[j + 1]) / K * min(K, rank) / rank
            phi[order] += s
        return phi / len(self.order)

def check_closed_form():
    "The closed form against enumeration at p = 10."
    u = KNNUtility(*knn_data(10, 0))
    gap = np.abs(u.exact() - shapnb.exact_shapley(u, 10)).max()
    assert gap < 1e-12, gap
    return gap

def run(seeds: int, only=()):
    print(f"closed form against exact_shapley at p = 10: {check_closed_form():.1e}")
    methods = {"shapleig": lambda u, p, b, s: shapnb.shapleig(u, p, b, seed=s, progress=False),
               "kernel_shap": lambda u, p, b, s: shapnb.kernel_shap(u, p, b, seed=s),
               "gp_surrogate_shap": lambda u, p, b, s: shapnb.gp_surrogate_shap(u, p, b, seed=s)}
    if bad := set(only) - set(methods): raise SystemExit(f"unknown methods {sorted(bad)}; expected some of {list(methods)}")
    methods = {k: v for k, v in methods.items() if not only or k in only}
    print("| method | p | runs | root mean squared error | rms z | outside ±1.96 | largest |z| | seconds per run |")
    print("|---|---|---|---|---|---|---|---|")
    for p in (50, 100):
        for name, method in methods.items():
            z, seconds, errors = [], [], []
            for seed in range(seeds):
                u = KNNUtility(*knn_data(p, 100 + seed))
                exact = u.exact()
                start = time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    e = method(u, p, 4 * p, seed)
                seconds.append(time.process_time() - start); errors.append(e.values - exact)
                se = e.se if e.se is not None else e.sd
                if se is None: continue
                z.append((e.values - exact) / se)
            z = np.concatenate(z)
            print(f"| {name} | {p} | {seeds} | {np.sqrt(np.mean(np.square(errors))):.2e} | {np.sqrt(np.mean(z ** 2)):.2f} | {np.mean(np.abs(z) > 1.959963984540054):.1%} | "
                  f"{np.abs(z).max():.1f} | {np.mean(seconds):.1f} |")

if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 3, sys.argv[2:])
