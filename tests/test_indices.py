"""Property tests of `shapnb.core.indices` (semivalues and pairwise interactions) and of the error-controlled node count
of `shapnb.core.quadrature`.

The references here are written from the textbook definitions, independently of the module: permutations for the
Shapley value, SII (the pair merged into one player) and STII (the coalition before the first of the pair), explicit
subset sums for (weighted) Banzhaf and BII, Kwon & Zou's cardinality weights for Beta-Shapley, and the Bernoulli
construction for k-SII."""
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
import hypothesis.extra.numpy as hnp

from shapnb.core.beta import ProductGame, bernstein_coefficients
from shapnb.core.games import TableGame, all_coalitions
from shapnb.core.indices import (INTERACTIONS, IndexMeasure, exact_interactions, exact_semivalues, gauss_jacobi_01,
                                 interaction_measure, product_interactions, product_semivalues, semivalue_measure,
                                 sii_to_shap)
from shapnb.core.quadrature import exact_nodes, product_shapley, product_shapley_auto


# ---------------------------------------------------------------------------------------------------------------
# Textbook definitions, written out over frozensets
# ---------------------------------------------------------------------------------------------------------------

def as_dict(values, p):
    "v as a dict frozenset -> value from a table indexed by bitmask."
    return {frozenset(i for i in range(p) if mask >> i & 1): float(values[mask]) for mask in range(1 << p)}


def subsets(players):
    return (frozenset(c) for r in range(len(players) + 1) for c in itertools.combinations(players, r))


def delta_pair(v, S, i, j):
    return v[S | {i, j}] - v[S | {i}] - v[S | {j}] + v[S]


def shapley_by_permutations(v, p):
    phi = np.zeros(p)
    for order in itertools.permutations(range(p)):
        before = frozenset()
        for i in order:
            phi[i] += v[before | {i}] - v[before]
            before = before | {i}
    return phi / math.factorial(p)


def sii_by_permutations(v, p):
    "SII of {i, j}: merge the pair into one player and average Δ_ij v over the coalitions before it, over all orders."
    out = np.zeros((p, p))
    for i, j in itertools.combinations(range(p), 2):
        items = [k for k in range(p) if k not in (i, j)] + ["pair"]
        total = 0.0
        for order in itertools.permutations(items):
            before = frozenset(order[:order.index("pair")])
            total += delta_pair(v, before, i, j)
        out[i, j] = out[j, i] = total / math.factorial(len(items))
    return out


def stii_by_permutations(v, p):
    "Shapley–Taylor order 2: pairs average Δ_ij v over the coalitions before the first of i, j; singletons Δ_i v(∅)."
    out = np.zeros((p, p))
    for i, j in itertools.combinations(range(p), 2):
        total = 0.0
        for order in itertools.permutations(range(p)):
            first = min(order.index(i), order.index(j))
            total += delta_pair(v, frozenset(order[:first]), i, j)
        out[i, j] = out[j, i] = total / math.factorial(p)
    for i in range(p): out[i, i] = v[frozenset({i})] - v[frozenset()]
    return out


def weighted_banzhaf_by_subsets(v, p, w):
    "Each other player joins independently with probability w (Li & Yu); w = ½ is Banzhaf."
    phi = np.zeros(p)
    for i in range(p):
        others = [k for k in range(p) if k != i]
        phi[i] = sum(w ** len(S) * (1 - w) ** (p - 1 - len(S)) * (v[S | {i}] - v[S]) for S in subsets(others))
    return phi


def bii_by_subsets(v, p):
    out = np.diag(weighted_banzhaf_by_subsets(v, p, 0.5))
    for i, j in itertools.combinations(range(p), 2):
        others = [k for k in range(p) if k not in (i, j)]
        out[i, j] = out[j, i] = sum(delta_pair(v, S, i, j) for S in subsets(others)) / 2 ** (p - 2)
    return out


def beta_shapley_kwon_zou(v, p, alpha, beta):
    """Kwon & Zou (2022): ψ = Σ_j (1/n) C(n−1, j−1) w(j) Δ_j, Δ_j the mean marginal contribution to the coalitions of
    size j − 1, w(j) = n B(j+β−1, n−j+α) / B(α, β)."""
    n = p
    B = lambda x, y: math.exp(math.lgamma(x) + math.lgamma(y) - math.lgamma(x + y))
    phi = np.zeros(p)
    for i in range(p):
        others = [k for k in range(p) if k != i]
        for j in range(1, n + 1):
            coalitions = [frozenset(c) for c in itertools.combinations(others, j - 1)]
            mean_delta = sum(v[S | {i}] - v[S] for S in coalitions) / len(coalitions)
            w = n * B(j + beta - 1, n - j + alpha) / B(alpha, beta)
            phi[i] += math.comb(n - 1, j - 1) * w / n * mean_delta
    return phi


