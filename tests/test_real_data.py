"""Real users' tables: DataFrames with permuted columns, missing values and categories, through the core, the product
kernels and the front door, each case checked against an independent reference.

The file is organised in sections, each self-contained (its own data, models and references):

  1. Column order       permuted columns give the same value per named feature (ProductKernelExplainer, MarginalGame,
                        every `explain` route on non-tree models), against the unpermuted call and brute force
  2. Refusals           missing/extra names, sparse rows, date/time columns, complex values: the messages are pinned
  3. Missing values     NaN passed to models that accept it (HistGradientBoosting, XGBoost, LightGBM)
  4. Categories         a categorical LightGBM frame through `explain`'s model-agnostic routes against brute force
                        over all 2^p coalitions of `model.predict` on hybrid frames built row by row
  5. Misuse             a model's predict passed as a game, budgets below p + 1
  6. Output names       `classes_` names the outputs

  7. Trees             TreeExplainer on real models and frames (XGBoost, LightGBM, HistGradientBoosting, CatBoost,
                        scikit-learn forests): interventional values against a brute force over all 2^p coalitions of the
                        model's raw predict on hybrid rows; path-dependent values against the library's own contributions;
                        early stopping, missing-value sentinels, CSR, categorical splits, refusals, shap's "auto" default.

`python tests/test_real_data.py` prints the largest error of each tree case.
"""
import itertools
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse
from hypothesis import given, settings, strategies as st, HealthCheck
from sklearn.ensemble import HistGradientBoostingRegressor, GradientBoostingRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.decomposition import PCA
from sklearn.svm import SVR, SVC
from sklearn.linear_model import LinearRegression

from shapnb.core.games import MarginalGame, exact_shapley
from shapnb.core.tabular import model_feature_names, HybridRows
from shapnb.core.validation import ModelAsGameWarning, evaluate_game
from shapnb.exact.kernels import ProductKernelExplainer
from shapnb.front import explain
from shapnb.sampling.kernelshap import kernel_shap
from shapnb.sampling.regression import UnderdeterminedWarning
import scipy.sparse as sps
import xgboost, lightgbm, catboost, shap
from sklearn.ensemble import (RandomForestRegressor, GradientBoostingClassifier, HistGradientBoostingClassifier)
from shapnb.core.explanation import Explanation
from shapnb.exact.trees import TreeExplainer, tree_ensemble

NAMES = ["age", "bmi", "bp", "s1", "s5"]
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


# ------------------------------------------------------------------------------------------------------------------
# Independent references: Shapley values from a value table by the textbook sum over coalitions, and the marginal
# game built one coalition at a time with pandas (no shapnb code involved).
# ------------------------------------------------------------------------------------------------------------------
def shapley_by_definition(value, p):
    "phi_i = sum_{S not containing i} |S|! (p-|S|-1)! / p! [v(S + i) - v(S)], with v a function of a frozenset."
    phi = np.zeros(p)
    for i in range(p):
        others = [j for j in range(p) if j != i]
        for size in range(p):
            weight = math.factorial(size) * math.factorial(p - size - 1) / math.factorial(p)
            for S in itertools.combinations(others, size):
                phi[i] += weight * (value(frozenset(S) | {i}) - value(frozenset(S)))
    return phi


def brute_force_marginal(predict, x: pd.Series, background: pd.DataFrame):
    "Marginal Shapley values of one row: for every coalition, the background with x's values pasted into S's columns."
    cache = {}
    def value(S):
        if S not in cache:
            rows = background.copy()
            for j in S:
                column = background.columns[j]
                rows[column] = pd.Series([x[column]] * len(background), index=background.index).astype(background[column].dtype)
            cache[S] = float(np.mean(predict(rows)))
        return cache[S]
    return shapley_by_definition(value, background.shape[1]), cache


def by_name(values, names):
    return dict(zip(names, np.asarray(values).T))


@pytest.fixture(scope="module")
def regression_frame():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(120, 5)), columns=NAMES)
    y = 3 * X.bmi + X.bp * X.age - X.s5 + 0.1 * rng.normal(size=120)
    return X, y


@pytest.fixture(scope="module")
def fitted(regression_frame):
    X, y = regression_frame
    return {"svr": SVR(C=3.0, gamma=0.2).fit(X, y),
            "pipeline": make_pipeline(StandardScaler(), PCA(svd_solver="full"), SVR(C=3.0)).fit(X, y),   # model-agnostic: PCA mixes features
            "scaled": make_pipeline(StandardScaler(), SVR(C=3.0)).fit(X, y),                              # per-feature steps: exact (kernel)
            "scaled_tree": make_pipeline(StandardScaler(), GradientBoostingRegressor(n_estimators=20, random_state=0)).fit(X, y)}   # exact (tree)


# ==================================================================================================================
# 1. Column order
# ==================================================================================================================
@settings(max_examples=20, **SETTINGS)
@given(st.permutations(range(5)))
def test_product_kernel_explainer_matches_columns_by_name(fitted, regression_frame, order):
    X, _ = regression_frame
    explainer = ProductKernelExplainer(fitted["svr"])
    rows = X.iloc[:4]
    reference = explainer.shap_values(rows)
    shuffled = rows.iloc[:, list(order)]
    np.testing.assert_allclose(explainer.shap_values(shuffled), reference, rtol=0, atol=1e-12)
    e = explainer(shuffled)
    assert e.feature_names == NAMES
    got, want = by_name(e.values, e.feature_names), by_name(reference, NAMES)
    for name in NAMES: np.testing.assert_allclose(got[name], want[name], rtol=0, atol=1e-12)
    np.testing.assert_allclose(e.values.sum(1) + e.base_values, fitted["svr"].predict(rows), rtol=0, atol=1e-9)


@settings(max_examples=12, **SETTINGS)
@given(st.permutations(range(5)), st.permutations(range(5)))
def test_marginal_game_matches_row_and_background_by_name(fitted, regression_frame, order_x, order_b):
    X, _ = regression_frame
    model, x, background = fitted["pipeline"], X.iloc[7], X.iloc[60:66]
    truth, _ = brute_force_marginal(model.predict, x, background)
    game = MarginalGame(model.predict, x.iloc[list(order_x)], background.iloc[:, list(order_b)])
    np.testing.assert_allclose(exact_shapley(game, 5), truth, rtol=0, atol=1e-10)


@settings(max_examples=8, **SETTINGS)
@given(st.permutations(range(5)), st.permutations(range(5)))
def test_every_explain_route_matches_columns_by_name(fitted, regression_frame, order_x, order_b):
    "exact, kernelshap and auto on a Pipeline (model-agnostic), an SVR, a scaled SVR (kernel) and a scaled tree model: same value per named feature."
    X, _ = regression_frame
    rows, background = X.iloc[:2], X.iloc[60:68]
    perm_rows, perm_background = rows.iloc[:, list(order_x)], background.iloc[:, list(order_b)]
    for model, method, kw in ((fitted["pipeline"], "exact", {}), (fitted["pipeline"], "kernelshap", dict(budget=20, seed=3)),
                              (fitted["pipeline"], "auto", dict(budget=20, seed=3)), (fitted["svr"], "auto", {}),
                              (fitted["svr"], "exact", {}), (fitted["scaled"], "auto", {}), (fitted["scaled"], "kernel", {}),
                              (fitted["scaled_tree"], "auto", {}), (fitted["scaled_tree"], "tree", {})):
        data = None if model is fitted["svr"] and method == "auto" else background
        straight = explain(model, rows, data=data, method=method, progress=False, **kw)
        if model is fitted["scaled"] or model is fitted["scaled_tree"]:
            assert straight.method == ("kernel" if model is fitted["scaled"] else "tree")
            np.testing.assert_allclose(straight.values[0], brute_force_marginal(model.predict, rows.iloc[0], background)[0], rtol=0, atol=1e-10)
        crossed = explain(model, perm_rows, data=None if data is None else perm_background, method=method, progress=False, **kw)
        assert crossed.feature_names == NAMES, (method, crossed.feature_names)
        np.testing.assert_allclose(crossed.values, straight.values, rtol=0, atol=1e-10, err_msg=f"{type(model).__name__} {method}")


def test_exact_route_against_brute_force_on_frames(fitted, regression_frame):
    "The exact route on permuted frames equals the textbook Shapley sum over pandas-built coalitions, per named feature."
    X, _ = regression_frame
    model = fitted["pipeline"]
    rows, background = X.iloc[:3], X.iloc[60:68]
    e = explain(model, rows[["s5", "bp", "age", "s1", "bmi"]], data=background[["bmi", "s1", "s5", "age", "bp"]],
                method="exact", progress=False)
    for r in range(3):
        truth, _ = brute_force_marginal(model.predict, rows.iloc[r], background)
        np.testing.assert_allclose(e.values[r], truth, rtol=0, atol=1e-10)


def test_frame_given_to_a_model_fitted_without_names_keeps_its_order(regression_frame):
    X, y = regression_frame
    svr = SVR().fit(X.to_numpy(), y)
    assert model_feature_names(svr) is None
    anonymous = X.iloc[:3].set_axis(list("vwxyz"), axis=1)
    np.testing.assert_array_equal(ProductKernelExplainer(svr).shap_values(anonymous), ProductKernelExplainer(svr).shap_values(X.iloc[:3].to_numpy()))
    assert explain(svr, anonymous).feature_names == list("vwxyz")


# ==================================================================================================================
# 2. Refusals
# ==================================================================================================================
def test_missing_and_extra_columns_are_named(fitted, regression_frame):
    X, _ = regression_frame
    wrong = X.iloc[:3].drop(columns="bp").assign(patient_id=1)
    message = "X's columns do not match the model's features ['age', 'bmi', 'bp', 's1', 's5']: missing ['bp']; unexpected ['patient_id']"
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        ProductKernelExplainer(fitted["svr"]).shap_values(wrong)
    for method in ("auto", "kernel", "exact", "kernelshap"):
        with pytest.raises(ValueError, match=r"missing \['bp'\]; unexpected \['patient_id'\]"):
            explain(fitted["svr"], wrong, data=X.iloc[60:70], method=method, budget=None if method == "exact" else 20, progress=False)
    with pytest.raises(ValueError, match=r"data's columns do not match the model's features .*unexpected \['patient_id'\]"):
        explain(fitted["pipeline"], X.iloc[:2], data=X.iloc[60:70].assign(patient_id=1), method="exact", progress=False)
    with pytest.raises(ValueError, match=r"the background's columns do not match .*missing \['s5'\]"):
        MarginalGame(fitted["pipeline"].predict, X.iloc[0], X.iloc[60:70].drop(columns="s5"))


