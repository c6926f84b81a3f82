"""Property tests of `shapnb.explanation.Explanation`: indexing, stacking, the tidy frame and the shap hand-over."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from shapnb.explanation import Explanation, stack


@st.composite
def explanations(draw):
    "A random Explanation: with or without rows, outputs, se, data and per-row evaluation counts."
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    n, p, k = draw(st.integers(1, 5)), draw(st.integers(1, 6)), draw(st.integers(1, 3))
    rows, multi = draw(st.booleans()), draw(st.booleans())
    shape = (n,) * rows + (p,) + (k,) * multi
    out_shape = (n,) * rows + (k,) * multi
    kw = dict(output_names=[f"o{i}" for i in range(k)] if multi else None, method="m")
    if draw(st.booleans()): kw["se"] = rng.uniform(0, 1, shape)
    if draw(st.booleans()): kw["data"] = rng.normal(size=(n,) * rows + (p,))
    if rows and draw(st.booleans()): kw["n_evals"] = rng.integers(0, 100, n)
    return Explanation(rng.normal(size=shape), rng.normal(size=out_shape), **kw)


@settings(max_examples=80, deadline=None)
@given(explanations())
def test_rows_round_trip(e):
    "Stacking the single rows of an explanation gives it back; a single row stacks into one row."
    if e.n_rows is None:
        s = stack([e])
        assert s.n_rows == 1 and np.array_equal(s[0].values, e.values)
        return
    s = stack([e[i] for i in range(len(e))])
    for name in ("values", "base_values", "se", "data"):
        a, b = getattr(s, name), getattr(e, name)
        assert (a is None and b is None) or np.array_equal(a, b), name


@settings(max_examples=80, deadline=None)
@given(explanations())
def test_frame_and_efficiency(e):
    df = e.to_frame()
    assert len(df) == e.values.size
    assert np.allclose(df.value.to_numpy(), np.ravel(e.values))
    assert ("se" in df) == (e.se is not None) and ("feature_value" in df) == (e.data is not None)
    total = e.values.sum(axis=1 if e.n_rows is not None else 0) + e.base_values
    assert np.allclose(e.efficiency_residual(total), 0)


@settings(max_examples=40, deadline=None)
@given(explanations())
def test_outputs_split_the_values(e):
    if e.n_outputs is None: return
    for k, name in enumerate(e.output_names):
        assert np.array_equal(e.output(name).values, e.values[..., k])
        assert np.array_equal(e.output(k).base_values, e.base_values[..., k])


@settings(max_examples=30, deadline=None)
@given(explanations())
def test_to_shap_keeps_the_numbers(e):
    pytest.importorskip("shap")
    sx = e.to_shap()
    assert np.array_equal(sx.values, e.values) and np.allclose(sx.base_values, e.base_values)
    if e.se is not None: assert np.allclose((sx.upper_bounds - sx.lower_bounds) / 2, 1.959963984540054 * e.se)