def ksii_from_sii(sii_pairs, phi):
    "k-SII order 2 (Bordt & von Luxburg): pairs are SII; singletons φ_i + B_1 Σ_j I_ij with the Bernoulli number B_1 = −½."
    out = sii_pairs.copy()
    np.fill_diagonal(out, 0.0)
    np.fill_diagonal(out, phi - out.sum(1) / 2)
    return out


def value_scale(values):
    return max(np.abs(values).max(), 1e-300)


# ---------------------------------------------------------------------------------------------------------------
# The enumeration references against the textbook definitions (random general games)
# ---------------------------------------------------------------------------------------------------------------

tables = st.integers(1, 5).flatmap(lambda p: hnp.arrays(float, 1 << p, elements=st.floats(-10, 10, allow_nan=False)))


@settings(max_examples=40, deadline=None)
@given(tables, st.floats(0, 1), st.floats(0.2, 20), st.floats(0.2, 20))
def test_exact_semivalues_match_their_definitions(values, w, alpha, beta):
    p = int(np.log2(len(values)))
    v, game, tol = as_dict(values, p), TableGame(values), 1e-12 * value_scale(values)
    np.testing.assert_allclose(exact_semivalues(game, p, "shapley"), shapley_by_permutations(v, p), rtol=0, atol=tol)
    np.testing.assert_allclose(exact_semivalues(game, p, "banzhaf"), weighted_banzhaf_by_subsets(v, p, 0.5), rtol=0, atol=tol)
    np.testing.assert_allclose(exact_semivalues(game, p, ("weighted_banzhaf", w)), weighted_banzhaf_by_subsets(v, p, w),
                               rtol=0, atol=tol)
    np.testing.assert_allclose(exact_semivalues(game, p, ("beta_shapley", alpha, beta)),
                               beta_shapley_kwon_zou(v, p, alpha, beta), rtol=0, atol=tol)


@settings(max_examples=30, deadline=None)
@given(tables)
def test_exact_interactions_match_their_definitions(values):
    p = int(np.log2(len(values)))
    v, game, tol = as_dict(values, p), TableGame(values), 1e-12 * value_scale(values)
    phi = shapley_by_permutations(v, p)
    sii = sii_by_permutations(v, p)
    np.fill_diagonal(sii, phi)                                        # SII of order 1 is the Shapley value
    expected = {"SII": sii, "BII": bii_by_subsets(v, p), "STII": stii_by_permutations(v, p), "k-SII": ksii_from_sii(sii, phi)}
    for index in INTERACTIONS:
        np.testing.assert_allclose(exact_interactions(game, p, index), expected[index], rtol=0, atol=tol, err_msg=index)


def test_beta_shapley_convention():
    "Kwon & Zou's Beta(16, 1) favours small coalitions: on v(S) = [|S| = 1] the player alone gets the most."
    p = 6
    values = np.array([float(bin(mask).count("1") == 1) for mask in range(1 << p)])
    phi16 = exact_semivalues(TableGame(values), p, ("beta_shapley", 16, 1))
    phi_rev = exact_semivalues(TableGame(values), p, ("beta_shapley", 1, 16))
    assert phi16[0] > 0.5 > phi_rev[0]                                # v({i}) − v(∅) = 1 dominates under Beta(16, 1)
    assert semivalue_measure(("beta_shapley", 16, 1)) == IndexMeasure(t_power=0.0, u_power=15.0)


# ---------------------------------------------------------------------------------------------------------------
# The product-game engine against the references (random product games with zeros and negative factors)
# ---------------------------------------------------------------------------------------------------------------

factor = st.one_of(st.just(0.0), st.floats(-3, 3, allow_nan=False, allow_infinity=False))


@st.composite
def product_games(draw, max_p=10):
    p = draw(st.integers(1, max_p))
    a = draw(hnp.arrays(float, p, elements=factor))
    b = draw(hnp.arrays(float, p, elements=factor))
    if p > 1 and draw(st.booleans()): a[-1] = -b[-1]                 # a factor that vanishes at t = ½
    return a, b, draw(st.floats(-5, 5, allow_nan=False))


semivalue_names = st.one_of(st.sampled_from(["shapley", "banzhaf"]),
                            st.tuples(st.just("weighted_banzhaf"), st.floats(0, 1)),
                            st.tuples(st.just("beta_shapley"), st.floats(0.1, 30), st.floats(0.1, 30)))


