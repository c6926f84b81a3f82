"""Tests of `shapnb.explain.explain`: every route returns an `Explanation` that agrees with its underlying method."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from shapnb.explain import explain
from shapnb.explanation import Explanation
from shapnb.games import TableGame, exact_shapley


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 7), st.integers(0, 2**31 - 1))
def test_exact_route_matches_exact_shapley(p, seed):
    "The exact route of a random table game equals exact_shapley and satisfies efficiency."
    values = np.random.default_rng(seed).normal(size=2**p)
    game = TableGame(values)
    e = explain(game, p=p)
    assert isinstance(e, Explanation) and e.method == "exact" and e.n_evals == 2**p
    np.testing.assert_allclose(e.values, exact_shapley(game, p))
    np.testing.assert_allclose(e.values.sum() + e.base_values, values[-1])


@settings(max_examples=10, deadline=None)
@given(st.integers(3, 8), st.integers(0, 2**31 - 1))
def test_kernelshap_route_is_efficient(p, seed):
    "KernelSHAP through explain is efficient, reports se and stays within its budget."
    values = np.random.default_rng(seed).normal(size=2**p)
    e = explain(TableGame(values), p=p, method="kernelshap", budget=2 * p + 4, seed=seed)
    assert e.se is not None and e.n_evals <= 2 * p + 4
    np.testing.assert_allclose(e.values.sum() + e.base_values, values[-1], atol=1e-8)


def test_linear_model_marginal_values():
    "A linear model's marginal Shapley values are coef * (x - mean background), for any budget covering the strata."
    rng = np.random.default_rng(0)
    coef, X, B = rng.normal(size=4), rng.normal(size=(3, 4)), rng.normal(size=(30, 4))
    predict = lambda A: A @ coef
    e = explain(predict, X, data=B, budget=16, seed=0, progress=False)
    assert e.method == "kernelshap" and e.shape == (3, 4)
    np.testing.assert_allclose(e.values, coef * (X - B.mean(0)), atol=1e-8)
    np.testing.assert_allclose(explain(predict, X, method="exact", data=B, progress=False).values, e.values, atol=1e-8)


@pytest.mark.parametrize("kwargs, message", [
    (dict(p=3, method="nope"), "unknown method"),
    (dict(p=3, method="shapleig"), "needs a budget"),
    (dict(), "pass rows X"),
    (dict(p=3, data=np.zeros((2, 3))), "takes none"),
])
def test_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message): explain(lambda Z: Z.sum(1).astype(float), **kwargs)
