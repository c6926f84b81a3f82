"""The engine contract: every compiled fast path computes the same numbers as the product-game engine.

The package's thesis is that one Gauss–Legendre engine, `shapnb.core.quadrature.product_shapley`, serves trees, kernels
and the information gain. The fast paths re-derive its integral in compiled code for speed; this module checks each of
them against `product_shapley` on the same product games (random factors, exact zeros, large p), so that the thesis is
enforced, not only stated. One section per fast path:

## Tree ensembles: the edge-wise pass, the leaf tables and the interventional pass
Engine contract of the tree explainers: the edge-wise pass and the leaf tables agree with `product_shapley`.

A leaf of a path-dependent tree is a product game: a_j = 1[x follows every split on j along the path], b_j = the product
of the cover fractions of the path children of the splits on j (repeated splits on a feature merge their factors). A tree
with a single path (every off-path leaf worth 0) is therefore exactly one product game, and its Shapley values must be
`product_shapley(a, b, v)` on the features of the path and 0 elsewhere. The same tree explained interventionally against
one background row z is the product game with b_j = 1[z follows every split on j]. Trees are drawn at random
(hypothesis): covers with zero fractions, rows that leave the path (a_j = 0), repeated features, and paths of depth 100
to 250 with over a hundred distinct features for the edge-wise pass.

## Product kernels: node log-products, block Shapley routines, kernel games
Engine contract of `shapnb.exact.kernels`: its compiled product-kernel passes agree with the general engine
`shapnb.core.quadrature.product_shapley` on the same product games.

A row of a product-kernel model is a sum of product games, one per support vector n, with a_j = K_nj, b_j = 1 and
scale alpha_n. `exact.kernels` does not call the engine on them (it would build an (n, m, p) array); it has its own
numba passes: `_node_log_products` (log prod_j F_qnj at every node), `_leave_one_out_contraction` (the sum over
support vectors of the leave-one-out products), the block routines `_scaled_block_shapley` (factors >= 0) and
`_general_block_shapley` (any real factors), and the entry points `kernel_game_shapley` and `product_kernel_shapley`.
These tests check every one of them against the engine: on random factors, with exact zeros (a feature whose factor
is 0 for every support vector, a support vector whose factors are all 0, a zero coefficient), and at p >= 1000,
where the products leave float64's range and only log space survives.

## ShaplEIG's information gain: Shapley transforms of the Hamming kernel
Engine contract of `shapnb.bayes.eig`: its Shapley transforms of the Hamming kernel are the Gauss–Legendre
product-game engine `shapnb.core.quadrature.product_shapley` applied to the same product games.

For a fixed coalition T the kernel S ↦ k(S, T) = σ² ∏_j κ_j([j∈S], [j∈T]), with κ_j(s, s') = ρ_j^[s≠s'] and
ρ_j = exp(-1/(p ξ_j)), is a product game: factor κ_j(1, t_j) when j ∈ S, κ_j(0, t_j) when j ∉ S.

- `shapley_kernel_vectors(hyper, Z)` (rows A k(·, z)) must equal `product_shapley` of those games, one per row of Z.
- `shapley_kernel_matrix(hyper)` (A K Aᵀ, computed on a tensor Gauss–Legendre grid) is checked two ways:
  for small p as Σ_T A k(·, T) A_{·T}ᵀ over all 2^p coalitions T, every A k(·, T) from `product_shapley`;
  for large p row by row: (A k(·, T))_i = σ² ∫₀¹ (κ_i(1,t_i) − κ_i(0,t_i)) ∏_{j≠i} ((1−t) κ_j(0,t_j) + t κ_j(1,t_j)) dt,
  so at every quadrature node t (numpy's own Gauss–Legendre rule, exact for this degree-(p−1) polynomial) the map
  T ↦ (A k(·, T))_i is a product game in T, and row i of A K Aᵀ is the node-weighted sum of its Shapley values.
Hyperparameters are random, with correlations ρ_j that are exactly 0 (very short lengthscales: zero factors) or
exactly 1 (very long ones: a_j = b_j), and p up to 120.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from shapnb.core.quadrature import product_shapley
from shapnb.exact.trees.ensemble import TreeEnsemble
from shapnb.exact.trees.pathwise import pathwise_values
from shapnb.exact.trees.tables import leaf_tables, table_values
from shapnb.exact.trees.explainer import TreeExplainer
import hypothesis.extra.numpy as hnp
from shapnb.core.quadrature import exact_nodes, gauss_legendre_01
from shapnb.exact.kernels import (_chunk_length, _general_block_shapley, _leave_one_out_contraction, _node_log_products,
                                  _scaled_block_shapley, feature_kernel_factors, kernel_game_shapley,
                                  product_kernel_shapley)
from shapnb.core.games import all_coalitions, shapley_matrix
from shapnb.bayes.gp import HammingHyper
from shapnb.bayes.eig import shapley_kernel_vectors, shapley_kernel_matrix, PRODUCT_CHUNK
from shapnb.core.quadrature import product_shapley_auto
from shapnb.core.indices import product_semivalues, product_interactions, interaction_measure, _pair_values
from shapnb.exact.kernels import _pair_block, _measure_rule_at, kernel_game_semivalues, kernel_game_interactions


# ====================================================================================================
# Tree ensembles: the edge-wise pass, the leaf tables and the interventional pass
# ====================================================================================================

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def single_path_tree(p, features, follows, path_left, fractions, value, z_follows=None):
    """A tree whose internal nodes lie on one path: split k is on `features[k]`, the path goes on to the left child if
    `path_left[k]`, the row x = 0 follows it if `follows[k]`, and the path child gets `fractions[k]` of the cover.
    Returns the ensemble, x, the background row z (None unless `z_follows`) and the game's factors a, b (p,) and
    z's factors (p,) for the interventional game."""
    D = len(features)
    n = 2 * D + 1                                     # path node k at 2k, its off-path leaf at 2k + 1, the path leaf at 2D
    left, right = np.full(n, -1), np.full(n, -1)
    feature, threshold = np.full(n, -1), np.zeros(n)
    cover, leaf_value = np.ones(n), np.zeros(n)
    for k in range(D):
        on, off = 2 * k + 2, 2 * k + 1
        left[2 * k], right[2 * k] = (on, off) if path_left[k] else (off, on)
        feature[2 * k] = features[k]
        x_goes_left = path_left[k] == follows[k]      # x = 0 goes left when 0 <= threshold
        threshold[2 * k] = 1.0 if x_goes_left else -1.0
        cover[on], cover[off] = cover[2 * k] * fractions[k], cover[2 * k] * (1 - fractions[k])
    leaf_value[2 * D] = value
    tree = dict(left=left, right=right, feature=feature, threshold=threshold, cover=cover, value=leaf_value)
    ensemble = TreeEnsemble([tree], [0.0], p, np.float64)
    a, b, b_z = np.ones(p), np.ones(p), np.ones(p)
    z = None if z_follows is None else np.zeros(p)
    for k in range(D):
        j, parent = features[k], cover[2 * k]
        a[j] *= float(follows[k])
        b[j] *= cover[2 * k + 2] / parent if parent > 0 else 0.5   # a node without cover splits its mass evenly
    if z_follows is not None:                        # z_j = -2 goes left at every split on j, +2 right, 0 as x does
        for j in range(p):
            z[j] = z_follows[j]
        for k in range(D):
            z_left = z[features[k]] <= threshold[2 * k]
            b_z[features[k]] *= float(z_left == path_left[k])
    return ensemble, np.zeros(p), z, a, b, b_z


