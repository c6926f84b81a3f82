"""Interventional TreeSHAP (issue 15): the bitset walk of notebook 11 against independent references.

`pathwise_values(..., background, method="bitset")` carries the background rows as bitsets through one walk per
block of rows and tree. These tests check it, and the explainer's mix of interventional leaf tables and the walk,
against
- the brute force: the mean over the background of the model's `predict` on hybrid rows, every coalition enumerated
  (p = 5), on scikit-learn forests / extra trees / boosting, XGBoost, LightGBM and CatBoost, with NaN and categories;
- shap's interventional values (shap rounds to float32: 1e-6);
- the product-game engine (`product_shapley`) on single-path trees of depth 20-60 with repeated features, against
  several background rows at once (the mean of the product games);
- the pair pass, on fully grown trees, for background sizes around the 64-row word boundaries, one background row,
  a background split into several passes, and row blocks around 64 rows;
- the compact interventional leaf tables of notebook 12 (|S| + 1 entries per pattern S), unfolded, against the mean
  product games leaf by leaf, and read through `table_values` against the walk and the brute force;
and a mutation check: the kernel fed wrong weights must fail the brute force.
"""
import numpy as np
import pytest
import shap, xgboost, lightgbm
from hypothesis import given, settings, strategies as st, HealthCheck
from sklearn.tree import DecisionTreeRegressor
from sklearn.ensemble import (RandomForestRegressor, RandomForestClassifier, ExtraTreesRegressor, GradientBoostingRegressor,
                              HistGradientBoostingClassifier)
from shapnb.core.games import exact_shapley
from shapnb.core.quadrature import product_shapley
from shapnb.exact.trees.ensemble import TreeEnsemble, tree_ensemble
from shapnb.exact.trees import pathwise
from shapnb.exact.trees.pathwise import pathwise_values, _bitset_values, _explain_rows_bits, _full_words, _pair_weights, _background_bits
from shapnb.exact.trees.explainer import TreeExplainer
from shapnb.exact.trees.ensemble import TreePathGame
from shapnb.exact.trees.tables import interventional_tables, table_values, _leaf_entries, _pattern_offsets

rng = np.random.default_rng(5)
X = rng.normal(size=(400, 5))
y = X[:, 0] * X[:, 1] + np.sin(2 * X[:, 2]) + (X[:, 3] > 0) + 0.1 * rng.normal(size=400)
y3 = np.digitize(y, [0.0, 1.0])
XN = np.where(rng.random(X.shape) < 0.1, np.nan, X)

MODELS = {
    "rf_reg": lambda: RandomForestRegressor(n_estimators=5, max_depth=9, random_state=0).fit(X, y),
    "rf_clf3": lambda: RandomForestClassifier(n_estimators=4, max_depth=8, random_state=0).fit(X, y3),
    "et_reg": lambda: ExtraTreesRegressor(n_estimators=4, max_depth=10, random_state=0).fit(X, y),
    "gb_reg": lambda: GradientBoostingRegressor(n_estimators=10, max_depth=4, random_state=0).fit(X, y),
    "hgb_nan": lambda: HistGradientBoostingClassifier(max_iter=5, random_state=0).fit(XN, y3),
    "xgb_nan": lambda: xgboost.XGBRegressor(n_estimators=10, max_depth=5).fit(XN, y),
    "lgb_nan": lambda: lightgbm.LGBMRegressor(n_estimators=10, num_leaves=31, min_child_samples=3, verbose=-1).fit(XN, y),
    "deep_tree": lambda: DecisionTreeRegressor(random_state=0).fit(X[:, :3], y),      # fully grown: repeated features
}


