"""CatBoost's oblivious trees (notebooks 11 and 12): shapnb against shap, side by side in one process, one thread, on
CatBoost regressors of 500 trees of depth 6, 1000 of depth 4 and 300 of depth 8, explaining 1, 1000 and 10 000 rows
path-dependently and 1000 rows against 100 background rows. Timed: building the explainer plus shap_values, best of
two (interventional shap: one run), after a warm-up call of each library; shap with check_additivity=False, shapnb with
its default check (a prediction of every row), so the ratios are conservative for shapnb.

  taskset -c 1 python bench/catboost_oblivious.py"""
import os
os.environ["NUMBA_NUM_THREADS"] = "1"; os.environ["OMP_NUM_THREADS"] = "1"
import time, warnings; warnings.filterwarnings("ignore")
import numpy as np, catboost as cb, shap
from shapnb import TreeExplainer
r = np.random.default_rng(0); X = r.normal(size=(20000, 20)); y = X @ r.normal(size=20) + np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2]
def best(f, k=2):
    ts = []
    for _ in range(k): t = time.perf_counter(); out = f(); ts.append(time.perf_counter() - t)
    return min(ts), out
for depth, iters in ((6, 500), (4, 1000), (8, 300)):
    m = cb.CatBoostRegressor(iterations=iters, depth=depth, thread_count=1, verbose=0, allow_writing_files=False).fit(X, y)
    TreeExplainer(m).shap_values(X[:2]); TreeExplainer(m, X[:100]).shap_values(X[:2])   # numba warm-up
    for n in (1, 1000, 10000):
        ts, a = best(lambda: shap.TreeExplainer(m).shap_values(X[:n], check_additivity=False))
        tn, b = best(lambda: TreeExplainer(m).shap_values(X[:n]))
        print(f"depth {depth} x {iters} path-dependent rows={n}: shap {ts:.3f}s shapnb {tn:.3f}s ratio {ts/tn:.2f} max|diff| {np.abs(a-b).max():.1e}", flush=True)
    n = 1000
    bg = X[-100:]
    ts, a = best(lambda: shap.TreeExplainer(m, shap.maskers.Independent(bg, max_samples=100), feature_perturbation="interventional").shap_values(X[:n], check_additivity=False), 1)
    tn, b = best(lambda: TreeExplainer(m, bg, feature_perturbation="interventional").shap_values(X[:n]))
    print(f"depth {depth} x {iters} interventional bg=100 rows={n}: shap {ts:.3f}s shapnb {tn:.3f}s ratio {ts/tn:.2f} max|diff| {np.abs(a-b).max():.1e}", flush=True)
