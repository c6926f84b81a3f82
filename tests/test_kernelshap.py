"""Property tests and cross-checks of the Wallenius design, the constrained regression, the bootstraps and KernelSHAP
(notebooks 20-23)."""
import warnings
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from shapnb.core.games import all_coalitions, TableGame, CachedGame, coalition_to_mask, load_table_game
from shapnb.core.explanation import Explanation
from scipy.stats import t as student_t
from shapnb.sampling.design import (allocate, wallenius_design, wallenius_means, design_strata, shapley_kernel,
                                    coalition_rank)
from shapnb.sampling.regression import (solve_constrained_wls, estimate_from_design, IllConditionedWarning,
                                       UnderdeterminedWarning, DF_MIN, RIDGE, residual_df)
from shapnb.sampling.bootstrap import (satterthwaite_df, satterthwaite_inflation, replicate_multiplicities, replicate_estimates, symmetric_multiplicities,
                                       doubled_half_multiplicities, standard_errors, replicate_se, df_inflation,
                                       reported_standard_errors, jackknife_multiplicities, BOOT_UNITS)
from shapnb.sampling.kernelshap import kernel_shap, kernel_shap_with_replacement, with_replacement_design

SETTINGS = dict(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def p_and_budget(draw, max_p=12):
    p = draw(st.integers(2, max_p))
    budget = draw(st.integers(4, 2 ** p))
    return p, budget


@given(p_and_budget(), st.booleans(), st.booleans())
@settings(**SETTINGS)
def test_allocation_sums_to_budget_and_fits(pb, paired, singletons):
    p, budget = pb
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sizes, M, means, counts = allocate(p, budget, paired, singletons=singletons)
        kernel_counts = allocate(p, budget, paired)[3]
    units = (budget - 2) // 2 if paired else budget - 2
    assert counts.sum() == units
    assert (counts >= 0).all() and (counts <= M).all()
    np.testing.assert_allclose(means.sum(), units, rtol=1e-9)
    if not paired and p % 2 == 0: assert (counts == counts[::-1]).all()   # symmetric s <-> p - s
    edge = (sizes == 1) | (sizes == p - 1)
    affordable = units >= M[edge].sum() + (~edge).sum()
    if singletons and affordable:   # the sizes 1 and p - 1 whole, and a unit in every other stratum
        assert (counts[edge] == M[edge]).all() and (counts >= 1).all()
    else:                           # unaffordable, or not asked for: the kernel's allocation
        assert (counts == kernel_counts).all()
    if singletons and (kernel_counts[edge] == M[edge]).all(): assert (counts == kernel_counts).all()   # enumerated anyway: unchanged


@given(p_and_budget(max_p=11), st.booleans(), st.integers(0, 2 ** 31), st.booleans())
@settings(**SETTINGS)
def test_design_distinct_symmetric_and_weighted(pb, paired, seed, singletons):
    p, budget = pb
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = wallenius_design(p, budget, paired=paired, singletons=singletons, seed=seed)
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
    assert np.isfinite(est.values).all()
    below_df = not est.design.enumerated and est.residual_df < DF_MIN   # no interval below DF_MIN residual df
    assert (est.se is None) == (est.se_note is not None), (p, budget, est.residual_df)
    if below_df: assert est.se is None and est.se_note.startswith(f"no standard errors at budget {est.n_evals} for p = {p}")
    elif est.se is None:   # the jackknife's own degrees of freedom (notebook 22: p = 4 at budgets 14 and 15)
        assert "differ from each other in only" in est.se_note, (p, budget, est.se_note)
    else: assert np.isfinite(est.se).all()


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
                if budget < 2 * p + 2 * DF_MIN: assert est.se is None and est.se_note is not None
                else: assert np.isfinite(est.se).all() and est.se.max() < bound


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
    with pytest.raises(TypeError, match="integer"): kernel_shap(g, 4, 8.0)
    with pytest.raises(TypeError, match="integer"): kernel_shap(g, 4, 8, n_boot=20.0)
    with pytest.raises(ValueError, match="non-finite"): kernel_shap(lambda Z: np.full(len(Z), np.nan), 4, 8)
    with pytest.raises(ValueError, match="must return shape"): kernel_shap(lambda Z: np.zeros(3), 4, 8)
    cg = CachedGame(g, 4)
    with pytest.raises(ValueError, match="unknown bootstrap"): kernel_shap(cg, 4, 8, bootstrap="x")
    with pytest.raises(ValueError, match="n_boot"): kernel_shap(cg, 4, 8, n_boot=1)
    with pytest.raises(ValueError, match="unknown bootstrap"): kernel_shap_with_replacement(cg, 4, 8, bootstrap="x")
    assert cg.n_calls == 0   # bad bootstrap options are refused before the game is called
    with pytest.warns(UserWarning, match="clipped"): kernel_shap(g, 4, 100)
    with pytest.warns(UserWarning, match="uses 8"): kernel_shap(g, 4, 9)
    with pytest.warns(UserWarning, match="p = 1"):
        est = kernel_shap(TableGame(np.array([2.0, 5.0])), 1, 10)
    assert est.values.tolist() == [3.0] and est.se.tolist() == [0.0]
    assert est.n_evals == 2 and est.base_values == 2.0 and est.design is None and est.method == "kernelshap"
    assert standard_errors(est)[0].tolist() == [0.0]   # p = 1 is exact: no sampling variance


def test_result_is_an_explanation_with_details():
    rng = np.random.default_rng(5)
    vals = rng.normal(size=2 ** 8)
    g = TableGame(vals)
    for f, method in ((kernel_shap, "kernelshap"), (kernel_shap_with_replacement, "kernelshap_with_replacement")):
        plain = f(g, 8, 60, seed=3, bootstrap=None)
        est = f(g, 8, 60, seed=3, bootstrap="symmetric", n_boot=30)
        for e in (plain, est):
            assert isinstance(e, Explanation) and e.method == method and e.n_evals == 60
            assert e.base_values == vals[0] and e.v_empty == vals[0] and e.v_full == vals[-1]
            assert e.coalitions is e.design.coalitions and e.weights is e.design.weights
            np.testing.assert_array_equal(e.game_values, vals[coalition_to_mask(e.coalitions)])
        assert plain.se is None and plain.bootstrap is None and plain.replicates is None
        np.testing.assert_array_equal(est.values, plain.values)        # the same seed, the same design
        assert est.bootstrap == "symmetric" and est.replicates.shape == (30, 8)
        np.testing.assert_allclose(est.se, est.replicates.std(0, ddof=1) * est.se_inflation, rtol=1e-9, atol=1e-15)
        assert (est.se_inflation >= 1).all()   # Student's quantile at Satterthwaite's degrees of freedom
        lo, hi = est.interval(0.9)
        assert (lo < est.values).all() and (est.values < hi).all()


def test_standard_errors_need_a_design():
    g = TableGame(np.random.default_rng(6).normal(size=2 ** 6))
    d = wallenius_design(6, 30, seed=0)
    est = estimate_from_design(d, g(d.coalitions), g.values[0], g.values[-1])
    assert est.se is None and est.method == "kernelshap"
    se, reps = standard_errors(est, "symmetric", n_boot=25, seed=1)
    assert se.shape == (6,) and reps.shape == (25, 6) and est.se is None   # the estimate itself is not changed
    with pytest.raises(ValueError, match="details hold its design"): standard_errors(Explanation(est.values, 0.0, method="exact"))
    with pytest.raises(TypeError, match="Explanation"): standard_errors(est.values)
    with pytest.raises(TypeError, match="CoalitionDesign"): estimate_from_design(d.coalitions, g(d.coalitions), 0.0, 1.0)


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


def test_p100_additive_game_is_exact_and_says_the_fit_is_exact():
    "Every replicate agrees on an additive game: exact values, and no zero-width interval (the design cannot prove additivity)."
    beta = np.random.default_rng(3).normal(size=100)
    est = kernel_shap(lambda Z: Z @ beta + 1.0, 100, 600, seed=0, n_boot=50)
    assert est.n_evals == 600
    np.testing.assert_allclose(est.values, beta, atol=1e-9)
    assert est.se is None and "fitted exactly" in est.se_note


VARIANCES = ("symmetric", "doubled_half", "naive", "shapr", "jackknife", "auto")


@st.composite
def game_budget_design(draw):
    "A random game on all coalitions of p in 3..9 players, a random budget (any the design accepts) and pairing."
    p = draw(st.integers(3, 9))
    paired = draw(st.booleans())
    budget = draw(st.integers(4 if paired else 3, 2 ** p))
    # every coalition's value drawn at random: for a quadratic game paired KernelSHAP is exact, and its SEs would be
    # rounding noise, which no method can scale
    values = np.random.default_rng(draw(st.integers(0, 2 ** 31))).normal(size=2 ** p)
    return TableGame(values), p, budget, paired


@given(game_budget_design(), st.integers(0, 2 ** 31), st.integers(-300, 300),
       st.sampled_from([kernel_shap, kernel_shap_with_replacement]))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_values_and_standard_errors_scale_with_the_game(gbd, seed, exponent, estimator):
    g, p, budget, paired = gbd
    c = 10.0 ** exponent
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # odd or underdetermined budgets warn; the scaling must hold all the same
        for method in VARIANCES:
            ref = estimator(g, p, budget, paired=paired, bootstrap=method, n_boot=8, seed=seed)
            est = estimator(lambda Z: c * g(Z), p, budget, paired=paired, bootstrap=method, n_boot=8, seed=seed)
            if ref.se is None:   # below DF_MIN: no standard errors at any scale, and the same reason
                assert est.se is None and est.se_note == ref.se_note
                np.testing.assert_allclose(est.values, c * ref.values, rtol=1e-10, atol=1e-10 * c * np.abs(ref.values).max())
                continue
            # the scale of the answer: an SE far below it (e.g. 1e-15 where the design leaves no variance) is rounding noise
            scale = max(np.abs(ref.values).max(), ref.se.max())
            for got, want in ((est.values, ref.values), (est.se, ref.se)):
                assert np.isfinite(got).all(), (method, exponent)
                np.testing.assert_allclose(got, c * want, rtol=1e-10, atol=1e-10 * c * scale, err_msg=f"{method}, c = 1e{exponent}")
            resolved = ref.se > 1e-10 * scale   # an SE that is not rounding noise must not vanish
            assert (est.se[resolved] > 0).all(), (method, exponent)   # (it did below c = 1e-160 before)


def test_powers_of_two_give_the_same_bits_and_a_zero_game_zero_values():
    g = TableGame(np.random.default_rng(8).normal(size=2 ** 7))
    for estimator in (kernel_shap, kernel_shap_with_replacement):
        for method in VARIANCES:
            ref = estimator(g, 7, 40, bootstrap=method, n_boot=15, seed=4)
            for k in (-1010, -1, 3, 1000):   # the standardisation divides by powers of two: exact at ordinary scales
                est = estimator(lambda Z: np.ldexp(g(Z), k), 7, 40, bootstrap=method, n_boot=15, seed=4)
                np.testing.assert_array_equal(est.values, np.ldexp(ref.values, k))
                np.testing.assert_array_equal(est.se, np.ldexp(ref.se, k))
            neg = estimator(lambda Z: -1e-250 * g(Z), 7, 40, bootstrap=method, n_boot=15, seed=4)
            np.testing.assert_allclose(neg.se, 1e-250 * ref.se, rtol=1e-12)   # SEs scale by |c|
            zero = estimator(lambda Z: np.zeros(len(Z)), 7, 40, bootstrap=method, n_boot=15, seed=4)
            assert (zero.values == 0).all() and zero.se is None and "cannot tell the players apart" in zero.se_note, method   # nothing to estimate an error from


def test_results_that_do_not_fit_a_double_are_refused():
    big = 0.75 * np.finfo(float).max
    with pytest.raises(ValueError, match="exceed the largest double"):
        solve_constrained_wls(np.eye(2, dtype=bool), [big, -big], [1.0, 1.0], -big, big)
    # a game near the largest double whose Shapley values still fit works
    g = TableGame(np.random.default_rng(9).uniform(-1, 1, size=2 ** 5) * 1e307)
    est = kernel_shap(g, 5, 20, seed=0, n_boot=10)
    assert np.isfinite(est.values).all() and np.isfinite(est.se).all()


def test_replicate_se_holds_where_the_direct_formula_fails():
    R = np.random.default_rng(2).normal(size=(50, 4)) * [1.0, 1e-3, 1e5, 0.0]
    se = replicate_se(R)
    np.testing.assert_allclose(se[:3], R[:, :3].std(0, ddof=1), rtol=1e-12)
    assert se[3] == 0
    for c in (1e-300, 1e-165, 1e155, 1e300):
        np.testing.assert_allclose(replicate_se(c * R), c * se, rtol=1e-12)
    with pytest.raises(ValueError, match="B >= 2"): replicate_se(R[:1])


@pytest.mark.parametrize("estimator", [kernel_shap, kernel_shap_with_replacement])
def test_budget_below_identification_warns_before_evaluating(estimator):
    p = 7
    g = TableGame(np.random.default_rng(7).normal(size=2 ** p))
    # below p + 1 every design is underdetermined; with pairing up to 2p - 1 too (a pair spans one direction)
    for paired, budgets, phrase in ((True, range(4, p + 1), "fewer evaluations than players: values are not identified"),
                                    (False, range(3, p + 1), "fewer evaluations than players: values are not identified"),
                                    (True, range(p + 1, 2 * p), "fewer pairs than free directions: values are not identified")):
        for budget in budgets:
            with pytest.warns(UnderdeterminedWarning, match=phrase):
                est = estimator(g, p, budget, paired=paired, seed=budget, bootstrap="symmetric", n_boot=10)
            np.testing.assert_allclose(est.values.sum(), g.values[-1] - g.values[0], atol=1e-12)
            assert est.se is None and "identify only" in est.se_note   # no interval, and the reason
            cg = CachedGame(g, p)
            with warnings.catch_warnings():
                warnings.simplefilter("error", UnderdeterminedWarning)
                with pytest.raises(UnderdeterminedWarning): estimator(cg, p, budget, paired=paired, seed=0)
            assert cg.n_calls == 0   # warned before the game was called
    assert issubclass(UnderdeterminedWarning, IllConditionedWarning)   # existing IllConditionedWarning filters cover it
    for paired, budget in ((True, 2 * p), (True, 2 * p + 1), (False, p + 1), (False, 2 ** p)):   # enough units: no warning
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            estimator(g, p, budget, paired=paired, seed=0, n_boot=10)
        assert not [w for w in caught if w.category is UnderdeterminedWarning], (paired, budget)


def test_design_extremes():
    with pytest.raises(ValueError, match="exceeds the largest double"): design_strata(1030)
    assert np.isfinite(design_strata(1029)[1]).all()
    sizes, M = design_strata(10)
    w = shapley_kernel(10, sizes)
    w = w / w.max()
    base = wallenius_means(M, w, 30)
    for c in (1e-300, 1e300, 0.5 * np.finfo(float).max):   # only the weights' ratios matter (their sum used to overflow)
        np.testing.assert_allclose(wallenius_means(M, c * w, 30), base, rtol=1e-12)


# --- issue 17: honest uncertainty at small budgets --------------------------------------------------------------

def test_exactly_determined_design_reports_no_interval_and_says_why():
    p = 9
    g = TableGame(np.random.default_rng(21).normal(size=2 ** p))
    for budget, df in ((2 * p, 0), (2 * p + 2, 1), (2 * p + 4, 2)):
        est = kernel_shap(g, p, budget, seed=1)
        assert est.se is None and est.bootstrap is None and est.replicates is None and est.residual_df == df
        assert est.se_note.startswith(f"no standard errors at budget {budget} for p = {p}")
        assert f"leave {df} residual degrees of freedom" in est.se_note and "interpolat" in est.se_note
        assert f"at least {2 * p + 2 * DF_MIN} evaluations" in est.se_note
        with pytest.raises(ValueError, match="no se or sd"): est.interval()
        frame = est.to_frame()   # the values are still there, without an se column
        assert "se" not in frame and np.allclose(frame["value"], est.values)
        np.testing.assert_allclose(est.values.sum(), g.values[-1] - g.values[0], atol=1e-12)
        assert est.ridge == RIDGE   # and shrunk toward the equal split
    est = kernel_shap(g, p, 2 * p + 2 * DF_MIN, seed=1)   # from DF_MIN on: an interval
    assert est.residual_df == DF_MIN and est.se_note is None and (est.se > 0).all() and est.ridge == 0.0
    lo, hi = est.interval()
    assert (lo < est.values).all() and (est.values < hi).all()


def test_inflation_factor_formula():
    for nu in (3, 4, 5, 10, 57):
        assert df_inflation(nu) == pytest.approx(np.sqrt(nu / (nu - 2)), rel=1e-15)
        assert df_inflation(nu) ** 2 == pytest.approx(student_t.var(nu), rel=1e-12)   # the variance of Student's t
    assert df_inflation(10 ** 8) == pytest.approx(1.0, abs=1e-7)
    with pytest.raises(ValueError, match="at least 3"): df_inflation(2)
    with pytest.raises(TypeError, match="integer"): df_inflation(3.0)
    # kernel_shap's jackknife standard errors are the raw jackknife's times the factor of the design's residual df
    p, budget = 10, 40
    g = TableGame(np.random.default_rng(22).normal(size=2 ** p))
    est = kernel_shap(g, p, budget, seed=3)
    nu = est.design.n_units - (p - 1)
    assert est.bootstrap == "jackknife" and est.residual_df == nu == 10
    raw, _ = standard_errors(estimate_from_design(est.design, est.game_values, est.v_empty, est.v_full), "jackknife")
    np.testing.assert_allclose(est.se, raw * np.sqrt(nu / (nu - 2)), rtol=1e-12)
    assert est.se_inflation == pytest.approx(np.sqrt(10 / 8))


@pytest.mark.parametrize("p", [8, 11, 14])
def test_default_unchanged_where_it_was_fine(p):
    "From BOOT_UNITS (p - 1) units on (budget 8p here) the default is the symmetric bootstrap of before, to the bit, times Student's quantile."
    g = TableGame(np.random.default_rng(p).normal(size=2 ** p))
    budget, seed = 8 * p, 5
    new = kernel_shap(g, p, budget, seed=seed, n_boot=60)
    rng = np.random.default_rng(seed)   # the old kernel_shap: design, estimate, symmetric bootstrap on one generator
    d = wallenius_design(p, budget, identify=False, seed=rng)
    assert coalition_rank(d.coalitions) == p - 1 and d.n_units >= BOOT_UNITS * (p - 1)
    old = estimate_from_design(d, g(d.coalitions), g.values[0], g.values[-1], ridge=0.0)
    se_old, _ = standard_errors(old, "symmetric", n_boot=60, seed=rng)
    np.testing.assert_array_equal(new.values, old.values)
    factor = satterthwaite_inflation(satterthwaite_df(d, old.game_values, old.v_empty, old.v_full, old.values))
    np.testing.assert_array_equal(new.se, se_old * factor)
    np.testing.assert_array_equal(new.se_inflation, factor)
    assert new.bootstrap == "symmetric" and new.se_note is None and new.ridge == 0.0


@given(st.integers(3, 11), st.integers(0, 2 ** 31), st.booleans())
@settings(max_examples=30, deadline=None)
def test_designs_identify_the_values_when_they_can(p, seed, paired):
    "With at least p - 1 units the design is redrawn until its coalitions have rank p - 1; below, it cannot be."
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for budget in ((2 * p, 2 * p + 2, 3 * p) if paired else (p + 1, p + 2, 2 * p)):
            d = wallenius_design(p, budget, paired=paired, seed=seed)
            if d.n_units >= p - 1: assert coalition_rank(d.coalitions) == p - 1
            assert residual_df(d) == d.n_units - coalition_rank(d.coalitions)


def test_shrinkage_only_below_df_min_and_efficient():
    p = 12
    g = TableGame(np.random.default_rng(23).normal(size=2 ** p))
    truth_sum = g.values[-1] - g.values[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IllConditionedWarning)
        for budget in (p + 2, 2 * p, 2 * p + 4, 2 * p + 6, 3 * p, 2 ** p):
            est = kernel_shap(g, p, budget, seed=0, bootstrap=None)
            below = est.design.n_units - coalition_rank(est.design.coalitions) < DF_MIN and not est.design.enumerated
            assert est.ridge == (RIDGE if below else 0.0), budget
            np.testing.assert_allclose(est.values.sum(), truth_sum, atol=1e-12)
    np.testing.assert_allclose(est.values, g.exact_shapley(), atol=1e-10)   # the full budget: exact, not shrunk
    wr = kernel_shap_with_replacement(g, p, 2 * p, seed=0)                   # the shap/shapr foil is never shrunk
    assert wr.ridge == 0.0


def test_jackknife_collapses_one_unit_strata_and_matches_the_formula():
    d = wallenius_design(16, 48, seed=0)   # 3p: strata of 6, 4, 3, 3, 2, 2, 2 and 1 units
    assert list(d.counts) == [6, 4, 3, 3, 2, 2, 2, 1]
    S, group = jackknife_multiplicities(d)
    assert list(np.bincount(group)) == [6, 4, 3, 3, 2, 2, 3]   # the middle pair joins the stratum before it
    assert ((S == 0).sum(1) == 1).all()
    g = TableGame(np.random.default_rng(24).normal(size=2 ** 16))
    est = estimate_from_design(d, g(d.coalitions), g.values[0], g.values[-1])
    se, reps = standard_errors(est, "jackknife")
    unit_stratum = np.zeros(d.n_units, int); unit_stratum[d.unit] = d.stratum
    fpc = 1 - d.inclusion[unit_stratum[S.argmin(1)]]
    var = sum(((group == k).sum() - 1) / (group == k).sum() * (fpc[group == k, None] * (reps[group == k] - reps[group == k].mean(0)) ** 2).sum(0)
              for k in np.unique(group))
    np.testing.assert_allclose(se, np.sqrt(var), rtol=1e-10)
    for r in (0, 7, len(S) - 1):   # each replicate is the weighted solve with that unit deleted
        one = solve_constrained_wls(d.coalitions, est.game_values, d.weights * S[r, d.unit], est.v_empty, est.v_full)
        np.testing.assert_allclose(reps[r], one, atol=1e-9)


def test_reported_standard_errors_refuse_and_explain_for_every_method():
    p = 10
    g = TableGame(np.random.default_rng(25).normal(size=2 ** p))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IllConditionedWarning)
        for budget in (p + 2, 2 * p):
            d = wallenius_design(p, budget, seed=0)
            est = estimate_from_design(d, g(d.coalitions), g.values[0], g.values[-1])
            for method in ("auto", "symmetric", "doubled_half", "jackknife", "shapr", "naive"):
                r = reported_standard_errors(est, method, n_boot=10, seed=0)
                assert r["se"] is None and r["se_method"] is None and r["se_note"].startswith("no standard errors")
    with pytest.raises(ValueError, match="use reported_standard_errors"): standard_errors(est, "auto")