def test_sparse_rows_are_refused(fitted, regression_frame):
    X, _ = regression_frame
    sparse = scipy.sparse.csr_matrix(X.iloc[:3].to_numpy())
    message = r"X is a sparse matrix \(csr_matrix\), which is not supported here: pass dense rows, e.g. X.toarray\(\)"
    with pytest.raises(TypeError, match=message): ProductKernelExplainer(fitted["svr"]).shap_values(sparse)
    with pytest.raises(TypeError, match=message): explain(fitted["svr"], sparse)
    with pytest.raises(TypeError, match=message): explain(fitted["pipeline"], sparse, data=X.iloc[60:70], budget=20)
    with pytest.raises(TypeError, match=r"data is a sparse matrix"):
        explain(fitted["pipeline"], X.iloc[:2], data=scipy.sparse.csr_matrix(X.iloc[60:70].to_numpy()), budget=20)
    with pytest.raises(TypeError, match=r"sparse columns \['bp'\]"):
        explain(fitted["svr"], X.iloc[:2].assign(bp=pd.arrays.SparseArray(X.bp.iloc[:2].to_numpy())))


def test_date_columns_are_refused_by_name(fitted, regression_frame):
    X, _ = regression_frame
    dated = X.iloc[:3].assign(bp=pd.to_datetime(["2024-01-01", "2024-02-01", "2024-03-01"]))
    for call in (lambda: explain(fitted["svr"], dated), lambda: ProductKernelExplainer(fitted["svr"])(dated),
                 lambda: explain(fitted["pipeline"], dated, data=X.iloc[60:70], method="exact"),
                 lambda: MarginalGame(fitted["pipeline"].predict, dated.iloc[0], X.iloc[60:70])):
        with pytest.raises(ValueError, match=r"date/time columns \['bp'\], which cannot be explained as they are"): call()


def test_complex_values_are_refused(fitted, regression_frame):
    X, _ = regression_frame
    Z = np.array([[True, False, True]])
    with pytest.raises(ValueError, match="the game returned complex values"): evaluate_game(lambda Z: Z.sum(1) + 0j, Z)
    with pytest.raises(ValueError, match="the game returned complex values"): exact_shapley(lambda Z: Z.sum(1) * (1 + 1j), 3)
    with pytest.raises(ValueError, match="the game returned complex values"): explain(lambda Z: Z.sum(1) + 1j, p=3)
    with pytest.raises(ValueError, match="the game returned complex values"): kernel_shap(lambda Z: Z.sum(1) + 1j, 3, 8, seed=0)
    with pytest.raises(ValueError, match=r"X has complex-valued columns \['bp'\]"):
        explain(fitted["svr"], X.iloc[:2].assign(bp=[1 + 1j, 2 + 0j]))
    with pytest.raises(ValueError, match="X holds complex values"): explain(fitted["svr"], X.iloc[:2].to_numpy() + 0j)
    with pytest.raises(ValueError, match="predict returned complex values"):
        MarginalGame(lambda A: A.sum(1) + 1j, np.zeros(3), np.ones((2, 3)))(Z)


# ==================================================================================================================
# 3. Missing values
# ==================================================================================================================
@pytest.fixture(scope="module")
def frame_with_holes():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(300, 4)), columns=["a", "b", "c", "d"])
    y = 2 * X.a + X.b * X.c + np.sin(X.d)
    X.loc[rng.random(300) < 0.2, "b"] = np.nan
    X.loc[rng.random(300) < 0.1, "d"] = np.nan
    return X, y


def test_nan_passes_to_histogram_gradient_boosting(frame_with_holes):
    "KernelSHAP with the whole budget equals exact enumeration of the same marginal game, NaN in rows and background."
    X, y = frame_with_holes
    model = HistGradientBoostingRegressor(max_iter=40, random_state=0).fit(X, y)
    rows = X[X.b.isna() | X.d.isna()].iloc[:3]
    background = X.iloc[200:215]
    assert rows.isna().any(axis=None) and background.isna().any(axis=None)
    seen_nan = []
    predict = lambda A: (seen_nan.append(bool(A.isna().any(axis=None))), model.predict(A))[1]
    exact = explain(predict, rows, data=background, method="exact", progress=False)
    assert any(seen_nan)                                                # the model saw the missing values
    sampled = explain(model, rows, data=background, method="kernelshap", budget=16, seed=0, progress=False)
    np.testing.assert_allclose(sampled.values, exact.values, rtol=0, atol=1e-9)
    for r in range(3):                                                  # and exact is the textbook sum
        truth, _ = brute_force_marginal(model.predict, rows.iloc[r], background)
        np.testing.assert_allclose(exact.values[r], truth, rtol=0, atol=1e-10)
    np.testing.assert_allclose(exact.efficiency_residual(model.predict(rows)), 0, atol=1e-10)


def test_nan_passes_to_xgboost_and_lightgbm(frame_with_holes):
    xgboost = pytest.importorskip("xgboost"); lightgbm = pytest.importorskip("lightgbm")
    X, y = frame_with_holes
    rows, background = X[X.b.isna()].iloc[:2], X.iloc[200:210]
    for model in (xgboost.XGBRegressor(n_estimators=20, max_depth=3).fit(X, y),
                  lightgbm.LGBMRegressor(n_estimators=20, verbose=-1).fit(X, y)):
        e = explain(model, rows, data=background, method="exact", progress=False)
        np.testing.assert_allclose(e.efficiency_residual(model.predict(rows)), 0, atol=1e-5)   # float32 models
        truth, _ = brute_force_marginal(model.predict, rows.iloc[0], background)
        np.testing.assert_allclose(e.values[0], truth, rtol=0, atol=1e-6)


def test_a_model_that_cannot_take_nan_gives_a_clear_error(frame_with_holes):
    X, _ = frame_with_holes
    with pytest.raises(ValueError, match="predict returned non-finite values .* the model must handle missing values"):
        exact_shapley(MarginalGame(lambda A: A.to_numpy().sum(1), X.iloc[[0]].fillna(0.0), X.iloc[:20]), 4)
    with pytest.raises(ValueError, match="infinite values in columns \\['a'\\]"):
        MarginalGame(lambda A: A.sum(1), X.iloc[[0]].assign(a=np.inf), X.iloc[:20])


# ==================================================================================================================
# 4. Categories
# ==================================================================================================================
@pytest.fixture(scope="module")
def categorical_lightgbm():
    lightgbm = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(2)
    n = 400
    X = pd.DataFrame({"colour": pd.Categorical(rng.choice(["red", "green", "blue"], n)), "size": rng.normal(size=n),
                      "store": pd.Categorical(rng.choice(["north", "south"], n)), "weight": rng.normal(size=n),
                      "grade": pd.Categorical(rng.choice(list("ABCD"), n)), "age": rng.normal(size=n)})
    y = (2.0 * (X.colour == "red") + X["size"] * (X.store == "north") + (X.grade == "A") * X.age
         + 0.1 * rng.normal(size=n))
    model = lightgbm.LGBMRegressor(n_estimators=30, min_child_samples=5, verbose=-1).fit(X, y)
    return model, X


@settings(max_examples=3, **SETTINGS)
@given(st.permutations(range(6)), st.permutations(range(6)))
def test_column_transformer_pipeline_is_exact_on_permuted_text_frames(categorical_lightgbm, order_x, order_b):
    "A ColumnTransformer (encoded text categories, scaled, dropped and passed columns) before a tree model: the brute force over its predict."
    from sklearn.compose import make_column_transformer
    from sklearn.impute import SimpleImputer
    from sklearn.preprocessing import OrdinalEncoder
    _, X = categorical_lightgbm
    text = X.astype({"colour": object, "store": object, "grade": object})
    text.loc[text.index % 13 == 0, "colour"] = np.nan
    y = 2.0 * (text.colour == "red") + text["size"] * (text.store == "north") + text.age
    encoded = make_column_transformer((make_pipeline(SimpleImputer(strategy="most_frequent"), OrdinalEncoder()), ["colour", "store"]),
                                      (StandardScaler(), ["age"]), ("drop", ["grade"]), remainder="passthrough")
    model = make_pipeline(encoded, HistGradientBoostingRegressor(max_iter=15, categorical_features=[0, 1])).fit(text, y)
    rows, background = text.iloc[:2], text.iloc[200:206]
    e = explain(model, rows.iloc[:, list(order_x)], data=background.iloc[:, list(order_b)])
    assert e.method == "tree" and e.feature_names == list(text.columns)
    for r in range(2):
        truth, _ = brute_force_marginal(model.predict, rows.iloc[r], background)
        np.testing.assert_allclose(e.values[r], truth, rtol=0, atol=1e-10)
    assert (e.values[:, list(text.columns).index("grade")] == 0).all()     # dropped: never read


def test_categorical_frame_through_the_model_agnostic_routes(categorical_lightgbm):
    "explain's exact and kernelshap routes on category columns = brute force over all 2^6 coalitions of model.predict."
    model, X = categorical_lightgbm
    rows, background = X.iloc[:3], X.iloc[100:106]
    exact = explain(model, rows, data=background, method="exact", progress=False)
    sampled = explain(model, rows, data=background, method="kernelshap", budget=64, seed=0, progress=False)
    shuffled = explain(model, rows[["age", "grade", "weight", "store", "size", "colour"]],
                       data=background[["store", "colour", "age", "size", "grade", "weight"]], method="exact", progress=False)
    for r in range(3):
        truth, cache = brute_force_marginal(model.predict, rows.iloc[r], background)
        assert len(cache) == 64
        np.testing.assert_allclose(exact.values[r], truth, rtol=0, atol=1e-10)
        np.testing.assert_allclose(sampled.values[r], truth, rtol=0, atol=1e-8)
        np.testing.assert_allclose(shuffled.values[r], truth, rtol=0, atol=1e-10)
    assert shuffled.feature_names == list(X.columns)


def test_hybrid_frames_keep_the_training_schema(categorical_lightgbm):
    model, X = categorical_lightgbm
    seen = []
    def predict(A):
        seen.append(A); return model.predict(A)
    explain(predict, X.iloc[:1], data=X.iloc[100:104], method="kernelshap", budget=20, seed=0, progress=False)
    assert seen and all(list(A.dtypes) == list(X.dtypes) for A in seen)
    assert all(list(A.colour.cat.categories) == list(X.colour.cat.categories) for A in seen)
    assert len(seen) <= 2                                              # whole batches, not one call per coalition


def test_unknown_categories_and_mismatched_dtypes_are_refused(categorical_lightgbm):
    model, X = categorical_lightgbm
    rows = X.iloc[:2].astype({"colour": str}).assign(colour=["red", "purple"])
    with pytest.raises(ValueError, match=r"X's column 'colour' has values \['purple'\] that are not categories"):
        explain(model, rows, data=X.iloc[100:106], method="exact", progress=False)
    same = X.iloc[:2].astype({"colour": str})                         # text in the rows, categories in the background
    a = explain(model, same, data=X.iloc[100:106], method="exact", progress=False)
    b = explain(model, X.iloc[:2], data=X.iloc[100:106], method="exact", progress=False)
    np.testing.assert_array_equal(a.values, b.values)


def test_hybrid_rows_against_row_by_row_construction(categorical_lightgbm):
    _, X = categorical_lightgbm
    x, background = X.iloc[[5]], X.iloc[10:14]
    Z = np.random.default_rng(0).random((7, 6)) < 0.5
    H = HybridRows(x, background)(Z)
    for r, z in enumerate(Z):
        for b in range(4):
            expected = [x.iloc[0, j] if z[j] else background.iloc[b, j] for j in range(6)]
            assert list(H.iloc[r * 4 + b]) == expected


