"""Property tests and cross-checks for the ShaplEIG stack (shapnb.bayes.gp, .eig, .shapleig, .baselines) and the
model-free baselines it is compared with (shapnb.sampling.baselines)."""
import subprocess, sys
import copy
from concurrent.futures import ThreadPoolExecutor
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from shapnb.core.games import all_coalitions, shapley_matrix, coalition_to_mask, exact_shapley, load_table_game, TableGame
from shapnb.core.explanation import Explanation
from shapnb.bayes.gp import (HammingHyper, hamming_kernel, gp_posterior, fit_hamming_gp, fit_kernel_choice, KERNEL_CHOICES,
                             loo_log_predictive, log_evidence)
from shapnb.bayes.eig import ShapleyPosterior, shapley_kernel_vectors, shapley_kernel_matrix, select_batch
from shapnb.bayes.shapleig import shapleig, stopped_posterior, SELECTIONS, Z2_CAP
from shapnb.bayes.surrogate import (gp_surrogate_shap, eig_after_count, interval_budget, singletons_budget,
                                    EIG_SHARE_BELOW_INTERVAL)
from shapnb.bayes.baselines import gp_random, gp_uncertainty, gp_leverage
from shapnb.sampling.baselines import (leverage_coalitions, permutation_sampling, kernel_shap_paired, leverage_shap,
                                       regression_msr)


def random_hyper(rng, p, noise=1e-6, lo=0.1, hi=5.0, size=False):
    "Random hyperparameters; with `size`, a random size-trend term too."
    extra = dict(size_scale=rng.uniform(0.3, 3), size_lengthscale=np.exp(rng.uniform(np.log(0.05), np.log(5)))) if size else {}
    return HammingHyper(rng.uniform(lo, hi, p), outputscale=rng.uniform(0.3, 3), mean=rng.normal(), noise=noise, **extra)


def dense_posterior(hyper, X, y):
    "Posterior mean and covariance of φ from the dense 2^p matrices."
    p = hyper.n_players
    A, Zall = shapley_matrix(p), all_coalitions(p)
    K, KX = hyper.kernel(Zall, Zall), hyper.kernel(Zall, X)
    C = hyper.kernel(X, X) + hyper.noise * np.eye(len(X))
    Sigma = K - KX @ np.linalg.solve(C, KX.T)
    return A @ (hyper.mean + KX @ np.linalg.solve(C, y - hyper.mean)), A @ Sigma @ A.T, Sigma, A


@settings(max_examples=25, deadline=None)
@given(p=st.integers(1, 9), seed=st.integers(0, 2**32 - 1), size=st.booleans())
def test_product_game_sums_match_brute_force(p, seed, size):
    rng = np.random.default_rng(seed)
    hyper = random_hyper(rng, p, lo=0.02, hi=100.0, size=size)
    Zall = all_coalitions(p)
    A, K = shapley_matrix(p), hyper.kernel(Zall, Zall)
    Z = rng.random((5, p)) < 0.5
    Ak_ref, AKA_ref = (A @ K[:, coalition_to_mask(Z)]).T, A @ K @ A.T
    np.testing.assert_allclose(shapley_kernel_vectors(hyper, Z), Ak_ref, rtol=0, atol=1e-12 * np.abs(Ak_ref).max())
    np.testing.assert_allclose(shapley_kernel_matrix(hyper), AKA_ref, rtol=0, atol=1e-12 * np.abs(AKA_ref).max())


