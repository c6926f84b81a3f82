"""Reading a model into shapnb's tree arrays (`tree_ensemble`), the part of building a `TreeExplainer` that one row's
explanation is mostly made of, and predicting 10 000 rows with them (`TreeEnsemble.predict`, the additivity check's
prediction; notebook 14, "Outside the benchmark"): best of seven, one thread, on notebook 14's XGBoost, LightGBM and
random-forest models and on CatBoost regressors of 500 trees of depth 6 and 1000 of depth 4.
To compare two versions side by side, run it once per checkout, each on its own core:

  taskset -c 1 python bench/tree_conversion.py
  (cd <other checkout> && PYTHONPATH=$PWD taskset -c 0 python <this checkout>/bench/tree_conversion.py)"""
import os
for _v in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS"): os.environ[_v] = "1"
import time
import numpy as np, catboost, shapnb
from shapnb.exact.trees.ensemble import tree_ensemble
from shapnb.exact.trees.bench import configurations


def best(f, k=7) -> float:
    "The least of k timings of f(), in seconds."
    times = []
    for _ in range(k):
        start = time.perf_counter(); f(); times.append(time.perf_counter() - start)
    return min(times)


def main():
    r = np.random.default_rng(0)
    X = r.normal(size=(5000, 20)); y = X @ r.normal(size=20) + np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2]
    models = {f"CatBoost, {n} trees, depth {d}": catboost.CatBoostRegressor(iterations=n, depth=d, thread_count=1, verbose=0,
                                                                           allow_writing_files=False).fit(X, y)
              for d, n in ((6, 500), (4, 1000))}
    for name in ("XGBoost, 500 trees, depth 6", "LightGBM, 500 trees, 63 leaves", "random forest, 100 trees, depth 8, p=10"):
        models[name] = configurations()[name]()[0]
    rows = r.normal(size=(10_000, 20))
    print(f"shapnb from {os.path.dirname(shapnb.__file__)}\n| model | tree_ensemble (s) | predict, 10 000 rows (s) |\n|---|---|---|")
    for name, model in models.items():
        e = tree_ensemble(model)                                  # numba compiles once
        X = e.rows(rows[:, :e.n_features], False); e.predict(X[:2], prepared=True)
        print(f"| {name} | {best(lambda: tree_ensemble(model)):.4f} | {best(lambda: e.predict(X, prepared=True), 3):.4f} |", flush=True)


if __name__ == "__main__":
    main()