# ==================================================================================================================
# 5. Misuse
# ==================================================================================================================
def test_a_models_predict_passed_as_a_game_warns(fitted):
    for call in (lambda: exact_shapley(fitted["svr"].predict, 5), lambda: explain(fitted["svr"].predict, p=5),
                 lambda: kernel_shap(fitted["pipeline"].predict, 5, 12, seed=0)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try: call()
            except ValueError: pass                                    # some models refuse 0/1 input anyway
        misuse = [w for w in caught if issubclass(w.category, ModelAsGameWarning)]
        assert misuse and "MarginalGame(model.predict, x, background)" in str(misuse[0].message)
        assert issubclass(ModelAsGameWarning, UserWarning)
    with pytest.raises(TypeError, match=r"not a callable game: .*MarginalGame\(model.predict, x, background\)"):
        exact_shapley(fitted["svr"], 5)


def test_budget_below_p_plus_one_warns_once(fitted, regression_frame):
    X, _ = regression_frame
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        explain(fitted["pipeline"], X.iloc[:3], data=X.iloc[60:70], budget=5, seed=0, progress=False)
    unidentified = [w for w in caught if "fewer evaluations than players: values are not identified" in str(w.message)]
    assert len(unidentified) == 1 and issubclass(unidentified[0].category, UnderdeterminedWarning)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        explain(lambda Z: Z.sum(1) * 1.0, p=8, method="kernelshap", budget=6, seed=0)
    assert sum("fewer evaluations than players" in str(w.message) for w in caught) == 1
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*fewer evaluations than players")
        explain(fitted["pipeline"], X.iloc[:1], data=X.iloc[60:70], budget=6, seed=0, progress=False)   # p + 1: enough


# ==================================================================================================================
# 6. Output names
# ==================================================================================================================
def test_output_names_come_from_classes(regression_frame):
    X, y = regression_frame
    labels = np.array(["low", "mid", "high"])[np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))]
    svc = SVC(decision_function_shape="ovo").fit(X, labels)
    e = explain(svc, X.iloc[:2])
    assert e.output_names == ["high vs low", "high vs mid", "low vs mid"]
    np.testing.assert_allclose(e[..., "high vs mid"].values.sum(1) + e[..., "high vs mid"].base_values,
                               svc.decision_function(X.iloc[:2])[:, 1], rtol=0, atol=1e-9)


# ==================================================================================================================
# 7. Trees
# ==================================================================================================================
# Real users' models and DataFrames through `TreeExplainer`, against independent references (tree part of issue 14).
#
# Every value is checked against something shapnb did not compute:
# * interventional values against a brute force over all 2^p coalitions of the model's own raw `predict` on hybrid rows
#   (x on the coalition, a background row elsewhere), built in the user's representation (frames with their categorical
#   columns, CSR rows, arrays with sentinels) and averaged over a small background;
# * path-dependent values against the library's own contributions (XGBoost `pred_contribs`, LightGBM `pred_contrib`,
#   CatBoost `get_feature_importance(type="ShapValues")`) where it has them;
# * efficiency, in both modes, against the model's raw output;
# * the "auto" default against shap's `TreeExplainer(model, data)`.
#
# Run `python tests/real_data_trees.py` to print the largest error of each case.

# --- data: a frame with NaN, a pandas categorical column with missing values, an integer column ---------------------

rng = np.random.default_rng(7)
N = 600
CITIES = ["oslo", "rome", "lima", "pune", "kyiv"]
FRAME = pd.DataFrame({"age": rng.normal(40, 10, N), "income": rng.lognormal(3, 0.5, N), "score": rng.normal(size=N),
                      "city": pd.Categorical(rng.choice(CITIES, N)), "kids": rng.integers(0, 4, N)})
FRAME.loc[rng.random(N) < 0.1, "age"] = np.nan
FRAME.loc[rng.random(N) < 0.05, "city"] = np.nan
TARGET = (0.05 * FRAME["age"].fillna(30) + FRAME["income"] / 20 + FRAME["score"] * FRAME["city"].isin(["oslo", "lima"])
          + 0.5 * FRAME["kids"] - 1.5 * FRAME["city"].eq("pune") + 0.1 * rng.normal(size=N)).to_numpy()
CLASS3 = np.digitize(TARGET, np.quantile(TARGET, [0.33, 0.66]))
NUMERIC = ["age", "income", "score", "kids"]


def with_unseen(frame, column="city", value="nuuk", row=1):
    "A copy of `frame` whose categorical `column` has a category unseen at fit in one row (and NaN in the next)."
    out = frame.copy()
    out[column] = out[column].cat.add_categories([value])
    out.loc[out.index[row], column] = value
    out.loc[out.index[row + 1], column] = np.nan
    return out


def as_text(frame):
    "CatBoost's view of the frame: the city as a string (missing -> 'none'), the rest as it is."
    return frame.assign(city=["none" if pd.isna(v) else str(v) for v in frame["city"]])


# --- independent references ------------------------------------------------------------------------------------------

def shapley_from_values(v: np.ndarray, p: int) -> np.ndarray:
    "Shapley values from the values v[mask] (..., k) of all 2^p coalitions (bit j of mask: feature j known)."
    phi = np.zeros((p,) + v.shape[1:])
    for j in range(p):
        for mask in range(2 ** p):
            if mask >> j & 1: continue
            s = bin(mask).count("1")
            phi[j] += math.factorial(s) * math.factorial(p - s - 1) / math.factorial(p) * (v[mask | 1 << j] - v[mask])
    return phi


def hybrid_rows(x, background, Z):
    "Rows (x on Z's features, background row b elsewhere), row r * n_b + b, in the representation of x."
    n_b = background.shape[0]
    take = np.where(Z[:, None, :], 0, 1 + np.arange(n_b)[None, :, None]).reshape(-1, Z.shape[1])   # 0: x, 1 + b: background
    if isinstance(x, pd.DataFrame):
        x, background = x.copy(), background.copy()
        for c in x.columns:                                                  # one dtype per column: the union of categories
            if isinstance(x[c].dtype, pd.CategoricalDtype):
                union = x[c].cat.categories.union(background[c].cat.categories)
                x[c], background[c] = x[c].cat.set_categories(union), background[c].cat.set_categories(union)
        pool = pd.concat([x, background], ignore_index=True)
        return pd.DataFrame({c: pool[c].take(take[:, j]).reset_index(drop=True) for j, c in enumerate(pool.columns)})
    if sps.issparse(x):                                                       # CSR: absent entries stay absent
        pool = sps.vstack([x, background]).tocsr()
        rows, cols, vals = [], [], []
        for r, source in enumerate(take):
            for j, s in enumerate(source):
                row = pool[s]
                hit = np.flatnonzero(row.indices == j)
                if len(hit): rows.append(r); cols.append(j); vals.append(row.data[hit[0]])
        return sps.csr_matrix((vals, (rows, cols)), shape=take.shape)
    pool = np.vstack([x, background])
    return pool[take, np.arange(Z.shape[1])[None, :]]


def brute_force(raw, x, background):
    "Interventional Shapley values (p, k) of one row: raw outputs of all 2^p hybrid rows averaged over the background."
    p = x.shape[1]
    Z = ((np.arange(2 ** p)[:, None] >> np.arange(p)[None, :]) & 1).astype(bool)
    out = np.asarray(raw(hybrid_rows(x, background, Z)), np.float64)
    out = out.reshape(2 ** p, background.shape[0], -1).mean(1)
    return shapley_from_values(out, p)


def row(X, i):
    "Row i of X, kept two-dimensional (a one-row frame or matrix)."
    return X.iloc[[i]] if isinstance(X, pd.DataFrame) else X[i:i + 1]


def as_npk(values, n, p):
    "Values (n, p) or (n, p, k) as (n, p, k)."
    return np.asarray(values).reshape(n, p, -1)


# --- the models, each with its raw output, its own contributions, rows and a background ---------------------------

def xgb_contribs(model, rows, missing=np.nan):
    "XGBoost's own path-dependent contributions (n, p+1) or (n, k, p+1), on the trees its predict uses."
    booster = model.get_booster()
    end = model.best_iteration + 1 if _early(model) else 0
    matrix = xgboost.DMatrix(rows, missing=missing, enable_categorical=True)
    return booster.predict(matrix, pred_contribs=True, iteration_range=(0, end))


def _early(model) -> bool:
    try: model.best_iteration; return True
    except AttributeError: return False


def contributions_npk(out, n, p):
    "A library's contributions (n, p+1), (n, k, p+1) or LightGBM's (n, k*(p+1)) as values (n, p, k) and bases (k,)."
    out = np.asarray(out)
    if out.ndim == 2 and out.shape[1] != p + 1: out = out.reshape(n, -1, p + 1)
    if out.ndim == 2: out = out[:, None, :]
    return np.transpose(out[:, :, :p], (0, 2, 1)), out[0, :, p]


