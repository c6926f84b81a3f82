"Cross-checks of shapnb.exact.kernels that notebooks do poorly: property tests, every scikit-learn model type, bad input."
import warnings
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from hypothesis.extra import numpy as hnp
from sklearn.svm import SVR, NuSVR, SVC, NuSVC, OneClassSVM
from sklearn.kernel_ridge import KernelRidge
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel, Matern, DotProduct
from sklearn.tree import DecisionTreeRegressor
from shapnb.core.games import exact_shapley
from shapnb.core.quadrature import product_shapley
from shapnb.exact.kernels import (ProductKernelGame, ProductKernelExplainer, kernel_game_shapley, product_kernel_shapley,
                            feature_kernel_factors)
from shapnb.core.indices import exact_semivalues, exact_interactions
from shapnb.exact.kernels import kernel_game_semivalues, kernel_game_interactions

factor_values = st.one_of(st.just(0.0), st.just(1.0), st.floats(0.0, 3.0))

@st.composite
def kernel_games(draw, allow_negative=False):
    n, p = draw(st.integers(1, 6)), draw(st.integers(1, 8))
    elements = st.one_of(factor_values, st.floats(-2.0, 0.0)) if allow_negative else factor_values
    K = draw(hnp.arrays(float, (n, p), elements=elements))
    alpha = draw(hnp.arrays(float, n, elements=st.floats(-5.0, 5.0)))
    return K, alpha

def _scale(K, alpha): return max(np.abs(alpha).sum(), 1e-300) * max(1.0, np.abs(K).max()) ** K.shape[1]

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernel_games(allow_negative=True), st.one_of(st.none(), st.integers(1, 7)))
def test_kernel_game_matches_brute_force(game, block_size):
    K, alpha = game
    phi, resid = kernel_game_shapley(K, alpha, block_size=block_size, return_residual=True)
    ref = exact_shapley(ProductKernelGame(K, alpha), K.shape[1])
    np.testing.assert_allclose(phi, ref, rtol=0, atol=1e-12 * _scale(K, alpha))
    assert abs(resid) <= 1e-12 * _scale(K, alpha)

@settings(max_examples=60, deadline=None)
@given(kernel_games())
def test_kernel_game_is_the_sum_of_engine_games(game):
    K, alpha = game
    ref = alpha @ product_shapley(K, 1.0, 1.0)
    np.testing.assert_allclose(kernel_game_shapley(K, alpha), ref, rtol=0, atol=1e-13 * _scale(K, alpha))

@settings(max_examples=40, deadline=None)
@given(kernel_games(), st.integers(1, 3))
def test_fewer_nodes_are_exact_from_the_threshold(game, extra):
    K, alpha = game
    m = (K.shape[1] + 1) // 2 + extra - 1
    np.testing.assert_allclose(kernel_game_shapley(K, alpha, m=m), kernel_game_shapley(K, alpha), rtol=0,
                               atol=1e-12 * _scale(K, alpha))

def test_large_and_tiny_scales_do_not_overflow():
    rng = np.random.default_rng(0)
    p = 3000
    K = rng.uniform(0.0, 0.3, size=(4, p))            # products ~ e^{-4000}: only log space survives
    alpha = np.array([1e-300, -2e-300, 1e300, 3.0])
    phi, resid = kernel_game_shapley(K, alpha, m=64, return_residual=True)
    assert np.isfinite(phi).all()
    ref = alpha @ product_shapley(K, 1.0, 1.0, m=64)
    np.testing.assert_allclose(phi, ref, rtol=1e-10, atol=0)

def test_block_size_does_not_change_results():
    rng = np.random.default_rng(1)
    X, Z, alpha = rng.normal(size=(3, 40)), rng.normal(size=(97, 40)), rng.normal(size=(97, 2))
    ref = product_kernel_shapley(X, Z, alpha, "rbf", 0.05)
    for block in (1, 5, 96, 97, 500):
        np.testing.assert_allclose(product_kernel_shapley(X, Z, alpha, "rbf", 0.05, block_size=block), ref, atol=1e-13)

def _data(p=5, n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, -1] + 0.1 * rng.normal(size=n)
    return X, y, np.digitize(X[:, 0] + X[:, 1], [-0.8, 0.0, 0.8])

