"""Property tests of `shapnb.core.explanation.Explanation`: indexing, stacking, the tidy frame and the shap hand-over."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from shapnb.core.explanation import Explanation, stack


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


@st.composite
def keyed(draw):
    "A random Explanation and a valid shap-style key for it (lists or masks on one axis at most), with the positions it selects on each axis."
    e = draw(explanations())
    axes = (["rows"] if e.n_rows is not None else []) + ["features"] + (["outputs"] if e.n_outputs is not None else [])
    sizes = {"rows": e.n_rows, "features": e.n_features, "outputs": e.n_outputs}
    labels = {"rows": None, "features": e.feature_names, "outputs": e.output_names}
    n_keys = draw(st.integers(0, len(axes)))
    keys, picks, fancy = [], [], False
    for axis in axes[:n_keys]:
        size = sizes[axis]
        kinds = ["int", "neg", "slice"] + (["name"] if labels[axis] else []) + \
                ([] if fancy else ["list", "mask"] + (["names"] if labels[axis] else []))
        kind = draw(st.sampled_from(kinds))
        fancy = fancy or kind in ("list", "mask", "names")
        if kind in ("int", "neg"):
            j = draw(st.integers(0, size - 1)); keys.append(j if kind == "int" else j - size); picks.append((j, True))
        elif kind == "slice":
            lo = draw(st.integers(0, size - 1)); hi = draw(st.integers(lo + 1, size))
            keys.append(slice(lo, hi)); picks.append((list(range(lo, hi)), False))
        elif kind == "list":
            js = draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=4)); keys.append(js); picks.append((js, False))
        elif kind == "mask":
            mask = draw(st.lists(st.booleans(), min_size=size, max_size=size).filter(any))
            keys.append(np.array(mask)); picks.append(([j for j in range(size) if mask[j]], False))
        elif kind == "name":
            j = draw(st.integers(0, size - 1)); keys.append(labels[axis][j]); picks.append((j, True))
        else:
            js = draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=3))
            keys.append([labels[axis][j] for j in js]); picks.append((js, False))
    picks += [(list(range(sizes[axis])), False) for axis in axes[n_keys:]]
    if n_keys < len(axes) and draw(st.booleans()): keys.append(Ellipsis)       # a trailing ... changes nothing
    return e, tuple(keys) if len(keys) != 1 or draw(st.booleans()) else keys[0], axes, picks


def _select(a, picks, offset=0):
    "Apply per-axis picks to an array axis by axis (outer indexing), dropping the axes picked by a single position."
    axis = offset
    for pick, single in picks:
        a = np.take(a, pick, axis=axis)
        if not single: axis += 1
    return a


@settings(max_examples=150, deadline=None)
@given(keyed())
def test_indexing_selects_like_outer_numpy_indexing(case):
    e, key, axes, picks = case
    got = e[key]
    np.testing.assert_array_equal(got.values, _select(e.values, picks))
    if e.se is not None: np.testing.assert_array_equal(got.se, _select(e.se, picks))
    base_picks = [p for axis, p in zip(axes, picks) if axis != "features"]
    np.testing.assert_array_equal(got.base_values, _select(e.base_values, base_picks))
    if e.data is not None:
        data_picks = [p for axis, p in zip(axes, picks) if axis != "outputs"]
        np.testing.assert_array_equal(got.data, _select(e.data, data_picks))
    features = dict(zip(axes, picks))["features"]
    names = [e.feature_names[j] for j in np.atleast_1d(features[0])]
    assert got.feature_names == names


@settings(max_examples=40, deadline=None)
@given(explanations(), st.data())
def test_lists_on_two_axes_are_index_errors(e, data):
    "numpy and shap pair up lists on two axes, where a block would be wanted: refused, never a different selection."
    sizes = [n for n in (e.n_rows, e.n_features, e.n_outputs) if n is not None]
    if len(sizes) < 2: return
    keys = [data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3)) for n in sizes[:2]]
    with pytest.raises(IndexError, match="one axis at a time"): e[keys[0], keys[1]]


@settings(max_examples=80, deadline=None)
@given(explanations(), st.data())
def test_bad_keys_are_index_errors(e, data):
    axes = 1 + (e.n_rows is not None) + (e.n_outputs is not None)
    size = e.n_rows if e.n_rows is not None else e.n_features
    bad = data.draw(st.sampled_from([
        (0,) * (axes + 1), size, -size - 1, 1.5, True, None, slice(size, None), [size], "no such name",
        [True] * (size + 1), (Ellipsis, Ellipsis), [0, "x0"], np.zeros((1, 1), int)]))
    with pytest.raises(IndexError): e[bad]


@settings(max_examples=60, deadline=None)
@given(explanations())
def test_abs_and_mean_over_rows(e):
    assert np.array_equal(e.abs.values, np.abs(e.values))
    if e.n_rows is None: return
    m = e.mean(0)
    assert m.n_rows is None and np.allclose(m.values, e.values.mean(0)) and np.allclose(m.base_values, e.base_values.mean(0))
    if e.se is not None: np.testing.assert_allclose(m.se, np.sqrt((e.se ** 2).sum(0)) / e.n_rows)
    if e.n_outputs is not None:
        last = e.mean(-1)
        assert last.n_outputs is None and np.allclose(last.values, e.values.mean(-1)) and last.se is None


def test_selecting_the_only_row_drops_the_row_axis_of_the_interactions():
    "e[0] of a one-row explanation: its interactions lose the row axis with its values (an audit: they kept it, and plots failed)."
    pairs = np.arange(18.0).reshape(1, 3, 3, 2)
    e = Explanation(np.ones((1, 3, 2)), np.zeros((1, 2)), output_names=["a", "b"], details={"interactions": pairs, "index": "k-SII", "se_note": "why"})
    assert e[0].values.shape == (3, 2) and e[0].interactions.shape == (3, 3, 2) and e[0].index == "k-SII"
    assert e[0].se_note == "why"                                  # the same row: its other details still describe it
    np.testing.assert_array_equal(e[0, :, "b"].interactions, pairs[0, :, :, 1])
    assert e[:, :, "a"].interactions.shape == (1, 3, 3)
    assert e[0].interactions.shape == Explanation(np.ones((2, 3, 2)), np.zeros((2, 2)), output_names=["a", "b"],
                                                  details={"interactions": np.zeros((2, 3, 3, 2))})[0].interactions.shape


def test_keys_copies_and_plots_from_an_audit_of_the_explanation():
    "A 0-d string key is a name; the caller's arrays are copied; bar of e.abs.mean(0) keeps |φ| >= 0; rare flags keep colours; labels keep digits."
    import matplotlib
    matplotlib.use("Agg")
    from shapnb import plots
    from shapnb.plots import _label, _value_colours
    e = Explanation(np.arange(12.0).reshape(3, 4), feature_names=["a", "b", "ab", "c"])
    np.testing.assert_array_equal(e[:, np.array("ab")].values, e[:, "ab"].values)
    np.testing.assert_array_equal(e[:, np.array(2)].values, e[:, 2].values)
    values, se = np.ones((2, 2)), np.full((2, 2), 0.1)
    owned = Explanation(values, 0.0, se=se)
    values[0, 0], se[0, 0] = 7.0, 9.0
    assert owned.values[0, 0] == 1.0 and owned.se[0, 0] == 0.1
    rng = np.random.default_rng(0)
    noisy = Explanation(np.c_[rng.normal(3, 0.1, 50), rng.normal(0, 0.5, 50)], 0.0, se=np.full((50, 2), 0.5))
    ax = plots.bar(noisy.abs.mean(0))
    bars = [c for c in ax.containers if type(c).__name__ == "ErrorbarContainer"][0]
    assert min(s[:, 0].min() for s in bars.lines[2][0].get_segments()) >= 0 and ax.get_xlabel().startswith("mean |Shapley value| over rows")
    flag = np.r_[np.ones(2), np.zeros(48)]                      # a flag set in 4% of rows: its 5th and 95th percentiles agree
    colours = _value_colours(flag, matplotlib.colormaps["coolwarm"], 50)
    assert not np.allclose(colours[0], colours[-1])
    assert _label("year", 2024.0) == "year = 2024" and _label("income", 123456.0) == "income = 123456" and _label("x", 0.061712) == "x = 0.06171" and _label("x", np.inf) == "x = inf"


def test_a_subset_of_the_features_does_not_claim_to_add_up_to_the_prediction():
    "e[:, some features]: not efficient, so waterfall ends at 'base + sum' (not 'f(x)') and efficiency_residual warns; reordering all keeps it."
    import matplotlib
    matplotlib.use("Agg")
    from shapnb import plots
    e = Explanation(np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]]), 10.0, feature_names=["a", "b", "c"])
    assert e.efficient and e[:, ["c", "a", "b"]].efficient and e[1].efficient
    part = e[:, ["a", "c"]]
    assert not part.efficient and not e[:, ["a", "a", "b", "c"]].efficient
    with pytest.warns(UserWarning, match="the values of some of the features"):
        part.efficiency_residual(np.array([16.0, 11.5]))
    texts = " ".join(t.get_text() for t in plots.waterfall(part, row=0).texts + plots.waterfall(part, row=0).get_yticklabels())
    assert "f(x)" not in texts and "base + sum" in texts, texts


def test_convergence_matches_runs_by_feature_name():
    "Runs with their features in another order are plotted under the right names; other features, NaN budgets, negative ses are refused."
    import matplotlib
    matplotlib.use("Agg")
    from shapnb import plots
    a = Explanation([1.0, 10.0], se=[0.1, 0.1], feature_names=["age", "bmi"])
    b = Explanation([10.0, 1.0], se=[0.1, 0.1], feature_names=["bmi", "age"])
    lines = {l.get_label(): l.get_ydata().tolist() for l in plots.convergence([100, 200], [a, b]).lines}
    assert lines == {"age": [1.0, 1.0], "bmi": [10.0, 10.0]}
    with pytest.raises(ValueError, match="the runs must explain the same features"):
        plots.convergence([100, 200], [a, Explanation([5.0, 7.0], feature_names=["sex", "bp"])])
    with pytest.raises(ValueError, match="budgets must be positive numbers"): plots.convergence([100, np.nan], np.ones((2, 2)))
    with pytest.raises(ValueError, match="ses must be finite and non-negative"): plots.convergence([1, 2], np.ones((2, 2)), ses=-np.ones((2, 2)))
    with pytest.raises(ValueError, match="truth must hold one exact value per feature"): plots.convergence([1, 2], np.ones((2, 2)), truth=[1, 2, 3])


def _one_row(i: int) -> Explanation:
    "An estimate of one row with se 0.2, made in a worker process."
    return Explanation(np.ones((1, 2)), se=np.full((1, 2), 0.2), method="kernelshap")[0]


def test_rows_made_in_other_processes_are_distinct_estimates():
    "Explanations pickled back from forked workers do not share row ids, so their mean's se is that of independent rows."
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor
    from shapnb.core.explanation import stack
    with ProcessPoolExecutor(2, mp_context=mp.get_context("fork")) as pool: rows = list(pool.map(_one_row, range(4)))
    np.testing.assert_allclose(stack(rows).mean(0).se, [0.1, 0.1])
    np.testing.assert_allclose(stack([rows[0], rows[0]]).mean(0).se, [0.2, 0.2])   # the same estimate twice is still one


def test_a_copy_made_before_any_selection_is_the_same_estimate():
    "Ids are given at construction, so a pickle or deepcopy of a fresh Explanation holds the same estimates as the original."
    import copy, pickle
    from shapnb.core.explanation import stack
    for make_copy in (lambda e: pickle.loads(pickle.dumps(e)), copy.deepcopy):
        e = Explanation(np.ones((1, 2)), se=np.full((1, 2), 0.2), method="kernelshap")
        np.testing.assert_allclose(stack([e, make_copy(e)]).mean(0).se, [0.2, 0.2])


def test_a_copy_of_a_mean_over_rows_is_the_same_estimate():
    "A mean over rows gets its id when it is made, so a pickled copy of it stacked with it is one estimate twice."
    import pickle
    from shapnb.core.explanation import stack
    m = Explanation(np.ones((2, 2)), se=np.full((2, 2), 0.2), method="kernelshap").mean(0)
    np.testing.assert_allclose(stack([m, pickle.loads(pickle.dumps(m))]).mean(0).se, m.se)


def test_a_shared_setting_held_across_a_fork_is_undone_once_in_the_child():
    "A child forked inside `with ignoring(...)` leaves the block as a no-op, and later uses there work again."
    import os, warnings
    from shapnb.core.scale import ignoring
    class Hushed(UserWarning): pass
    read, write = os.pipe()
    with ignoring(Hushed):
        pid = os.fork()                                      # the child leaves this block too: a no-op there
    if pid == 0:                                             # the child, after its block
        ok = False
        try:
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                with ignoring(Hushed): warnings.warn("hidden", Hushed)
                warnings.warn("shown", Hushed)
            ok = [str(w.message) for w in seen] == ["shown"]
        finally:
            os.write(write, b"1" if ok else b"0"); os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 1) == b"1"