def build(name):
    "A case: model, raw(model, rows), contribs(model, rows) or None, rows to explain, background, tolerance scale."
    f, y = FRAME, TARGET
    if name == "xgb_numeric_nan":
        m = xgboost.XGBRegressor(n_estimators=40, max_depth=4).fit(f[NUMERIC], y)
        return m, lambda m, r: m.predict(r, output_margin=True), xgb_contribs, f[NUMERIC][:3], f[NUMERIC][100:106], 1e-5
    if name == "xgb_categorical":                                             # partition splits on a pandas category
        m = xgboost.XGBRegressor(n_estimators=40, max_depth=4, enable_categorical=True, tree_method="hist",
                                 max_cat_to_onehot=1).fit(f, y)
        return m, lambda m, r: m.predict(r, output_margin=True), xgb_contribs, f[:4], f[100:106], 1e-5
    if name == "xgb_categorical_onehot_3class":
        m = xgboost.XGBClassifier(n_estimators=15, max_depth=3, enable_categorical=True, tree_method="hist",
                                  max_cat_to_onehot=8).fit(f, CLASS3)
        return m, lambda m, r: m.predict(r, output_margin=True), xgb_contribs, f[:3], f[100:105], 1e-5
    if name == "lgbm_categorical":
        m = lightgbm.LGBMRegressor(n_estimators=40, num_leaves=12, min_data_per_group=5, cat_smooth=1, verbose=-1).fit(f, y)
        return (m, lambda m, r: m.predict(r, raw_score=True), lambda m, r: m.predict(r, pred_contrib=True),
                with_unseen(f[:4]), f[100:106], 1e-9)
    if name == "hgb_categorical":                                             # bitset splits through the ordinal encoder
        m = HistGradientBoostingRegressor(max_iter=40, random_state=0).fit(f, y)
        assert m.is_categorical_.tolist() == [False, False, False, True, False]
        return m, lambda m, r: m.predict(r), None, with_unseen(f[:4]), f[100:106], 1e-9
    if name == "hgb_categorical_array_3class":                                # categorical_features on an integer column
        Xa = f[NUMERIC].to_numpy()
        m = HistGradientBoostingClassifier(max_iter=15, categorical_features=[3], random_state=0).fit(Xa, CLASS3)
        rows = Xa[:4].copy(); rows[1, 3] = 7; rows[2, 3] = np.nan                    # unseen and missing categories
        return m, lambda m, r: m.decision_function(r), None, rows, Xa[100:106], 1e-9
    if name == "catboost_numeric":
        m = catboost.CatBoostRegressor(iterations=40, depth=4, verbose=0, allow_writing_files=False, random_seed=0,
                                       nan_mode="Max").fit(f[NUMERIC], y)
        return (m, lambda m, r: m.predict(r, prediction_type="RawFormulaVal"),
                lambda m, r: m.get_feature_importance(catboost.Pool(r), type="ShapValues"), f[NUMERIC][:4], f[NUMERIC][100:106], 1e-9)
    if name == "catboost_onehot":                                             # strings and integers, one-hot
        g = as_text(f)
        m = catboost.CatBoostRegressor(iterations=40, depth=4, verbose=0, allow_writing_files=False, random_seed=0,
                                       cat_features=["city", "kids"], one_hot_max_size=10).fit(g, y)
        rows = g[:4].copy(); rows.loc[1, "city"] = "nuuk"; rows.loc[2, "kids"] = 9
        return (m, lambda m, r: m.predict(r, prediction_type="RawFormulaVal"),
                lambda m, r: m.get_feature_importance(catboost.Pool(r, cat_features=["city", "kids"]), type="ShapValues"),
                rows, g[100:106], 1e-9)
    if name == "catboost_onehot_3class":
        g = as_text(f)
        m = catboost.CatBoostClassifier(iterations=15, depth=3, verbose=0, allow_writing_files=False, random_seed=0,
                                        cat_features=["city"], one_hot_max_size=10).fit(g, CLASS3)
        return (m, lambda m, r: m.predict(r, prediction_type="RawFormulaVal"),
                lambda m, r: m.get_feature_importance(catboost.Pool(r, cat_features=["city"]), type="ShapValues"),
                g[:3], g[100:105], 1e-9)
    if name == "sklearn_forest_nan":
        m = RandomForestRegressor(n_estimators=10, max_depth=6, random_state=0).fit(f[NUMERIC], y)
        return m, lambda m, r: m.predict(r), None, f[NUMERIC][:3], f[NUMERIC][100:106], 1e-9
    raise KeyError(name)


CASES = ["xgb_numeric_nan", "xgb_categorical", "xgb_categorical_onehot_3class", "lgbm_categorical", "hgb_categorical",
         "hgb_categorical_array_3class", "catboost_numeric", "catboost_onehot", "catboost_onehot_3class", "sklearn_forest_nan"]
_BUILT = {}


def case(name):
    if name not in _BUILT: _BUILT[name] = build(name)
    return _BUILT[name]


def scale_of(model, raw, rows):
    return max(1.0, float(np.abs(np.asarray(raw(model, rows))).max()))


# --- the measurements (each returns the largest error; the tests bound it) ------------------------------------------

def interventional_error(name) -> float:
    "max |ours - brute force over 2^p coalitions of predict|, and of efficiency against predict."
    model, raw, _, rows, background, _ = case(name)
    explainer = TreeExplainer(model, background)
    assert explainer.feature_perturbation == "interventional"                 # the "auto" default with data
    n, p = rows.shape
    phi = as_npk(explainer.shap_values(rows), n, p)
    errors = [np.abs(phi[i] - brute_force(lambda r: raw(model, r), row(rows, i), background)).max() for i in range(n)]
    efficiency = np.asarray(explainer.expected_value).reshape(1, -1) + phi.sum(1) - np.asarray(raw(model, rows)).reshape(n, -1)
    return max(max(errors), float(np.abs(efficiency).max()))


def path_dependent_error(name) -> float:
    "max |ours - the library's own contributions| (where it has them), and of efficiency against predict."
    model, raw, contribs, rows, _, _ = case(name)
    explainer = TreeExplainer(model)
    assert explainer.feature_perturbation == "tree_path_dependent"
    n, p = rows.shape
    phi = as_npk(explainer.shap_values(rows), n, p)
    efficiency = np.asarray(explainer.expected_value).reshape(1, -1) + phi.sum(1) - np.asarray(raw(model, rows)).reshape(n, -1)
    error = float(np.abs(efficiency).max())
    if contribs is not None:
        theirs, base = contributions_npk(contribs(model, rows), n, p)
        error = max(error, float(np.abs(phi - theirs).max()), float(np.abs(np.atleast_1d(explainer.expected_value) - base).max()))
    return error


@pytest.mark.parametrize("name", CASES)
def test_interventional_against_brute_force_of_predict(name):
    model, raw, _, rows, _, tol = case(name)
    assert interventional_error(name) < tol * scale_of(model, raw, rows)


@pytest.mark.parametrize("name", CASES)
def test_path_dependent_against_the_library_and_predict(name):
    model, raw, _, rows, _, tol = case(name)
    assert path_dependent_error(name) < tol * scale_of(model, raw, rows)


@pytest.mark.parametrize("name", ["lgbm_categorical", "hgb_categorical"])
def test_explain_takes_a_category_the_background_lacks_on_the_tree_route(name):
    "A category unseen in data (and at fit): the tree route reads it as the model does; the marginal-game routes refuse it."
    model, raw, _, rows, background, tol = case(name)
    assert "nuuk" in set(rows["city"].dropna()) and "nuuk" not in set(background["city"].dropna())
    e = explain(model, rows, data=background, progress=False)
    assert e.method == "tree"
    expected = TreeExplainer(model, background).shap_values(rows)
    np.testing.assert_allclose(e.values, expected, rtol=0, atol=1e-12 * scale_of(model, raw, rows))
    assert np.abs(interventional_error(name)) < tol * scale_of(model, raw, rows)    # and those values are the brute force's
    with pytest.raises(ValueError, match=r"values \['nuuk'\] that are not categories of data's"):
        explain(model, rows, data=background, method="exact", progress=False)


def test_model_agnostic_frames_matched_by_name_not_position():
    "A Series background, a bound method of a model without names, feature_names beside LightGBM-style spellings."
    frame = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [10.0, 20, 30, 40], "c": [100.0, 200, 300, 400]})
    total = lambda T: T["a"].to_numpy() + T["b"].to_numpy() + T["c"].to_numpy()
    e = explain(total, frame.iloc[:1], data=frame.iloc[3][["c", "a", "b"]], method="exact", progress=False)
    assert e.feature_names == ["c", "a", "b"]                                           # a function: data's order
    np.testing.assert_allclose(e.values[0], [-300.0, -3.0, -30.0], atol=1e-12)        # read by position it was [-399, 6, 60]
    A = np.random.default_rng(0).normal(size=(50, 3))
    linear = LinearRegression().fit(A, A @ [1.0, 10.0, 100.0])                          # no names: it reads by position
    rows, background = pd.DataFrame(A[:2], columns=list("abc")), pd.DataFrame(A[10:20][:, [2, 0, 1]], columns=list("cab"))
    with pytest.raises(ValueError, match="X must be one row"):                           # X is checked before the model is converted
        explain(GradientBoostingRegressor(), "not rows", data=background)
    np.testing.assert_allclose(explain(total, frame.iloc[:1], data=pd.Series([4.0, 40, 400]), method="exact",
                                       progress=False).values[0], [-3.0, -30.0, -300.0], atol=1e-12)   # no labels: by position
    for model in (linear, linear.predict):                                               # a bound method stands for its model
        with pytest.raises(ValueError, match="reads its features by position"):
            explain(model, rows, data=background, method="exact", progress=False)
    D = pd.DataFrame(np.random.default_rng(1).normal(size=(10, 3)), columns=["a_b", "c", "d"])
    weighted = lambda T: T["a_b"].to_numpy() + 10 * T["c"].to_numpy() + 100 * T["d"].to_numpy()
    spaced = D.iloc[:2][["d", "a_b", "c"]].rename(columns={"a_b": "a b"})              # LightGBM's spelling differs
    e = explain(weighted, spaced, data=D.iloc[2:], method="exact", progress=False, feature_names=["D", "AB", "C"])
    assert e.feature_names == ["AB", "C", "D"]                                          # the user's names, in data's order
    np.testing.assert_allclose(e.values[:, 0], D["a_b"].iloc[:2] - D["a_b"].iloc[2:].mean(), atol=1e-12)


def test_explanation_names_are_the_frames_own_spelling():
    "LightGBM stores 'f a' as 'f_a'; explainer(X) labels the values as the frame does (as explain and shap do)."
    frame = pd.DataFrame(np.random.default_rng(0).normal(size=(200, 3)), columns=["f a", "b", "c d"])
    model = lightgbm.LGBMRegressor(n_estimators=5, verbose=-1).fit(frame, frame["f a"] + frame["b"])
    explainer = TreeExplainer(model)
    assert explainer.feature_names == ["f_a", "b", "c_d"]                       # the model's own names, for shap_values
    e = explainer(frame.iloc[:3][["b", "c d", "f a"]])                         # matched by name (its Explanation: no warning)
    assert e.feature_names == ["f a", "b", "c d"] == explain(model, frame.iloc[:3]).feature_names
    np.testing.assert_array_equal(e[:, "f a"].values, explainer.shap_values(frame.iloc[:3])[:, 0])


def test_lightgbm_random_forest_mode_says_it_explains_the_mean():
    "boosting_type='rf': predict is the mean of the trees (explained), raw_score and shap the sum; the explainer says so."
    frame = FRAME[NUMERIC].fillna(0)
    model = lightgbm.LGBMRegressor(boosting_type="rf", n_estimators=8, bagging_fraction=0.7, bagging_freq=1,
                                   verbose=-1).fit(frame, TARGET)
    with pytest.warns(UserWarning, match="random-forest mode: its predict is the mean of its 8 trees"):
        explainer = TreeExplainer(model)
    phi = explainer.shap_values(frame[:5])
    np.testing.assert_allclose(explainer.expected_value + phi.sum(1), model.predict(frame[:5]), atol=1e-9)
    np.testing.assert_allclose(8 * (explainer.expected_value + phi.sum(1)), model.predict(frame[:5], raw_score=True), atol=1e-8)


# --- XGBoost: early stopping, missing sentinels, CSR training ------------------------------------------------------

def _stopped():
    X = FRAME[NUMERIC]
    model = xgboost.XGBRegressor(n_estimators=400, max_depth=3, learning_rate=0.4, early_stopping_rounds=3).fit(
        X[:400], TARGET[:400], eval_set=[(X[400:], TARGET[400:])], verbose=False)
    assert model.best_iteration + 1 < model.get_booster().num_boosted_rounds()    # trees after the best one exist
    return model, X


