"""Tests of shapnb.sampling.surrogate (notebook 25): exactness, unbiasedness by brute force, standard errors, validation."""
import warnings
from concurrent.futures import ThreadPoolExecutor
import numpy as np
import pytest
from sklearn.tree import DecisionTreeRegressor
from shapnb.core.games import exact_shapley, all_coalitions, TableGame
from shapnb.sampling.design import shapley_kernel, wallenius_design
from shapnb.sampling.regression import sum_zero_basis, UnderdeterminedWarning
from shapnb.sampling.surrogate import (population_gram, linear_shapley, CoalitionSurrogate, assign_folds, surrogate_shap,
                                       SURROGATES)


def random_game(p, seed=0):
    "A random table game with a pairwise and a three-way interaction."
    rng = np.random.default_rng(seed)
    Z = all_coalitions(p)
    return TableGame(rng.normal(size=2 ** p) + 3 * Z[:, 0] * Z[:, 1] - 2 * Z[:, 2] * Z[:, 3] * Z[:, 4])


def test_population_gram_is_the_sum_over_all_coalitions():
    for p in (2, 4, 7):
        Z = all_coalitions(p); Z = Z[(Z.sum(1) > 0) & (Z.sum(1) < p)]
        X = Z @ sum_zero_basis(p)
        np.testing.assert_allclose(population_gram(p), X.T @ (shapley_kernel(p, Z.sum(1))[:, None] * X), atol=1e-12)


def test_linear_shapley_exact_on_all_coalitions():
    p = 6; g = random_game(p, 1)
    Z = all_coalitions(p); Z = Z[(Z.sum(1) > 0) & (Z.sum(1) < p)]
    np.testing.assert_allclose(linear_shapley(Z, g(Z), shapley_kernel(p, Z.sum(1)), g.values[0], g.values[-1]),
                               exact_shapley(g, p), atol=1e-10)


@pytest.mark.parametrize("kind", SURROGATES + ("tree",))
def test_surrogate_shapley_values_are_exact(kind):
    rng = np.random.default_rng(2); p = 6
    Z = rng.random((30, p)) < 0.5
    y = Z @ rng.normal(size=p) + Z[:, 0] * Z[:, 1]
    g = CoalitionSurrogate(DecisionTreeRegressor(max_depth=3, random_state=0) if kind == "tree" else kind, seed=0).fit(Z, y)
    np.testing.assert_allclose(g.shapley(), exact_shapley(lambda Z: g.predict(Z), p), atol=1e-9)


def test_full_budget_is_exact_with_zero_se():
    p = 5; g = random_game(p, 3)
    e = surrogate_shap(g, p, 2 ** p, seed=0)
    np.testing.assert_allclose(e.values, exact_shapley(g, p), atol=1e-9)
    np.testing.assert_array_equal(e.se, np.zeros(p))
    assert e.n_evals == 2 ** p and e.method == "surrogate_shap"


def test_evaluations_counted_and_efficiency_exact():
    p = 6; g = random_game(p, 4)
    calls = []
    def game(Z): calls.append(len(Z)); return g(Z)
    e = surrogate_shap(game, p, 36, seed=1, bootstrap=None)
    assert sum(calls) == 36 == e.n_evals
    assert abs(e.values.sum() - (g.values[-1] - g.values[0])) < 1e-9


def test_correction_is_unbiased_brute_force():
    "Over 300 seeds, the mean error is within 4 standard errors of zero; the uncorrected surrogate is not."
    p = 6; g = random_game(p, 5); truth = exact_shapley(g, p)
    stump = DecisionTreeRegressor(max_depth=2, random_state=0)
    runs = [surrogate_shap(g, p, 44, seed=s, surrogate=stump, n_folds=2, correction="full", bootstrap=None) for s in range(300)]
    assert all(e.exactly_unbiased for e in runs)
    def z(errors): return np.abs(errors.mean(0) / (errors.std(0, ddof=1) / np.sqrt(len(errors)))).max()
    assert z(np.array([e.values - truth for e in runs])) < 4
    assert z(np.array([e.surrogate_values - truth for e in runs])) > 4


def test_standard_errors_given_and_declined():
    p = 6; g = random_game(p, 6)
    e = surrogate_shap(g, p, 40, seed=0, n_boot=50)
    assert e.se is not None and (e.se > 0).all() and e.se_note is None and e.replicates.shape == (50, p)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnderdeterminedWarning)
        small = surrogate_shap(g, p, 2 * p, seed=0)
    assert small.se is None and "no standard errors" in small.se_note
    assert surrogate_shap(g, p, 40, seed=0, bootstrap=None).se is None


def test_folds_balanced_within_strata():
    d = wallenius_design(9, 50, seed=1)
    f = assign_folds(d, 4, 0)
    su = np.zeros(d.n_units, int); su[d.unit] = d.stratum
    for h in range(len(d.counts)):
        sizes = np.bincount(f[su == h], minlength=4)
        assert sizes.max() - sizes.min() <= 1


def test_bad_input_rejected():
    p = 5; g = random_game(p, 7)
    with pytest.raises(TypeError): surrogate_shap(g, p, 20.0)
    with pytest.raises(TypeError): surrogate_shap("g", p, 20)
    with pytest.raises(ValueError, match="unknown surrogate"): surrogate_shap(g, p, 20, surrogate="forest")
    with pytest.raises(TypeError): surrogate_shap(g, p, 20, surrogate=object())
    with pytest.raises(ValueError, match="at least 2"): surrogate_shap(g, p, 20, n_folds=1)
    with pytest.raises(ValueError, match="bootstrap must be"): surrogate_shap(g, p, 20, bootstrap="jackknife")
    with pytest.raises(ValueError, match="too small"): surrogate_shap(g, p, 3)
    with pytest.raises(ValueError, match="not fitted"): CoalitionSurrogate().predict(np.ones((1, 3), bool))


def test_executor_gives_the_same_estimate():
    p = 6; g = random_game(p, 8)
    with ThreadPoolExecutor(2) as pool:
        np.testing.assert_allclose(surrogate_shap(g, p, 40, seed=2, executor=pool).values, surrogate_shap(g, p, 40, seed=2).values,
                                   atol=1e-12)