@pytest.mark.parametrize("p,size", [(2, False), (4, False), (7, False), (10, False), (4, True), (9, True)])
def test_eig_matches_log_determinant(p, size):
    rng = np.random.default_rng(p)
    hyper = random_hyper(rng, p, noise=1e-3, size=size)
    Zall = all_coalitions(p)
    X = Zall[rng.choice(2**p, min(p + 1, 2**p - 1), replace=False)]
    y = rng.normal(size=len(X))
    phi, M, Sigma, A = dense_posterior(hyper, X, y)
    post = ShapleyPosterior(hyper, X, y)
    np.testing.assert_allclose(post.values, phi, atol=1e-12 * np.abs(phi).max())
    np.testing.assert_allclose(post.cov, M, atol=1e-12 * np.abs(M).max())
    Z = Zall[rng.choice(2**p, 10)]
    ref = []
    for z in coalition_to_mask(Z):
        b, s = A @ Sigma[:, z], Sigma[z, z] + hyper.noise
        ref.append(0.5 * (np.linalg.slogdet(M)[1] - np.linalg.slogdet(M - np.outer(b, b) / s)[1]))
    np.testing.assert_allclose(post.eig(Z), ref, atol=1e-10 * max(1.0, max(ref)))


def test_eig_nonnegative_and_finite():
    rng = np.random.default_rng(0)
    p = 8
    hyper = random_hyper(rng, p)
    for n in (2, 12, 60):   # from ∅ and N only (singular M) to many observations
        gains = ShapleyPosterior(hyper, leverage_coalitions(p, n, seed=1)).eig(all_coalitions(p))
        assert (gains >= 0).all() and np.isfinite(gains).all()


@pytest.mark.parametrize("p", [3, 6])
def test_consistency_all_coalitions_observed(p):
    rng = np.random.default_rng(p)
    Zall = all_coalitions(p)
    values = np.cos(Zall @ rng.normal(size=p)) + Zall[:, 0] * Zall[:, -1]
    hyper = random_hyper(rng, p, noise=1e-10, lo=0.2, hi=0.6)
    post = ShapleyPosterior(hyper, Zall, values)
    np.testing.assert_allclose(post.values, shapley_matrix(p) @ values, atol=1e-6)
    assert post.sd.max() < 1e-4


def test_gp_posterior_matches_dense():
    rng = np.random.default_rng(3)
    p = 6
    hyper = random_hyper(rng, p, noise=1e-4, size=True)
    Zall = all_coalitions(p)
    X, y = Zall[rng.choice(64, 20, replace=False)], rng.normal(size=20)
    mean, var = gp_posterior(hyper, X, y, Zall)
    K, KX = hyper.kernel(Zall, Zall), hyper.kernel(Zall, X)
    C = hyper.kernel(X, X) + hyper.noise * np.eye(20)
    np.testing.assert_allclose(mean, hyper.mean + KX @ np.linalg.solve(C, y - hyper.mean), atol=1e-10)
    np.testing.assert_allclose(var, np.diag(K - KX @ np.linalg.solve(C, KX.T)), atol=1e-10)
    direct = hyper.outputscale * np.prod(hyper.correlations ** (Zall[:, None, :] != X[None, :, :]), axis=-1)
    np.testing.assert_allclose(hamming_kernel(Zall, X, hyper.lengthscale, hyper.outputscale), direct, rtol=1e-13)


@pytest.mark.parametrize("criterion,p,size", [("eig", 7, False), ("eig", 12, False), ("variance", 8, False), ("eig", 9, True)])
def test_batch_greedy_equals_sequential(criterion, p, size):
    rng = np.random.default_rng(p)
    hyper = random_hyper(rng, p, size=size)
    # a design and candidates not closed under complements: the kernel is invariant under complementing every
    # player, so paired designs give exact EIG ties between S and N \ S, broken by rounding
    masks = rng.choice(np.arange(1, 2**p - 1), min(150, 2**p - 2 - p) + p, replace=False)
    X = np.vstack([np.zeros(p, bool), np.ones(p, bool), all_coalitions(p)[masks[:p]]])
    Z = all_coalitions(p)[masks[p:]]
    batch = select_batch(ShapleyPosterior(hyper, X), Z, 10, criterion)
    chosen = []
    for _ in range(10):
        post = ShapleyPosterior(hyper, np.vstack([X, Z[chosen]]))
        score = post.eig(Z) if criterion == "eig" else post.candidate_terms(Z)[1]
        score[chosen] = -np.inf
        chosen.append(int(np.argmax(score)))
    np.testing.assert_array_equal(batch, chosen)