def early_stopping_error() -> float:
    "Both modes: efficiency against predict (best iteration), path-dependent against pred_contribs on the same trees."
    model, X = _stopped()
    margin = model.predict(X[:50], output_margin=True)
    errors = []
    for data in (None, X[500:510]):
        explainer = TreeExplainer(model, data)
        errors.append(np.abs(explainer.expected_value + explainer.shap_values(X[:50]).sum(1) - margin).max())
    theirs = xgb_contribs(model, X[:50])
    errors.append(np.abs(TreeExplainer(model).shap_values(X[:50]) - theirs[:, :-1]).max())
    ranged = TreeExplainer(model, iteration_range=(0, 3))                     # XGBoost's iteration_range
    errors.append(np.abs(ranged.shap_values(X[:50]) - model.get_booster().predict(
        xgboost.DMatrix(X[:50]), pred_contribs=True, iteration_range=(0, 3))[:, :-1]).max())
    return float(max(errors))


def test_xgboost_early_stopping_explains_the_trees_predict_uses():
    model, X = _stopped()
    every_tree = model.predict(X[:50], output_margin=True, iteration_range=(0, model.get_booster().num_boosted_rounds()))
    assert np.abs(every_tree - model.predict(X[:50], output_margin=True)).max() > 1e-3   # explaining all trees would show
    assert early_stopping_error() < 1e-5 * max(1.0, np.abs(every_tree).max())


def test_xgboost_dart_weighs_each_tree_as_predict_does():
    "DART: predict weighs every tree by its weight_drop; both modes explain that weighted sum (pred_contribs, brute force)."
    X = FRAME[NUMERIC]
    model = xgboost.XGBRegressor(booster="dart", rate_drop=0.4, n_estimators=30, max_depth=3).fit(X[:400], TARGET[:400])
    weights = json.loads(model.get_booster().save_raw("json"))["learner"]["gradient_booster"]["weight_drop"]
    assert min(weights) < 0.9                                                   # unweighted trees would show
    margin = model.predict(X[:20], output_margin=True)
    path = TreeExplainer(model)
    assert np.abs(path.expected_value + path.shap_values(X[:20]).sum(1) - margin).max() < 1e-5
    assert np.abs(path.shap_values(X[:20]) - xgb_contribs(model, X[:20])[:, :-1]).max() < 1e-5
    background = X[500:530]
    values = TreeExplainer(model, background).shap_values(X[:3])
    for i in range(3):
        truth, _ = brute_force_marginal(lambda rows: model.predict(rows, output_margin=True), X.iloc[i], background)
        assert np.abs(values[i] - truth).max() < 1e-5


def test_xgboost_pruned_nodes_stay_out_of_the_interventional_walk():
    "tree_method='exact' with gamma prunes nodes that stay in the arrays, reached by no row: both modes as predict and brute force."
    rng = np.random.default_rng(14)
    X = rng.normal(size=(300, 4)); y = X[:, 0] * 2 + X[:, 1] ** 2 + rng.normal(size=300) * 0.5
    model = xgboost.XGBRegressor(n_estimators=20, max_depth=4, tree_method="exact", gamma=1.0).fit(X, y)
    trees = json.loads(model.get_booster().save_raw("json"))["learner"]["gradient_booster"]["model"]["trees"]
    assert sum(int(t["tree_param"]["num_deleted"]) for t in trees) > 0                # pruned nodes are in the arrays
    margin = model.predict(X[:10], output_margin=True)
    for data in (None, X[:40]):
        explainer = TreeExplainer(model, data)
        assert np.abs(explainer.expected_value + explainer.shap_values(X[:10]).sum(1) - margin).max() < 1e-5
    frame = pd.DataFrame(X, columns=list("abcd"))
    values = TreeExplainer(model, X[:40]).shap_values(X[:2])
    for i in range(2):
        truth, _ = brute_force_marginal(lambda rows: model.predict(rows.to_numpy(), output_margin=True), frame.iloc[i], frame[:40])
        assert np.abs(values[i] - truth).max() < 1e-5


def _sentinel_model(sentinel):
    X = np.abs(FRAME[NUMERIC].fillna(1.0).to_numpy()) + 1.0
    X[np.random.default_rng(11).random(X.shape) < 0.25] = sentinel
    missing = X == sentinel                                                    # the sentinel marks a missing value
    y = np.where(missing[:, 0], 2.0, X[:, 0] / 20) + 3.0 * missing[:, 1] + np.where(missing[:, 2], -1.0, X[:, 2])
    return xgboost.XGBRegressor(n_estimators=30, max_depth=4, missing=sentinel).fit(X, y), X


def sentinel_error(sentinel) -> float:
    "Both modes: efficiency, pred_contribs (DMatrix with the sentinel), brute force of predict on hybrid arrays."
    model, X = _sentinel_model(sentinel)
    rows, background = X[:3], X[100:106]
    margin = model.predict(rows, output_margin=True)
    path, inter = TreeExplainer(model), TreeExplainer(model, background)
    errors = [np.abs(path.expected_value + path.shap_values(rows).sum(1) - margin).max(),
              np.abs(inter.expected_value + inter.shap_values(rows).sum(1) - margin).max(),
              np.abs(path.shap_values(rows) - xgb_contribs(model, rows, missing=sentinel)[:, :-1]).max()]
    phi = inter.shap_values(rows)
    for i in range(len(rows)):
        truth = brute_force(lambda r: model.predict(r, output_margin=True), rows[i:i + 1], background)[:, 0]
        errors.append(np.abs(phi[i] - truth).max())
    return float(max(errors))


@pytest.mark.parametrize("sentinel", [0.0, -999.0])
def test_xgboost_missing_sentinel_takes_the_default_branch(sentinel):
    model, X = _sentinel_model(sentinel)
    assert (X[:3] == sentinel).any()
    assert sentinel_error(sentinel) < 1e-5 * max(1.0, np.abs(model.predict(X[:3], output_margin=True)).max())


def _csr_model():
    X = np.abs(FRAME[NUMERIC].fillna(1.0).to_numpy()) + 1.0
    X[np.random.default_rng(12).random(X.shape) < 0.35] = 0.0
    y = X[:, 0] / 20 + 4.0 * (X[:, 1] == 0) + X[:, 2]
    csr = sps.csr_matrix(X)
    return xgboost.XGBRegressor(n_estimators=30, max_depth=4).fit(csr, y), csr


def csr_error() -> float:
    "A model fitted on CSR, explained on CSR rows: absent entries are missing, as in its predict."
    model, csr = _csr_model()
    rows, background = csr[:3], csr[100:106]
    margin = model.predict(rows, output_margin=True)
    path, inter = TreeExplainer(model), TreeExplainer(model, background)
    errors = [np.abs(path.expected_value + path.shap_values(rows).sum(1) - margin).max(),
              np.abs(inter.expected_value + inter.shap_values(rows).sum(1) - margin).max(),
              np.abs(path.shap_values(rows) - xgb_contribs(model, rows)[:, :-1]).max()]
    phi = inter.shap_values(rows)
    for i in range(3):
        truth = brute_force(lambda r: model.predict(r, output_margin=True), rows[i], background)[:, 0]
        errors.append(np.abs(phi[i] - truth).max())
    return float(max(errors))


def test_xgboost_fitted_on_csr_explained_on_csr_rows():
    model, csr = _csr_model()
    dense = csr[:50].toarray()                                                 # on dense rows an explicit 0 is a value
    assert np.abs(model.predict(csr[:50], output_margin=True) - model.predict(dense, output_margin=True)).max() > 0.1
    assert csr_error() < 1e-5 * max(1.0, np.abs(model.predict(csr[:3], output_margin=True)).max())


# --- refusals, each message pinned ----------------------------------------------------------------------------------

def test_lightgbm_linear_tree_is_refused():
    model = lightgbm.LGBMRegressor(n_estimators=3, linear_tree=True, verbose=-1).fit(FRAME[["income", "score"]], TARGET)
    with pytest.raises(ValueError, match=r"LightGBM models with linear_tree=True \(a linear model in every leaf\) are not "
                                         r"supported: their leaves are not constants; refit with linear_tree=False"):
        TreeExplainer(model)


def test_xgboost_multi_output_tree_is_explained():
    "Vector-leaf trees (one split for every target) on a frame: both modes add up to XGBoost's margins of every target."
    frame = FRAME[["income", "score"]]
    model = xgboost.XGBRegressor(n_estimators=3, tree_method="hist", multi_strategy="multi_output_tree").fit(frame, np.c_[TARGET, -TARGET])
    margin = model.predict(frame.iloc[:20], output_margin=True)
    for explainer in (TreeExplainer(model), TreeExplainer(model, frame.iloc[20:60])):
        phi = explainer.shap_values(frame.iloc[:20])
        assert phi.shape == (20, 2, 2)
        np.testing.assert_allclose(phi.sum(1) + explainer.expected_value, margin, atol=1e-5 * np.abs(margin).max())


def test_catboost_ctr_features_match_catboost():
    "Categories encoded by target statistics (CatBoost's default for more than one_hot_max_size of them), one per feature."
    frame = as_text(FRAME)
    model = catboost.CatBoostRegressor(iterations=30, depth=4, verbose=0, allow_writing_files=False, random_seed=0, thread_count=1,
                                       cat_features=["city"], max_ctr_complexity=1).fit(frame, TARGET)
    rows = frame.iloc[:20].copy()
    rows.loc[rows.index[0], "city"] = "atlantis"                  # unseen: the prior's statistic
    path = TreeExplainer(model)
    theirs = model.get_feature_importance(catboost.Pool(rows, cat_features=["city"]), type="ShapValues")
    np.testing.assert_allclose(path.shap_values(rows), theirs[:, :-1], atol=1e-10)
    inter = TreeExplainer(model, frame.iloc[100:140])
    raw = model.predict(rows, prediction_type="RawFormulaVal")
    np.testing.assert_allclose(inter.shap_values(rows).sum(1) + inter.expected_value, raw, atol=1e-10)


@pytest.mark.parametrize("setting", ["Buckets", "BinarizedTargetMeanValue", "Counter", "multiclass", "init_model", "sum_models", "saved"])
def test_catboost_ctr_settings(setting, tmp_path):
    "Other statistics, a multiclass model with one prior, a continued, a summed and a reloaded model: CatBoost's own ShapValues and raw output."
    frame = as_text(FRAME)
    fit = dict(iterations=30, depth=4, verbose=0, allow_writing_files=False, random_seed=0, thread_count=1, cat_features=["city", "kids"],
               max_ctr_complexity=1)
    if setting == "multiclass":
        model = catboost.CatBoostClassifier(loss_function="MultiClass", simple_ctr=["Borders:Prior=0.5/1"], **fit).fit(frame, CLASS3)
    else:
        model = catboost.CatBoostRegressor(**fit, **({"simple_ctr": [setting]} if setting[0].isupper() else {})).fit(frame, TARGET)
    if setting == "init_model": model = catboost.CatBoostRegressor(**fit).fit(frame, TARGET, init_model=model)
    if setting == "sum_models": model = catboost.sum_models([model, catboost.CatBoostRegressor(**{**fit, "random_seed": 1}).fit(frame, TARGET)])
    if setting == "saved":
        model.save_model(str(tmp_path / "m.cbm"))
        model = catboost.CatBoostRegressor(); model.load_model(str(tmp_path / "m.cbm"))
    rows = frame.iloc[:15].copy()
    rows.loc[rows.index[0], "city"] = "atlantis"; rows.loc[rows.index[1], "kids"] = 99   # unseen: the priors' statistics
    raw = np.reshape(model.predict(rows, prediction_type="RawFormulaVal"), (len(rows), -1))
    theirs = model.get_feature_importance(catboost.Pool(rows, cat_features=["city", "kids"]), type="ShapValues")
    path = TreeExplainer(model).shap_values(rows)
    np.testing.assert_allclose(np.reshape(path, (len(rows), FRAME.shape[1], -1)),
                               theirs[:, :-1, None] if theirs.ndim == 2 else np.moveaxis(theirs[:, :, :-1], 1, 2), atol=1e-10)
    inter = TreeExplainer(model, frame.iloc[100:130])
    phi = np.reshape(inter.shap_values(rows), (len(rows), FRAME.shape[1], -1))
    np.testing.assert_allclose(phi.sum(1) + inter.expected_value, raw, atol=1e-10)


