"""Checks `interventional_tables_pay` (notebook 12): interventional explanations of a few rows to many against 100 and
1000 background rows, on notebook 14's random forest, XGBoost and LightGBM models (the rule's constants were fitted on
them) and on six models outside them, on other data (which it was not). shap against shapnb with the rule and shapnb
building the tables on every call (the behaviour before the rule); one thread, side by side; building the explainer
plus shap_values, best of three (of one for shap beyond 100 rows), after warm-up calls; shap with
check_additivity=False, shapnb with its check. shap keeps only 100 background rows of the 1000 given (notebook 14), so
it is timed at 100 only.

  taskset -c 1 python bench/tree_few_rows_interventional.py"""
import os
for v in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS"): os.environ[v] = "1"
import time, warnings
import shap
from shapnb import TreeExplainer
from shapnb.exact.trees.bench import configurations
import shapnb.exact.trees.explainer as ex_mod
from tree_few_rows_unseen import unseen_models   # the six models outside notebook 14's
warnings.simplefilter("ignore")


def best(f, k=3) -> float:
    "The least of k timings of f(), in seconds."
    ts = []
    for _ in range(k): t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return min(ts)


def main():
    cf = configurations()
    models = {name + " (fitted on)": cf[name]() for name in ("random forest, 100 trees, depth 8, p=10", "XGBoost, 500 trees, depth 6",
                                                             "LightGBM, 500 trees, 63 leaves")}
    unseen, X = unseen_models()
    models.update({name: (m, X) for name, m in unseen.items()})
    always = lambda e, n, n_b: True
    print("| model | background | rows | shap (s) | shapnb, rule (s) | shapnb, tables always (s) |\n|---|---|---|---|---|---|")
    for name, (m, data) in models.items():
        for n_b in (100, 1000):
            bg = data[-n_b:]
            TreeExplainer(m, bg, "interventional").shap_values(data[:300]); TreeExplainer(m, bg, "interventional").shap_values(data[:1])
            if n_b == 100: shap.TreeExplainer(m, bg, feature_perturbation="interventional").shap_values(data[:2], check_additivity=False)
            for n in (1, 10, 100, 1000):
                ts = best(lambda: shap.TreeExplainer(m, bg, feature_perturbation="interventional").shap_values(data[:n], check_additivity=False),
                          3 if n <= 100 else 1) if n_b == 100 else float("nan")
                tn = best(lambda: TreeExplainer(m, bg, "interventional").shap_values(data[:n]))
                saved = ex_mod.interventional_tables_pay; ex_mod.interventional_tables_pay = always
                try: to = best(lambda: TreeExplainer(m, bg, "interventional").shap_values(data[:n]))
                finally: ex_mod.interventional_tables_pay = saved
                print(f"| {name} | {n_b} | {n} | {ts:.3f} | {tn:.3f} | {to:.3f} |", flush=True)


if __name__ == "__main__":
    main()