def reference(p, features, a, b, value):
    "Shapley values of the product game on the path's features by the engine, 0 for the other features."
    on_path = np.unique(features)
    phi = np.zeros(p)
    phi[on_path] = product_shapley(a[on_path], b[on_path], value)
    return phi


@st.composite
def paths(draw, p_min, p_max, depth_min, depth_max, fraction, spread=False):
    "A random single path: p, features (repeats allowed; with `spread`, min(D, p) distinct ones), x's directions, sides, cover fractions, leaf value."
    p = draw(st.integers(p_min, p_max))
    D = draw(st.integers(depth_min, depth_max))
    if spread:
        features = draw(st.permutations(range(p)))[:D] + draw(st.lists(st.integers(0, p - 1), min_size=max(0, D - p), max_size=max(0, D - p)))
        features = [features[i] for i in draw(st.permutations(range(D)))]
    else: features = draw(st.lists(st.integers(0, p - 1), min_size=D, max_size=D))
    follows = draw(st.lists(st.sampled_from([True, True, True, False]), min_size=D, max_size=D))
    path_left = draw(st.lists(st.booleans(), min_size=D, max_size=D))
    fractions = draw(st.lists(fraction, min_size=D, max_size=D))
    value = draw(st.floats(-5, 5).filter(lambda v: abs(v) > 1e-3))
    return p, features, follows, path_left, fractions, value


