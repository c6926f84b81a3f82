"""Game families outside the shared benchmark (neither tuning nor reporting half), for checking estimators on games
nobody tuned them for: `UNSEEN_GAMES` maps a name to (family, builder); `builder()` returns (p, game), the game a
function of a boolean (k, p) coalition matrix. Exact values by `shapnb.exact_shapley` (p <= 14). Written for an audit
of the model-agnostic estimators (notebook 35, `bench/gp_surrogate_refit.py`)."""
import numpy as np


def _unanimity_sum(p, seed, n_terms, scale=1.0, offset=0.0, weights=False):
    rng = np.random.default_rng(seed)
    supports = [rng.choice(p, size=rng.integers(1, 6), replace=False) for _ in range(n_terms)]
    signs = rng.choice([-1.0, 1.0], size=n_terms) * (rng.uniform(0.5, 2.0, size=n_terms) if weights else 1.0)
    return p, lambda Z: scale * sum(c * np.asarray(Z, bool)[:, T].all(1) for c, T in zip(signs, supports)).astype(float) + offset


def _voting(p, seed, top, share):
    rng = np.random.default_rng(seed)
    w = rng.integers(1, top + 1, size=p).astype(float)
    quota = np.floor(w.sum() / 2) + 1 if share is None else np.ceil(share * w.sum())
    return p, lambda Z: (np.asarray(Z, float) @ w >= quota).astype(float)


def _airport():
    p = 12
    cost = np.sort(np.random.default_rng(103).integers(1, 101, size=p).astype(float))
    return p, lambda Z: -np.where(np.asarray(Z, bool), cost, 0.0).max(axis=1)


def _dominated():
    p = 10
    w = np.concatenate([[1000.0], np.random.default_rng(106).uniform(0.5, 1.5, size=p - 1)])
    return p, lambda Z: np.asarray(Z, float) @ w + 0.5 * Z[:, 1] * Z[:, 2] - 0.3 * Z[:, 0] * Z[:, 3]


def _near_additive():
    p = 12
    rng = np.random.default_rng(107)
    w, W = rng.normal(size=p), np.triu(rng.normal(scale=0.01, size=(p, p)), 1)
    return p, lambda Z: np.asarray(Z, float) @ w + np.einsum("ki,ij,kj->k", np.asarray(Z, float), W, np.asarray(Z, float))


def _additive_table():
    p = 10
    rng = np.random.default_rng(108)
    w, table, bits = rng.normal(size=p), rng.normal(scale=0.01, size=2 ** p), 2 ** np.arange(p)
    return p, lambda Z: np.asarray(Z, float) @ w + table[np.asarray(Z, bool).astype(np.int64) @ bits]


def _exp_product(offset=0.0):
    p = 10
    w = np.random.default_rng(109).uniform(-0.3, 0.8, size=p)
    return p, lambda Z: np.exp(np.asarray(Z, float) @ w) + offset


def _log_sum():
    p = 12
    w = np.random.default_rng(110).exponential(1.0, size=p)
    return p, lambda Z: np.log1p(np.asarray(Z, float) @ w)


def _max_game():
    p = 12
    a = np.random.default_rng(111).uniform(0, 10, size=p)
    return p, lambda Z: np.where(np.asarray(Z, bool), a, 0.0).max(1)


def _min_game():
    p = 9
    a = np.random.default_rng(112).uniform(1, 10, size=p)
    def game(Z):
        Z = np.asarray(Z, bool)
        return np.where(Z.any(1), np.where(Z, a, np.inf).min(1), 0.0)
    return p, game


def _logistic():
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression
    p = 10
    X, y = make_classification(n_samples=400, n_features=p, n_informative=6, random_state=113)
    model, background, x = LogisticRegression(max_iter=1000).fit(X, y), X.mean(0), X[7]
    return p, lambda Z: model.predict_proba(np.where(np.asarray(Z, bool), x, background))[:, 1]


def _boosting(scale=1.0):
    from sklearn.datasets import make_friedman1
    from sklearn.ensemble import GradientBoostingRegressor
    p = 12
    X, y = make_friedman1(n_samples=500, n_features=p, noise=0.5, random_state=114)
    model = GradientBoostingRegressor(n_estimators=150, max_depth=3, random_state=0).fit(X, y)
    background, x = X.mean(0), X[3]
    return p, lambda Z: scale * model.predict(np.where(np.asarray(Z, bool), x, background))


def _knn_value():
    p, k = 12, 3
    rng = np.random.default_rng(115)
    Xtr = rng.normal(size=(p, 2)); ytr = (Xtr[:, 0] + 0.5 * rng.normal(size=p) > 0).astype(int)
    Xte = rng.normal(size=(40, 2)); yte = (Xte[:, 0] > 0).astype(int)
    D = ((Xte[:, None, :] - Xtr[None, :, :]) ** 2).sum(-1)
    def game(Z):
        out = np.empty(len(Z))
        for r, z in enumerate(np.asarray(Z, bool)):
            idx = np.flatnonzero(z)
            if idx.size == 0: out[r] = 0.5; continue      # chance accuracy with no data
            nn = idx[np.argsort(D[:, idx], axis=1, kind="stable")[:, :min(k, idx.size)]]
            out[r] = (ytr[nn] == yte[:, None]).mean()
        return out
    return p, game


def _glove():
    p = 10
    return p, lambda Z: np.minimum(np.asarray(Z, bool)[:, :4].sum(1), np.asarray(Z, bool)[:, 4:].sum(1)).astype(float)


UNSEEN_GAMES = {
    "wvote_a": ("weighted_voting", lambda: _voting(11, 101, 10, None)),
    "wvote_b": ("weighted_voting", lambda: _voting(13, 102, 20, 0.7)),
    "airport": ("airport", _airport),
    "glove": ("glove", _glove),
    "majority": ("majority", lambda: (11, lambda Z: (np.asarray(Z, bool).sum(1) > 11 / 2).astype(float))),
    "unan_sum_a": ("unanimity_sum", lambda: _unanimity_sum(12, 104, 10)),
    "unan_sum_b": ("unanimity_sum", lambda: _unanimity_sum(14, 105, 20, weights=True)),
    "unan_high": ("high_order", lambda: (10, lambda Z: np.asarray(Z, bool)[:, :9].all(1).astype(float))),
    "parity3": ("high_order", lambda: (10, lambda Z: (np.asarray(Z, bool)[:, :3].sum(1) % 2).astype(float))),
    "dominated": ("dominated", _dominated),
    "near_additive": ("nearly_additive", _near_additive),
    "additive_table": ("nearly_additive", _additive_table),
    "saturating": ("saturating", lambda: (12, lambda Z: np.minimum(np.asarray(Z, bool)[:, [0, 2, 4, 6, 8]].sum(1), 2).astype(float))),
    "exp_prod": ("exp_product", _exp_product),
    "log_sum": ("log_sum", _log_sum),
    "max_game": ("max_min", _max_game),
    "min_game": ("max_min", _min_game),
    "ml_logreg": ("ml_model", _logistic),
    "ml_gbm": ("ml_model", _boosting),
    "knn_value": ("data_valuation", _knn_value),
    "unan_offset": ("offset_scale", lambda: _unanimity_sum(12, 104, 10, offset=1e6)),
    "unan_scaled": ("offset_scale", lambda: _unanimity_sum(12, 104, 10, scale=1e-6)),
    "exp_offset": ("offset_scale", lambda: _exp_product(offset=1e6)),
    "gbm_scaled": ("offset_scale", lambda: _boosting(scale=1e-6)),
}
