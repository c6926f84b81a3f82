"""Property tests of the foundation: brute-force Shapley values, table games and the Gauss-Legendre engine."""
import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
import hypothesis.extra.numpy as hnp

from shapnb.core.games import (TableGame, CachedGame, all_coalitions, exact_shapley, load_table_game, mask_to_coalition,
                          shapley_from_values, shapley_matrix)
from shapnb.core.beta import ProductGame, product_shapley_reference
from shapnb.core.quadrature import exact_nodes, gauss_legendre_01, product_shapley

factor = st.one_of(st.just(0.0), st.floats(-3, 3, allow_nan=False, allow_infinity=False))


@st.composite
def product_games(draw, max_p=12):
    p = draw(st.integers(1, max_p))
    a = draw(hnp.arrays(float, p, elements=factor))
    b = draw(hnp.arrays(float, p, elements=factor))
    c = draw(st.floats(-5, 5, allow_nan=False))
    return a, b, c


def value_scale(a, b, c):
    "Largest |v(S)| over all coalitions: the unit in which rounding errors are measured."
    return max(np.abs(ProductGame(a, b, c)(all_coalitions(len(a)))).max(), 1e-300)


@settings(max_examples=150, deadline=None)
@given(product_games())
def test_product_shapley_matches_brute_force(game):
    a, b, c = game
    phi, residual = product_shapley(a, b, c, return_residual=True)
    scale = value_scale(a, b, c)
    assert np.all(np.abs(phi - exact_shapley(ProductGame(a, b, c), len(a))) <= 1e-12 * scale)
    assert abs(residual) <= 1e-12 * scale


@settings(max_examples=60, deadline=None)
@given(product_games(max_p=9), st.floats(-250, 250))
def test_product_shapley_scale_invariance(game, log10_scale):
    "Moving a factor 10^k from player 0 to player 1 leaves the game, hence the values, unchanged (both code paths)."
    a, b, c = game
    if len(a) < 2: return
    s = np.ones(len(a)); s[0], s[1] = 10.0 ** log10_scale, 10.0 ** -log10_scale
    original, moved = np.concatenate([a, b]), np.concatenate([a * s, b * s])
    assume(np.all((original == 0) | (np.abs(moved) > 1e-290)))   # an underflowing factor would make another game
    ref = product_shapley(a, b, c)
    assert np.all(np.abs(product_shapley(a * s, b * s, c) - ref) <= 1e-12 * value_scale(a, b, c))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(1, 9), st.integers(0, 2**31 - 1))
def test_batches_equal_single_games(batch, p, seed):
    rng = np.random.default_rng(seed)
    a, b, c = rng.uniform(-2, 2, (batch, p)), rng.uniform(-2, 2, (batch, p)), rng.uniform(-2, 2, batch)
    phi = product_shapley(a, b, c)
    for k in range(batch): np.testing.assert_allclose(phi[k], product_shapley_reference(a[k], b[k], c[k]), rtol=0, atol=1e-12 * value_scale(a[k], b[k], c[k]))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 80))
def test_quadrature_integrates_polynomials_exactly(m):
    t, w = gauss_legendre_01(m)
    for k in range(0, 2 * m, max(1, m // 4)): assert abs((w * t**k).sum() - 1 / (k + 1)) < 1e-14


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 10), st.integers(0, 2**31 - 1))
def test_table_game_linearity_and_efficiency(p, seed):
    rng = np.random.default_rng(seed)
    v1, v2 = rng.normal(size=(2, 2**p))
    phi1, phi2 = shapley_from_values(v1), shapley_from_values(v2)
    np.testing.assert_allclose(shapley_from_values(2 * v1 - v2), 2 * phi1 - phi2, atol=1e-12)
    assert abs(phi1.sum() - (v1[-1] - v1[0])) < 1e-12
    np.testing.assert_allclose(shapley_matrix(p) @ v1, phi1, atol=1e-12)
    np.testing.assert_allclose(exact_shapley(CachedGame(TableGame(v1), p), p), phi1, atol=1e-13)


def test_exact_nodes_are_the_threshold():
    assert [exact_nodes(p) for p in range(1, 8)] == [1, 1, 2, 2, 3, 3, 4]