@settings(max_examples=20, deadline=None)
@given(p=st.integers(2, 24), n=st.integers(0, 300), seed=st.integers(0, 1000))
def test_leverage_coalitions_properties(p, n, seed):
    n = min(n, 2**p)
    Z = leverage_coalitions(p, n, seed=seed)
    assert Z.shape == (n, p)
    assert len({row.tobytes() for row in Z}) == n
    if n >= 2: assert not Z[0].any() and Z[1].all()
    pairs = (n - 2) // 2
    if pairs > 0: assert (Z[2:2 + 2 * pairs:2] == ~Z[3:3 + 2 * pairs:2]).all()


def additive_plus_game(p, seed):
    rng = np.random.default_rng(seed)
    beta = rng.normal(size=p)
    return lambda Z: np.asarray(Z, float) @ beta + 1.5 * np.asarray(Z, float)[:, 0] * np.asarray(Z, float)[:, 1]


@pytest.mark.parametrize("selection", SELECTIONS)
def test_shapleig_runs_spend_budget_exactly(selection):
    p = 8
    game = additive_plus_game(p, 0)
    est = shapleig(game, p, 20, seed=0, selection=selection, refit=0.5)
    assert est.n_evals == 20 and est.coalitions.shape == (20, p)
    assert len(np.unique(coalition_to_mask(est.coalitions))) == 20
    assert not est.coalitions[0].any() and est.coalitions[1].all()
    np.testing.assert_allclose(est.values.sum(), game(np.ones((1, p)))[0] - game(np.zeros((1, p)))[0], atol=1e-3)
    assert np.isfinite(est.sd).all()


def test_shapleig_returns_an_explanation_with_its_history():
    p = 6
    game = lambda Z: additive_plus_game(p, 1)(Z) + 2.5
    est = shapleig(game, p, 16, seed=0, refit=0.5)
    assert isinstance(est, Explanation) and est.method == "shapleig"
    assert est.values.shape == est.sd.shape == (p,) and est.n_evals == 16 and est.base_values == 2.5
    assert est.cov.shape == (p, p) and est.round_of.shape == (16,) and est.hyper.n_players == p
    np.testing.assert_allclose(est.sd, np.sqrt(np.clip(np.diag(est.cov), 0, None)))
    np.testing.assert_allclose(est.game_values, game(est.coalitions))
    assert len(est.select_seconds) == est.round_of.max() and len(est.fit_seconds) >= 1
    lo, hi = est.interval(0.9)
    np.testing.assert_allclose(hi - lo, 2 * 1.6448536 * est.sd, rtol=1e-6)


def test_shapleig_batch_with_executor_and_seed_reproducible():
    p = 7
    beta = np.arange(1.0, p + 1)   # integer values: a batch and single rows evaluate to identical floats
    game = lambda Z: np.asarray(Z, float) @ beta + 3.0 * np.asarray(Z, float)[:, 0] * np.asarray(Z, float)[:, 1]
    with ThreadPoolExecutor(2) as pool:
        a = shapleig(game, p, 18, seed=5, batch_size=3, executor=pool, chunk_size=1, refit=0.5)
    b = shapleig(game, p, 18, seed=5, batch_size=3, refit=0.5)
    np.testing.assert_array_equal(a.coalitions, b.coalitions)
    np.testing.assert_array_equal(a.values, b.values)
    assert np.bincount(a.round_of)[1:].max() == 3


def test_shapleig_full_budget_is_exact():
    p = 5
    game = lambda Z: np.sin(np.asarray(Z, float) @ np.arange(1.0, p + 1))
    est = shapleig(game, p, 2**p, seed=0, refit=1.0)
    np.testing.assert_allclose(est.values, exact_shapley(game, p), atol=1e-4)