@given(st.integers(2, 9), st.integers(0, 2 ** 31), st.sampled_from(["normal", "null player", "constant", "skewed"]))
@settings(max_examples=25, deadline=None)
def test_student_quantile_of_the_bootstrap(p, seed, kind):
    "Bootstrap SEs times t(0.975, Satterthwaite df) / z: a factor in [1, t(0.975, 1) / z] per player, 1 where no stratum is sampled."
    rng = np.random.default_rng(seed)
    Z = all_coalitions(p).astype(float)
    values = {"normal": rng.normal(size=2 ** p), "null player": Z[:, 1:] @ rng.normal(size=p - 1) + rng.normal(size=2 ** p) * Z[:, 1:].prod(1),
              "constant": np.full(2 ** p, 3.0), "skewed": np.exp(Z @ rng.normal(size=p))}[kind]
    g = TableGame(values)
    budget = min(2 ** p, 8 * p + 2 * int(rng.integers(0, 4)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = kernel_shap(g, p, budget, seed=seed, bootstrap="symmetric", n_boot=20)
    if e.se is None: return                                              # declined, with its reason (tested above)
    factor = np.broadcast_to(e.se_inflation, (p,))
    assert np.isfinite(e.se).all() and (factor >= 1).all() and (factor <= student_t.ppf(0.975, 1) / 1.959963984540054 + 1e-12).all()
    if e.design.enumerated: assert (e.se == 0).all()
    else: np.testing.assert_allclose(e.se, e.replicates.std(0, ddof=1) * factor, rtol=1e-9, atol=1e-300)
