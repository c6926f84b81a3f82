"""Compile the library's cached numba kernels once, on small models of every kind the tests use.

CI runs this on the otherwise idle core while the torch-free venv and the documentation are built, and
`python .ci/warm.py words` (the bitset kernel for two and three background words, compiled once per number of words)
on the other core once those are done; the pytest workers then load the kernels from numba's on-disk cache instead
of each compiling them. It checks nothing.
"""
import sys
import warnings
import numpy as np
import xgboost, lightgbm, catboost
from sklearn.tree import DecisionTreeRegressor
from sklearn.ensemble import RandomForestRegressor, RandomForestClassifier, HistGradientBoostingClassifier
from sklearn.svm import SVR, SVC
from shapnb.exact.trees.ensemble import tree_ensemble
from shapnb.exact.trees.explainer import TreeExplainer
from shapnb.exact.trees.pathwise import pathwise_values
from shapnb.exact.trees.tables import interventional_tables, leaf_tables, table_values
from shapnb.exact.trees.indices import tree_interactions, tree_semivalues, KERNELS
from shapnb.exact.trees.grouped import GroupedTrees
from shapnb.exact.kernels import ProductKernelExplainer

warnings.simplefilter("ignore")
rng = np.random.default_rng(0)
X = rng.normal(size=(300, 5))
y = X[:, 0] * X[:, 1] + (X[:, 2] > 0) + 0.1 * rng.normal(size=300)
y3 = np.digitize(y, [0.0, 1.0])
XN = np.where(rng.random(X.shape) < 0.1, np.nan, X)
models = [DecisionTreeRegressor(random_state=0).fit(X[:, :3], y),
          RandomForestRegressor(n_estimators=3, max_depth=6, random_state=0).fit(X, y),
          RandomForestClassifier(n_estimators=3, max_depth=6, random_state=0).fit(X, y3),
          HistGradientBoostingClassifier(max_iter=3, random_state=0).fit(XN, y3),
          xgboost.XGBRegressor(n_estimators=3, max_depth=4).fit(XN, y),
          xgboost.XGBClassifier(n_estimators=3, max_depth=3).fit(X, y3),
          lightgbm.LGBMRegressor(n_estimators=3, num_leaves=8, verbose=-1).fit(XN, y),
          catboost.CatBoostRegressor(iterations=3, depth=3, verbose=False, allow_writing_files=False).fit(X, y)]
if sys.argv[1:] == ["words"]:                     # the bitset kernel per number of background words (one: below)
    for model in (models[1], models[4]):
        for n_bg in (100, 129): pathwise_values(tree_ensemble(model), XN[:3], XN[-n_bg:], method="bitset")
    sys.exit()
for model in models:
    Xm = XN if np.isnan(XN).any() and "Decision" not in type(model).__name__ else X
    Xm = Xm[:, : model.n_features_in_] if hasattr(model, "n_features_in_") else Xm
    rows, bg = Xm[:70], Xm[-20:]
    e = tree_ensemble(model)
    for data in (None, bg):
        ex = TreeExplainer(model, data)
        ex.shap_values(rows)
        for index in ("SII", "BII", "STII", "k-SII"): ex.interaction_values(rows[:3], index)
        for index in ("shapley", "banzhaf", ("weighted_banzhaf", 0.3), ("beta_shapley", 2.0, 2.0)): ex.semivalues(rows[:3], index)
        for kernel in KERNELS:
            try:
                tree_interactions(e, rows[:3], "k-SII", data, kernel=kernel)
                tree_semivalues(e, rows[:3], "banzhaf", data, kernel=kernel)
            except ValueError: pass          # a kernel that does not apply to this model or mode
    for method in ("bitset", "pairs"):
        try: pathwise_values(e, rows[:3], bg, method=method)
        except ValueError: pass
    pathwise_values(e, rows[:3])
    table_values(e, rows[:3], interventional_tables(e, bg, every_tree=True))
    table_values(e, rows[:3], leaf_tables(e))
grouped = GroupedTrees(models[-1])                # CatBoost's combinations (notebook 12c): both kernels
grouped.interventional_values(grouped.as_rows(X[:3])[0], grouped.as_rows(X[-5:])[0])
grouped.path_values(grouped.as_rows(X[:3])[0])
for model in (SVR().fit(X, y), SVC().fit(X, y3)):
    for data in (None, X[:10]):
        ProductKernelExplainer(model, data).shap_values(X[:3])
print("numba kernels compiled and cached")
