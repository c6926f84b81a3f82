"""CatBoost with its default statistics of feature combinations (notebook 12c): shapnb's exact values timed beside
CatBoost's own ShapValues (which shap returns for CatBoost), on one thread each, in one run.

    python bench/catboost_combinations.py [--rows 200] [--trees 1000] [--background 100] [--repeats 2]

The model: CatBoostRegressor with its defaults (depth 6, max_ctr_complexity 4) on 15 normal features and 3 categorical
features of 8 levels each, 3000 rows, a target with interactions between categories and floats. Printed: the number of
combination splits, seconds (best of `--repeats`) of shapnb path-dependent (`TreeExplainer(model)`), CatBoost's
`get_feature_importance(type="ShapValues")`, shapnb interventional (`TreeExplainer(model, background)`), the largest
difference between shapnb's path-dependent values and CatBoost's, and both methods' efficiency residuals. shap's
interventional TreeExplainer refuses categorical CatBoost models, so it has no column.
"""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_v] = "1"
import argparse, time
import numpy as np
import pandas as pd
import catboost
from shapnb import TreeExplainer


def best(run, repeats):
    "The result of run() and its best wall-clock time over `repeats` calls."
    times = []
    for _ in range(repeats):
        start = time.perf_counter(); out = run(); times.append(time.perf_counter() - start)
    return out, min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--trees", type=int, default=1000)
    parser.add_argument("--background", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n = 3000
    X = pd.DataFrame(rng.normal(size=(n, 15)), columns=[f"x{i}" for i in range(15)])
    for c in "abc": X[c] = rng.choice([f"{c}{i}" for i in range(8)], n)
    y = X.x0 * (X.a == "a1") + np.sin(X.x1) + (X.b == "b2") * X.x2 + (X.c == "c3") + rng.normal(0, 0.1, n)
    model = catboost.CatBoostRegressor(iterations=args.trees, verbose=0, cat_features=["a", "b", "c"], thread_count=1,
                                       random_seed=0, allow_writing_files=False).fit(X, y)
    rows, background = X[:args.rows], X[n - args.background:]
    raw = model.predict(rows, prediction_type="RawFormulaVal")
    path = TreeExplainer(model)
    print(f"{type(path).__name__}: {len(path.ensemble.combinations)} combination splits in {args.trees} trees")
    path.shap_values(rows[:2])                                           # compiled kernels loaded before timing
    ours, t_path = best(lambda: path.shap_values(rows), args.repeats)
    pool = catboost.Pool(rows, cat_features=["a", "b", "c"])
    theirs, t_native = best(lambda: model.get_feature_importance(pool, type="ShapValues", thread_count=1), args.repeats)
    inter = TreeExplainer(model, background)
    inter.shap_values(rows[:2])
    phi, t_inter = best(lambda: inter.shap_values(rows), args.repeats)
    print(f"seconds, {args.rows} rows, one thread: shapnb path-dependent {t_path:.2f}, CatBoost ShapValues {t_native:.2f} "
          f"(ratio {t_path / t_native:.1f}), shapnb interventional against {args.background} rows {t_inter:.2f}")
    print(f"largest |shapnb - CatBoost ShapValues| {np.abs(ours - theirs[:, :-1]).max():.3g} (values up to "
          f"{np.abs(ours).max():.3g}); efficiency residuals: shapnb {np.abs(ours.sum(1) + path.expected_value - raw).max():.1e}, "
          f"CatBoost {np.abs(theirs.sum(1) - raw).max():.1e}, shapnb interventional "
          f"{np.abs(phi.sum(1) + inter.expected_value - raw).max():.1e}")


if __name__ == "__main__":
    main()