SHORT = paths(1, 10, 1, 14, st.one_of(st.just(0.0), st.just(1.0), st.floats(0.0, 1.0)))
LONG = paths(100, 160, 100, 250, st.one_of(st.just(0.0), st.just(1.0), st.floats(0.2, 1.0), st.floats(0.98, 1.0)), spread=True)


def close(ours, ref):
    "Agreement to rounding relative to the largest value, however small (deep paths multiply hundreds of factors)."
    tiny = np.finfo(float).tiny            # below the smallest normal number there is no relative precision left
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-12 * np.abs(ref).max() + tiny)


@settings(max_examples=60, **SETTINGS)
@given(SHORT)
def test_leaf_tables_are_the_product_game(path):
    p, features, follows, path_left, fractions, value = path
    ensemble, x, _, a, b, _ = single_path_tree(p, features, follows, path_left, fractions, value)
    tables = leaf_tables(ensemble)
    ref = reference(p, features, a, b, value)
    if len(features) > 1:     # one split is an oblivious tree: notebook 11 solves each of its leaves once, without tables
        assert tables.use.all()
        close(table_values(ensemble, x, tables)[0, :, 0], ref)
    close(TreeExplainer(ensemble).shap_values(x), ref)        # shallow: the explainer takes the tables


@settings(max_examples=60, **SETTINGS)
@given(SHORT)
def test_edge_wise_pass_is_the_product_game(path):
    p, features, follows, path_left, fractions, value = path
    ensemble, x, _, a, b, _ = single_path_tree(p, features, follows, path_left, fractions, value)
    close(pathwise_values(ensemble, x)[0, :, 0], reference(p, features, a, b, value))


@settings(max_examples=25, **SETTINGS)
@given(LONG)
def test_edge_wise_pass_on_deep_paths(path):
    "Depth 100-250, over a hundred distinct features: the explainer takes the edge-wise pass (no tables fit)."
    p, features, follows, path_left, fractions, value = path
    ensemble, x, _, a, b, _ = single_path_tree(p, features, follows, path_left, fractions, value)
    assert ensemble.max_depth[0] >= 100 and ensemble.path_features[0] >= 100
    ref = reference(p, features, a, b, value)
    close(pathwise_values(ensemble, x)[0, :, 0], ref)
    explainer = TreeExplainer(ensemble)
    close(explainer.shap_values(x), ref)
    assert not explainer._leaf_tables().use.any()


@settings(max_examples=40, **SETTINGS)
@given(st.one_of(SHORT, LONG), st.data())
def test_interventional_pass_is_the_product_game(path, data):
    "Against one background row z, the game is the product game with b_j = 1[z follows every split on j]."
    p, features, follows, path_left, fractions, value = path
    z_follows = data.draw(st.lists(st.sampled_from([-2.0, 0.0, 2.0]), min_size=p, max_size=p))
    ensemble, x, z, a, _, b_z = single_path_tree(p, features, follows, path_left, fractions, value, z_follows)
    ref = reference(p, features, a, b_z, value)
    close(pathwise_values(ensemble, x, background=z[None])[0, :, 0], ref)
    close(TreeExplainer(ensemble, z[None], feature_perturbation="interventional").shap_values(x), ref)


def test_single_path_tree_is_the_game_it_claims():
    "The builder itself: the tree's output on x is v * prod(a), and its cover-weighted mean is v * prod(b)."
    features, follows, path_left, fractions = [0, 1, 0, 2], [True, True, False, True], [True, False, False, True], [0.5, 0.25, 0.8, 0.6]
    ensemble, x, _, a, b, _ = single_path_tree(3, features, follows, path_left, fractions, 2.0)
    assert ensemble.max_depth[0] == 4 and ensemble.path_features[0] == 3
    np.testing.assert_allclose(a, [0.0, 1.0, 1.0]); np.testing.assert_allclose(b, [0.4, 0.25, 0.6])
    np.testing.assert_allclose(ensemble.predict(x)[0, 0], 2.0 * a.prod())
    np.testing.assert_allclose(ensemble.expected_value()[0], 2.0 * b.prod())


@pytest.mark.parametrize("depth", [100, 400])
def test_long_path_of_one_repeated_feature(depth):
    "Hundreds of splits on two features merge into two factors, whatever the depth."
    rng = np.random.default_rng(depth)
    features = list(rng.integers(0, 2, size=depth))
    follows, path_left = [True] * depth, list(rng.random(depth) < 0.5)
    fractions = list(rng.uniform(0.97, 1.0, size=depth))
    ensemble, x, _, a, b, _ = single_path_tree(2, features, follows, path_left, fractions, 3.0)
    ref = reference(2, features, a, b, 3.0)
    close(pathwise_values(ensemble, x)[0, :, 0], ref)
    close(TreeExplainer(ensemble).shap_values(x), ref)


