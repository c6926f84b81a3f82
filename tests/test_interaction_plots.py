"""Tests of the interaction plots of `shapnb.plots`: `interaction_heatmap`, `interaction_partner` and the partner-coloured
dependence plot (`scatter` / `dependence_plot`), on explanations whose interactions are known exactly."""
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.svm import SVR

from shapnb.core.explanation import Explanation
from shapnb.core.games import MarginalGame
from shapnb.core.indices import exact_interactions
from shapnb.exact.kernels import ProductKernelExplainer
from shapnb.exact.trees import TreeExplainer
from shapnb.plots import dependence_plot, interaction_heatmap, interaction_partner, scatter

NAMES = ["a", "b", "c", "d", "e"]


def f(A):
    "Two interacting pairs of different strength, (a, b) strong and (c, e) weak, and d alone."
    return 4 * A[:, 0] * A[:, 1] + A[:, 2] * A[:, 4] + A[:, 3]


@pytest.fixture(scope="module")
def pairs():
    "Exact SII of f on 25 rows against 8 background rows (by enumeration), with Shapley values on the diagonal."
    rng = np.random.default_rng(0)
    X, B = rng.normal(size=(25, 5)), rng.normal(size=(8, 5))
    I = np.stack([exact_interactions(MarginalGame(f, x, B), 5, "SII") for x in X])
    return Explanation(np.diagonal(I, axis1=1, axis2=2), f(B).mean(), data=X, feature_names=NAMES, method="exact",
                       details={"index": "SII", "interactions": I})


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_partner_is_the_largest_mean_interaction(pairs):
    I = pairs.interactions
    assert [interaction_partner(pairs, x) for x in ("a", "b", "c", "e")] == ["b", "a", "e", "c"]
    assert interaction_partner(pairs, "d") is None                # d acts alone: no partner, not a rounding-level one
    assert np.abs(I[:, 3, [0, 1, 2, 4]]).max() < 1e-12 < np.abs(I[:, 2, 4]).mean()


def test_partner_uses_the_interactions_not_the_heuristic(pairs):
    I = pairs.interactions.copy()
    I[:, 0, 3] = I[:, 3, 0] = 50.0                                # interactions name d as a's partner
    forged = Explanation(pairs.values, data=pairs.data, feature_names=NAMES, details={"interactions": I})
    assert interaction_partner(forged, "a") == "d"
    assert interaction_partner(Explanation(pairs.values, data=pairs.data, feature_names=NAMES), "a") == "b"   # heuristic
    assert scatter(forged, "a").figure.axes[-1].get_ylabel() == "d"


def test_dependence_plot_colours_by_the_partner(pairs):
    assert dependence_plot is scatter
    ax = dependence_plot(pairs, "c")
    assert ax.figure.axes[-1].get_ylabel() == "e"
    np.testing.assert_array_equal(ax.collections[-1].get_offsets()[:, 1], pairs.values[:, 2])
    assert len(dependence_plot(pairs, "d").figure.axes) == 1    # no partner: no colour bar
    fig, axs = plt.subplots(1, 2)
    assert dependence_plot(pairs, 0, color="e", ax=axs[1]) is axs[1]


def test_heatmap_mean_magnitudes_and_order(pairs):
    ax = interaction_heatmap(pairs)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[:2] == ["a", "b"] and labels[-1] == "d"       # strongest first, the lone feature last
    order = [NAMES.index(s) for s in labels]
    expected = np.abs(pairs.interactions).mean(0)[np.ix_(order, order)]
    shown = ax.images[0].get_array()
    assert shown.mask.diagonal().all() and not shown.mask[~np.eye(5, dtype=bool)].any()
    off = ~np.eye(5, dtype=bool)
    np.testing.assert_allclose(shown.data[off], expected[off], rtol=0, atol=1e-14)
    assert ax.images[0].get_clim()[0] == 0
    assert ax.figure.axes[-1].get_ylabel() == "mean |SII| over 25 rows"


def test_heatmap_one_row_signed_top_k_and_diagonal(pairs):
    fig, ax0 = plt.subplots()
    ax = interaction_heatmap(pairs, row=-1, diagonal=True, max_display=3, ax=ax0)
    assert ax is ax0
    labels = [t.get_text() for t in ax.get_yticklabels()]
    order = [NAMES.index(s) for s in labels]
    assert len(labels) == 3 and labels[:2] in (["a", "b"], ["b", "a"])
    np.testing.assert_allclose(ax.images[0].get_array(), pairs.interactions[-1][np.ix_(order, order)], rtol=0, atol=0)
    lo, hi = ax.images[0].get_clim()
    assert lo == -hi > -np.inf and hi == np.abs(pairs.interactions[-1][np.ix_(order, order)]).max()
    single = Explanation(pairs.values[4], data=pairs.data[4], feature_names=NAMES,
                         details={"index": "SII", "interactions": pairs.interactions[4]})
    assert interaction_heatmap(single).images[0].get_array().shape == (5, 5)
    assert len(interaction_heatmap(pairs, annotate=False).texts) == 0
    assert len(interaction_heatmap(pairs, max_display=None).texts) == 20