def _models():
    X, y, labels = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return X, [
            (SVR(C=2.0).fit(X, y), "predict"),
            (SVR(gamma=0.7, epsilon=0.01).fit(X, y), "predict"),
            (NuSVR().fit(X, y), "predict"),
            (OneClassSVM(gamma=0.3).fit(X), "decision_function"),
            (SVC().fit(X, labels > 1), "decision_function"),
            (SVC(decision_function_shape="ovo").fit(X, labels), "decision_function"),
            (SVC(decision_function_shape="ovo").fit(X, labels.astype(str)), "decision_function"),
            (NuSVC(nu=0.3).fit(X, labels > 1), "decision_function"),
            (NuSVC(nu=0.2, decision_function_shape="ovo").fit(X, labels), "decision_function"),
            (KernelRidge(alpha=0.1, kernel="rbf").fit(X, y), "predict"),
            (KernelRidge(alpha=0.1, kernel="rbf", gamma=0.2).fit(X, np.c_[y, y ** 2, -y]), "predict"),
            (KernelRidge(alpha=0.1, kernel="laplacian").fit(X, y), "predict"),
            (KernelRidge(alpha=0.1, kernel="laplacian", gamma=0.5).fit(X, y[:, None]), "predict"),
            (GaussianProcessRegressor(RBF(1.0)).fit(X, y), "predict"),
            (GaussianProcessRegressor(RBF([1.5])).fit(X, y), "predict"),
            (GaussianProcessRegressor(ConstantKernel(2.0) * RBF(np.ones(5)), normalize_y=True).fit(X, y), "predict"),
            (GaussianProcessRegressor(RBF(2.0) * ConstantKernel(0.5) + WhiteKernel(0.1)).fit(X, y), "predict"),
            (GaussianProcessRegressor(WhiteKernel(0.1) + ConstantKernel() * RBF(), normalize_y=True).fit(X, np.c_[y, 3 * y + 1]), "predict"),
        ]

X_MODELS, MODELS = _models()

@pytest.mark.parametrize("model,output", MODELS, ids=[f"{type(m).__name__}-{i}" for i, (m, _) in enumerate(MODELS)])
def test_every_model_is_exact_and_efficient(model, output):
    explainer = ProductKernelExplainer(model)
    rows = X_MODELS[:4] * 0.9 + 0.05
    phi = explainer.shap_values(rows)
    prediction = np.asarray(getattr(model, output)(rows), dtype=float)
    prediction = prediction.reshape(phi.shape[0], -1) if phi.ndim == 3 else prediction.reshape(-1)
    np.testing.assert_allclose(phi.sum(1) + explainer.expected_value, prediction, rtol=0, atol=1e-9)
    assert phi.shape[:2] == rows.shape
    one = explainer.shap_values(rows[1])                    # a 1-D row gives one explanation
    np.testing.assert_allclose(one, phi[1], atol=1e-14)
    alphas = explainer.alpha.T
    for o, alpha in enumerate(alphas):
        K = feature_kernel_factors(rows[0], explainer.support, explainer.kernel, explainer.gamma)
        ref = exact_shapley(ProductKernelGame(K, alpha, explainer.intercept[o]), rows.shape[1])
        got = phi[0] if phi.ndim == 2 else phi[0, :, o]
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12 * np.abs(alpha).sum())