@settings(max_examples=150, deadline=None)
@given(product_games(), semivalue_names)
def test_product_semivalues_match_enumeration(game, index):
    a, b, c = game
    g = ProductGame(a, b, c)
    scale = value_scale(g(all_coalitions(len(a))))
    np.testing.assert_allclose(product_semivalues(a, b, c, index=index), exact_semivalues(g, len(a), index),
                               rtol=0, atol=1e-12 * scale)


@settings(max_examples=120, deadline=None)
@given(product_games(), st.sampled_from(INTERACTIONS))
def test_product_interactions_match_enumeration(game, index):
    a, b, c = game
    g = ProductGame(a, b, c)
    scale = value_scale(g(all_coalitions(len(a))))
    M = product_interactions(a, b, c, index=index)
    np.testing.assert_allclose(M, exact_interactions(g, len(a), index), rtol=0, atol=1e-12 * scale)
    np.testing.assert_array_equal(M, M.T)


@settings(max_examples=80, deadline=None)
@given(product_games(max_p=30), st.sampled_from(["STII", "k-SII"]))
def test_efficient_indices_sum_to_the_total(game, index):
    "k-SII and STII: first-order plus pair terms add up to v(N) − v(∅), at any p (no enumeration needed)."
    a, b, c = game
    M = product_interactions(a, b, c, index=index)
    total = c * (np.prod(a) - np.prod(b))
    scale = max(abs(c) * np.prod(np.maximum(np.abs(a), np.abs(b))), 1e-300)   # bounds every |v(S)|
    assert abs(np.trace(M) + M[np.triu_indices(len(a), 1)].sum() - total) <= 1e-11 * scale