@settings(max_examples=10, deadline=None)
@given(p=st.integers(2, 12), budget=st.integers(2, 12))
def test_default_initial_design_is_empty_full_and_a_pair(p, budget):
    budget = min(budget, 2**p - 1)                                   # (2**p: every coalition, enumerated in order)
    game = lambda Z: np.asarray(Z, float) @ np.arange(1.0, p + 1)
    est = shapleig(game, p, budget, seed=0, refit=1.0, progress=False)
    n0 = int((est.round_of == 0).sum())
    assert est.n_evals == budget and n0 == min(4, budget)            # the default design shrinks to a smaller budget
    assert est.coalitions[0].sum() == 0 and est.coalitions[1].sum() == p
    if n0 == 4: assert (est.coalitions[2] ^ est.coalitions[3]).all()  # S and its complement


def test_pooled_lengthscales_narrow_their_spread():
    rng = np.random.default_rng(4)
    Z = all_coalitions(8)
    y = 3.0 * Z[:, 0] * Z[:, 1] + Z @ rng.normal(scale=0.3, size=8)
    obs = rng.choice(2**8, 40, replace=False)
    pooled, free = (fit_hamming_gp(Z[obs], y[obs], size=False, shrinkage=s) for s in (0.5, None))
    assert np.log(pooled.lengthscale).std() < np.log(free.lengthscale).std()
    with pytest.raises(ValueError, match="shrinkage"): fit_hamming_gp(Z[obs], y[obs], shrinkage=-1.0)


def test_shapleig_bad_input():
    game = additive_plus_game(6, 0)
    with pytest.raises(ValueError, match="smaller than the initial design"): shapleig(game, 6, 4, n_initial=5)
    with pytest.raises(TypeError, match="budget must be an integer"): shapleig(game, 6, 10.0)
    with pytest.raises(TypeError, match="batch_size must be an integer"): shapleig(game, 6, 10, batch_size=True)
    with pytest.raises(ValueError, match="batch_size must be at least 1"): shapleig(game, 6, 10, batch_size=0)
    with pytest.raises(TypeError, match="n_candidates must be an integer"): shapleig(game, 6, 10, n_candidates=1e3)
    with pytest.raises(TypeError, match="ard_from must be an integer"): shapleig(game, 6, 10, ard_from=2.5)
    with pytest.raises(ValueError, match="non-finite"): shapleig(lambda Z: np.full(len(Z), np.inf), 6, 10)
    with pytest.raises(ValueError, match="p <= 300"): shapleig(game, 301, 400)
    with pytest.warns(UserWarning, match="exceeds"): over = shapleig(game, 6, 65)   # every coalition once: exact
    assert over.n_evals == 64 and over.enumerated and (over.sd == 0).all()
    with pytest.raises(TypeError, match="executor must be"): shapleig(game, 6, 10, executor=map)


def test_real_game_data_valuation(game_files):
    "On the data-valuation game where ShaplEIG does well, a budget of 3p gives a small relative error."
    found = [f for f in game_files if f.match("AdultCensus_DatasetValuation_Game_p10_model_name-random_forest_*_1.npz")]
    if not found: pytest.skip("the data-valuation game p10 is not among the benchmark games")
    game = load_table_game(found[0])
    exact = game.exact_shapley()
    est = shapleig(game, 10, 30, seed=0, refit=0.2)
    rel = np.mean((est.values - exact) ** 2) / np.mean(exact**2)
    assert rel < 0.05, rel


def test_shared_lengthscale_fit():
    rng = np.random.default_rng(4)
    p = 6
    X = leverage_coalitions(p, 20, seed=0)
    y = X @ rng.normal(size=p)
    shared = fit_hamming_gp(X, y, ard=False)
    assert shared.lengthscale.shape == (p,) and np.all(shared.lengthscale == shared.lengthscale[0])