@pytest.mark.parametrize("loss", ["MultiRMSE", "MultiLogloss"])
def test_catboost_ctr_several_targets_follow_the_model(loss):
    "Several targets with one-feature target statistics by borders: CatBoost's JSON export does not carry them faithfully (a model reloaded from it routes rows otherwise), so their bins are read off the model itself; the values add up to CatBoost's own raw output and match the brute force."
    frame = as_text(FRAME)
    fit = dict(iterations=60, depth=5, verbose=0, allow_writing_files=False, random_seed=0, thread_count=1, cat_features=["city", "kids"],
               max_ctr_complexity=1, simple_ctr=["Borders:Prior=0.5/1"], loss_function=loss)
    targets = np.c_[TARGET, -TARGET + FRAME["score"]] if loss == "MultiRMSE" else np.c_[TARGET > np.median(TARGET), FRAME["score"] > 0].astype(int)
    model = (catboost.CatBoostRegressor if loss == "MultiRMSE" else catboost.CatBoostClassifier)(**fit).fit(frame, targets)
    rows = frame.iloc[:12]
    raw = lambda R: np.reshape(model.predict(R, prediction_type="RawFormulaVal"), (len(R), -1))
    path = TreeExplainer(model)
    np.testing.assert_allclose(as_npk(path.shap_values(rows), 12, 5).sum(1) + path.expected_value, raw(rows), atol=1e-10)
    inter = TreeExplainer(model, frame.iloc[100:115])
    phi = as_npk(inter.shap_values(rows), 12, 5)
    for i in (0, 5):
        np.testing.assert_allclose(phi[i], brute_force(raw, rows.iloc[[i]], frame.iloc[100:115]), atol=1e-10)
    grown = (catboost.CatBoostRegressor if loss == "MultiRMSE" else catboost.CatBoostClassifier)(grow_policy="Depthwise", **fit).fit(frame, targets)
    with pytest.raises(ValueError, match=r"non-symmetric CatBoost model with loss .*several targets.*one target's output at a time"):
        TreeExplainer(grown)                                       # no tree shows each node's way there: refused, not guessed


def test_catboost_ctr_pandas_categorical_column():
    "A pandas categorical column fitted as CatBoost's categorical feature, an unseen level added to the rows' categories."
    frame = as_text(FRAME).astype({"city": "category"})
    model = catboost.CatBoostRegressor(iterations=30, depth=4, verbose=0, allow_writing_files=False, random_seed=0, thread_count=1,
                                       cat_features=["city"], max_ctr_complexity=1).fit(frame, TARGET)
    rows = frame.iloc[:20].copy()
    rows["city"] = rows["city"].cat.add_categories(["atlantis"])
    rows.loc[rows.index[0], "city"] = "atlantis"
    theirs = model.get_feature_importance(catboost.Pool(rows, cat_features=["city"]), type="ShapValues")
    np.testing.assert_allclose(TreeExplainer(model).shap_values(rows), theirs[:, :-1], atol=1e-10)
    inter = TreeExplainer(model, frame.iloc[100:140])
    raw = model.predict(rows, prediction_type="RawFormulaVal")
    np.testing.assert_allclose(inter.shap_values(rows).sum(1) + inter.expected_value, raw, atol=1e-10)


@pytest.mark.parametrize("setting", ["regressor", "classifier", "multiclass", "nan_max", "ctr_complexity_2", "counter", "multirmse"])
def test_catboost_ctr_combinations_are_exact(setting):
    "CatBoost's default statistics of feature combinations (two categorical features, floats with NaN): notebook 12c's route, against brute force of the model's predict."
    frame = as_text(FRAME)
    fit = dict(iterations=200, depth=6, verbose=0, allow_writing_files=False, random_seed=3, thread_count=1, cat_features=["city", "kids"])
    fit |= {"nan_max": dict(nan_mode="Max"), "ctr_complexity_2": dict(max_ctr_complexity=2), "counter": dict(simple_ctr=["Counter"], combinations_ctr=["Counter"])}.get(setting, {})
    if setting == "classifier": model = catboost.CatBoostClassifier(**fit).fit(frame, TARGET > np.median(TARGET))
    elif setting == "multiclass": model = catboost.CatBoostClassifier(**fit).fit(frame, CLASS3)
    elif setting == "multirmse":   # several targets: the export does not carry their statistics faithfully, the model's own routing does
        model = catboost.CatBoostRegressor(loss_function="MultiRMSE", **fit).fit(frame, np.c_[TARGET, FRAME["score"] - TARGET])
    else: model = catboost.CatBoostRegressor(**fit).fit(frame, TARGET)
    with pytest.raises(ValueError, match=r"TreeExplainer\(model\) explains this model exactly by its groups of splits"):
        tree_ensemble(model)                                        # notebook 10's per-feature route refuses it, saying where to go
    explainer = TreeExplainer(model, frame.iloc[300:320])
    assert type(explainer).__name__ == "GroupedTreeExplainer" and explainer.ensemble.combinations
    rows = frame.iloc[[0, 7, 11]].copy()
    rows.loc[rows.index[0], "city"] = "atlantis"                    # unseen at fit
    raw = lambda R: model.predict(R, prediction_type="RawFormulaVal")
    phi = as_npk(explainer.shap_values(rows[list(reversed(rows.columns))]), 3, 5)   # a frame in another order: matched by name
    for i in range(3):
        np.testing.assert_allclose(phi[i], brute_force(raw, rows.iloc[[i]], frame.iloc[300:320]), atol=1e-10)
    path = TreeExplainer(model)
    many = frame.iloc[:200]
    total = as_npk(path.shap_values(many), 200, 5).sum(1) + path.expected_value
    np.testing.assert_allclose(total, np.reshape(raw(many), total.shape), atol=1e-9)


def test_catboost_text_features_are_refused_by_name():
    frame = FRAME[["income", "score"]].assign(note=["good day" if t > 3 else "bad luck" for t in TARGET])
    model = catboost.CatBoostRegressor(iterations=5, depth=3, verbose=0, allow_writing_files=False, random_seed=0,
                                       text_features=["note"]).fit(frame, TARGET)
    with pytest.raises(ValueError, match=r"CatBoost models with text or embedding features are not supported"):
        TreeExplainer(model)


@pytest.mark.parametrize("kids_values", [4, 3])   # kids beyond the stored list's 3 categories, and within them
def test_lightgbm_ordered_categorical_beside_a_declared_categorical_column(kids_values):
    "An ordered pandas categorical (LightGBM: its codes as numbers) and an integer column declared categorical: the stored"
    "category list belongs to the first, the categorical feature is the second; values against LightGBM's own contributions."
    rng = np.random.default_rng(1)
    n = 400
    frame = pd.DataFrame({"a": rng.normal(size=n),
                          "level": pd.Categorical(rng.choice(["lo", "mid", "hi"], n), categories=["lo", "mid", "hi"], ordered=True),
                          "kids": rng.integers(0, kids_values, n)})
    y = frame["a"] + frame["level"].cat.codes - 2.0 * (frame["kids"] == 2)
    model = lightgbm.LGBMRegressor(n_estimators=20, verbose=-1, min_data_per_group=5).fit(frame, y, categorical_feature=["kids"])
    rows, background = frame.iloc[:20], frame.iloc[200:230]
    theirs = model.predict(rows, pred_contrib=True)
    np.testing.assert_allclose(TreeExplainer(model).shap_values(rows), theirs[:, :-1], atol=1e-9)
    inter = TreeExplainer(model, background)
    phi = inter.shap_values(rows)
    np.testing.assert_allclose(inter.expected_value + phi.sum(1), model.predict(rows, raw_score=True), atol=1e-9)
    truth = brute_force(lambda r: model.predict(r, raw_score=True), rows.iloc[:1], background)[:, 0]
    np.testing.assert_allclose(phi[0], truth, atol=1e-9)
    if kids_values == 3:   # the stored list could be kids' as well as level's: a row without dtypes cannot be read by value
        with pytest.raises(ValueError, match=r"categorical features cannot be matched by value: pass the row as a one-row DataFrame"):
            TreeExplainer(model).shap_values(frame.iloc[0])


def test_lightgbm_categorical_left_out_of_categorical_feature():
    "A pandas categorical left out of categorical_feature= (LightGBM reads its codes as numbers) beside a declared integer"
    "column with as many values as it has categories: frames match LightGBM's own contributions, a Series is refused."
    rng = np.random.default_rng(19)
    n = 600
    frame = pd.DataFrame({"a": rng.normal(size=n), "col": pd.Categorical(rng.choice([10, 20, 30, 40], n)),
                          "icat": rng.integers(0, 4, n), "c": rng.normal(size=n)})
    y = frame.a + 2.0 * (frame.col == 20) + np.array([0, 3, -2, 1])[frame.icat] + frame.c
    model = lightgbm.LGBMRegressor(n_estimators=15, verbose=-1, min_data_per_group=5, cat_smooth=1).fit(
        frame, y, categorical_feature=["icat"])
    explainer = TreeExplainer(model)
    np.testing.assert_allclose(explainer.shap_values(frame.iloc[:30]), model.predict(frame.iloc[:30], pred_contrib=True)[:, :-1],
                               atol=1e-9)
    with pytest.raises(ValueError, match=r"categorical features cannot be matched by value"):
        explainer.shap_values(frame.iloc[0])


def test_library_containers_are_refused_by_name():
    model = xgboost.XGBRegressor(n_estimators=3).fit(FRAME[["income", "score"]], TARGET)
    with pytest.raises(TypeError, match=r"X is a xgboost.DMatrix, whose rows cannot be read: pass the array or DataFrame"):
        TreeExplainer(model).shap_values(xgboost.DMatrix(FRAME[["income", "score"]][:3]))
    with pytest.raises(TypeError, match=r"data is a catboost.Pool, whose rows cannot be read"):
        TreeExplainer(model, catboost.Pool(FRAME[["income", "score"]][:3]))


