"""Cross-checks of shapnb.exact.trees: agreement with shap on every model type, brute force on random trees (hypothesis),
the package's re-exports, and XGBoost's binary model format against an independent encoder (hypothesis)."""
import struct
import numpy as np
import pytest
import shap, xgboost, lightgbm
from hypothesis import given, settings, strategies as st, HealthCheck
from sklearn.tree import DecisionTreeRegressor, DecisionTreeClassifier
from sklearn.ensemble import (RandomForestRegressor, RandomForestClassifier, ExtraTreesRegressor, ExtraTreesClassifier,
                              GradientBoostingRegressor, GradientBoostingClassifier,
                              HistGradientBoostingRegressor, HistGradientBoostingClassifier)
from shapnb.core.games import exact_shapley, MarginalGame
import shapnb.exact.trees
from shapnb.exact.trees import tables
from shapnb.exact.trees.ensemble import TreeEnsemble, TreePathGame, leaf_shapley, DECISION_LE, DECISION_CATEGORY, _decode_ubjson
from shapnb.exact.trees.tables import leaf_tables, interventional_tables, table_values
from shapnb.exact.trees.pathwise import pathwise_values, _oblivious_trees
from shapnb.exact.trees.explainer import TreeExplainer

rng = np.random.default_rng(1)
X = rng.normal(size=(300, 5))
y = X[:, 0] * X[:, 1] + np.sin(2 * X[:, 2]) + (X[:, 3] > 0) + 0.1 * rng.normal(size=300)
y2, y3 = (y > 0.5).astype(int), np.digitize(y, [0.0, 1.0])
W = rng.uniform(0.2, 3.0, size=300)

MODELS = {
    "tree_reg": lambda: DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y, sample_weight=W),
    "tree_clf": lambda: DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y3),
    "rf_reg": lambda: RandomForestRegressor(n_estimators=8, max_depth=6, random_state=0).fit(X, y, sample_weight=W),
    "rf_clf2": lambda: RandomForestClassifier(n_estimators=8, max_depth=6, random_state=0).fit(X, y2),
    "rf_clf3": lambda: RandomForestClassifier(n_estimators=8, max_depth=6, random_state=0).fit(X, y3),
    "et_reg": lambda: ExtraTreesRegressor(n_estimators=8, max_depth=6, random_state=0).fit(X, y),
    "et_clf": lambda: ExtraTreesClassifier(n_estimators=8, max_depth=6, random_state=0).fit(X, y3),
    "gb_reg": lambda: GradientBoostingRegressor(n_estimators=15, random_state=0).fit(X, y),
    "gb_clf": lambda: GradientBoostingClassifier(n_estimators=15, random_state=0).fit(X, y2),
    "gb_clf3": lambda: GradientBoostingClassifier(n_estimators=10, random_state=0).fit(X, y3),
    "hgb_reg": lambda: HistGradientBoostingRegressor(max_iter=15).fit(X, y),
    "hgb_clf3": lambda: HistGradientBoostingClassifier(max_iter=10).fit(X, y3),
    "xgb_reg": lambda: xgboost.XGBRegressor(n_estimators=15, max_depth=4).fit(X, y),
    "xgb_clf2": lambda: xgboost.XGBClassifier(n_estimators=15, max_depth=4).fit(X, y2),
    "xgb_clf3": lambda: xgboost.XGBClassifier(n_estimators=15, max_depth=4).fit(X, y3),
    "xgb_booster": lambda: xgboost.train({"max_depth": 3}, xgboost.DMatrix(X, y), num_boost_round=10),
    "lgb_reg": lambda: lightgbm.LGBMRegressor(n_estimators=15, num_leaves=12, verbose=-1).fit(X, y),
    "lgb_clf2": lambda: lightgbm.LGBMClassifier(n_estimators=15, num_leaves=12, verbose=-1).fit(X, y2),
    "lgb_clf3": lambda: lightgbm.LGBMClassifier(n_estimators=15, num_leaves=12, verbose=-1).fit(X, y3),
    "lgb_booster": lambda: lightgbm.train({"num_leaves": 8, "verbose": -1}, lightgbm.Dataset(X, y), num_boost_round=10),
}
SINGLE_PRECISION = ("xgb",)          # XGBoost computes its own predictions and contributions in float32
SHAP_UNSUPPORTED = ("gb_clf3",)      # shap: "GradientBoostingClassifier is only supported for binary classification"

def _scale(explainer): return np.abs(explainer.ensemble.predict(X)).max()