def test_multiclass_ovr_models_explain_the_pairwise_decisions():
    X, _, labels = _data()
    ovr = SVC().fit(X, labels)                             # default decision_function_shape="ovr"
    ovo = SVC(decision_function_shape="ovo").fit(X, labels)
    with pytest.warns(UserWarning, match="decision_function_shape='ovr'"):   # the shapes coincide for 3 classes: said aloud
        explainer = ProductKernelExplainer(ovr)
    np.testing.assert_allclose(explainer.shap_values(X[:3]).sum(1) + explainer.expected_value,
                               ovo.decision_function(X[:3]), atol=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ProductKernelExplainer(ovo)                        # what decision_function returns: nothing to warn about


def test_svr_without_support_vectors_is_its_intercept():
    X, y, _ = _data()
    model = SVR(epsilon=10.0).fit(X, 0.01 * X[:, 0])      # every target inside the tube: no support vector
    assert len(model.support_vectors_) == 0
    for data in (None, X[:20]):
        explainer = ProductKernelExplainer(model, data)
        np.testing.assert_array_equal(explainer.shap_values(X[:4]), np.zeros((4, X.shape[1])))
        np.testing.assert_allclose(explainer.expected_value, model.intercept_[0], rtol=0, atol=1e-15)
        np.testing.assert_allclose(model.predict(X[:4]), explainer.expected_value, rtol=0, atol=1e-15)

def test_models_fitted_on_sparse_rows_equal_their_dense_fit():
    import scipy.sparse as sps
    X, y, labels = _data()
    for make, target in ((lambda: SVR(gamma=0.3), y), (lambda: SVC(gamma=0.3), labels), (lambda: SVC(gamma=0.3), labels > 0)):
        sparse, dense = make().fit(sps.csr_matrix(X), target), make().fit(X, target)
        got, want = ProductKernelExplainer(sparse, X[:20]).shap_values(X[:3]), ProductKernelExplainer(dense, X[:20]).shap_values(X[:3])
        np.testing.assert_allclose(got, want, atol=1e-9)
        assert np.abs(got).max() > 0

def test_pandas_input_and_user_set_nodes():
    import pandas as pd
    X, y, _ = _data(p=12, n=80)
    model = SVR().fit(X, y)
    exact = ProductKernelExplainer(model).shap_values(X[:2])
    np.testing.assert_allclose(ProductKernelExplainer(model, m=4).shap_values(pd.DataFrame(X[:2])), exact, atol=1e-9)

def test_bad_input_is_a_clear_error():
    X, y, labels = _data()
    with pytest.raises(ValueError, match="not fitted yet"): ProductKernelExplainer(SVC())
    with pytest.raises(ValueError, match="not fitted yet"): ProductKernelExplainer(KernelRidge())
    with pytest.raises(ValueError, match="not fitted yet"): ProductKernelExplainer(GaussianProcessRegressor())
    with pytest.raises(ValueError, match="unsupported kernel 'linear' for SVC"): ProductKernelExplainer(SVC(kernel="linear").fit(X, labels))
    with pytest.raises(ValueError, match="unsupported kernel 'sigmoid' for SVR"): ProductKernelExplainer(SVR(kernel="sigmoid").fit(X, y))
    with pytest.raises(ValueError, match="factors"): ProductKernelExplainer(SVR(kernel=lambda A, B: A @ B.T).fit(X, y))
    with pytest.raises(ValueError, match="'rbf', 'laplacian'"): ProductKernelExplainer(KernelRidge(kernel="poly").fit(X, y))
    with pytest.raises(ValueError, match="Gaussian-process kernel"): ProductKernelExplainer(GaussianProcessRegressor(Matern()).fit(X, y))
    with pytest.raises(ValueError, match="Gaussian-process kernel"):
        ProductKernelExplainer(GaussianProcessRegressor(DotProduct() + WhiteKernel()).fit(X, y))
    with pytest.raises(ValueError, match="unsupported model DecisionTreeRegressor"): ProductKernelExplainer(DecisionTreeRegressor().fit(X, y))
    explainer = ProductKernelExplainer(SVR().fit(X, y))
    with pytest.raises(ValueError, match="X must have 5 features"): explainer.shap_values(X[:, :4])
    with pytest.raises(ValueError, match="X must have 5 features"): explainer.shap_values(X[None])
    with pytest.raises(ValueError, match="non-finite"): explainer.shap_values(np.where(X > 2, np.inf, X))
    with pytest.raises(ValueError): explainer.shap_values(np.array([["a"] * 5]))
    with pytest.raises(ValueError, match="nodes m must be at least 1"): ProductKernelExplainer(SVR().fit(X, y), m=0)
    with pytest.raises(TypeError, match="block_size must be an integer"): ProductKernelExplainer(SVR().fit(X, y), block_size=1.5)
    with pytest.raises(ValueError, match="block_size must be at least 1"): product_kernel_shapley(X[0], X[:10], y[:10], "rbf", 1.0, block_size=0)
    Z, alpha = X[:10], y[:10]
    with pytest.raises(ValueError, match="alpha must have shape"): product_kernel_shapley(X[0], Z, alpha[:, None, None])
    with pytest.raises(ValueError, match="alpha contains non-finite"): product_kernel_shapley(X[0], Z, np.full(10, np.nan), "rbf", 1.0)
    with pytest.raises(ValueError, match="support vector matrix contains non-finite"):
        product_kernel_shapley(X[0], np.where(Z > 1, np.nan, Z), alpha, "rbf", 1.0)
    with pytest.raises(ValueError, match="one value per feature"): product_kernel_shapley(X[0], Z, alpha, "laplacian", np.ones(3))
    with pytest.raises(ValueError, match="gamma must be finite and >= 0"): product_kernel_shapley(X[0], Z, alpha, "rbf", np.inf)
    with pytest.raises(ValueError, match="non-finite"): product_kernel_shapley(X[0], Z, alpha, lambda x, Z: np.full(Z.shape, np.inf))
    with pytest.raises(ValueError, match="kernel factors must be a matrix"): kernel_game_shapley(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="support vectors must be a matrix"): product_kernel_shapley(X[0], Z[0], alpha, "rbf", 1.0)

@pytest.mark.parametrize("model,output", MODELS, ids=[f"{type(m).__name__}-{i}" for i, (m, _) in enumerate(MODELS)])
def test_calling_the_explainer_gives_an_explanation(model, output):
    "explainer(X) carries the same values as shap_values, the base value, the rows and named outputs."
    from shapnb.core.explanation import Explanation
    explainer = ProductKernelExplainer(model)
    rows = X_MODELS[:3]
    e = explainer(rows)
    assert isinstance(e, Explanation) and e.method == "kernel" and e.n_rows == 3
    np.testing.assert_array_equal(e.values, explainer.shap_values(rows))
    np.testing.assert_array_equal(e.data, rows)
    np.testing.assert_allclose(e.base_values, np.broadcast_to(explainer.expected_value, e.base_values.shape))
    if explainer.n_outputs > 1:
        assert e.n_outputs == explainer.n_outputs and len(e.output_names) == explainer.n_outputs
        one = explainer(rows[0])
        assert one.n_rows is None and one.shape == (rows.shape[1], explainer.n_outputs)
    classes = getattr(model, "classes_", None)
    if classes is not None and len(classes) > 2:
        assert e.output_names == [f"{a} vs {b}" for i, a in enumerate(classes) for b in classes[i + 1:]]

def test_models_fitted_on_frames_are_explained_by_name():
    import pandas as pd
    X, y, labels = _data()
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d", "e"])
    rng = np.random.default_rng(4)
    for model in (SVR().fit(frame, y), KernelRidge(kernel="laplacian").fit(frame, y),
                  GaussianProcessRegressor(RBF(np.ones(5))).fit(frame, y), SVC(decision_function_shape="ovo").fit(frame, labels)):
        explainer = ProductKernelExplainer(model)
        reference = explainer.shap_values(frame.iloc[:3])
        for _ in range(3):
            order = list(rng.permutation(5))
            np.testing.assert_allclose(explainer.shap_values(frame.iloc[:3, order]), reference, rtol=0, atol=1e-12)
        with pytest.raises(ValueError, match=r"missing \['c'\]"): explainer.shap_values(frame.drop(columns="c"))


# --- semivalues, interactions and the error-controlled node count (issue 16) -----------------------------------------


SEMIVALUES = ["shapley", "banzhaf", ("weighted_banzhaf", 0.25), ("weighted_banzhaf", 1.0), ("weighted_banzhaf", 0.0),
              ("beta_shapley", 16, 1), ("beta_shapley", 1, 4), ("beta_shapley", 0.5, 0.5)]
INTERACTIONS = ["SII", "BII", "STII", "k-SII"]

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernel_games(allow_negative=True), st.sampled_from(SEMIVALUES), st.one_of(st.none(), st.integers(1, 4)))
def test_every_semivalue_matches_enumeration(game, index, block_size):
    K, alpha = game
    ref = exact_semivalues(ProductKernelGame(K, alpha, intercept=1.5), K.shape[1], index)
    np.testing.assert_allclose(kernel_game_semivalues(K, alpha, index, block_size=block_size), ref, rtol=0,
                               atol=1e-12 * (_scale(K, alpha) + 1.5))           # the reference rounds v(S) + 1.5

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernel_games(allow_negative=True), st.sampled_from(INTERACTIONS), st.one_of(st.none(), st.integers(1, 4)))
def test_every_interaction_index_matches_enumeration(game, index, block_size):
    K, alpha = game
    p = K.shape[1]
    M = kernel_game_interactions(K, alpha, index, block_size=block_size)
    np.testing.assert_allclose(M, exact_interactions(ProductKernelGame(K, alpha, intercept=-2.0), p, index), rtol=0,
                               atol=1e-12 * (_scale(K, alpha) + 2.0))           # the reference rounds v(S) − 2
    np.testing.assert_array_equal(M, M.T)
    if index in ("STII", "k-SII"):                                            # efficiency: all terms sum to v(N) − v(∅)
        total = np.trace(M) + M[np.triu_indices(p, 1)].sum()
        assert abs(total - alpha @ (K.prod(1) - 1)) <= 1e-12 * _scale(K, alpha)

