"""Tests of `shapnb.front.explain`: every route returns an `Explanation` that agrees with its underlying method."""
import re, subprocess, sys
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from shapnb.front import explain
from shapnb.core.explanation import Explanation
from shapnb.core.games import TableGame, exact_shapley


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 7), st.integers(0, 2**31 - 1))
def test_exact_route_matches_exact_shapley(p, seed):
    "The exact route of a random table game equals exact_shapley and satisfies efficiency."
    values = np.random.default_rng(seed).normal(size=2**p)
    game = TableGame(values)
    e = explain(game, p=p)
    assert isinstance(e, Explanation) and e.method == "exact" and e.n_evals == 2**p
    np.testing.assert_allclose(e.values, exact_shapley(game, p))
    np.testing.assert_allclose(e.values.sum() + e.base_values, values[-1])


@settings(max_examples=10, deadline=None)
@given(st.integers(3, 8), st.integers(0, 2**31 - 1))
def test_kernelshap_route_is_efficient(p, seed):
    "KernelSHAP through explain is efficient, reports se (p = 4: one pair short of every coalition, declines) and stays within its budget."
    values = np.random.default_rng(seed).normal(size=2**p)
    e = explain(TableGame(values), p=p, method="kernelshap", budget=2 * p + 6, seed=seed)
    assert e.n_evals <= 2 * p + 6
    if p == 4: assert e.se is None and "only 1 degree of freedom" in e.se_note
    else: assert e.se is not None
    np.testing.assert_allclose(e.values.sum() + e.base_values, values[-1], atol=1e-8)


def test_kernelshap_route_says_why_it_gives_no_interval():
    "At a budget that leaves the regression no residual degrees of freedom, explain passes on the estimator's reason."
    p = 6
    values = np.random.default_rng(0).normal(size=2**p)
    e = explain(TableGame(values), p=p, method="kernelshap", budget=2 * p, seed=0)
    assert e.se is None and e.se_note
    with pytest.raises(ValueError, match="no interval: " + re.escape(e.se_note[:20])): e.interval()


def test_linear_model_marginal_values():
    "A linear model's marginal Shapley values are coef * (x - mean background), for any budget covering the strata."
    rng = np.random.default_rng(0)
    coef, X, B = rng.normal(size=4), rng.normal(size=(3, 4)), rng.normal(size=(30, 4))
    predict = lambda A: A @ coef
    e = explain(predict, X, data=B, budget=16, seed=0, progress=False)
    assert e.method == "kernelshap" and e.shape == (3, 4)
    np.testing.assert_allclose(e.values, coef * (X - B.mean(0)), atol=1e-8)
    np.testing.assert_allclose(explain(predict, X, method="exact", data=B, progress=False).values, e.values, atol=1e-8)


@pytest.mark.parametrize("kwargs, message", [
    (dict(p=3, method="nope"), "unknown method"),
    (dict(p=3, method="shapleig"), "needs a budget"),
    (dict(), "pass rows X"),
    (dict(p=3, data=np.zeros((2, 3))), "takes none"),
])
def test_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message): explain(lambda Z: Z.sum(1).astype(float), **kwargs)


def test_budget_must_be_an_integer():
    "A budget of the wrong type is a TypeError, one below 1 a ValueError, both before any evaluation."
    game = lambda Z: Z.sum(1).astype(float)
    with pytest.raises(TypeError, match="budget must be an integer"): explain(game, p=3, method="kernelshap", budget=10.0)
    with pytest.raises(ValueError, match="budget must be at least 1"): explain(game, p=3, method="shapleig", budget=0)


@pytest.mark.parametrize("method", ["kernelshap", "shapleig"])
def test_estimator_routes_keep_the_estimators_numbers(method):
    "The game route returns the estimator's own values, spread, evaluation count and v(∅), read off its Explanation."
    if method == "shapleig": pytest.importorskip("torch")
    values = np.random.default_rng(3).normal(size=2**5)
    game = TableGame(values)
    if method == "kernelshap":
        from shapnb.sampling.kernelshap import kernel_shap as estimator
    else:
        from shapnb.bayes.shapleig import shapleig as estimator
    est = estimator(game, 5, 14, seed=1, progress=False)
    e = explain(game, p=5, method=method, budget=14, seed=1, progress=False)
    assert e.method == method and e.n_evals == est.n_evals <= 14
    np.testing.assert_array_equal(e.values, est.values)
    spread = "se" if method == "kernelshap" else "sd"
    np.testing.assert_array_equal(getattr(e, spread), getattr(est, spread))
    assert e.base_values == est.base_values == values[0]


