"Cross-checks of shapnb.kernels that notebooks do poorly: property tests, every scikit-learn model type, bad input."
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
from shapnb.games import exact_shapley
from shapnb.quadrature import product_shapley
from shapnb.kernels import (ProductKernelGame, ProductKernelExplainer, kernel_game_shapley, product_kernel_shapley,
                            feature_kernel_factors, kernel_expansion)

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
    explainer = ProductKernelExplainer(ovr)
    np.testing.assert_allclose(explainer.shap_values(X[:3]).sum(1) + explainer.expected_value,
                               ovo.decision_function(X[:3]), atol=1e-9)

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
    with pytest.raises(ValueError, match="positive integer"): ProductKernelExplainer(SVR().fit(X, y), m=0)
    with pytest.raises(ValueError, match="block_size"): ProductKernelExplainer(SVR().fit(X, y), block_size=1.5)
    Z, alpha = X[:10], y[:10]
    with pytest.raises(ValueError, match="alpha must have shape"): product_kernel_shapley(X[0], Z, alpha[:, None, None])
    with pytest.raises(ValueError, match="alpha contains non-finite"): product_kernel_shapley(X[0], Z, np.full(10, np.nan), "rbf", 1.0)
    with pytest.raises(ValueError, match="support vectors contain non-finite"):
        product_kernel_shapley(X[0], np.where(Z > 1, np.nan, Z), alpha, "rbf", 1.0)
    with pytest.raises(ValueError, match="one value per feature"): product_kernel_shapley(X[0], Z, alpha, "laplacian", np.ones(3))
    with pytest.raises(ValueError, match="gamma must be positive"): product_kernel_shapley(X[0], Z, alpha, "rbf", np.inf)
    with pytest.raises(ValueError, match="non-finite"): product_kernel_shapley(X[0], Z, alpha, lambda x, Z: np.full(Z.shape, np.inf))
    with pytest.raises(ValueError, match="kernel factors must be a matrix"): kernel_game_shapley(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="support vectors must be a matrix"): product_kernel_shapley(X[0], Z[0], alpha, "rbf", 1.0)