def test_heatmap_multi_output(pairs):
    I = pairs.interactions
    two = Explanation(np.stack([pairs.values, 2 * pairs.values], -1), 0.0, feature_names=NAMES, output_names=["u", "v"],
                      details={"interactions": np.stack([I, 2 * I], -1)})
    with pytest.raises(ValueError, match="choose one with output="):
        interaction_heatmap(two)
    ax = interaction_heatmap(two, output="v", diagonal=True)
    order = [NAMES.index(t.get_text()) for t in ax.get_yticklabels()]
    np.testing.assert_allclose(ax.images[0].get_array(), 2 * np.abs(I).mean(0)[np.ix_(order, order)], rtol=0, atol=1e-13)
    assert interaction_partner(two.output(1), "c") == "e"        # the selected output's interactions, found by their diagonal
    with pytest.raises(ValueError, match="expl.output"):
        interaction_partner(two, "c")
    with pytest.raises(ValueError, match="unknown output 'w'"):
        interaction_heatmap(two, output="w")


@pytest.mark.parametrize("call, error, message", [
    (lambda e: interaction_heatmap(Explanation(e.values, feature_names=NAMES)), ValueError, "no pairwise interactions"),
    (lambda e: interaction_heatmap(e.mean(0)), ValueError, "no pairwise interactions"),   # averaged: dropped (rows selected: kept)
    (lambda e: interaction_heatmap(e[:, ["a", "b"]]), ValueError, "selecting or reordering features"),
    (lambda e: interaction_heatmap(e[:, ["b", "a", "c", "d", "e"]]), ValueError, "selecting or reordering features"),   # reordered
    (lambda e: interaction_heatmap(Explanation(e.values, details={"interactions": e.interactions[:, :4]})),
     ValueError, r"must have shape \(25, 5, 5\)"),
    (lambda e: interaction_heatmap(Explanation(e.values, details={"interactions": np.full((25, 5, 5), np.nan)})),
     ValueError, "non-finite"),
    (lambda e: interaction_heatmap(e, row=25), ValueError, "out of range for 25 rows"),
    (lambda e: interaction_heatmap(e, row="0"), TypeError, "row must be an integer"),
    (lambda e: interaction_heatmap(e, max_display=1), ValueError, "at least 2"),
    (lambda e: interaction_heatmap(e, max_display=2.0), TypeError, "max_display must be an integer"),
    (lambda e: interaction_heatmap(e, diagonal=1), TypeError, "diagonal must be True or False"),
    (lambda e: interaction_heatmap(e.interactions), ValueError, "expected a shapnb Explanation"),
    (lambda e: interaction_heatmap(e, output=0), ValueError, "single output"),
    (lambda e: interaction_partner(e, "z"), ValueError, "unknown or repeated feature 'z'"),
    (lambda e: interaction_partner(e, 5), ValueError, "out of range for 5 features"),
    (lambda e: interaction_partner(e, 1.5), TypeError, "feature must be an integer"),
    (lambda e: interaction_partner(e[0], "a"), ValueError, "several rows"),
    (lambda e: scatter(e, "nope"), ValueError, "unknown or repeated feature 'nope'"),
])
def test_bad_input_is_refused(pairs, call, error, message):
    with pytest.raises(error, match=message):
        call(pairs)


def test_kernel_model_heatmap_and_partner():
    "A product-kernel model's exact interactions (k-SII) plot directly; the partner agrees with the heat map's largest cell."
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 4))
    model = SVR(kernel="rbf", gamma=0.3, C=10).fit(X, X[:, 0] * X[:, 1] + 0.3 * X[:, 2])
    e = ProductKernelExplainer(model).interaction_values(X[:20], index="k-SII")
    ax = interaction_heatmap(e)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert set(labels[:2]) == {"x0", "x1"}
    assert interaction_partner(e, "x0") == "x1" and interaction_partner(e, "x1") == "x0"
    assert ax.figure.axes[-1].get_ylabel() == "mean |k-SII| over 20 rows"


def test_tree_model_heatmap_and_partner():
    "Tree interactions (once `TreeExplainer.interaction_values` exists) plot through the same contract."
    if not hasattr(TreeExplainer, "interaction_values"): pytest.skip("TreeExplainer.interaction_values is not available yet")
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 4))
    model = GradientBoostingRegressor(n_estimators=30, max_depth=3, random_state=0).fit(X, 2 * X[:, 0] * X[:, 1] + 0.5 * X[:, 2])
    e = TreeExplainer(model).interaction_values(X[:30], index="k-SII")
    assert e.interactions.shape == (30, 4, 4)
    assert interaction_partner(e, 0) == e.feature_names[1] and interaction_partner(e, 1) == e.feature_names[0]
    labels = [t.get_text() for t in interaction_heatmap(e).get_yticklabels()]
    assert set(labels[:2]) == {e.feature_names[0], e.feature_names[1]}
