"""Property tests and cross-checks of the Wallenius design, KernelSHAP and its bootstraps (notebooks 05-07)."""
import math, warnings
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from shapnb.games import TableGame, CachedGame, coalition_to_mask, load_table_game
from shapnb.design import allocate, wallenius_design, wallenius_means, design_strata, shapley_kernel
from shapnb.kernelshap import (kernel_shap, kernel_shap_with_replacement, solve_constrained_wls, with_replacement_design,
                               IllConditionedWarning)
from shapnb.bootstrap import (replicate_multiplicities, replicate_estimates, symmetric_multiplicities,
                              doubled_half_multiplicities, standard_errors)

SETTINGS = dict(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def p_and_budget(draw, max_p=12):
    p = draw(st.integers(2, max_p))
    budget = draw(st.integers(4, 2 ** p))
    return p, budget


@given(p_and_budget(), st.booleans())
@settings(**SETTINGS)
def test_allocation_sums_to_budget_and_fits(pb, paired):
    p, budget = pb
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sizes, M, means, counts = allocate(p, budget, paired)
    units = (budget - 2) // 2 if paired else budget - 2
    assert counts.sum() == units
    assert (counts >= 0).all() and (counts <= M).all()
    np.testing.assert_allclose(means.sum(), units, rtol=1e-9)
    if not paired and p % 2 == 0: assert (counts == counts[::-1]).all()   # symmetric s <-> p - s


@given(p_and_budget(max_p=11), st.booleans(), st.integers(0, 2 ** 31))
@settings(**SETTINGS)
def test_design_distinct_symmetric_and_weighted(pb, paired, seed):
    p, budget = pb
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = wallenius_design(p, budget, paired=paired, seed=seed)
    masks = coalition_to_mask(d.coalitions)
    assert len(np.unique(masks)) == len(masks)                                # no coalition twice
    assert not np.isin(masks, [0, 2 ** p - 1]).any()
    assert d.n_evals == (budget - budget % 2 if paired else budget)
    if paired: assert set(masks) == set(2 ** p - 1 - masks)                  # closed under complements
    per_unit = 2 if paired else 1
    k = shapley_kernel(p, d.sizes) * d.population * per_unit                 # total kernel weight per stratum
    got = np.bincount(d.stratum, d.weights, minlength=len(d.sizes))
    np.testing.assert_allclose(got[d.counts > 0], k[d.counts > 0], rtol=1e-10)
    assert (got[d.counts == 0] == 0).all()                                   # unsampled strata: no rows, no 1/0


@given(st.integers(2, 9), st.booleans(), st.integers(0, 2 ** 31))
@settings(**SETTINGS)
def test_exact_at_full_budget_with_zero_se(p, paired, seed):
    vals = np.random.default_rng(seed).normal(size=2 ** p)
    g = TableGame(vals)
    est = kernel_shap(g, p, 2 ** p, paired=paired, seed=seed, n_boot=20)
    np.testing.assert_allclose(est.values, g.exact_shapley(), atol=1e-10)
    assert (est.se == 0).all()
    wr = kernel_shap_with_replacement(g, p, 2 ** p, paired=paired, seed=seed)
    np.testing.assert_allclose(wr.values, g.exact_shapley(), atol=1e-10)


@given(p_and_budget(max_p=10), st.integers(0, 2 ** 31))
@settings(**SETTINGS)
def test_efficiency_budget_and_no_repeat(pb, seed):
    p, budget = pb
    vals = np.random.default_rng(seed).normal(size=2 ** p) * 10
    cg = CachedGame(TableGame(vals), p)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = kernel_shap(cg, p, budget, seed=seed, n_boot=10)
    assert cg.n_evals == est.n_evals <= budget and cg.n_calls == 1
    np.testing.assert_allclose(est.values.sum(), vals[-1] - vals[0], atol=1e-9 * (1 + abs(vals).max()))
    assert np.isfinite(est.values).all() and np.isfinite(est.se).all()


@given(p_and_budget(max_p=10), st.integers(0, 2 ** 31))
@settings(**SETTINGS)
def test_with_replacement_design_counts_budget(pb, seed):
    p, budget = pb
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = with_replacement_design(p, budget, seed=seed)
    masks = coalition_to_mask(d.coalitions)
    assert len(np.unique(masks)) == len(masks) and d.n_evals == budget - budget % 2
    assert set(masks) == set(2 ** p - 1 - masks)


def test_bounded_at_every_budget_on_hard_game():
    # a game with huge values on a few coalitions; tiny budgets leave directions unidentified
    rng = np.random.default_rng(0)
    p = 16
    vals = rng.normal(size=2 ** p) * np.where(rng.random(2 ** p) < 0.01, 1e6, 1.0)
    g = TableGame(vals)
    bound = 10 * np.abs(vals).max()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for budget in (4, 6, 10, 18, 2 * p, 3 * p):
            for s in range(3):
                est = kernel_shap(g, p, budget, seed=s, n_boot=20)
                assert np.isfinite(est.values).all() and np.abs(est.values).max() < bound
                assert np.isfinite(est.se).all() and est.se.max() < bound


def test_solver_warns_and_stays_bounded():
    Z = np.array([[1, 0, 0, 0], [1, 0, 0, 0]], bool)
    with pytest.warns(IllConditionedWarning):
        phi = solve_constrained_wls(Z, [1.0, 1.0 + 1e-9], [1.0, 1e12], 0.0, 1.0)
    assert np.isfinite(phi).all() and abs(phi.sum() - 1) < 1e-12
    with pytest.raises(ValueError, match="non-negative"): solve_constrained_wls(Z, [1, 1], [1, -1], 0, 1)


def test_bad_input():
    g = TableGame(np.arange(16.0))
    with pytest.raises(ValueError, match="at least 4"): kernel_shap(g, 4, 3)
    with pytest.raises(ValueError, match="at least 4"): kernel_shap_with_replacement(g, 4, 2)
    with pytest.raises(ValueError, match="integer"): kernel_shap(g, 4, 8.0)
    with pytest.raises(ValueError, match="non-finite"): kernel_shap(lambda Z: np.full(len(Z), np.nan), 4, 8)
    with pytest.raises(ValueError, match="must return shape"): kernel_shap(lambda Z: np.zeros(3), 4, 8)
    with pytest.raises(ValueError, match="unknown bootstrap"): kernel_shap(g, 4, 8, bootstrap="x")
    with pytest.raises(ValueError, match="n_boot"): kernel_shap(g, 4, 8, n_boot=1)
    with pytest.warns(UserWarning, match="clipped"): kernel_shap(g, 4, 100)
    with pytest.warns(UserWarning, match="uses 8"): kernel_shap(g, 4, 9)
    with pytest.warns(UserWarning, match="p = 1"):
        est = kernel_shap(TableGame(np.array([2.0, 5.0])), 1, 10)
    assert est.values.tolist() == [3.0] and est.se.tolist() == [0.0]


def test_wallenius_extremes():
    sizes, M = design_strata(100)
    mu = wallenius_means(M, shapley_kernel(100, sizes), 10_000)
    assert abs(mu.sum() - 10_000) < 1e-6 and (mu <= M).all() and (mu > 0).all()
    d = wallenius_design(100, 500, seed=0)
    assert d.n_evals == 500 and len(np.unique(np.packbits(d.coalitions, axis=1), axis=0)) == 498


@pytest.mark.parametrize("draw", [symmetric_multiplicities, doubled_half_multiplicities])
@pytest.mark.parametrize("n,N", [(9, 30), (4, 4), (3, 200), (1, 5), (2, 3)])
def test_bootstrap_moments(draw, n, N):
    S = draw(n, N, 100_000, np.random.default_rng(1))
    assert (S >= 0).all()
    assert abs(S.mean() - 1) < 0.02
    assert abs(S.var() - (1 - n / N)) < 0.03
    if draw is symmetric_multiplicities and n > 1: assert (S.sum(1) == n).all()


def test_batched_replicates_match_single_solves():
    rng = np.random.default_rng(2)
    g = TableGame(rng.normal(size=2 ** 10))
    est = kernel_shap(g, 10, 150, bootstrap=None, seed=0)
    d = est.design
    for method in ("symmetric", "doubled_half", "shapr"):
        S = replicate_multiplicities(d, method, 5, rng)
        reps = replicate_estimates(d, est.game_values, est.v_empty, est.v_full, S)
        for r in range(5):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                one = solve_constrained_wls(d.coalitions, est.game_values, d.weights * S[r, d.unit], est.v_empty, est.v_full)
            np.testing.assert_allclose(reps[r], one, atol=1e-8)


def test_enumerated_strata_get_no_variance():
    d = wallenius_design(10, 300, seed=0)
    assert d.inclusion[0] == 1   # size 1 (and 9) fully enumerated at this budget
    S = replicate_multiplicities(d, "symmetric", 50, np.random.default_rng(0))
    assert (S[:, :d.counts[0]] == 1).all()


def test_real_games_exact_and_efficient(game_files):
    for path in game_files[::40][:6]:
        g = load_table_game(path)
        p = g.n_players
        truth = g.exact_shapley()
        if p <= 12:
            np.testing.assert_allclose(kernel_shap(g, p, 2 ** p, n_boot=10).values, truth, atol=1e-9 * (1 + abs(truth).max()))
        est = kernel_shap(g, p, 4 * p, seed=0, n_boot=50)
        np.testing.assert_allclose(est.values.sum(), g.values[-1] - g.values[0], atol=1e-9 * (1 + abs(g.values).max()))
        assert np.isfinite(est.se).all()


def test_p100_additive_game_is_exact_with_zero_se():
    beta = np.random.default_rng(3).normal(size=100)
    est = kernel_shap(lambda Z: Z @ beta + 1.0, 100, 600, seed=0, n_boot=50)
    assert est.n_evals == 600
    np.testing.assert_allclose(est.values, beta, atol=1e-9)
    assert est.se.max() < 1e-9
