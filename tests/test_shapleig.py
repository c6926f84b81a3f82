"Property tests and cross-checks for the ShaplEIG stack: shapnb.gp, shapnb.eig, shapnb.shapleig."
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from shapnb.games import all_coalitions, shapley_matrix, coalition_to_mask, exact_shapley, load_table_game
from shapnb.gp import HammingHyper, hamming_kernel, gp_posterior
from shapnb.eig import ShapleyPosterior, shapley_kernel_vectors, shapley_kernel_matrix, select_batch
from shapnb.gp import fit_hamming_gp
from shapnb.shapleig import shapleig, leverage_coalitions, stopped_posterior, SELECTIONS


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
    budget = min(budget, 2**p)
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
    with pytest.raises(ValueError, match="non-finite"): shapleig(lambda Z: np.full(len(Z), np.inf), 6, 10)
    with pytest.raises(ValueError, match="p <= 300"): shapleig(game, 301, 400)
    with pytest.raises(ValueError, match="exceeds"): shapleig(game, 6, 65)
    with pytest.raises(TypeError, match="executor must be"): shapleig(game, 6, 10, executor=map)


GAMES_DIR = Path(os.environ.get("SHAPNB_GAMES_DIR", Path(__file__).resolve().parents[2] / "shared" / "games" / "precomputed"))


@pytest.mark.skipif(not GAMES_DIR.is_dir(), reason="benchmark games not available")
def test_real_game_data_valuation():
    "On the data-valuation game where ShaplEIG does well, a budget of 3p gives a small relative error."
    path = sorted(GAMES_DIR.glob("AdultCensus_DatasetValuation_Game_p10_model_name-random_forest_*_1.npz"))[0]
    game = load_table_game(path)
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
