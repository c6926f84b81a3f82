"""Tree interactions and semivalues (notebook 12b, `TreeExplainer.interaction_values` / `shap_interaction_values` /
`semivalues` of notebook 13) against the brute-force games over all coalitions, shap, and each other."""
import numpy as np
import pytest
from sklearn.tree import DecisionTreeRegressor
from sklearn.ensemble import (RandomForestRegressor, RandomForestClassifier, GradientBoostingClassifier,
                              HistGradientBoostingRegressor)

from shapnb.core.indices import exact_interactions, exact_semivalues, sii_to_shap
from shapnb.exact.trees.ensemble import tree_ensemble, TreePathGame, TreeEnsemble, DECISION_CATEGORY
from shapnb.exact.trees.indices import tree_interactions, tree_semivalues
from shapnb.exact.trees.explainer import TreeExplainer

INTERACTIONS = ["SII", "k-SII", "STII", "BII"]
SEMIVALUES = ["shapley", "banzhaf", ("weighted_banzhaf", 0.2), ("weighted_banzhaf", 0.0), ("weighted_banzhaf", 1.0),
              ("beta_shapley", 16, 1), ("beta_shapley", 0.5, 3),
              ("beta_shapley", 1e12, 1e12), ("beta_shapley", 1e14, 3.0)]   # large parameters: the moments by rising factorials

rng = np.random.default_rng(7)
P = 7
X = rng.normal(size=(500, P))
y = X[:, 0] * X[:, 1] + np.sin(2 * X[:, 2]) + (X[:, 3] > 0.3) * X[:, 4] + 0.1 * rng.normal(size=500)
y3 = np.digitize(y, [-0.4, 0.6])
XN = np.where(rng.random(X.shape) < 0.15, np.nan, X)                 # rows and training data with missing values
BACKGROUND = XN[200:210]


def hybrid_game(ensemble, x, background, output=0):
    "The interventional game: mean raw prediction of the hybrid rows (x_S, z_rest) over the background."
    return lambda Z: np.array([ensemble.predict(np.where(s, x, background))[:, output].mean() for s in Z])


MODELS = {
    "deep_tree": lambda: DecisionTreeRegressor(max_depth=9, random_state=0).fit(XN, y, sample_weight=rng.uniform(0.5, 2, 500)),
    "forest_classifier": lambda: RandomForestClassifier(3, max_depth=5, random_state=0).fit(XN, y3),
    "boosted_multiclass": lambda: GradientBoostingClassifier(n_estimators=2, max_depth=3, random_state=0).fit(X, y3),
}


@pytest.fixture(scope="module", params=sorted(MODELS))
def ensemble(request):
    return tree_ensemble(MODELS[request.param]())


def _data_for(ensemble):
    "Rows and background with missing values, or without them for a model whose predict refuses NaN (GradientBoosting)."
    return (XN, BACKGROUND) if ensemble.takes_missing else (X, X[200:210])


def test_interactions_are_the_brute_force_games(ensemble):
    rows, background = _data_for(ensemble)
    x = rows[1]
    for o in range(ensemble.n_outputs):
        path, inter = TreePathGame(ensemble, x, o), hybrid_game(ensemble, x, background, o)
        for index in INTERACTIONS:
            np.testing.assert_allclose(tree_interactions(ensemble, x, index)[0, :, :, o], exact_interactions(path, P, index), atol=1e-12)
            np.testing.assert_allclose(tree_interactions(ensemble, x, index, background)[0, :, :, o],
                                       exact_interactions(inter, P, index), atol=1e-12)


def test_semivalues_are_the_brute_force_games(ensemble):
    rows, background = _data_for(ensemble)
    x = rows[3]
    path, inter = TreePathGame(ensemble, x, 0), hybrid_game(ensemble, x, background, 0)
    for index in SEMIVALUES:
        np.testing.assert_allclose(tree_semivalues(ensemble, x, index)[0, :, 0], exact_semivalues(path, P, index), atol=1e-12)
        np.testing.assert_allclose(tree_semivalues(ensemble, x, index, background)[0, :, 0], exact_semivalues(inter, P, index), atol=1e-12)