@pytest.mark.parametrize("name", sorted(MODELS))
def test_path_dependent_matches_shap(name):
    if name in SHAP_UNSUPPORTED: pytest.skip("shap does not support this model")
    model = MODELS[name]()
    ours = TreeExplainer(model)
    phi = ours.shap_values(X[:30])
    reference = shap.TreeExplainer(model)
    theirs = reference.shap_values(X[:30])
    tol = (1e-6 if name.startswith(SINGLE_PRECISION) else 1e-9) * _scale(ours)
    assert phi.shape == np.shape(theirs)
    np.testing.assert_allclose(phi, theirs, rtol=0, atol=tol)
    np.testing.assert_allclose(ours.expected_value, np.squeeze(reference.expected_value), rtol=0, atol=tol)
    raw = ours.ensemble.predict(X[:30])
    np.testing.assert_allclose(np.asarray(ours.expected_value) + phi.sum(1), raw[:, 0] if phi.ndim == 2 else raw,
                               rtol=0, atol=1e-12 * _scale(ours))

@pytest.mark.parametrize("name", sorted(MODELS))
def test_path_dependent_is_the_path_game(name):
    "Against brute force over all 2^5 coalitions of the path-dependent value function, every output."
    model = MODELS[name]()
    ours = TreeExplainer(model)
    phi = ours.shap_values(X[:2])
    phi = phi[..., None] if phi.ndim == 2 else phi
    for i in range(2):
        for o in range(phi.shape[2]):
            truth = exact_shapley(TreePathGame(ours.ensemble, X[i], output=o), 5)
            np.testing.assert_allclose(phi[i, :, o], truth, rtol=0, atol=1e-12 * _scale(ours))

@pytest.mark.parametrize("name", sorted(MODELS))
def test_interventional_is_the_marginal_game(name):
    model = MODELS[name]()
    background = X[100:115]
    ours = TreeExplainer(model, background, feature_perturbation="interventional")
    phi = ours.shap_values(X[:2])
    phi = phi[..., None] if phi.ndim == 2 else phi
    for i in range(2):
        for o in range(phi.shape[2]):
            game = MarginalGame(lambda Z: ours.ensemble.predict(Z)[:, o], X[i], background)
            np.testing.assert_allclose(phi[i, :, o], exact_shapley(game, 5), rtol=0, atol=1e-12 * _scale(ours))

@pytest.mark.parametrize("name", ["rf_reg", "gb_reg", "gb_clf", "lgb_reg", "xgb_reg", "tree_clf"])
def test_interventional_matches_shap(name):
    model = MODELS[name]()
    phi = TreeExplainer(model, X[100:120], feature_perturbation="interventional").shap_values(X[:10])
    theirs = shap.TreeExplainer(model, X[100:120], feature_perturbation="interventional").shap_values(X[:10])
    np.testing.assert_allclose(phi, theirs, rtol=0, atol=1e-6 * np.abs(phi).max())   # shap rounds to float32 here

@pytest.mark.parametrize("Model", [GradientBoostingRegressor, HistGradientBoostingRegressor])
def test_interventional_regressors_for_msr(Model):
    "The call Regression-MSR makes: interventional values of a boosted regressor, efficient against its predict."
    model = Model(random_state=0, **({"max_iter": 30} if Model is HistGradientBoostingRegressor else {"n_estimators": 30})).fit(X, y)
    explainer = TreeExplainer(model, data=X[:50], feature_perturbation="interventional")
    phi = explainer.shap_values(X[50:80])
    assert phi.shape == (30, 5)
    np.testing.assert_allclose(explainer.expected_value + phi.sum(1), model.predict(X[50:80]), rtol=0, atol=1e-10)
    np.testing.assert_allclose(explainer.expected_value, model.predict(X[:50]).mean(), rtol=0, atol=1e-12)

XN = np.where(np.random.default_rng(2).random(X.shape) < 0.1, np.nan, X)     # rows and background with missing values