def brute_force(ensemble, x, background, output=0):
    "Mean over the background of the prediction on hybrid rows (x on S, z elsewhere), Shapley values by enumeration."
    p = ensemble.n_features
    def game(S):
        mixed = np.where(np.asarray(S, bool)[:, None, :], x, background[None])
        return ensemble.predict(mixed.reshape(-1, p), prepared=True)[:, output].reshape(len(S), -1).mean(1)
    return exact_shapley(game, p)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_bitset_walk_is_the_brute_force(name):
    model = MODELS[name]()
    e = tree_ensemble(model)
    data = XN if name.endswith("nan") else X
    data = data[:, :e.n_features]
    rows, background = e.as_rows(data[:3])[0], e.as_rows(data[200:270])[0]       # 70 background rows: two words
    phi = pathwise_values(e, rows, background, prepared=True, method="bitset")
    scale = np.abs(e.predict(background, prepared=True)).max()
    for i in range(3):
        for o in range(e.n_outputs):
            np.testing.assert_allclose(phi[i, :, o], brute_force(e, rows[i], background, o), rtol=0, atol=1e-10 * scale)
    explainer = TreeExplainer(model, data[200:270], feature_perturbation="interventional")   # tables + walk, as chosen
    ours = explainer.shap_values(data[:3])
    np.testing.assert_allclose(ours if ours.ndim == 3 else ours[..., None], phi, rtol=0, atol=1e-10 * scale)


def test_catboost_categorical_through_the_walk():
    "CatBoost with a categorical feature and NaN, every tree through the bitset walk, against the brute force."
    import catboost, pandas as pd
    frame = pd.DataFrame(XN[:, :4], columns=list("abcd"))
    frame["colour"] = pd.Series(np.array(["red", "green", "blue"])[np.arange(400) % 3])
    model = catboost.CatBoostRegressor(iterations=8, depth=5, verbose=0, random_seed=0, allow_writing_files=False,
                                       cat_features=["colour"], one_hot_max_size=4).fit(frame, y + (frame["colour"] == "red"))
    e = tree_ensemble(model)
    rows, background = e.as_rows(frame.iloc[:3])[0], e.as_rows(frame.iloc[100:167])[0]
    phi = pathwise_values(e, rows, background, prepared=True, method="bitset")
    for i in range(3):
        np.testing.assert_allclose(phi[i, :, 0], brute_force(e, rows[i], background), rtol=0, atol=1e-10)


@pytest.mark.parametrize("name", ["rf_reg", "gb_reg", "lgb_nan", "deep_tree"])
def test_bitset_walk_matches_shap(name):
    model = MODELS[name]()
    data = (XN if name.endswith("nan") else X)[:, :tree_ensemble(model).n_features]
    e = tree_ensemble(model)
    phi = pathwise_values(e, data[:20], data[300:390], method="bitset")[..., 0]
    theirs = shap.TreeExplainer(model, data[300:390], feature_perturbation="interventional").shap_values(data[:20])
    np.testing.assert_allclose(phi, theirs, rtol=0, atol=1e-6 * np.abs(phi).max())