def test_kernels_agree():
    e = tree_ensemble(RandomForestRegressor(8, max_depth=7, random_state=0).fit(XN, y))
    rows = XN[:40]
    for index in ["SII", "k-SII", "BII"]:
        np.testing.assert_allclose(tree_interactions(e, rows, index, kernel="edges"), tree_interactions(e, rows, index, kernel="leaves"), atol=1e-12)
    np.testing.assert_allclose(tree_interactions(e, rows, "STII"), tree_interactions(e, rows, "STII", kernel="leaves"), atol=1e-12)
    for index in INTERACTIONS:
        np.testing.assert_allclose(tree_interactions(e, rows[:10], index, BACKGROUND, kernel="patterns"),
                                   tree_interactions(e, rows[:10], index, BACKGROUND, kernel="leaves"), atol=1e-12)
    for index in SEMIVALUES[:3] + SEMIVALUES[5:]:
        np.testing.assert_allclose(tree_semivalues(e, rows, index, kernel="edges"), tree_semivalues(e, rows, index, kernel="leaves"), atol=1e-12)



@pytest.mark.parametrize("n_background", [1, 63, 64, 65, 130])
def test_pruned_pattern_walk_across_bitset_words(n_background, monkeypatch):
    """The interventional pattern kernel prunes subtrees by a bitset of background rows (64 a word): one row (most leaves out of
    reach), a full word, one row into a second word, three words; against the leaf-wise kernel and the brute-force game."""
    e = tree_ensemble(RandomForestRegressor(4, max_depth=7, random_state=0).fit(XN, y))
    bg, rows = XN[250:250 + n_background], XN[:12]
    for index in INTERACTIONS:
        np.testing.assert_allclose(tree_interactions(e, rows, index, bg, kernel="patterns"),
                                   tree_interactions(e, rows, index, bg, kernel="leaves"), atol=1e-12)
    for index in ("banzhaf", ("beta_shapley", 0.5, 3)):
        np.testing.assert_allclose(tree_semivalues(e, rows, index, bg, kernel="patterns"),
                                   tree_semivalues(e, rows, index, bg, kernel="leaves"), atol=1e-12)
    x = XN[2]
    np.testing.assert_allclose(tree_interactions(e, x, "k-SII", bg, kernel="patterns")[0, :, :, 0],
                               exact_interactions(hybrid_game(e, x, bg), P, "k-SII"), atol=1e-12)
    cached = tree_interactions(e, XN[:60], "SII", bg, kernel="patterns")     # the per-leaf cache of row patterns: none, one, default
    for size in (0, 1):
        monkeypatch.setattr("shapnb.exact.trees.indices._CACHED_PATTERNS", size)
        np.testing.assert_array_equal(tree_interactions(e, XN[:60], "SII", bg, kernel="patterns"), cached)

def test_categorical_split_and_zero_cover():
    tree = {"left": [1, 3, 5, -1, -1, -1, -1], "right": [2, 4, 6, -1, -1, -1, -1], "feature": [1, 0, 1, -1, -1, -1, -1],
            "threshold": [1.0, 0.5, 2.5, 0, 0, 0, 0], "decision": [DECISION_CATEGORY, 0, 0, 0, 0, 0, 0],
            "categories": [[1, 3], None, None, None, None, None, None], "cover": [10.0, 6, 4, 6, 0, 1, 3],
            "value": [[0.0], [0], [0], [1.0], [-2.0], [3.0], [0.5]]}
    e = TreeEnsemble([tree], [0.0], 3, np.float64)
    rows = np.array([[0.2, 1.0, 5.0], [0.9, 3.0, 0.0], [-1.0, 2.0, 1.0], [0.7, np.nan, 2.0], [np.nan, 4.0, 0.0]])
    for x in rows:
        for index in INTERACTIONS:
            np.testing.assert_allclose(tree_interactions(e, x, index)[0, :, :, 0], exact_interactions(TreePathGame(e, x), 3, index), atol=1e-14)
            np.testing.assert_allclose(tree_interactions(e, x, index, rows)[0, :, :, 0], exact_interactions(hybrid_game(e, x, rows), 3, index), atol=1e-14)