# ====================================================================================================
# Product kernels: node log-products, block Shapley routines, kernel games
# ====================================================================================================

KERNEL_FACTOR = st.one_of(st.just(0.0), st.just(1.0), st.floats(0.0, 3.0))   # kernel factors are >= 0


@st.composite
def kernel_games(draw, max_n=6, max_p=10, outputs=False):
    "Factors K (n, p) >= 0 with exact zeros (whole features, whole support vectors) and coefficients (n,) or (n, k)."
    n, p = draw(st.integers(1, max_n)), draw(st.integers(1, max_p))
    K = draw(hnp.arrays(float, (n, p), elements=KERNEL_FACTOR))
    if draw(st.booleans()): K[:, draw(st.integers(0, p - 1))] = 0.0          # a feature that is 0 for every vector
    if draw(st.booleans()): K[draw(st.integers(0, n - 1))] = 0.0             # a support vector that is 0 everywhere
    k = draw(st.integers(1, 3)) if outputs else 1
    alpha = draw(hnp.arrays(float, (n, k), elements=st.one_of(st.just(0.0), st.floats(-5.0, 5.0))))
    return K, (alpha if outputs else alpha[:, 0])


def engine(K, alpha, m=None):
    "The general engine's values of the sum of product games: one game per support vector (and output), summed."
    A = np.asarray(alpha, dtype=float).reshape(len(K), -1)
    per_game = engine_games(K, m)                                             # (n, p)
    phi = A.T @ per_game                                                      # (k, p)
    return phi[0] if np.ndim(alpha) == 1 else phi.T


def engine_games(K, m=None):
    "The engine's values of the product games a = K[n], b = 1, c = 1, shape (n, p), a few games per call (memory)."
    step = max(1, 2_000_000 // (K.shape[1] * (exact_nodes(K.shape[1]) if m is None else m)))
    return np.concatenate([product_shapley(K[lo:lo + step], 1.0, 1.0, m=m) for lo in range(0, len(K), step)])


def unit(K, alpha, m=None):
    "The natural unit of rounding error: sum over the games of |alpha_n| max_i |phi_n,i| (no cancellation)."
    per_game = np.abs(engine_games(K, m)).max(1)
    return max(float(np.abs(np.asarray(alpha).reshape(len(K), -1)).max(1) @ per_game), 1e-300)


def engine_node_log_products(D, t):
    "log prod_j F_qnj with the engine's factor F = (1 - t) b + t a, a = 1 + D, b = 1, shape (n, m)."
    F = (1 - t)[None, :, None] * 1.0 + t[None, :, None] * (1.0 + D)[:, None, :]
    return np.log(F).sum(-1)


# --- the node products ---------------------------------------------------------------------------------------------

@settings(max_examples=80, deadline=None)
@given(kernel_games(max_n=5, max_p=40), st.integers(1, 33))
def test_node_log_products_match_the_engine_factors(game, chunk):
    "Any chunk length gives log prod_j (1 + t_q D_nj), the log of the engine's node product, exact zeros included."
    K, _ = game
    D = K - 1.0
    t, _ = gauss_legendre_01(exact_nodes(K.shape[1]))
    got = _node_log_products(D, t, chunk)
    np.testing.assert_allclose(got, engine_node_log_products(D, t), rtol=1e-13, atol=1e-12)


@pytest.mark.parametrize("low, high", [(0.0, 0.3), (0.5, 2.0), (1.0, 3.0)])
def test_node_log_products_at_large_p(low, high):
    "p = 3000: the plain product of all factors leaves float64's range; the chunked log sum does not."
    rng = np.random.default_rng(int(10 * high))
    K = rng.uniform(low, high, size=(4, 3000)); K[:, 7] = 0.0; K[2] = 0.0
    D = K - 1.0
    t, _ = gauss_legendre_01(40)
    got = _node_log_products(D, t, _chunk_length(D, t))
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, engine_node_log_products(D, t), rtol=1e-12, atol=1e-9)


# --- the block routines --------------------------------------------------------------------------------------------