def test_refusals_of_rows():
    xgb = case("xgb_categorical")[0]
    hgb = case("hgb_categorical")[0]
    cb = case("catboost_onehot")[0]
    frame = FRAME[:5]
    with pytest.raises(ValueError, match=r"X's columns do not match the model's features .*: missing \['kids'\]; "
                                         r"unexpected \['children'\]"):
        TreeExplainer(xgb).shap_values(frame.rename(columns={"kids": "children"}))
    with pytest.raises(ValueError, match=r"data's columns do not match the model's features .*: unexpected \['extra'\]"):
        TreeExplainer(xgb, frame.assign(extra=1.0))
    with pytest.raises(ValueError, match=r"X has date/time columns \['age'\], which cannot be explained as they are"):
        TreeExplainer(hgb).shap_values(frame.assign(age=pd.Timestamp("2024-01-01")))
    with pytest.raises(ValueError, match=r"X's column 'city' has categories \['nuuk'\] that the model was not fitted with, "
                                         r"so they have no branch of their own: map them to a known category, or to NaN to have them explained as missing"):
        TreeExplainer(xgb).shap_values(with_unseen(frame))
    with pytest.raises(TypeError, match=r"X is a sparse matrix \(csr_matrix\); sparse rows of HistGradientBoosting models "
                                        r"are not supported: pass dense rows \(X.toarray\(\)\)"):
        TreeExplainer(case("hgb_categorical_array_3class")[0]).shap_values(sps.csr_matrix(np.ones((2, 4))))
    with pytest.raises(TypeError, match=r"X is a sparse matrix \(csr_matrix\); sparse rows of CatBoost models are not supported"):
        TreeExplainer(case("catboost_numeric")[0]).shap_values(sps.csr_matrix(np.ones((2, 4))))
    with pytest.raises(ValueError, match=r"X's column 'city' has missing values; CatBoost's categorical features take "
                                         r"integers or strings, and CatBoost refuses missing ones too"):
        TreeExplainer(cb).shap_values(as_text(frame).assign(city=[None, "oslo", "rome", "lima", "pune"]))
    with pytest.raises(ValueError, match=r"iteration_range chooses boosting rounds of XGBoost and LightGBM models; "
                                         r"HistGradientBoostingRegressor is explained with all its trees"):
        TreeExplainer(hgb, iteration_range=(0, 2))
    with pytest.raises(ValueError, match=r"feature_perturbation must be 'auto', 'tree_path_dependent' or 'interventional'"):
        TreeExplainer(hgb, feature_perturbation="causal")


# --- column order: hypothesis over random permutations of X's and data's columns -----------------------------------

PERMUTED = ["xgb_categorical", "lgbm_categorical", "hgb_categorical", "catboost_onehot"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PERMUTED), st.permutations(list(FRAME.columns)), st.permutations(list(FRAME.columns)),
       st.booleans())
def test_permuted_columns_give_the_same_value_per_named_feature(name, x_order, data_order, interventional):
    model, _, _, rows, background, _ = case(name)
    reference = TreeExplainer(model, background if interventional else None)(rows)
    permuted = TreeExplainer(model, background[data_order] if interventional else None)(rows[x_order])
    assert permuted.feature_names == list(model_names(model))                 # the model's order, whatever was passed
    by_name = lambda e: pd.DataFrame(e.values.reshape(len(rows), len(e.feature_names), -1)[:, :, 0], columns=e.feature_names)
    pd.testing.assert_frame_equal(by_name(permuted)[x_order], by_name(reference)[x_order], check_exact=True)
    np.testing.assert_array_equal(permuted.base_values, reference.base_values)


def model_names(model):
    names = getattr(model, "feature_names_in_", None)
    if names is None and hasattr(model, "get_booster"): names = model.get_booster().feature_names
    if names is None and hasattr(model, "booster_"): names = model.booster_.feature_name()
    if names is None: names = model.feature_names_
    return [str(n) for n in names]


def test_a_model_without_names_takes_data_order():
    "A model fitted on an array has no names: `data`'s columns name its features; X in another order is refused (which order is the model's is not known)."
    X = FRAME[NUMERIC]
    model = xgboost.XGBRegressor(n_estimators=10, max_depth=3).fit(X.to_numpy(), TARGET)
    explainer = TreeExplainer(model, X[100:106])
    np.testing.assert_array_equal(explainer.shap_values(X[:5]), explainer.shap_values(X[:5].to_numpy()))
    assert explainer(X[:5]).feature_names == NUMERIC
    with pytest.raises(ValueError, match="XGBRegressor has no feature names, so it reads its features by position"):
        explainer.shap_values(X[:5][NUMERIC[::-1]])
    with pytest.raises(ValueError, match="X and data name their columns in different orders"):
        explainer(X[:5][NUMERIC[::-1]])


# --- shap's conventions: "auto" and explainer(X) -------------------------------------------------------------------

SHAP_MODELS = {
    "random_forest": lambda: RandomForestRegressor(n_estimators=10, max_depth=5, random_state=0).fit(FRAME[NUMERIC].fillna(0), TARGET),
    "gradient_boosting": lambda: GradientBoostingClassifier(n_estimators=20, random_state=0).fit(FRAME[NUMERIC].fillna(0), TARGET > 2),
    "xgboost": lambda: xgboost.XGBRegressor(n_estimators=30, max_depth=4).fit(FRAME[NUMERIC].fillna(0), TARGET),
    "lightgbm": lambda: lightgbm.LGBMRegressor(n_estimators=30, num_leaves=10, verbose=-1).fit(FRAME[NUMERIC].fillna(0), TARGET),
    "catboost": lambda: catboost.CatBoostRegressor(iterations=30, depth=4, verbose=0, allow_writing_files=False,
                                                   random_seed=0).fit(FRAME[NUMERIC].fillna(0), TARGET),
}


def auto_error(name) -> float:
    "max |TreeExplainer(model, data) - shap.TreeExplainer(model, data)| (both 'auto'), and without data."
    model = SHAP_MODELS[name]()
    X = FRAME[NUMERIC].fillna(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = shap.TreeExplainer(model, X[100:130]).shap_values(X[:20])
        theirs_path = shap.TreeExplainer(model).shap_values(X[:20])
    ours, ours_path = TreeExplainer(model, X[100:130]).shap_values(X[:20]), TreeExplainer(model).shap_values(X[:20])
    return float(max(np.abs(ours - np.asarray(theirs)).max(), np.abs(ours_path - np.asarray(theirs_path)).max()))


@pytest.mark.parametrize("name", sorted(SHAP_MODELS))
def test_auto_default_equals_shaps(name):
    "shap rounds its interventional values to single precision somewhere: agreement to 1e-6 of the output scale."
    model = SHAP_MODELS[name]()
    scale = max(1.0, np.abs(TreeExplainer(model).ensemble.predict(FRAME[NUMERIC].fillna(0))).max())
    assert TreeExplainer(model, FRAME[NUMERIC][:5].fillna(0)).feature_perturbation == "interventional"
    assert auto_error(name) < 1e-6 * scale


def test_explainer_call_returns_an_explanation():
    model = case("catboost_onehot_3class")[0]
    rows, background = case("catboost_onehot_3class")[3], case("catboost_onehot_3class")[4]
    for data, method in ((None, "tree_path_dependent"), (background, "tree_interventional")):
        explainer = TreeExplainer(model, data)
        e = explainer(rows)
        assert isinstance(e, Explanation) and e.method == method
        assert e.values.shape == (3, 5, 3) and e.base_values.shape == (3, 3)
        assert e.output_names == [str(c) for c in model.classes_] and e.feature_names == list(rows.columns)
        np.testing.assert_array_equal(e.values, explainer.shap_values(rows))
        np.testing.assert_array_equal(e.data, rows.to_numpy())
        np.testing.assert_allclose(e.values.sum(1) + e.base_values, model.predict(rows, prediction_type="RawFormulaVal"),
                                   rtol=0, atol=1e-9)
    one = TreeExplainer(case("xgb_categorical")[0])(FRAME.iloc[0])                # a Series is one row
    assert one.values.shape == (5,) and one.feature_names == list(FRAME.columns)


# --- python tests/real_data_trees.py: the largest error of each case ----------------------------------------------


if __name__ == "__main__":
    for name in CASES:
        print(f"{name:32s} interventional vs brute force {interventional_error(name):.1e}   "
              f"path-dependent vs library/efficiency {path_dependent_error(name):.1e}")
    print(f"{'xgboost early stopping':32s} {early_stopping_error():.1e}")
    for sentinel in (0.0, -999.0): print(f"{f'xgboost missing={sentinel}':32s} {sentinel_error(sentinel):.1e}")
    print(f"{'xgboost fitted on CSR':32s} {csr_error():.1e}")
    for name in sorted(SHAP_MODELS): print(f"{f'auto vs shap, {name}':32s} {auto_error(name):.1e}")


# ---- 8. Modern frames: None as a category, pyarrow-backed dtypes, polars (an audit of 2026-12-05) ----

def test_hist_gradient_boosting_learns_none_as_a_category():
    "An object column with None: scikit-learn encodes None as a category of its own (NaN stays missing); both follow predict."
    from sklearn.ensemble import HistGradientBoostingRegressor
    rng = np.random.default_rng(0)
    region = rng.choice(np.array(["north", "south", "east", None], dtype=object), 400, p=[.3, .3, .3, .1])
    x1 = rng.normal(size=400)
    y = x1 + np.array([{"north": 1.0, "south": -1.0, "east": 0.3, None: 3.0}[r] for r in region])
    frame = pd.DataFrame({"x1": x1, "region": pd.Series(region, dtype=object)})
    model = HistGradientBoostingRegressor(max_iter=20, categorical_features=["region"]).fit(frame, y)
    shown = frame.iloc[:12].copy(); shown.loc[0, "region"] = np.nan          # NaN: missing, as at predict
    assert shown.region.isna().sum() >= 2 and any(v is None for v in shown.region)
    background = frame.iloc[100:130]
    e = TreeExplainer(model, background)(shown)
    np.testing.assert_allclose(e.values.sum(1) + e.base_values, model.predict(shown), atol=1e-9)
    for i in np.flatnonzero(shown.region.isna().to_numpy())[:2]:
        np.testing.assert_allclose(e.values[i], brute_force(model.predict, shown.iloc[[i]], background)[:, 0], atol=1e-9)


def test_polars_and_arrow_tables_are_refused_not_read_by_position():
    pa = pytest.importorskip("pyarrow")
    from sklearn.ensemble import RandomForestRegressor
    frame = pd.DataFrame(np.random.default_rng(0).normal(size=(60, 3)), columns=["a", "b", "c"])
    model = RandomForestRegressor(5, max_depth=3, random_state=0).fit(frame, frame.a - frame.c)
    table = pa.Table.from_pandas(frame[["c", "a", "b"]])
    with pytest.raises(TypeError, match=r"X is a pyarrow Table; shapnb matches columns by name .* pass X.to_pandas\(\)"):
        TreeExplainer(model).shap_values(table)
    with pytest.raises(TypeError, match=r"data is a pyarrow Table"):
        explain(model, frame.iloc[:2], data=table)
    try: import polars as pl
    except ImportError: return
    with pytest.raises(TypeError, match=r"X is a polars DataFrame; .* pass X.to_pandas\(\)"):
        explain(model, pl.from_pandas(frame[["c", "a", "b"]]).head(2), data=frame)
    with pytest.raises(TypeError, match=r"X is a polars Series, one column of values"):
        explain(model, pl.from_pandas(frame).to_series(0), data=frame)


def test_arrow_dtypes_nan_values_nulls_and_times():
    "A NaN value in an arrow float column is missing, as NaN in numpy; arrow nulls are NaN in the Explanation's data; time64 is refused as a time."
    pytest.importorskip("pyarrow")
    from sklearn.ensemble import HistGradientBoostingRegressor
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"share": rng.random(200), "age": rng.normal(50, 10, 200)})
    frame.loc[:20, "share"] = np.nan
    model = HistGradientBoostingRegressor(max_iter=20).fit(frame, frame.age * np.nan_to_num(frame.share, nan=0.5))
    arrow = frame.iloc[:6].astype({"share": "double[pyarrow]"})
    arrow.loc[3, "share"] = np.nan                                     # a NaN value, not a null
    numpy_rows = arrow.astype({"share": "float64"})
    got = explain(model, arrow, data=frame.iloc[100:140], method="exact", progress=False)
    want = explain(model, numpy_rows, data=frame.iloc[100:140], method="exact", progress=False)
    np.testing.assert_allclose(got.values, want.values, atol=1e-12)
    nulls = frame.iloc[:6].convert_dtypes(dtype_backend="pyarrow")          # NaN read as arrow nulls
    e = TreeExplainer(model, frame.iloc[100:140])(nulls)
    assert e.data.dtype == np.float64 and np.isnan(e.data[0, 0]), e.data
    times = pd.DataFrame({"t": pd.array([1, 2], dtype="time64[us][pyarrow]"), "age": [1.0, 2.0]})
    with pytest.raises(ValueError, match=r"X has date/time columns \['share'\]"):
        explain(model, times.rename(columns={"t": "share"}), data=frame.iloc[:20], method="exact")