def test_efficiency_of_k_sii_and_stii():
    model = HistGradientBoostingRegressor(max_iter=15, random_state=0).fit(XN, y)
    for explainer in (TreeExplainer(model), TreeExplainer(model, XN[300:340])):
        for index in ("k-SII", "STII"):
            e = explainer.interaction_values(XN[:30], index)
            total = np.triu(e.interactions, 1).sum((1, 2)) + e.values.sum(1)
            np.testing.assert_allclose(total, model.predict(XN[:30]) - explainer.expected_value, atol=1e-12)
        np.testing.assert_allclose(explainer.shap_interaction_values(XN[:30]).sum(2), explainer.shap_values(XN[:30]), atol=1e-12)


@pytest.mark.parametrize("make", [lambda: RandomForestRegressor(10, max_depth=6, random_state=0).fit(X, y),
                                  lambda: RandomForestClassifier(10, max_depth=6, random_state=0).fit(X, y3),
                                  lambda: GradientBoostingClassifier(n_estimators=10, random_state=0).fit(X, y > 0)])
def test_shap_interaction_values_match_shap(make):
    shap = pytest.importorskip("shap")
    model = make()
    ours, theirs = TreeExplainer(model).shap_interaction_values(X[:30]), shap.TreeExplainer(model).shap_interaction_values(X[:30])
    assert ours.shape == np.shape(theirs)
    np.testing.assert_allclose(ours, theirs, atol=1e-9 * np.abs(model.predict(X)).max())
    assert TreeExplainer(model).shap_interaction_values(X[0]).shape == np.shape(theirs)[1:]


def test_interventional_shap_convention_is_the_brute_force_sii():
    model = RandomForestRegressor(4, max_depth=5, random_state=0).fit(XN, y)
    explainer = TreeExplainer(model, BACKGROUND)
    e = tree_ensemble(model)
    np.testing.assert_allclose(explainer.shap_interaction_values(XN[5]),
                               sii_to_shap(exact_interactions(hybrid_game(e, XN[5], BACKGROUND), P, "SII")), atol=1e-12)


def test_threads_do_not_change_values():
    model = RandomForestRegressor(6, max_depth=6, random_state=0).fit(X, y)
    for data in (None, X[300:320]):
        one, two = TreeExplainer(model, data, n_jobs=1), TreeExplainer(model, data, n_jobs=2)
        np.testing.assert_array_equal(one.interaction_values(X[:50], "BII").interactions, two.interaction_values(X[:50], "BII").interactions)
        np.testing.assert_array_equal(one.semivalues(X[:50]).values, two.semivalues(X[:50]).values)


def test_bad_input_is_refused():
    explainer = TreeExplainer(DecisionTreeRegressor(max_depth=3).fit(X, y))
    with pytest.raises(ValueError, match="only pairwise interactions"): explainer.interaction_values(X[:2], order=3)
    with pytest.raises(TypeError, match="order must be an integer"): explainer.interaction_values(X[:2], order=2.0)
    with pytest.raises(ValueError, match="an interaction index is one of"): explainer.interaction_values(X[:2], "Faith")
    with pytest.raises(ValueError, match="a semivalue is"): explainer.semivalues(X[:2], "owen")
    with pytest.raises(ValueError, match="kernel must be one of"): tree_semivalues(explainer.ensemble, X[:2], kernel="gpu")
    with pytest.raises(ValueError, match="features"): explainer.shap_interaction_values(X[:2, :3])


def test_interactions_too_large_to_allocate_say_so():
    "A (n, p, p) array beyond the memory: a MemoryError that gives its size and the way out, not numba's bare one."
    import subprocess, sys
    code = """
import resource, numpy as np
resource.setrlimit(resource.RLIMIT_AS, (8 * 2**30, 8 * 2**30))
from sklearn.ensemble import RandomForestRegressor
from shapnb.exact.trees import TreeExplainer
X = np.random.default_rng(0).normal(size=(300, 3000)).astype(np.float32)
model = RandomForestRegressor(3, max_depth=4, random_state=0, max_features=0.01).fit(X, X[:, 0] * X[:, 1])
try: TreeExplainer(model).interaction_values(X[:150])
except MemoryError as e: print(e)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert "(150, 3000, 3000, 1) array of 10.1 GiB" in out.stdout and "explain fewer rows per call" in out.stdout, out.stdout + out.stderr[-2000:]