@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernel_games(outputs=True))
def test_scaled_block_equals_the_engine(game):
    "The fused pass (node products, then the leave-one-out contraction) equals the engine game by game, k outputs."
    K, A = game
    t, w = gauss_legendre_01(exact_nodes(K.shape[1]))
    scaled, top = _scaled_block_shapley(K - 1.0, A, t, w)
    phi = scaled * np.exp(top) if np.isfinite(top) else scaled
    np.testing.assert_allclose(phi, engine(K, A).T, rtol=0, atol=1e-12 * unit(K, A))


def test_scaled_block_of_zero_coefficients_is_zero():
    "All coefficients 0: every game is worth 0; the block says so with scale e^-inf, no NaN."
    K = np.random.default_rng(0).uniform(0, 1, size=(3, 5))
    t, w = gauss_legendre_01(3)
    scaled, top = _scaled_block_shapley(K - 1.0, np.zeros((3, 2)), t, w)
    assert top == -np.inf and np.array_equal(scaled, np.zeros((2, 5)))


@settings(max_examples=60, deadline=None)
@given(kernel_games(outputs=True))
def test_leave_one_out_contraction_is_the_engine_sum(game):
    "With C = w_q alpha_n P_qn the contraction is sum_n alpha_n (K_ni - 1) sum_q w_q P_qn / F_qni: the engine's sum."
    K, A = game
    D = K - 1.0
    t, w = gauss_legendre_01(exact_nodes(K.shape[1]))
    P = np.exp(engine_node_log_products(D, t))                                # (n, m), no zero: F >= 1 - t > 0
    C = np.ascontiguousarray(A[:, :, None] * (w * P)[:, None, :])             # (n, k, m)
    np.testing.assert_allclose(_leave_one_out_contraction(D, C, t), engine(K, A).T, rtol=0, atol=1e-12 * unit(K, A))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(1, 9), st.integers(1, 3), st.integers(0, 2**31 - 1))
def test_general_block_with_negative_factors_equals_the_engine(n, p, k, seed):
    "Factors of either sign (a custom kernel), exact zeros included: the sub-blocked general path is the engine's sum."
    rng = np.random.default_rng(seed)
    K = rng.uniform(-2, 2, size=(n, p)); K[rng.random((n, p)) < 0.2] = 0.0
    A = rng.normal(size=(n, k))
    m = exact_nodes(p)
    np.testing.assert_allclose(_general_block_shapley(K - 1.0, A, m), engine(K, A).T, rtol=0, atol=1e-12 * unit(K, A))


# --- the entry points ----------------------------------------------------------------------------------------------

@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernel_games(outputs=True), st.one_of(st.none(), st.integers(1, 4)))
def test_kernel_game_shapley_equals_the_engine(game, block_size):
    "kernel_game_shapley, any block size, one or k outputs, and its residual equals the engine's summed residuals."
    K, A = game
    phi, resid = kernel_game_shapley(K, A, block_size=block_size, return_residual=True)
    np.testing.assert_allclose(phi, engine(K, A), rtol=0, atol=1e-12 * unit(K, A))
    _, engine_resid = product_shapley(K, 1.0, 1.0, return_residual=True)   # one residual per game
    np.testing.assert_allclose(resid, A.T @ engine_resid, rtol=0, atol=1e-12 * unit(K, A))
    one, _ = kernel_game_shapley(K, A[:, 0], block_size=block_size, return_residual=True)
    np.testing.assert_allclose(one, phi[:, 0], rtol=0, atol=1e-13 * unit(K, A))


@settings(max_examples=60, deadline=None)
@given(kernel_games(), st.integers(1, 6))
def test_same_nodes_same_values_below_the_exact_rule(game, m):
    "With a user-set m (possibly below the exact ⌈p/2⌉) both apply the same rule: same values, exact or not."
    K, alpha = game
    np.testing.assert_allclose(kernel_game_shapley(K, alpha, m=m), engine(K, alpha, m=m), rtol=0,
                               atol=1e-12 * unit(K, alpha, m=m))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.integers(1, 8), st.integers(1, 3), st.integers(0, 2**31 - 1))
def test_product_kernel_shapley_with_zero_factors_equals_the_engine(n_rows, p, k, seed):
    "A custom factor function with exact zeros (a compact kernel), several rows and outputs: row by row the engine."
    rng = np.random.default_rng(seed)
    Z, X, A = rng.normal(size=(7, p)), rng.normal(size=(n_rows, p)), rng.normal(size=(7, k))
    Z[2] = 100.0                                                              # a support vector 0 in every feature
    Z[4, 0] = 100.0                                                           # and one factor 0 for every row
    A[3] = 0.0                                                                # a zero coefficient
    compact = lambda x, Z: np.maximum(0.0, 1.0 - np.abs(Z - x))              # 0 beyond distance 1
    phi = product_kernel_shapley(X, Z, A, compact, block_size=3)
    assert phi.shape == (n_rows, p, k)
    for x, row in zip(X, phi):
        K = compact(x, Z)
        assert (K[2] == 0).all() and K[4, 0] == 0
        np.testing.assert_allclose(row, engine(K, A), rtol=0, atol=1e-12 * unit(K, A))