def test_callback_checkpoint_reproduces_shorter_run():
    p = 6
    game = additive_plus_game(p, 2)
    seen = {}
    shapleig(game, p, 30, seed=1, refit=0.3, callback=lambda X, y, h: seen.setdefault(len(X), stopped_posterior(X, y, h).values))
    for budget in (12, 24, 25):   # 4p = 24: per-player lengthscales from there on
        np.testing.assert_allclose(seen[budget], shapleig(game, p, budget, seed=1, refit=0.3).values, atol=1e-8)


HIDE = """
import sys
class Hide:
    "Import finder that refuses the packages {missing} and their submodules, as if they were not installed."
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {missing}: raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Hide())
import {module}
print(sorted(m for m in ("torch", "gpytorch") if m in sys.modules))
"""


def import_without(module, *missing):
    "Import `module` in a fresh interpreter in which the packages `missing` cannot be imported."
    code = HIDE.format(missing=set(missing) or "()", module=module)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


@pytest.mark.parametrize("module,missing", [("shapnb.bayes.gp", "torch"), ("shapnb.bayes.gp", "gpytorch"),
                                            ("shapnb.bayes.eig", "torch"), ("shapnb.bayes.baselines", "torch")])
def test_missing_torch_names_the_install_command(module, missing):
    run = import_without(module, missing)
    assert run.returncode != 0
    message = run.stderr.strip().splitlines()[-1]
    assert message.startswith("ImportError: ShaplEIG (shapnb.bayes) needs torch and gpytorch"), run.stderr
    assert f"but {missing} is not installed" in message
    assert message.endswith('pip install torch==2.13.0 && pip install "shapnb[shapleig]"')
    assert import_without(module).returncode == 0      # the same import with both packages present


def test_sampling_baselines_need_no_torch():
    run = import_without("shapnb.sampling.baselines", "torch", "gpytorch")
    assert run.returncode == 0 and run.stdout.strip() == "[]", run.stderr


@pytest.mark.parametrize("method", [permutation_sampling, kernel_shap_paired, leverage_shap, regression_msr])
def test_sampling_baselines_return_explanations(method):
    p = 6
    game = lambda Z: additive_plus_game(p, 3)(Z) - 1.0
    budget = 3 * p
    est = method(game, p, budget, seed=0)
    assert isinstance(est, Explanation) and est.values.shape == (p,) and est.base_values == -1.0
    assert est.method and est.n_evals <= budget and est.se is None and est.sd is None
    assert len(np.unique(coalition_to_mask(est.coalitions))) == len(est.coalitions) == est.n_evals
    np.testing.assert_allclose(est.game_values, game(est.coalitions))
    np.testing.assert_allclose(est.values.sum(), game(np.ones((1, p)))[0] - game(np.zeros((1, p)))[0], atol=1e-4)
    with pytest.raises(TypeError, match="budget must be an integer"): method(game, p, float(budget))
    with pytest.raises(ValueError, match="exceeds"): method(game, p, 2**p + 1)


@pytest.mark.parametrize("method,selection", [(gp_random, "random"), (gp_uncertainty, "uncertainty"), (gp_leverage, "leverage")])
def test_gp_baselines_are_shapleig_with_another_selection(method, selection):
    p = 6
    game = additive_plus_game(p, 4)
    est = method(game, p, 14, seed=2, refit=0.5)
    same = shapleig(game, p, 14, seed=2, refit=0.5, selection=selection)
    assert isinstance(est, Explanation) and est.method == method.__name__ and est.selection == selection
    np.testing.assert_array_equal(est.coalitions, same.coalitions)
    np.testing.assert_allclose(est.values, same.values, atol=1e-10)
    np.testing.assert_allclose(est.sd, same.sd, atol=1e-10)
    assert est.base_values == same.base_values == game(np.zeros((1, p)))[0]


def table_game(p, seed, c=1.0):
    "A random game on p players given by a table of its 2^p values, multiplied by c."
    table = np.random.default_rng(seed).normal(size=2**p)
    return lambda Z: c * table[coalition_to_mask(np.asarray(Z, bool))]