@settings(max_examples=60, deadline=None)
@given(product_games(max_p=8), semivalue_names, st.sampled_from(INTERACTIONS))
def test_null_player_and_symmetry(game, semivalue, interaction):
    a, b, c = game
    a, b = np.append(a, 1.7), np.append(b, 1.7)                       # a null player: a = b
    scale = value_scale(ProductGame(a, b, c)(all_coalitions(len(a))))
    phi = product_semivalues(a, b, c, index=semivalue)
    M = product_interactions(a, b, c, index=interaction)
    assert phi[-1] == 0.0 and np.all(M[-1, :-1] == 0.0)
    perm = np.random.default_rng(len(a)).permutation(len(a))       # relabelling the players relabels the values
    np.testing.assert_allclose(product_semivalues(a[perm], b[perm], c, index=semivalue), phi[perm], rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(product_interactions(a[perm], b[perm], c, index=interaction), M[np.ix_(perm, perm)],
                               rtol=0, atol=1e-12 * scale)


pairs_of_tables = tables.flatmap(lambda t: st.tuples(st.just(t), hnp.arrays(float, len(t), elements=st.floats(-10, 10))))


@settings(max_examples=40, deadline=None)
@given(pairs_of_tables, st.floats(-3, 3))
def test_references_are_linear(two, lam):
    t1, t2 = two
    p = int(np.log2(len(t1)))
    g1, g2, g = TableGame(t1), TableGame(t2), TableGame(t1 + lam * t2)
    tol = 1e-12 * (value_scale(t1) + abs(lam) * value_scale(t2))
    for index in ("banzhaf", ("beta_shapley", 4, 1)):
        np.testing.assert_allclose(exact_semivalues(g, p, index), exact_semivalues(g1, p, index) + lam * exact_semivalues(g2, p, index),
                                   rtol=0, atol=tol)
    for index in INTERACTIONS:
        np.testing.assert_allclose(exact_interactions(g, p, index),
                                   exact_interactions(g1, p, index) + lam * exact_interactions(g2, p, index), rtol=0, atol=tol)


def test_shap_convention_rows_sum_to_shapley():
    rng = np.random.default_rng(0)
    a, b = rng.uniform(-2, 2, size=(2, 7))
    shap_style = sii_to_shap(product_interactions(a, b, index="SII"))
    np.testing.assert_allclose(shap_style.sum(1), product_shapley(a, b), atol=1e-14)
    np.testing.assert_allclose(np.diag(shap_style), np.diag(product_interactions(a, b, index="k-SII")), atol=1e-15)


# ---------------------------------------------------------------------------------------------------------------
# Node counts: exact with ⌈p/2⌉ Gauss–Jacobi nodes (semivalues), ⌊p/2⌋ (pairs)
# ---------------------------------------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.floats(0.2, 20), st.floats(0.2, 20))
def test_exact_node_counts(p, alpha, beta):
    rng = np.random.default_rng(p)
    a, b = rng.uniform(0.5, 1.5, size=p), -rng.uniform(0.5, 1.5, size=p)     # every factor changes sign
    measure = semivalue_measure(("beta_shapley", alpha, beta))
    assert measure.exact_nodes(p - 1) == exact_nodes(p) == (p + 1) // 2
    assert interaction_measure("STII").exact_nodes(p - 2) == interaction_measure("SII").exact_nodes(p - 2) == max(1, p // 2)
    assert interaction_measure("BII").exact_nodes(p - 2) == 1
    # the rule of that size integrates player 0's integrand (degree p − 1) exactly: Σ_s e_s ∫ t^s (1 − t)^(p−1−s) dω
    t, w = measure.rule(p - 1)
    assert len(t) == (p + 1) // 2
    e = bernstein_coefficients(a[1:], b[1:])                          # Π_{j≠0} F_j = Σ_s e_s t^s (1 − t)^(p−1−s)
    exact = (e * measure.moments(p - 1)).sum()
    quad = (w * np.prod((1 - t)[:, None] * b[1:] + t[:, None] * a[1:], axis=1)).sum()
    assert abs(quad - exact) <= 1e-13 * (np.abs(e) * measure.moments(p - 1)).sum()


def test_bad_input_is_an_error():
    with pytest.raises(ValueError, match="a semivalue is"): product_semivalues([1.0, 2.0], index="SII")
    with pytest.raises(ValueError, match="an interaction index is one of"): product_interactions([1.0, 2.0], index="shapley")
    with pytest.raises(ValueError, match="must lie in"): exact_semivalues(TableGame(np.zeros(4)), 2, ("weighted_banzhaf", 2.0))
    with pytest.raises(ValueError, match="at most 20"): exact_interactions(TableGame(np.zeros(4)), 21, "SII")
    with pytest.raises(TypeError, match="order must be an integer"): exact_interactions(TableGame(np.zeros(4)), 2, "SII", order=2.0)
    with pytest.raises(ValueError, match="only pairwise"): exact_interactions(TableGame(np.zeros(4)), 2, "SII", order=3)
    with pytest.raises(ValueError, match="non-finite"): product_interactions([1.0, np.nan], index="SII")
    with pytest.raises(ValueError, match="t_power must be a finite number > -1"): gauss_jacobi_01(4, -1.5)


# ---------------------------------------------------------------------------------------------------------------
# The error-controlled node count (core.quadrature): the reported bound is truthful
# ---------------------------------------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.integers(2, 400), st.sampled_from([1e-3, 1e-6, 1e-9, 1e-12]), st.integers(0, 10_000),
       st.sampled_from(["kernel", "uniform", "lognormal", "signs"]))
def test_auto_rule_bound_is_truthful(p, tol, seed, family):
    rng = np.random.default_rng(seed)
    a, b = {"kernel": (np.exp(-rng.exponential(10 / p, p)), np.ones(p)),
            "uniform": (rng.uniform(0, 1, p), np.ones(p)),
            "lognormal": (np.exp(rng.normal(0, 1, p)), np.ones(p)),
            "signs": (rng.uniform(0.5, 1.5, p), -rng.uniform(0.5, 1.5, p))}[family]
    r = product_shapley_auto(a, b, tol=tol)
    exact = product_shapley(a, b)
    scale = np.abs(exact).max()
    rounding = np.abs(product_shapley(a, b, m=exact_nodes(p) + 1) - exact).max()   # two exact rules: rounding only
    assert r.nodes <= exact_nodes(p)
    if r.nodes == exact_nodes(p): assert r.bound == 0                 # the exact rule
    else: assert r.bound <= tol * np.abs(r.values).max()              # accepted: two rules agreed to tol
    assert np.abs(r.values - exact).max() <= r.bound + 2 * rounding + 1e-15 * scale


def test_auto_rule_batches_stop_independently():
    rng = np.random.default_rng(1)
    easy = np.exp(-rng.exponential(2 / 600, 600))                    # converges with 16 nodes
    hard = rng.uniform(0.5, 1.5, 600)                                # with b < 0: every factor changes sign
    b = np.stack([np.ones(600), -rng.uniform(0.5, 1.5, 600)])
    r = product_shapley_auto(np.stack([easy, hard]), b)
    assert r.nodes[0] <= 16 < r.nodes[1]
    np.testing.assert_array_equal(product_shapley(np.stack([easy, hard]), b, m="auto"), r.values)