@pytest.mark.parametrize("p, n, gamma_scale, alpha_scale", [
    (1000, 12, 1.0, 1.0),          # gamma = 1/p: the usual width
    (1500, 8, 300.0, 1.0),         # a sharp kernel: factors near 0, products near e^-1000
    (2000, 6, 1.0, 1e-250),        # tiny coefficients
])
def test_large_p_rbf_rows_equal_the_engine(p, n, gamma_scale, alpha_scale):
    "p >= 1000 from an RBF model: the compiled passes equal the engine, values finite, efficiency to rounding."
    rng = np.random.default_rng(p)
    Z, x, alpha = rng.normal(size=(n, p)), rng.normal(size=p), alpha_scale * rng.normal(size=n)
    gamma = gamma_scale / p
    K = feature_kernel_factors(x, Z, "rbf", gamma)
    phi, resid = product_kernel_shapley(x, Z, alpha, "rbf", gamma, return_residual=True)
    ref = engine(K, alpha)
    assert np.isfinite(phi).all()
    np.testing.assert_allclose(phi, ref, rtol=0, atol=1e-11 * unit(K, alpha))
    assert abs(resid) <= 1e-11 * unit(K, alpha) * p


def test_large_p_with_zeros_and_huge_products_equals_the_engine():
    "p = 1200 with factors up to 2 (products near e^400 per game, scaled down by tiny coefficients) and exact zeros."
    rng = np.random.default_rng(7)
    K = rng.uniform(0.5, 2.0, size=(5, 1200))
    K[:, [3, 500]] = 0.0                                                      # two features 0 for every vector
    K[1] = 0.0                                                                # one support vector 0 everywhere
    alpha = np.array([1e-200, -3e-200, 2e-250, 0.0, 5e-201])
    phi = kernel_game_shapley(K, alpha, block_size=2)
    ref = engine(K, alpha)
    assert np.isfinite(phi).all() and np.isfinite(ref).all()
    np.testing.assert_allclose(phi, ref, rtol=0, atol=1e-11 * unit(K, alpha))
    m = 64                                                                    # fewer nodes: the same rule on both sides
    np.testing.assert_allclose(kernel_game_shapley(K, alpha, m=m), engine(K, alpha, m=m), rtol=0,
                               atol=1e-11 * unit(K, alpha, m=m))



# --- semivalues, interactions and m="auto" (issue 16) --------------------------------------------------------------



@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernel_games(outputs=True), st.sampled_from(["SII", "BII", "STII"]), st.integers(1, 6))
def test_pair_block_is_the_engine_pair_sum(game, index, m):
    "The matrix product over (support vector, node) equals the engine's leave-two-out integrals, summed with alpha."
    K, A = game
    rule = _measure_rule_at(interaction_measure(index), m)
    pairs, first, scale = _pair_block(K - 1.0, A, rule[0], rule[2])
    pairs = pairs * (0.0 if scale is None else np.ldexp(np.exp(scale[0]), scale[1]))
    ones = np.ones_like(K)
    ref = np.einsum("no,nij->oij", A, _pair_values(K, ones, np.ones(len(K)), *rule))
    off = ~np.eye(K.shape[1], dtype=bool)
    unit_ = max(np.abs(A).sum(), 1e-300) * max(1.0, K.max()) ** K.shape[1]
    np.testing.assert_allclose(pairs[:, off], ref[:, off], rtol=0, atol=1e-12 * unit_)


@pytest.mark.parametrize("index", ["banzhaf", ("weighted_banzhaf", 0.8), ("beta_shapley", 16, 1), ("beta_shapley", 2, 3)])
def test_kernel_semivalues_at_large_p_equal_the_engine(index):
    "p = 1000 from an RBF model: the compiled pass with the measure's rule equals product_semivalues game by game."
    rng = np.random.default_rng(5)
    Z, x, alpha = rng.normal(size=(6, 1000)), rng.normal(size=1000), rng.normal(size=6)
    K = feature_kernel_factors(x, Z, "rbf", 3 / 1000)
    ref = alpha @ product_semivalues(K, 1.0, 1.0, index=index)
    np.testing.assert_allclose(kernel_game_semivalues(K, alpha, index, m="exact"), ref, rtol=0, atol=1e-12 * np.abs(ref).max())
    auto = kernel_game_semivalues(K, alpha, index, return_bound=True)
    assert abs(auto.values - ref).max() <= auto.bound + 1e-14 * np.abs(ref).max()