@pytest.mark.parametrize("n_background", [1, 2, 63, 64, 65, 127, 128, 129, 200])
def test_word_boundaries_against_the_pair_pass(n_background, monkeypatch):
    "Background sizes around multiples of 64 (200: two passes of 100 rows), and 130 rows (blocks of 64, 64 and 2) on two threads and one."
    if n_background == 200: monkeypatch.setattr(pathwise, "WORDS_UNROLLED", 2)   # (four words would compile the kernel once more, 30 s)
    e = tree_ensemble(MODELS["deep_tree"]())
    rows, background = XN[:130, :3], XN[200:200 + n_background, :3]
    pairs = pathwise_values(e, rows[:40], background, method="pairs")
    np.testing.assert_allclose(pathwise_values(e, rows[:40], background, method="bitset"), pairs, rtol=0, atol=1e-12)
    one = TreeExplainer(e, background, feature_perturbation="interventional", n_jobs=1).shap_values(rows)
    two = TreeExplainer(e, background, feature_perturbation="interventional", n_jobs=2).shap_values(rows)
    np.testing.assert_allclose(one[:40], pairs[..., 0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(two, one, rtol=0, atol=1e-13)


def test_background_split_into_passes(monkeypatch):
    "A background larger than BITS_BYTES allows is explained in passes, averaged by their sizes."
    e = tree_ensemble(MODELS["et_reg"]())
    background = X[150:300]                                   # three words (four would compile the kernel once more, 30 s)
    whole = pathwise_values(e, X[:10], background, method="bitset")
    monkeypatch.setattr(pathwise, "BITS_BYTES", 1)            # one word per pass: three passes of 50 rows
    np.testing.assert_allclose(pathwise_values(e, X[:10], background, method="bitset"), whole, rtol=0, atol=1e-12)
    np.testing.assert_allclose(whole, pathwise_values(e, X[:10], background, method="pairs"), rtol=0, atol=1e-12)


def test_routes_and_errors():
    "Paths of more than 64 distinct features keep the pair pass ('auto'), and 'bitset' refuses them."
    X_wide = (rng.random((3000, 90)) < 0.02).astype(float)
    wide = tree_ensemble(DecisionTreeRegressor(random_state=0).fit(X_wide, X_wide @ rng.normal(size=90)))
    assert wide.path_features.max() > 64
    np.testing.assert_allclose(pathwise_values(wide, X_wide[:3], X_wide[3:9]), pathwise_values(wide, X_wide[:3], X_wide[3:9], method="pairs"),
                               rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="at most 64 distinct features"):
        pathwise_values(wide, X_wide[:3], X_wide[3:9], method="bitset")
    e = tree_ensemble(MODELS["rf_reg"]())
    with pytest.raises(ValueError, match="method must be"):
        pathwise_values(e, X[:3], X[:5], method="fast")


# --- the engine contract: single-path trees, several background rows --------------------------------------------

def path_tree(p, features, x_follows, z_follows, value):
    """A tree whose splits lie on one path; split k on features[k] sends x = 0 along the path iff x_follows[k], and
    background row z (values ±2) along iff z's value there is on the path's side. Returns the ensemble, x, the
    background (n_b, p) and, per background row, the product game's factors: a (x meets f), b_z (z meets f)."""
    D = len(features)
    n = 2 * D + 1
    left, right, feature, threshold = np.full(n, -1), np.full(n, -1), np.full(n, -1), np.zeros(n)
    leaf_value = np.zeros(n); leaf_value[2 * D] = value
    path_left = [k % 2 == 0 for k in range(D)]
    for k in range(D):
        on, off = 2 * k + 2, 2 * k + 1
        left[2 * k], right[2 * k] = (on, off) if path_left[k] else (off, on)
        feature[2 * k] = features[k]
        threshold[2 * k] = 1.0 if path_left[k] == x_follows[k] else -1.0      # x = 0 goes left iff 0 <= threshold
    tree = dict(left=left, right=right, feature=feature, threshold=threshold, cover=np.ones(n), value=leaf_value)
    ensemble = TreeEnsemble([tree], [0.0], p, np.float64)
    a = np.ones(p)
    for k in range(D): a[features[k]] *= float(x_follows[k])
    background = np.array(z_follows, float)
    b = np.ones((len(background), p))
    for r, z in enumerate(background):
        for k in range(D): b[r, features[k]] *= float((z[features[k]] <= threshold[2 * k]) == path_left[k])
    return ensemble, np.zeros(p), background, a, b


@st.composite
def deep_paths(draw):
    p = draw(st.integers(2, 64))
    D = draw(st.integers(20, 60))
    features = draw(st.lists(st.integers(0, p - 1), min_size=D, max_size=D))          # repeats on purpose
    x_follows = draw(st.lists(st.sampled_from([True] * 6 + [False]), min_size=D, max_size=D))
    n_b = draw(st.sampled_from([1, 3, 64, 65]))
    z = draw(st.lists(st.lists(st.sampled_from([-2.0, 2.0, 2.0, 2.0] if draw(st.booleans()) else [-2.0, 2.0]),
                               min_size=p, max_size=p), min_size=n_b, max_size=n_b))
    value = draw(st.floats(-5, 5).filter(lambda v: abs(v) > 1e-3))
    return p, features, x_follows, z, value


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(deep_paths())
def test_bitset_walk_is_the_mean_product_game(path):
    p, features, x_follows, z, value = path
    ensemble, x, background, a, b = path_tree(p, features, x_follows, z, value)
    on = np.unique(features)
    ref = np.zeros(p)
    for b_z in b: ref[on] += product_shapley(a[on], b_z[on], value) / len(b)
    phi = pathwise_values(ensemble, x, background, method="bitset")[0, :, 0]
    np.testing.assert_allclose(phi, ref, rtol=0, atol=1e-12 * max(np.abs(ref).max(), abs(value)))


@pytest.mark.parametrize("n_distinct", [61, 62, 63, 64])
def test_paths_of_61_to_64_distinct_features(n_distinct):
    "The leaf's slot loops run to a multiple of 4 (at most 64 slots): a path with 61-64 distinct features, some met by x, some by each z."
    draw = np.random.default_rng(n_distinct)                                     # its own draws, whatever ran before
    features = list(draw.permutation(64)[:n_distinct])
    features += [features[n_distinct % 2], features[n_distinct % 2 + 1]]        # two repeats, each on its first split's side
    x_follows = [k % 20 != 2 for k in range(n_distinct)] + [True, True]        # x misses 3-4 slots
    on_path = np.full(64, 2.0); on_path[features[:n_distinct:2]] = -2.0         # z = on_path follows every split (left at even k)
    z = np.where(draw.random((65, 64)) < 0.95, on_path, -on_path)                  # two words of background rows, each missing a few
    ensemble, x, background, a, b = path_tree(64, features, x_follows, z, 1.5)
    on = np.unique(features)
    ref = np.zeros(64)
    for b_z in b: ref[on] += product_shapley(a[on], b_z[on], 1.5) / len(b)
    assert ensemble.path_features.max() == n_distinct and np.count_nonzero(ref) > n_distinct // 2   # pairs reach the leaf
    phi = pathwise_values(ensemble, x, background, method="bitset")[0, :, 0]
    np.testing.assert_allclose(phi, ref, rtol=0, atol=1e-12)


def test_mutation_wrong_weights_are_caught():
    "The brute-force check can fail: the kernel with the two weight tables swapped disagrees with it."
    e = tree_ensemble(MODELS["rf_reg"]())
    rows, background = e.as_rows(X[:2])[0], e.as_rows(X[200:230])[0]
    trees = np.ones(len(e.roots), bool)
    nodes = e.nodes()
    internal = np.flatnonzero(e.left >= 0)
    row_of = np.full(len(e.left), -1, np.int64); row_of[internal] = np.arange(len(internal))
    depth = int(e.max_depth.max()) + 2
    slot, count = e.split_slot, e.distinct_above
    n_slots = int(count.max())
    bits = _background_bits(background, nodes, internal, np.zeros((len(internal), 1), np.uint64))
    right_w = _pair_weights(n_slots)
    run = lambda W: _explain_rows_bits(rows, len(background), bits, row_of, slot, count, nodes, depth, n_slots, 1, 1, W,
                                       _full_words(len(background)))
    truth = np.stack([brute_force(e, rows[i], background) for i in range(2)])
    np.testing.assert_allclose(run(right_w)[..., 0], truth, rtol=0, atol=1e-10)
    np.testing.assert_allclose(_bitset_values(e, rows, background, trees)[..., 0], truth, rtol=0, atol=1e-10)
    assert np.abs(run(right_w[::-1].copy())[..., 0] - truth).max() > 1e-3


# --- the compact interventional leaf tables (notebook 12) ------------------------------------------------------

TABLE_TREES = {
    "constant": lambda: DecisionTreeRegressor(random_state=0).fit(X, np.ones(len(X))),             # one leaf: d = 0
    "stump": lambda: DecisionTreeRegressor(max_depth=1, random_state=0).fit(X, y),                # d = 1
    "depth2": lambda: DecisionTreeRegressor(max_depth=2, random_state=1).fit(X, y),
    "depth5_3features": lambda: DecisionTreeRegressor(max_depth=5, random_state=0).fit(X[:, :3], y),   # repeated features
    "depth8_2features": lambda: DecisionTreeRegressor(max_depth=8, random_state=0).fit(X[:, :2], y),
    "rf_reg": MODELS["rf_reg"], "lgb_nan": MODELS["lgb_nan"], "rf_clf3": MODELS["rf_clf3"],
}


def leaf_paths(e):
    "Per leaf, its root path as (node, went left) pairs, root first (walked here, independently of notebook 12)."
    paths = {}
    for root in e.roots:
        stack = [(int(root), [])]
        while stack:
            node, path = stack.pop()
            if e.left[node] < 0: paths[node] = path; continue
            stack += [(int(e.left[node]), path + [(node, True)]), (int(e.right[node]), path + [(node, False)])]
    return paths


@pytest.mark.parametrize("name", sorted(TABLE_TREES))
def test_compact_tables_are_the_full_ones(name):
    "Every leaf's compact table, unfolded, is the mean product game table; the layout holds sum over S of (|S| + 1) entries."
    e = tree_ensemble(TABLE_TREES[name]())
    p = e.n_features
    data = XN[:, :p] if name == "lgb_nan" else X[:, :p]
    background = data[300:330]
    tables = interventional_tables(e, background, every_tree=True)
    assert tables.use.all() and tables.offsets is not None and tables.n_background == len(background)
    z_left = [TreePathGame(e, z).goes_left for z in background]
    size = np.diff(np.append(tables.start, len(tables.table)))
    depths = set()
    for leaf, path in leaf_paths(e).items():
        slots = list(dict.fromkeys(int(e.feature[n]) for n, _ in path))       # features in order of first appearance
        d = len(slots)
        depths.add(d)
        assert size[leaf] == sum(bin(S).count("1") + 1 for S in range(1 << d))
        assert tables.offsets[1 << d] == size[leaf]
        if d == 0: continue
        s_z = np.ones((len(background), d))
        for n, went_left in path:
            for r in range(len(background)):
                if z_left[r][n] != went_left: s_z[r, slots.index(int(e.feature[n]))] = 0.0
        patterns = ((np.arange(1 << d)[:, None] >> np.arange(d)) & 1).astype(float)
        full = np.mean([product_shapley(patterns, b) for b in s_z], axis=0)
        np.testing.assert_allclose(_leaf_entries(tables, leaf, d), full, rtol=0, atol=1e-13)
    assert size[e.left >= 0].sum() == 0 and size.sum() == len(tables.table)
    if name == "constant": assert depths == {0}
    if name == "stump": assert depths == {1}
    rows = data[:25]
    phi = table_values(e, rows, tables)
    np.testing.assert_allclose(phi, pathwise_values(e, rows, background, method="bitset"), rtol=0, atol=1e-12)
    for i in (0, 11):
        for o in range(e.n_outputs):
            np.testing.assert_allclose(phi[i, :, o], brute_force(e, e.as_rows(rows[i:i + 1])[0][0], e.as_rows(background)[0], o),
                                       rtol=0, atol=1e-10)


def test_compact_tables_fit_more_trees():
    "The pattern offsets are the running sums of |S| + 1, and a limit that held the full tables of k trees holds more compact ones."
    off = _pattern_offsets(10)
    counts = np.array([bin(S).count("1") + 1 for S in range(1 << 10)])
    np.testing.assert_array_equal(off, np.concatenate([[0], np.cumsum(counts)]))
    for d in range(11): assert off[1 << d] == (1 << d) * (d + 2) // 2
    e = tree_ensemble(RandomForestRegressor(n_estimators=20, max_depth=6, random_state=0).fit(X, y))
    background = X[300:340]
    every = interventional_tables(e, background, every_tree=True)
    distinct = [len(set(int(e.feature[n]) for n, _ in path)) for path in leaf_paths(e).values()]
    full_doubles = sum(d << d for d in distinct)                     # the 2^d x d layout
    assert len(every.table) == sum((1 << d) * (d + 2) // 2 for d in distinct) < 0.8 * full_doubles
    limit = 8 * full_doubles // 2                                     # half the full tables' bytes
    half = interventional_tables(e, background, max_bytes=limit, every_tree=True)
    assert half.table.nbytes <= limit and half.use.sum() > len(e.roots) // 2
