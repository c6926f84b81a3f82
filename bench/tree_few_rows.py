"""Explaining a few rows at a time (an audit's finding, notebook 14 "Outside the benchmark"): shapnb against shap on
the path-dependent benchmark models (notebook 14's configurations at scale 1, and a CatBoost regressor of 500 trees of
depth 6), one thread, side by side in one process. Timed per number of rows: building the explainer plus shap_values,
best of three, after a warm-up call of each library (numba compiles once); shap with check_additivity=False, shapnb
with its default check. shapnb builds its leaf tables on an explainer's first call whatever the number of rows, which
a call of a few rows does not repay.

  taskset -c 1 python bench/tree_few_rows.py"""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"): os.environ[_v] = "1"
import time, warnings
import shap, catboost
from shapnb import TreeExplainer
from shapnb.exact.trees.bench import configurations, _data
warnings.simplefilter("ignore")

def best(f, k=3):
    times = []
    for _ in range(k):
        t = time.perf_counter(); f(); times.append(time.perf_counter() - t)
    return min(times)

models = {name: build for name, build in configurations().items() if name != "4 trees, 1e5 leaves"}
def cat():
    X, y = _data(5000, 20)
    return catboost.CatBoostRegressor(iterations=500, depth=6, thread_count=1, verbose=0, allow_writing_files=False).fit(X, y), X[:1000]
models["CatBoost, 500 trees, depth 6"] = cat
print("| configuration | rows | shap (s) | shapnb (s) | shap / shapnb |\n|---|---|---|---|---|")
for name, build in models.items():
    model, X = build()
    TreeExplainer(model).shap_values(X[:2]); shap.TreeExplainer(model).shap_values(X[:2], check_additivity=False)
    for n in (1, 10, 100, 1000):
        ts = best(lambda: shap.TreeExplainer(model).shap_values(X[:n], check_additivity=False))
        tn = best(lambda: TreeExplainer(model).shap_values(X[:n]))
        print(f"| {name} | {n} | {ts:.3f} | {tn:.3f} | {ts / tn:.2f} |", flush=True)