def test_interactions_with_several_outputs_are_one_output_at_a_time():
    rng = np.random.default_rng(3)
    K, A = rng.uniform(0, 1.2, size=(9, 6)), rng.normal(size=(9, 3))
    for index in INTERACTIONS:
        M = kernel_game_interactions(K, A, index)
        assert M.shape == (6, 6, 3)
        for o in range(3): np.testing.assert_allclose(M[..., o], kernel_game_interactions(K, A[:, o], index), atol=1e-14)
    S = kernel_game_semivalues(K, A, ("beta_shapley", 4, 1))
    for o in range(3): np.testing.assert_allclose(S[:, o], kernel_game_semivalues(K, A[:, o], ("beta_shapley", 4, 1)), atol=1e-14)

@pytest.mark.parametrize("sharpness", [1.0, 30.0, 300.0])
def test_auto_agrees_with_the_exact_rule_within_its_bound(sharpness):
    "Shapley values, a Beta-Shapley semivalue and k-SII pairs at p = 600: auto stops early and is within its bound."
    rng = np.random.default_rng(int(sharpness))
    p = 600
    Z, x, alpha = rng.normal(size=(25, p)), rng.normal(size=p), rng.normal(size=(25, 2))
    K = feature_kernel_factors(x, Z, "rbf", sharpness / p)
    for f in (lambda **kw: kernel_game_shapley(K, alpha, **kw),
              lambda **kw: kernel_game_semivalues(K, alpha, ("beta_shapley", 16, 1), **kw),
              lambda **kw: kernel_game_interactions(K, alpha, "k-SII", **kw)):
        auto, exact = f(return_bound=True), f(m="exact")
        per_output = lambda x: np.abs(x).reshape(-1, 2).max(0)
        largest = per_output(exact)
        assert auto.bound.shape == (2,) and (auto.bound <= 1e-12 * largest * (1 + 1e-9)).all()
        # the bound covers the quadrature error; two rules also differ by rounding (~1e-15 of the largest value here)
        assert (per_output(auto.values - exact) <= auto.bound + 1e-14 * largest).all()
        loose = f(return_bound=True, tol=1e-5)                              # stops earlier: a bound far above rounding
        assert loose.nodes <= auto.nodes and (loose.bound <= 1e-5 * per_output(loose.values)).all()
        assert (per_output(loose.values - exact) <= loose.bound + 1e-14 * largest).all()
        if sharpness == 1.0: assert auto.nodes <= 32                        # the usual width: a handful of nodes
    rows = product_kernel_shapley(np.stack([x, x + 0.1]), Z, alpha, "rbf", sharpness / p, return_bound=True)
    assert rows.values.shape == (2, p, 2) and rows.bound.shape == (2, 2) and rows.nodes.shape == (2,)
    np.testing.assert_allclose(rows.values, product_kernel_shapley(np.stack([x, x + 0.1]), Z, alpha, "rbf", sharpness / p, m="exact"),
                               rtol=0, atol=1e-12 * np.abs(rows.values).max())