def test_front_door_imports_no_torch():
    "Importing the front door (and using its torch-free routes) does not load torch: ShaplEIG is imported on demand."
    code = ("import sys, numpy as np, shapnb.front as f; "
            "f.explain(lambda Z: Z.sum(1) * 1.0, p=3); f.explain(lambda Z: Z.sum(1) * 1.0, p=3, method='kernelshap', budget=8); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False", out


def test_model_routes_name_features_and_outputs():
    "Feature names come from the frame (in the model's order) or the model; outputs from the model's classes_."
    import pandas as pd
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.svm import SVR
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(80, 3)), columns=["u", "v", "w"])
    svr = SVR().fit(X, X.u * X.v)
    assert explain(svr, X.to_numpy()[:2]).feature_names == ["u", "v", "w"]          # an array: the model's names
    assert explain(svr, X[["w", "u", "v"]].iloc[:2]).feature_names == ["u", "v", "w"]
    labels = np.where(X.u > 0.5, "b", np.where(X.u < -0.5, "c", "a"))
    forest = RandomForestClassifier(n_estimators=5, max_depth=3, random_state=0).fit(X, labels)
    e = explain(forest, X.iloc[:3])
    assert e.output_names == ["a", "b", "c"] and e.shape == (3, 3, 3)
    np.testing.assert_allclose(e[..., "c"].values.sum(1) + e[..., "c"].base_values, forest.predict_proba(X.iloc[:3])[:, 2], atol=1e-8)


def test_series_row_is_one_row():
    import pandas as pd
    rng = np.random.default_rng(1)
    coef, X, B = rng.normal(size=3), pd.DataFrame(rng.normal(size=(4, 3)), columns=list("abc")), rng.normal(size=(20, 3))
    data = pd.DataFrame(B, columns=list("abc"))
    e = explain(lambda A: A.to_numpy() @ coef, X.iloc[1][["c", "a", "b"]], data=data, method="exact", progress=False)
    assert e.n_rows is None and e.feature_names == ["a", "b", "c"]
    np.testing.assert_allclose(e.values, coef * (X.iloc[1].to_numpy() - B.mean(0)), atol=1e-12)


def test_refused_tree_models_fall_back_to_kernelshap():
    "Tree models the converter refuses (each its own reason) go to KernelSHAP of their predict on the auto route, exactly there at budget 2^p."
    import lightgbm, xgboost
    from sklearn.ensemble import GradientBoostingRegressor
    from sklearn.linear_model import LinearRegression
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)); y = X[:, 0] + X[:, 1] * X[:, 2]
    models = [GradientBoostingRegressor(n_estimators=5, init=LinearRegression()).fit(X, y),
              lightgbm.LGBMRegressor(n_estimators=5, linear_tree=True, verbose=-1).fit(X, y),
              xgboost.XGBRegressor(n_estimators=5, booster="gblinear").fit(X, y)]
    reasons = ["no constant base", "linear_tree=True", "'gblinear' is not supported"]
    for model, reason in zip(models, reasons):
        with pytest.warns(UserWarning, match=f"TreeExplainer cannot explain this {type(model).__name__} .*{re.escape(reason)}"):
            e = explain(model, X[:2], data=X[:20], budget=2 ** 3, seed=0, progress=False)
        assert e.method == "kernelshap", type(model).__name__
        with pytest.raises(ValueError, match=f"is not a model that shapnb explains exactly .*{re.escape(reason)}"):
            explain(model, X[:2])                                     # no data: the tree converter's own reason
        exact = explain(model.predict, X[:2], data=X[:20], method="exact", progress=False)
        np.testing.assert_allclose(e.values, exact.values, atol=1e-9)


def test_catboost_non_symmetric_trees_take_the_tree_route():
    "CatBoost's Depthwise and Lossguide trees are explained exactly by the tree route: the marginal game's values by brute force."
    import catboost
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 4)); X[rng.random(300) < 0.1, 1] = np.nan
    y = np.nan_to_num(X[:, 1]) * X[:, 0] + np.sin(X[:, 2])
    for policy in ("Depthwise", "Lossguide"):
        model = catboost.CatBoostRegressor(iterations=10, depth=4, grow_policy=policy, verbose=0, allow_writing_files=False,
                                           thread_count=1, random_seed=0).fit(X, y)
        e = explain(model, X[:3], data=X[50:70], progress=False)
        assert e.method == "tree", policy                           # explain names the route
        exact = explain(lambda A: model.predict(A, prediction_type="RawFormulaVal"), X[:3], data=X[50:70], method="exact", progress=False)
        np.testing.assert_allclose(e.values, exact.values, atol=1e-12)


def test_unfitted_lightgbm_is_not_fitted():
    import lightgbm
    for model in (lightgbm.LGBMRegressor(), lightgbm.LGBMClassifier()):
        with pytest.raises(ValueError, match=f"this {type(model).__name__} instance is not fitted yet"):
            explain(model, np.zeros((2, 3)), data=np.zeros((5, 3)), budget=8)