@settings(max_examples=8, deadline=None)
@given(p=st.integers(3, 6), seed=st.integers(0, 2**16), exponent=st.integers(-300, 300), base=st.sampled_from([2.0, 10.0]))
def test_shapleig_scale_equivariant(p, seed, exponent, base):
    "φ(c·v) = c·φ(v) and sd(c·v) = c·sd(v) for c = 10^e and 2^e: the run works in power-of-two-standardised units."
    c = base ** exponent
    kw = dict(seed=seed, refit=0.5, progress=False)
    ref = shapleig(table_game(p, seed), p, 2 * p, **kw)
    run = shapleig(table_game(p, seed, c), p, 2 * p, **kw)
    assert np.isfinite(run.values).all() and np.isfinite(run.sd).all()
    np.testing.assert_array_equal(run.coalitions, ref.coalitions)
    if base == 2.0:                                   # exact in floating point: bit-identical
        np.testing.assert_array_equal(run.values, c * ref.values)
        np.testing.assert_array_equal(run.sd, c * ref.sd)
    for got, want in ((run.values, ref.values), (run.sd, ref.sd)):
        err = np.abs(got - c * want)
        assert np.all(err <= 1e-10 * np.abs(c * want) + 1e-10 * c * np.abs(ref.values).max()), (err, c)
    np.testing.assert_array_equal(run.game_values, table_game(p, seed, c)(run.coalitions))   # the game's own values


def test_shapleig_extreme_scales_keep_efficiency():
    "The efficiency residual v(N) − v(∅) − Σφ scales with the game (it is not zero: the GP has a small noise term)."
    p = 5
    def residual(c):
        est = shapleig(table_game(p, 3, c), p, 12, seed=0, refit=0.5)
        assert np.isfinite(est.values).all() and np.isfinite(est.sd).all()
        return table_game(p, 3, c)(np.ones((1, p), bool))[0] - est.base_values - est.values.sum()
    ref = residual(1.0)
    total = table_game(p, 3)(np.ones((1, p), bool))[0] - table_game(p, 3)(np.zeros((1, p), bool))[0]
    assert abs(ref) < 1e-3 * abs(total)
    for c in (1e-300, 1e-12, 1e300):
        assert abs(residual(c) - c * ref) <= 1e-10 * c * abs(total), c


@pytest.mark.parametrize("criterion", ["loo", "bic", "evidence"])
def test_every_chosen_kernel_has_the_dense_shapley_posterior(criterion):
    "Whichever kernel the data choose (isotropic, per-player lengthscales, size trend), the Shapley posterior is exact."
    p = 6
    X = leverage_coalitions(p, 18, seed=3)
    y = additive_plus_game(p, 3)(X)
    choice = fit_kernel_choice(X, y, criterion=criterion)
    assert set(choice.fits) == set(KERNEL_CHOICES) and choice.name in KERNEL_CHOICES and choice.n_obs == len(X)
    assert choice.fits["size"].size_scale > 0 and choice.fits["hamming"].size_scale == 0
    assert np.ptp(choice.fits["hamming"].lengthscale) == 0
    np.testing.assert_allclose(sum(choice.weights.values()), 1.0)
    for name, hyper in choice.fits.items():
        phi, M, _, _ = dense_posterior(hyper, X, y)
        post = ShapleyPosterior(hyper, X, y)
        np.testing.assert_allclose(post.values, phi, atol=1e-9 * np.abs(phi).max(), err_msg=name)
        np.testing.assert_allclose(post.cov, M, atol=1e-9 * np.abs(M).max(), err_msg=name)