def test_node_options():
    rng = np.random.default_rng(4)
    K, alpha = rng.uniform(0.5, 1, size=(5, 40)), rng.normal(size=5)
    np.testing.assert_array_equal(kernel_game_shapley(K, alpha, m=None), kernel_game_shapley(K, alpha, m="exact"))
    fixed = kernel_game_shapley(K, alpha, m=3, return_bound=True)
    assert fixed.nodes == 3 and np.isnan(fixed.bound)
    assert kernel_game_shapley(K, alpha, m=50, return_bound=True).bound == 0.0     # beyond the exact 20: exact
    assert kernel_game_semivalues(K, alpha, "banzhaf", return_bound=True).nodes == 1
    with pytest.raises(ValueError, match='m must be "auto"'): kernel_game_shapley(K, alpha, m="fewest")
    with pytest.raises(TypeError, match="nodes m must be an integer"): kernel_game_interactions(K, alpha, m=2.5)
    with pytest.raises(ValueError, match="tol must be a finite number >= 0"): kernel_game_semivalues(K, alpha, "banzhaf", tol=-1)
    with pytest.raises(ValueError, match="a semivalue is"): kernel_game_semivalues(K, alpha, "k-SII")
    with pytest.raises(ValueError, match="an interaction index is one of"): kernel_game_interactions(K, alpha, "shapley")