# --- 8. Input containers (an audit of 2026-12-05): integers rounded as each library rounds them, sparse duplicates,
#        sparse inputs a model's own predict refuses, text and masked arrays, clear refusals -------------------------

def _sums(explainer, X) -> np.ndarray:
    "base + sum of the values per row: what efficiency says the model outputs."
    return explainer.expected_value + np.asarray(explainer.shap_values(X)).sum(-1)


def test_integer_ids_are_rounded_as_each_library_rounds_them():
    "LightGBM casts an integer array (or a list of ints) to float32; ids above 2**53 round once for XGBoost, twice for scikit-learn lists."
    import lightgbm as lgb, xgboost as xgb
    from sklearn.tree import DecisionTreeRegressor
    from shapnb.exact.trees.explainer import TreeExplainer
    rng = np.random.default_rng(0)
    ids = 2 ** 25 + 8 * rng.integers(0, 40, 400)             # float32's spacing at 2**25 is 4: ids 4 apart cross splits
    X = np.column_stack([ids, rng.normal(size=400)])
    model = lgb.LGBMRegressor(n_estimators=40, num_leaves=16, min_child_samples=3, verbose=-1).fit(X, np.sin((ids - 2 ** 25) / 37.0) * 3 + X[:, 1])
    Xq = np.column_stack([2 ** 25 + np.arange(0, 320, 3), np.zeros(107)]).astype(np.int64)
    truth = model.predict(Xq, raw_score=True)
    assert not np.allclose(truth, model.predict(Xq.astype(np.float64), raw_score=True))   # the case has rows that differ
    for form in (Xq, Xq.tolist(), Xq.astype(np.uint64)):
        for ex in (TreeExplainer(model, X[:50].astype(np.int64)), TreeExplainer(model)):
            np.testing.assert_allclose(_sums(ex, form), truth, atol=1e-9)
    big = 2 ** 60 + 2 ** 36 + 1                              # int64 -> float32 differs from int64 -> float64 -> float32
    Xtr, y = np.array([[2 ** 60], [2 ** 60 + 2 ** 37]] * 40, np.int64), np.array([0.0, 1.0] * 40)
    Xb = np.array([[big]], np.int64)
    booster = xgb.XGBRegressor(n_estimators=1, max_depth=1, learning_rate=1.0, base_score=0.5).fit(Xtr, y)
    tree = DecisionTreeRegressor().fit(Xtr, y)
    for m, raw in ((booster, lambda A: booster.predict(A, output_margin=True)), (tree, tree.predict)):
        for form in (Xb, pd.DataFrame(Xb), Xb.tolist()):
            np.testing.assert_allclose(_sums(TreeExplainer(m, Xtr), form), raw(form), atol=1e-6)
    # scikit-learn reads a frame as one array of its common dtype: an int64 id next to a float column goes through float64
    tree2 = DecisionTreeRegressor().fit(np.c_[Xtr, np.zeros(len(Xtr))], y)
    mixed = pd.DataFrame({"id": Xb[:, 0], "x": [0.0]})
    ex2 = TreeExplainer(tree2, np.c_[Xtr, np.zeros(len(Xtr))])
    np.testing.assert_allclose(_sums(ex2, mixed), tree2.predict(mixed), atol=1e-9)
    np.testing.assert_allclose(ex2(mixed).values.sum(-1) + ex2.expected_value, tree2.predict(mixed), atol=1e-9)
    # ... but a frame with a bool column column by column (the id rounds once), and one with an object column through Python floats
    for extra in (pd.Series([True]), pd.Series([0.0], dtype=object)):
        other = pd.DataFrame({"id": Xb[:, 0], "x": extra})
        np.testing.assert_allclose(_sums(ex2, other), tree2.predict(other), atol=1e-9)
    listed = [[int(Xb[0, 0])]]                                 # a list of Python ints: scikit-learn reads it through floats
    ex1 = TreeExplainer(tree, Xtr)
    for values in (_sums(ex1, listed), ex1(listed).values.sum(-1) + ex1.expected_value):   # shap_values and __call__ alike
        np.testing.assert_allclose(values, tree.predict(listed), atol=1e-9)
    import catboost
    cat = catboost.CatBoostRegressor(iterations=5, depth=1, verbose=0, allow_writing_files=False).fit(np.c_[Xtr, np.arange(80) % 2], y)
    rows = np.array([[big, 0]], np.int64)
    ex3 = TreeExplainer(cat, np.c_[Xtr, np.arange(80) % 2])
    for form in (rows, rows.tolist()):                          # an int64 array rounds once, a list through float64
        np.testing.assert_allclose(_sums(ex3, form), cat.predict(form, prediction_type="RawFormulaVal"), atol=1e-6)


def test_sparse_duplicates_and_inputs_the_model_refuses():
    "A COO matrix's duplicates add up (as in scipy and every predict); a CSR with duplicates, NaN in sparse rows for scikit-learn, int sparse for LightGBM are refused."
    import lightgbm as lgb
    from sklearn.ensemble import RandomForestRegressor
    from shapnb.exact.trees.explainer import TreeExplainer
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3)); y = 2 * X[:, 0] + X[:, 1]
    forest = RandomForestRegressor(10, max_depth=4, random_state=0).fit(X, y)
    booster = lgb.LGBMRegressor(n_estimators=10, verbose=-1).fit(X, y)
    coo = scipy.sparse.coo_matrix((np.array([0.6, 0.6]), (np.array([0, 0]), np.array([0, 0]))), shape=(1, 3))
    for m in (forest, booster):
        ex = TreeExplainer(m, X[:30])
        np.testing.assert_allclose(_sums(ex, coo), m.predict(coo.toarray()), atol=1e-9)   # x0 = 1.2, not 0.6
        np.testing.assert_allclose(_sums(ex, scipy.sparse.coo_array(np.array([1.2, 0.0, 0.5]))), m.predict(np.array([[1.2, 0.0, 0.5]])), atol=1e-9)
        assert coo.nnz == 2                                   # the caller's matrix is not changed
    csr = scipy.sparse.csr_matrix((np.array([0.6, 0.6]), np.array([0, 0]), np.array([0, 2])), shape=(1, 3))
    with pytest.raises(ValueError, match="holding duplicate entries"): TreeExplainer(forest, X[:30]).shap_values(csr)
    with pytest.raises(ValueError, match="sparse matrix holding missing values"):
        TreeExplainer(forest, X[:30]).shap_values(scipy.sparse.csr_matrix(np.array([[np.nan, 1.0, 0.0]])))
    with pytest.raises(TypeError, match="float32 and float64 ones"):
        TreeExplainer(booster, X[:30]).shap_values(scipy.sparse.csr_matrix(np.array([[2, 1, 0]])))


def test_text_masked_and_record_arrays_are_refused():
    "Numeric text is not parsed, a mask is not dropped, a record array is named; sparse input to the core says so."
    import xgboost as xgb
    from shapnb.core.quadrature import product_shapley
    from shapnb.core.explanation import Explanation
    from shapnb.core.games import TableGame
    from shapnb.exact.trees.explainer import TreeExplainer
    rng = np.random.default_rng(2)
    X = rng.normal(size=(100, 3))
    ex = TreeExplainer(xgb.XGBRegressor(n_estimators=5).fit(X, X[:, 0]), X[:20])
    with pytest.raises(ValueError, match="it holds text"): ex.shap_values(np.array([["0.5", "2", "1"]]))
    frame = pd.DataFrame(X[:3], columns=list("abc"))
    framed = TreeExplainer(xgb.XGBRegressor(n_estimators=5).fit(frame, X[:, 0][:3]), frame)
    for text in (frame.astype(str), frame.astype(str).astype(object), frame.assign(b=frame.b.astype(str).astype("string"))):
        with pytest.raises(ValueError, match=r"numeric feature [01], but its column '[ab]' holds text"): framed.shap_values(text)
    assert np.isfinite(framed.shap_values(frame.astype(object))).all()   # numbers held as objects are still numbers
    with pytest.raises(TypeError, match="masked array"): ex.shap_values(np.ma.masked_array([[0.5, 2.0, 1.0]], mask=[[0, 1, 0]]))
    record = np.zeros(4, dtype=[("a", float), ("b", float), ("c", float)])
    with pytest.raises(TypeError, match=r"structured \(record\) array with fields \['a', 'b', 'c'\]"): ex.shap_values(record)
    with pytest.raises(TypeError, match="masked array"): product_shapley(np.ma.masked_array([0.5, 2.0], mask=[0, 1]), 1.0)
    with pytest.raises(ValueError, match="got text"): product_shapley(np.array(["0.5", "2"]), 1.0)
    for make in (lambda: TableGame(scipy.sparse.csr_matrix(np.ones((1, 4)))), lambda: Explanation(scipy.sparse.csr_matrix(np.ones((2, 3)))),
                 lambda: Explanation(np.ones((1, 3)), data=scipy.sparse.csr_matrix(np.ones((1, 3))))):
        with pytest.raises(TypeError, match="is a sparse matrix"): make()
