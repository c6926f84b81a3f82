"""A large CatBoost model with target-statistic (CTR) splits (1000 trees of depth 6, a 1000-level and a 30-level column,
max_ctr_complexity=1): building the explainer (the second build: the first also loads the compiled kernels), the
path-dependent values of 5000 rows against CatBoost's own ShapValues (one thread each), and interventional values of 1000
rows against 100 background rows.

  NUMBA_NUM_THREADS=1 python bench/catboost_ctr_scale.py"""
import numpy as np, pandas as pd, catboost, time
from shapnb import TreeExplainer
rng = np.random.default_rng(0)
n = 20000
levels = 1000
df = pd.DataFrame({"a": rng.normal(size=n), "c": rng.integers(0, levels, n).astype(str), "b": rng.normal(size=n), "d": rng.integers(0, 30, n).astype(str)})
y = df.a + rng.normal(size=levels)[df.c.astype(int)] + rng.normal(size=30)[df.d.astype(int)] + rng.normal(size=n) * 0.3
t = time.time()
m = catboost.CatBoostRegressor(iterations=1000, depth=6, verbose=0, cat_features=["c", "d"], max_ctr_complexity=1, thread_count=1, allow_writing_files=False, random_seed=0).fit(df, y)
print("fit %.1f s" % (time.time() - t))
X = df[:5000]
TreeExplainer(m)
t = time.time(); ex = TreeExplainer(m); t1 = time.time() - t
t = time.time(); phi = ex.shap_values(X); t2 = time.time() - t
t = time.time(); theirs = m.get_feature_importance(catboost.Pool(X, cat_features=["c", "d"]), type="ShapValues", thread_count=1); t3 = time.time() - t
print("codes", [len(c.categories) if c is not None else None for c in ex.ensemble.categorical])
print("shapnb build %.2f s explain %.2f s | CatBoost ShapValues %.2f s | max diff %.1e" % (t1, t2, t3, np.abs(phi - theirs[:, :-1]).max()))
t = time.time(); inter = TreeExplainer(m, df[10000:10100]); phi2 = inter.shap_values(X[:1000]); t4 = time.time() - t
print("interventional 1000 rows x 100 background %.2f s, additivity %.1e" % (t4, np.abs(phi2.sum(1) + inter.expected_value - m.predict(X[:1000], prediction_type="RawFormulaVal")).max()))