def test_loo_and_evidence_match_brute_force():
    rng = np.random.default_rng(5)
    p = 5
    hyper = random_hyper(rng, p, noise=1e-2, size=True)
    X = all_coalitions(p)[rng.choice(2**p, 12, replace=False)]
    y = rng.normal(size=12)
    brute = []
    for i in range(12):
        keep = np.arange(12) != i
        m, v = gp_posterior(hyper, X[keep], y[keep], X[i:i + 1])
        brute.append(-0.5 * np.log(2 * np.pi * (v[0] + hyper.noise)) - 0.5 * (y[i] - m[0]) ** 2 / (v[0] + hyper.noise))
    np.testing.assert_allclose(loo_log_predictive(hyper, X, y), brute, rtol=1e-8)
    C = hyper.kernel(X, X) + hyper.noise * np.eye(12)
    ref = -0.5 * (y - hyper.mean) @ np.linalg.solve(C, y - hyper.mean) - 0.5 * np.linalg.slogdet(2 * np.pi * C)[1]
    np.testing.assert_allclose(log_evidence(hyper, X, y), ref, rtol=1e-10)


def test_shapleig_auto_kernel_records_its_choices():
    p = 6
    game = additive_plus_game(p, 4)
    auto = shapleig(game, p, 20, seed=0, refit=0.3)
    assert auto.kernel == "auto" and auto.kernel_choice.name in KERNEL_CHOICES
    t = [n for n, _ in auto.kernels_chosen]
    assert t[0] == 4 and t == sorted(t) and all(k in KERNEL_CHOICES for _, k in auto.kernels_chosen)
    np.testing.assert_array_equal(auto.kernel_choice.hyper.lengthscale, auto.hyper_standardised.lengthscale)
    every = shapleig(game, p, 20, seed=0, refit=0.3, reselect="always")
    assert len(every.kernels_chosen) == len(every.fit_seconds) - 1   # every refit but the final one compares the kernels
    fixed = shapleig(game, p, 20, seed=0, refit=0.3, kernel="fixed")
    assert fixed.kernel_choice is None and fixed.kernels_chosen == [] and fixed.hyper.size_scale == 0
    with pytest.raises(ValueError, match="kernel must be one of"): shapleig(game, p, 20, kernel="rbf")
    with pytest.raises(ValueError, match="kernel_criterion"): shapleig(game, p, 20, kernel_criterion="aic")
    with pytest.raises(ValueError, match="reselect"): shapleig(game, p, 20, reselect=-1)
    with pytest.raises(ValueError, match="size_trend=True applies to kernel='fixed'"): shapleig(game, p, 20, size_trend=True)


class CopyingExecutor(ThreadPoolExecutor):
    "Threads that run each task on deep copies of its arguments, as a process pool's workers hold copies of what they are sent."
    def submit(self, fn, /, *args, **kwargs):
        return super().submit(fn, *copy.deepcopy(args), **copy.deepcopy(kwargs))


def test_gp_surrogate_pays_and_counts_through_an_executor_that_ships_copies():
    "Every coalition is paid for once, counted in this process, and the values are those of the in-process run."
    p = 6
    table = TableGame(np.random.default_rng(3).normal(size=2 ** p))
    sent = []
    def game(Z):
        sent.append(len(Z))                      # a closure: the copies still report here
        return table(Z)
    with CopyingExecutor(2) as pool:
        for active in (0.0, 0.5):
            sent.clear()
            remote = gp_surrogate_shap(game, p, 30, seed=0, n_boot=20, active=active, executor=pool, chunk_size=4)
            paid = sum(sent)
            local = gp_surrogate_shap(table, p, 30, seed=0, n_boot=20, active=active)
            assert remote.n_evals == local.n_evals == paid <= 30
            np.testing.assert_allclose(remote.values, local.values, atol=1e-12)


