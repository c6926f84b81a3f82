"""Checks `tables_pay` (notebook 12) on models its constants were not measured on: six models outside notebook 14's,
on other data, shap against shapnb with the rule and shapnb building the tables on every call (the behaviour before
the rule), one thread, side by side; building the explainer plus shap_values, best of three, after warm-up calls.

  taskset -c 1 python bench/tree_few_rows_unseen.py"""
import os
for v in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS"): os.environ[v] = "1"
import time, warnings
import numpy as np, lightgbm, xgboost, shap
from sklearn.ensemble import RandomForestClassifier, GradientBoostingRegressor, HistGradientBoostingRegressor, ExtraTreesRegressor
from shapnb import TreeExplainer
import shapnb.exact.trees.explainer as ex_mod
warnings.simplefilter("ignore")


def unseen_models():
    "The six models outside notebook 14's, fitted on their own data, and those data rows."
    rng = np.random.default_rng(7); X = rng.normal(size=(4000, 15)); y = np.sin(X[:, 0]) * X[:, 1] + X[:, 2] ** 2 + rng.normal(size=4000) * 0.3
    yc = np.digitize(y, np.quantile(y, [0.1 * k for k in range(1, 10)]))
    return {"RF classifier 200 trees depth 12 (binary)": RandomForestClassifier(200, max_depth=12, random_state=0).fit(X, y > 0),
            "GBR 2000 trees depth 2": GradientBoostingRegressor(n_estimators=2000, max_depth=2).fit(X, y),
            "HistGB 300 iter": HistGradientBoostingRegressor(max_iter=300).fit(X, y),
            "LightGBM 10 classes 100 rounds": lightgbm.LGBMClassifier(n_estimators=100, verbose=-1).fit(X, yc),
            "XGBoost 300 trees depth 8": xgboost.XGBRegressor(n_estimators=300, max_depth=8).fit(X, y),
            "ExtraTrees 100 depth 10": ExtraTreesRegressor(100, max_depth=10, random_state=0).fit(X, y)}, X


def best(f, k=3):
    ts = []
    for _ in range(k): t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return min(ts)


def main():
    models, X = unseen_models()
    always = lambda e, n: True
    print("| model | rows | shap | shapnb (rule) | shapnb (tables always, the old way) |\n|---|---|---|---|---|")
    for name, m in models.items():
        TreeExplainer(m).shap_values(X[:300]); shap.TreeExplainer(m).shap_values(X[:2], check_additivity=False)
        for n in (1, 10, 100, 1000):
            ts = best(lambda: shap.TreeExplainer(m).shap_values(X[:n], check_additivity=False))
            tn = best(lambda: TreeExplainer(m).shap_values(X[:n]))
            saved = ex_mod.tables_pay; ex_mod.tables_pay = always
            try: to = best(lambda: TreeExplainer(m).shap_values(X[:n]))
            finally: ex_mod.tables_pay = saved
            print(f"| {name} | {n} | {ts:.3f} | {tn:.3f} | {to:.3f} |", flush=True)


if __name__ == "__main__":
    main()