@pytest.mark.parametrize("index", ["SII", "BII", "STII", "k-SII"])
def test_kernel_interactions_at_p_300_equal_the_engine(index):
    "p = 300: all pairs from the matrix product equal product_interactions summed over support vectors."
    rng = np.random.default_rng(6)
    Z, x, alpha = rng.normal(size=(5, 300)), rng.normal(size=300), rng.normal(size=(5, 2))
    K = feature_kernel_factors(x, Z, "rbf", 2 / 300)
    ref = np.einsum("no,nij->ijo", alpha, product_interactions(K, 1.0, 1.0, index=index))
    np.testing.assert_allclose(kernel_game_interactions(K, alpha, index, m="exact"), ref, rtol=0, atol=1e-12 * np.abs(ref).max())


@pytest.mark.parametrize("spread", [2.0, 20.0, 200.0])
def test_auto_rule_is_the_engines_on_one_support_vector(spread):
    "One support vector, coefficient 1: m='auto' takes the node count of product_shapley_auto and its values."
    rng = np.random.default_rng(int(spread))
    K = np.exp(-rng.exponential(spread / 2000, size=(1, 2000)))
    engine_auto = product_shapley_auto(K[0], 1.0, 1.0)
    ours = kernel_game_shapley(K, np.ones(1), return_bound=True)
    assert ours.nodes == int(engine_auto.nodes)
    np.testing.assert_allclose(ours.values, engine_auto.values, rtol=0, atol=1e-14 * np.abs(engine_auto.values).max())
    np.testing.assert_allclose(ours.bound, engine_auto.bound, rtol=0, atol=1e-14 * np.abs(engine_auto.values).max())

# ====================================================================================================
# ShaplEIG's information gain: Shapley transforms of the Hamming kernel
# ====================================================================================================