@pytest.mark.parametrize("name", sorted(MODELS))
def test_interventional_tables_are_the_pass(name):
    "Interventional leaf tables for every tree against the edge-wise pass for every tree, to rounding; the explainer's mix too."
    model = MODELS[name]()
    XM = XN if TreeExplainer(model).ensemble.takes_missing else X   # GradientBoosting refuses NaN (as its predict does)
    explainer = TreeExplainer(model, XM[100:140], feature_perturbation="interventional")
    e = explainer.ensemble
    every = interventional_tables(e, XM[100:140], every_tree=True)
    assert every.use.all() and explainer._leaf_tables().use.all()   # 40 background rows: the tables pay on these trees
    reference = pathwise_values(e, XM[:40], XM[100:140])
    np.testing.assert_allclose(table_values(e, XM[:40], every), reference, rtol=0, atol=1e-12 * _scale(explainer))
    explainer._tables = interventional_tables(e, XM[100:140], every_tree=True, max_bytes=int(every.table.nbytes // 2))
    assert explainer._tables.use.any() and not explainer._tables.use.all() or len(e.roots) == 1
    phi = explainer.shap_values(XM[:40])
    np.testing.assert_allclose(phi[..., None] if phi.ndim == 2 else phi, reference, rtol=0, atol=1e-12 * _scale(explainer))

@pytest.mark.parametrize("name", ["gb_reg", "gb_clf"])
def test_refuses_missing_where_the_model_does(name):
    "GradientBoosting's predict refuses NaN, so its explanation refuses rows and background holding them; others take them."
    model = MODELS[name]()
    with pytest.raises(ValueError, match="NaN"): model.predict(XN[:5])
    with pytest.raises(ValueError, match="X holds missing values"): TreeExplainer(model).shap_values(XN[:5])
    with pytest.raises(ValueError, match="data holds missing values"):
        TreeExplainer(model, XN[100:120], feature_perturbation="interventional").shap_values(X[:5])
    assert TreeExplainer(MODELS["rf_reg"]()).shap_values(XN[:5]).shape == (5, 5)

def test_interventional_catboost_categorical():
    "CatBoost with a categorical feature (one-hot splits) and NaN in a numerical one: tables against the brute-force game."
    import catboost, pandas as pd
    frame = pd.DataFrame(XN[:, :4], columns=list("abcd"))
    frame["colour"] = pd.Series(np.array(["red", "green", "blue"])[np.arange(300) % 3])
    target = y + (frame["colour"] == "red")
    model = catboost.CatBoostRegressor(iterations=20, depth=4, verbose=0, random_seed=0, allow_writing_files=False, cat_features=["colour"],
                                    one_hot_max_size=4).fit(frame, target)
    explainer = TreeExplainer(model, frame.iloc[100:130], feature_perturbation="interventional")
    assert explainer._leaf_tables().use.all()
    phi = explainer.shap_values(frame.iloc[:4])
    rows, background = explainer.ensemble.as_rows(frame.iloc[:4])[0], explainer.data
    scale = np.abs(explainer.ensemble.predict(background, prepared=True)).max()
    for i in range(4):
        def marginal(Z):
            mixed = np.where(np.asarray(Z, bool)[:, None, :], rows[i], background[None])
            return explainer.ensemble.predict(mixed.reshape(-1, 5), prepared=True)[:, 0].reshape(len(Z), -1).mean(1)
        np.testing.assert_allclose(phi[i], exact_shapley(marginal, 5), rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(explainer.expected_value + phi.sum(1), model.predict(frame.iloc[:4]), rtol=0, atol=1e-9)

def test_threads_do_not_change_values():
    model = MODELS["rf_clf3"]()
    one, two = TreeExplainer(model, n_jobs=1).shap_values(X), TreeExplainer(model, n_jobs=2).shap_values(X)
    np.testing.assert_array_equal(one, two)

def test_path_dependent_covers_from_data():
    "With data, covers are the counts of data rows (as shap); nodes no row reaches get an even split (shap: 1e-6)."
    model = MODELS["rf_reg"]()
    explainer = TreeExplainer(model, X[:60], feature_perturbation="tree_path_dependent")
    np.testing.assert_allclose(explainer.expected_value, model.predict(X[:60]).mean(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(explainer.expected_value,
                               shap.TreeExplainer(model, X[:60], feature_perturbation="tree_path_dependent").expected_value,
                               rtol=0, atol=1e-12)
    phi = explainer.shap_values(X[:3])
    for i in range(3):
        np.testing.assert_allclose(phi[i], exact_shapley(TreePathGame(explainer.ensemble, X[i]), 5), rtol=0, atol=1e-12)

# --- random trees, built by hand: every structure, zero covers, repeated features, NaN routing -------------------

@st.composite
def random_trees(draw):
    "A random ensemble of 1-3 trees on 4 features, with zero covers, NaN default directions and categorical splits."
    p, trees = 4, []
    for _ in range(draw(st.integers(1, 3))):
        left, right, feature, threshold, cover, value, default, decision, categories = [], [], [], [], [], [], [], [], []
        def grow(depth, mass):
            node = len(left)
            for lst in (left, right, feature, threshold, value, default, decision, categories): lst.append(None)
            cover.append(mass)
            if depth == 0 or draw(st.booleans()) and depth < 4:
                left[node] = right[node] = feature[node] = -1; threshold[node] = 0.0; default[node] = True
                value[node] = draw(st.floats(-5, 5)); decision[node] = DECISION_LE; return node
            feature[node] = draw(st.integers(0, p - 1)); threshold[node] = draw(st.sampled_from([-0.5, 0.0, 0.5]))
            default[node] = draw(st.booleans()); value[node] = 0.0; decision[node] = DECISION_LE
            if draw(st.integers(0, 3)) == 0:                  # a split on a set of categories (codes 0..2)
                decision[node] = DECISION_CATEGORY; threshold[node] = draw(st.sampled_from([np.nextafter(-1.0, 0.0), 0.0]))
                categories[node] = draw(st.lists(st.integers(0, 2), min_size=1, max_size=3, unique=True))
            share = draw(st.sampled_from([0.0, 0.3, 0.5, 1.0]))
            left[node] = grow(depth - 1, mass * share); right[node] = grow(depth - 1, mass * (1 - share))
            return node
        grow(draw(st.integers(0, 6)), draw(st.sampled_from([0.0, 1.0, 7.0])))
        trees.append(dict(left=left, right=right, feature=feature, threshold=threshold, cover=cover,
                          value=value, default_left=default, decision=decision, categories=categories))
    return TreeEnsemble(trees, [draw(st.floats(-1, 1))], p, np.float64)

rows = st.lists(st.sampled_from([-1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 2.0, 2.5, np.nan, np.inf, -np.inf]), min_size=4, max_size=4)

@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_trees(), rows, rows)
def test_random_trees_are_exact(ensemble, x, z):
    x, z = np.array(x), np.array(z)
    with_tables, edge_wise = TreeExplainer(ensemble), TreeExplainer(ensemble)
    edge_wise._tables = leaf_tables(ensemble, max_bytes=0)              # every tree through the edge-wise pass
    # every tree gets a table but oblivious ones (a stump, or one split per level), which notebook 11 walks once per reached leaf
    assert (with_tables._leaf_tables().use | _oblivious_trees(ensemble.nodes())).all() and not edge_wise._tables.use.any()
    phi = with_tables.shap_values(x)
    np.testing.assert_allclose(phi, exact_shapley(TreePathGame(ensemble, x), 4), rtol=0, atol=1e-11)
    np.testing.assert_allclose(edge_wise.shap_values(x), phi, rtol=0, atol=1e-11)
    np.testing.assert_allclose(leaf_shapley(ensemble, x), phi, rtol=0, atol=1e-11)
    background = np.stack([z, x[::-1], z[::-1], x])
    phi = TreeExplainer(ensemble, background, feature_perturbation="interventional").shap_values(x)
    def marginal(Z):                  # MarginalGame by hand: it (rightly) refuses non-finite rows
        mixed = np.where(np.asarray(Z, bool)[:, None, :], x, background[None])
        return ensemble.predict(mixed.reshape(-1, 4))[:, 0].reshape(len(Z), -1).mean(1)
    truth = exact_shapley(marginal, 4)
    np.testing.assert_allclose(phi, truth, rtol=0, atol=1e-12)
    every = interventional_tables(ensemble, background, every_tree=True)          # tables for every tree, pass for none
    assert every.use.all() and every.n_background == 4
    np.testing.assert_allclose(table_values(ensemble, x, every)[0, :, 0], truth, rtol=0, atol=1e-12)
    np.testing.assert_allclose(pathwise_values(ensemble, x, background)[0, :, 0], truth, rtol=0, atol=1e-12)


# --- the package: re-exports, and the tunables read where they are defined -------------------------------------------

def test_package_reexports_the_public_names():
    from shapnb.exact.trees import explainer, ensemble, pathwise
    assert shapnb.exact.trees.TreeExplainer is explainer.TreeExplainer
    assert shapnb.exact.trees.tree_ensemble is ensemble.tree_ensemble
    assert shapnb.exact.trees.pathwise_values is pathwise.pathwise_values
    assert all(hasattr(shapnb.exact.trees, name) for name in shapnb.exact.trees.__all__)

def test_tunables_are_set_in_their_module():
    "TABLE_BYTES is read by leaf_tables when it runs; the package refuses to hold a copy that would change nothing."
    model = MODELS["rf_reg"]()
    saved = tables.TABLE_BYTES
    try:
        tables.TABLE_BYTES = 0
        explainer = TreeExplainer(model)
        assert not explainer._leaf_tables().use.any()
        np.testing.assert_allclose(explainer.shap_values(X[:20]), TreeExplainer(model).shap_values(X[:20]), rtol=0, atol=0)
    finally: tables.TABLE_BYTES = saved
    assert TreeExplainer(model)._leaf_tables().use.all()
    for name, module in (("TABLE_BYTES", "tables"), ("TABLE_TREE_DOUBLES", "tables"), ("ROW_BLOCK", "pathwise")):
        with pytest.raises(AttributeError, match=f"shapnb.exact.trees.{module}.{name}"): getattr(shapnb.exact.trees, name)
        with pytest.raises(AttributeError, match=f"shapnb.exact.trees.{module}.{name}"): setattr(shapnb.exact.trees, name, 0)


# --- XGBoost's binary model format (notebook 10's `_decode_ubjson`), against an independent encoder ---------------
_INT_MARKERS = ((b"i", ">b", -2**7, 2**7 - 1), (b"U", ">B", 0, 2**8 - 1), (b"I", ">h", -2**15, 2**15 - 1),
                (b"l", ">i", -2**31, 2**31 - 1), (b"L", ">q", -2**63, 2**63 - 1))
_ARRAY_MARKERS = {"i1": b"i", "u1": b"U", "i2": b"I", "i4": b"l", "i8": b"L", "f4": b"d", "f8": b"D"}


def _ubj_int(v: int, widest: bool) -> bytes:
    "v with the smallest integer marker that holds it (or the widest)."
    for marker, fmt, lo, hi in (_INT_MARKERS[-1:] if widest else _INT_MARKERS):
        if lo <= v <= hi: return marker + struct.pack(fmt, v)
    raise ValueError(v)


def _ubj_encode(v, draw_bool) -> bytes:
    "UBJSON of v, choosing among the spec's equivalent forms (counted or ended containers, no-op padding) by `draw_bool`."
    pad = b"N" if draw_bool() else b""
    if v is None: return pad + b"Z"
    if v is True or v is False: return pad + (b"T" if v else b"F")
    if isinstance(v, int): return pad + _ubj_int(v, draw_bool())
    if isinstance(v, float): return pad + b"D" + struct.pack(">d", v)
    if isinstance(v, str):
        raw = v.encode()
        return pad + b"S" + _ubj_int(len(raw), draw_bool()) + raw
    if isinstance(v, np.ndarray):
        return b"[$" + _ARRAY_MARKERS[v.dtype.str[1:]] + b"#" + _ubj_int(len(v), draw_bool()) + v.astype(v.dtype.newbyteorder(">")).tobytes()
    if isinstance(v, list):
        body = b"".join(_ubj_encode(x, draw_bool) for x in v)
        return b"[#" + _ubj_int(len(v), False) + body if draw_bool() else b"[" + body + b"]"
    body = b"".join(_ubj_int(len(k.encode()), False) + k.encode() + _ubj_encode(x, draw_bool) for k, x in v.items())
    return b"{#" + _ubj_int(len(v), False) + body if draw_bool() else b"{" + body + b"}"


_arrays = st.sampled_from(list(_ARRAY_MARKERS)).flatmap(lambda code: st.lists(
    st.floats(width=32 if code == "f4" else 64, allow_nan=False) if code[0] == "f" else
    st.integers(*next((lo, hi) for m, _, lo, hi in _INT_MARKERS if m == _ARRAY_MARKERS[code])), max_size=6)
    .map(lambda xs: np.array(xs, np.dtype(code))))
_values = st.recursive(st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | st.floats(allow_nan=False) | st.text(max_size=8) | _arrays,
                       lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=12)


def _same(a, b):
    if isinstance(b, np.ndarray): return isinstance(a, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(b, list): return isinstance(a, list) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(b, dict): return isinstance(a, dict) and list(a) == list(b) and all(_same(a[k], b[k]) for k in b)
    return type(a) is type(b) and a == b


@settings(max_examples=300, deadline=None)
@given(value=_values, data=st.data())
def test_ubjson_decodes_every_form_of_a_value(value, data):
    "Any value, encoded in any of UBJSON's equivalent forms, decodes to itself; typed arrays to numpy arrays of their type."
    encoded = _ubj_encode(value, lambda: data.draw(st.booleans()))
    assert _same(_decode_ubjson(encoded), value)
    if len(encoded) > 1:                                   # cut short: refused by name, never a partial value
        with pytest.raises(ValueError, match="UBJSON"):
            _decode_ubjson(encoded[:data.draw(st.integers(1, len(encoded) - 1))])