def test_sd_widening_is_scale_free_and_capped():
    "The one-step-ahead factor of notebook 32: unchanged by scaling the game by 2^k, even after a flat start whether or not the first spread moves the unit exponent; one confident miss counts as Z2_CAP."
    p = 8
    game = lambda Z: (np.asarray(Z)[:, 0] & ~np.asarray(Z)[:, 1]).astype(float)   # 0 at ∅ and N: a flat start is common
    for seed in range(3):
        ref = shapleig(game, p, 24, seed=seed, progress=False)
        for c, base in ((2.0 ** -20, ref), (2.0 ** 10, ref), (1.5, shapleig(lambda Z: 0.75 * game(Z), p, 24, seed=seed, progress=False))):
            k = c if base is ref else 2.0                          # 0.75 g (unit exponent 0) against 1.5 g (exponent 1)
            run = shapleig(lambda Z: c * game(Z), p, 24, seed=seed, progress=False)
            assert run.details["sd_inflation"] == base.details["sd_inflation"]
            np.testing.assert_array_equal(run.values, k * base.values)
            if base.sd is not None: np.testing.assert_array_equal(run.sd, k * base.sd)
    w = np.array([5, 4, 3, 2, 2, 1, 1, 1.0])
    vote = lambda Z: (np.asarray(Z, float) @ w >= 10).astype(float)               # a step game: confident misses
    run = shapleig(vote, p, 32, seed=6, progress=False)
    z2 = run.details["predictive_z2"]
    assert np.nanmax(z2) > 10 * Z2_CAP                                            # a confident miss (z² of 564)
    assert run.details["sd_inflation"] == pytest.approx(max(1.0, float(np.nanmean(np.minimum(z2, Z2_CAP)))), rel=1e-12)
    assert run.details["sd_inflation"] < np.nanmean(z2) / 10                       # the capped mean: 2.9, not the 38 it sets uncapped


@settings(max_examples=6, deadline=None)
@given(p=st.integers(3, 8), seed=st.integers(0, 2**16), extra=st.integers(1, 8))
def test_initial_design_of_the_default_reproduces_the_default_run(p, seed, extra):
    """shapleig(initial=) given the very coalitions and values of the default run's initial design is that run (p <= 12:
    every unevaluated coalition is scored, so nothing else draws from the seed), and evaluates none of them again."""
    rng = np.random.default_rng(seed)
    table = TableGame(rng.normal(size=2 ** p) + 3.0 * all_coalitions(p)[:, 0])
    budget = min(2 ** p - 1, 4 + extra)
    default = shapleig(table, p, budget, seed=seed, progress=False)
    start = default.round_of == 0
    asked = []
    def counted(Z): asked.append(np.asarray(Z, bool)); return table(Z)
    shuffled = np.random.default_rng(seed + 1).permutation(int(start.sum()))   # any order: ∅ and N are put first
    warm = shapleig(counted, p, budget, seed=seed, progress=False,
                    initial=(default.coalitions[start][shuffled], default.game_values[start][shuffled]))
    np.testing.assert_array_equal(coalition_to_mask(warm.coalitions[~start]), coalition_to_mask(default.coalitions[~start]))
    np.testing.assert_allclose(warm.values, default.values, rtol=0, atol=1e-9 * np.abs(default.values).max())
    assert sum(map(len, asked)) == budget - start.sum() == warm.n_evals - start.sum()


@settings(max_examples=100, deadline=None)
@given(p=st.integers(2, 70), budget=st.integers(1, 600), bootstrap=st.sampled_from(["auto", "symmetric", None]))
def test_eig_after_auto_leaves_the_design_what_its_interval_needs(p, budget, bootstrap):
    "eig_after='auto': the design keeps the budget its interval needs; below interval_budget(p), an even quarter (4 at least)."
    n = eig_after_count("auto", p, budget, "shrunk-refit", 0.0, bootstrap)
    design = budget - n
    if p <= 62 and budget >= 2 ** p:                          # every coalition: enumerated, nothing for ShaplEIG
        assert n == 0; return
    if budget >= interval_budget(p) or bootstrap == "symmetric":
        assert n == max(0, budget - singletons_budget(p))     # an interval: the design up to the singletons' budget
        return
    assert 0 <= n and (n == 0 or (design >= 4 and design % 2 == 0)), (n, design)
    assert design <= max(4, (1 - EIG_SHARE_BELOW_INTERVAL) * budget + 1), (n, design)   # about a quarter, no more
    assert eig_after_count("auto", p, budget + 2, "shrunk-refit", 0.0, bootstrap) >= n or budget + 2 >= interval_budget(p)