def _eig_random_hyper(rng, p, extremes=True):
    "Random Hamming hyperparameters (no size term); with `extremes`, some players with ρ_j = 0 or ρ_j = 1 exactly."
    ls = np.exp(rng.uniform(np.log(0.02), np.log(50.0), p))
    if extremes and p >= 2:
        pick = rng.permutation(p)[: max(1, p // 4)]
        ls[pick[: len(pick) // 2 + 1]] = 1e-6        # exp(-1/(p ξ)) underflows: ρ_j = 0
        ls[pick[len(pick) // 2 + 1:]] = 1e300        # exp(-1/(p ξ)) rounds to 1: ρ_j = 1
    return HammingHyper(ls, outputscale=float(np.exp(rng.uniform(-3, 3))), mean=0.0, noise=1e-6)


def _eig_correlations(hyper):
    "ρ_j from the definition, independently of the library."
    return np.exp(-1.0 / (hyper.n_players * hyper.lengthscale))


def _eig_product_factors(hyper, T):
    "Factors (a, b) of the product games S ↦ k(S, T)/σ² for the rows T of `T`: a_j = κ_j(1, t_j), b_j = κ_j(0, t_j)."
    rho = _eig_correlations(hyper)
    T = np.asarray(T, bool)
    return np.where(T, 1.0, rho), np.where(T, rho, 1.0)


def _eig_matrix_by_nodes(hyper, block=6):
    "A K Aᵀ row by row from product games in T, one per player i and Gauss–Legendre node t (numpy's nodes)."
    p, rho, scale = hyper.n_players, _eig_correlations(hyper), hyper.outputscale
    x, w = np.polynomial.legendre.leggauss(-(-p // 2))   # ⌈p/2⌉ nodes: exact for degree p − 1
    t, w = (x + 1) / 2, w / 2
    rows = []
    for lo in range(0, p, block):
        players = np.arange(lo, min(lo + block, p))
        a = (1 - t)[None, :, None] * rho + t[None, :, None]            # j ≠ i, t_j = 1: (1−t) ρ_j + t
        b = (1 - t)[None, :, None] + t[None, :, None] * rho            # j ≠ i, t_j = 0: (1−t) + t ρ_j
        a = np.repeat(a, len(players), 0); b = np.repeat(b, len(players), 0)   # (block, nodes, p)
        k = np.arange(len(players))
        a[k, :, players] = (1 - rho[players])[:, None]                 # j = i: κ_i(1,1) − κ_i(0,1)
        b[k, :, players] = (rho[players] - 1)[:, None]                 #        κ_i(1,0) − κ_i(0,0)
        rows.append(np.einsum("n,knp->kp", w, product_shapley(a, b)))
    return scale * np.concatenate(rows)


@settings(max_examples=30, deadline=None)
@given(p=st.integers(1, 40), n=st.integers(1, 40), seed=st.integers(0, 2**32 - 1), extremes=st.booleans())
def test_kernel_vectors_are_product_shapley(p, n, seed, extremes):
    rng = np.random.default_rng(seed)
    hyper = _eig_random_hyper(rng, p, extremes)
    Z = rng.random((n, p)) < rng.uniform(0.1, 0.9)
    Z[0] = False
    if n > 1: Z[1] = True                                             # ∅ and N among the candidates
    a, b = _eig_product_factors(hyper, Z)
    ref = product_shapley(a, b, hyper.outputscale)
    got = shapley_kernel_vectors(hyper, Z)
    assert got.shape == (n, p)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-13 * max(np.abs(ref).max(), hyper.outputscale * 1e-300))


@pytest.mark.parametrize("p", [60, 101, 120])
def test_kernel_vectors_in_several_chunks(p):
    "Large p and more candidates than one engine call takes: the chunks are stitched back in order."
    rng = np.random.default_rng(p)
    hyper = _eig_random_hyper(rng, p)
    chunk = max(1, PRODUCT_CHUNK // (-(-p // 2) * p))
    Z = rng.random((3 * chunk + 5, p)) < 0.5
    a, b = _eig_product_factors(hyper, Z)
    ref = product_shapley(a, b, hyper.outputscale)
    np.testing.assert_allclose(shapley_kernel_vectors(hyper, Z), ref, rtol=0, atol=1e-13 * np.abs(ref).max())


@settings(max_examples=25, deadline=None)
@given(p=st.integers(1, 10), seed=st.integers(0, 2**32 - 1), extremes=st.booleans())
def test_kernel_matrix_is_a_sum_of_product_games(p, seed, extremes):
    rng = np.random.default_rng(seed)
    hyper = _eig_random_hyper(rng, p, extremes)
    T = all_coalitions(p)
    a, b = _eig_product_factors(hyper, T)
    AK = product_shapley(a, b, hyper.outputscale)                    # (2^p, p): row T is A k(·, T)
    ref = AK.T @ shapley_matrix(p).T                                 # Σ_T A k(·, T) A_{·T}ᵀ
    got = shapley_kernel_matrix(hyper)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12 * np.abs(ref).max())
    np.testing.assert_allclose(_eig_matrix_by_nodes(hyper), ref, rtol=0, atol=1e-12 * np.abs(ref).max())


@pytest.mark.parametrize("p,seed", [(17, 0), (33, 1), (64, 2), (101, 3), (120, 4)])
@pytest.mark.parametrize("extremes", [False, True])
def test_kernel_matrix_large_p_by_nodes(p, seed, extremes):
    rng = np.random.default_rng(seed)
    hyper = _eig_random_hyper(rng, p, extremes)
    ref = _eig_matrix_by_nodes(hyper)
    got = shapley_kernel_matrix(hyper)
    assert got.shape == (p, p) and np.isfinite(got).all()
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-11 * np.abs(ref).max())
    if extremes:   # a player with ρ_i = 1 never changes the kernel: its row and column of A K Aᵀ are zero
        flat = np.flatnonzero(_eig_correlations(hyper) == 1.0)
        assert len(flat) and np.abs(got[flat]).max() <= 1e-14 * np.abs(got).max()


def test_contract_detects_a_wrong_engine():
    "The reference would see an error: swapping the roles of a and b (k(S, N∖T)) changes the vectors."
    rng = np.random.default_rng(7)
    hyper = _eig_random_hyper(rng, 9, extremes=False)
    Z = rng.random((12, 9)) < 0.5
    a, b = _eig_product_factors(hyper, Z)
    assert np.abs(product_shapley(b, a, hyper.outputscale) - shapley_kernel_vectors(hyper, Z)).max() > 1e-3
    wrong = HammingHyper(hyper.lengthscale * 1.01, hyper.outputscale, 0.0, 1e-6)
    assert np.abs(shapley_kernel_matrix(wrong) - _eig_matrix_by_nodes(hyper)).max() > 1e-6 * np.abs(_eig_matrix_by_nodes(hyper)).max()