def test_real_games_efficiency(game_files):
    "Every benchmark game: exact values from the table satisfy efficiency to 1e-12 relative to the game's scale."
    for path in game_files:
        game = load_table_game(path)
        phi = game.exact_shapley()
        scale = max(np.abs(game.values).max(), 1e-300)
        assert abs(phi.sum() - (game.values[-1] - game.values[0])) <= 1e-12 * scale, path.name


def test_real_games_brute_force_agrees_with_matrix(game_files):
    "On real games with p <= 10 the reshape-based exact values equal the dense Shapley matrix and the callable path."
    small = [f for f in game_files if load_table_game(f).n_players <= 10][:25]
    assert small
    for path in small:
        game = load_table_game(path)
        phi = game.exact_shapley()
        np.testing.assert_allclose(shapley_matrix(game.n_players) @ game.values, phi, rtol=0, atol=1e-12 * np.abs(game.values).max())
        np.testing.assert_allclose(exact_shapley(game, game.n_players), phi, rtol=0, atol=1e-13 * np.abs(game.values).max())


def test_bad_inputs_are_rejected():
    with pytest.raises(ValueError, match="non-finite"): product_shapley([1.0, np.inf])
    with pytest.raises(ValueError, match="nodes m must be at least 1"): product_shapley([1.0, 2.0], m=-1)
    with pytest.raises(TypeError, match="nodes m must be an integer"): product_shapley([1.0, 2.0], m=2.5)
    with pytest.raises(TypeError, match="batch_size must be an integer"): exact_shapley(lambda Z: Z.sum(1), 3, batch_size=8.0)
    with pytest.raises(TypeError, match="must be an integer"): exact_shapley(lambda Z: Z.sum(1), True)
    with pytest.raises(ValueError, match="at least 1"): exact_shapley(lambda Z: Z.sum(1), 0)
    with pytest.raises(ValueError, match="must return shape"): exact_shapley(lambda Z: np.ones((len(Z), 2)), 3)
    with pytest.raises(ValueError, match=r"\[0, 2\*\*3\)"): mask_to_coalition([-1], 3)


def test_evaluate_game_refuses_complex_and_non_numeric_answers():
    from shapnb.core.validation import evaluate_game
    Z = np.array([[True, False], [True, True]])
    with pytest.raises(ValueError, match="complex values"): evaluate_game(lambda Z: Z.sum(1) + 0j, Z)
    with pytest.raises(ValueError, match="must return numbers"): evaluate_game(lambda Z: np.array([None, "x"]), Z)
    with pytest.raises(ValueError, match="complex values"): exact_shapley(lambda Z: Z.sum(1) * 1j, 3)


def test_a_models_prediction_method_as_a_game_warns():
    import warnings
    from shapnb.core.validation import evaluate_game, ModelAsGameWarning
    class Model:
        def fit(self, X, y): return self
        def predict(self, X): return np.asarray(X, float).sum(1)
        def decision_function(self, X): return np.asarray(X, float).sum(1)
    Z = np.eye(3, dtype=bool)
    for method in (Model().predict, Model().decision_function):
        with pytest.warns(ModelAsGameWarning, match=rf"MarginalGame\(model.{method.__name__}, x, background\)"):
            evaluate_game(method, Z)
    with pytest.raises(TypeError, match="not a callable game"): evaluate_game(Model(), Z)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate_game(lambda Z: Z.sum(1), Z); evaluate_game(TableGame(np.arange(8.0)), Z)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(0, 2**31 - 1))
def test_marginal_game_passes_nan_to_the_model(p, seed):
    "A linear model that reads NaN as a known constant: the marginal values are its closed form on the filled data."
    from shapnb.core.games import MarginalGame
    rng = np.random.default_rng(seed)
    beta, x, B = rng.normal(size=p), rng.normal(size=p), rng.normal(size=(7, p))
    x[rng.random(p) < 0.3] = np.nan; B[rng.random((7, p)) < 0.3] = np.nan
    fill = 0.25
    predict = lambda A: np.where(np.isnan(A), fill, A) @ beta
    phi = exact_shapley(MarginalGame(predict, x, B), p)
    filled_x, filled_B = np.where(np.isnan(x), fill, x), np.where(np.isnan(B), fill, B)
    np.testing.assert_allclose(phi, beta * (filled_x - filled_B.mean(0)), rtol=0, atol=1e-12)