@pytest.mark.parametrize("model,output", MODELS, ids=[f"{type(m).__name__}-{i}" for i, (m, _) in enumerate(MODELS)])
def test_explainer_interactions_and_semivalues(model, output):
    "Every model: interactions (n, p, p[, k]) with the diagonal as values, k-SII/STII efficiency, semivalues by enumeration."
    X, _, _ = _data()
    explainer = ProductKernelExplainer(model)
    rows, k = X[:3] + 0.05, explainer.n_outputs
    prediction = getattr(model, output)(rows).reshape(3, -1)
    for index in INTERACTIONS:
        e = explainer.interaction_values(rows, index=index)
        shape = (3, 5, 5) + ((k,) if k > 1 else ())
        assert e.interactions.shape == shape and e.values.shape == (3, 5) + shape[3:]
        M = e.interactions.reshape(3, 5, 5, k)
        np.testing.assert_array_equal(e.values.reshape(3, 5, k), np.moveaxis(np.diagonal(M, axis1=1, axis2=2), -1, 1))
        for o in range(k):
            K0 = feature_kernel_factors(rows[0], explainer.support, explainer.kernel, explainer.gamma)
            np.testing.assert_allclose(M[0, :, :, o], exact_interactions(ProductKernelGame(K0, explainer.alpha[:, o]), 5, index),
                                       rtol=0, atol=1e-12 * np.abs(explainer.alpha).sum())
        if index in ("STII", "k-SII"):
            totals = np.trace(M, axis1=1, axis2=2) + np.triu(np.moveaxis(M, -1, 1), 1).sum((2, 3))
            np.testing.assert_allclose(totals + np.reshape(explainer.expected_value, (1, -1)), prediction, atol=1e-9)
    e = explainer.semivalues(rows, ("weighted_banzhaf", 0.3))
    assert e.values.shape == (3, 5) + ((k,) if k > 1 else ()) and e.quadrature_bound.shape == (3,) + ((k,) if k > 1 else ())
    with pytest.raises(ValueError, match="only pairwise"): explainer.interaction_values(rows, order=3)


@pytest.mark.parametrize("tiny", [-2.2250738585072014e-313, -1e-310, 1e-320])
def test_zero_coefficient_beside_a_subnormal_one_is_not_nan(tiny):
    "A support vector with coefficient 0 next to one with a subnormal coefficient contributes 0, not 0 · e^{huge} = NaN."
    K = np.zeros((2, 1))   # v(S) = sum_n alpha_n prod_{j in S} K_nj: v(∅) = sum alpha, v({0}) = 0
    phi = kernel_game_shapley(K, np.array([[0.0], [tiny]]))
    assert np.isfinite(phi).all() and phi[0, 0] == -tiny
