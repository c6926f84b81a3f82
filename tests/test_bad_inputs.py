"""Bad inputs found by a fuzz of the public API (2026-12-05): each is refused by name, quickly, instead of being read
silently (NaN, None, complex values, text, truthy strings as flags), hanging (a huge p), or failing inside numpy, torch,
threadpoolctl or pathlib. One case per line: the call, the exception type and a piece of its message."""
import numpy as np
import pytest

from shapnb.core.explanation import Explanation
from shapnb.core.games import TableGame, all_coalitions, coalition_sizes, exact_shapley, load_table_game
from shapnb.core.scale import split_rows
from shapnb.core.tabular import float_rows
from shapnb.exact.kernels import kernel_game_shapley, product_kernel_shapley
from shapnb.sampling.bootstrap import standard_errors
from shapnb.sampling.design import sample_subsets, wallenius_design
from shapnb.sampling.kernelshap import kernel_shap
from shapnb.sampling.surrogate import surrogate_shap
from shapnb import plots

torch = pytest.importorskip("torch")
from shapnb.bayes.gp import HammingHyper, fit_hamming_gp, gp_posterior, log_evidence   # noqa: E402
from shapnb.bayes.shapleig import efficient_posterior, shapleig, sd_inflation          # noqa: E402
from shapnb.bayes.surrogate import gp_surrogate_shap                                     # noqa: E402

game = lambda Z: np.asarray(Z, float) @ np.arange(1.0, 5.0)
Z4 = all_coalitions(4)
X, y = Z4[:10], game(Z4[:10])
estimate = kernel_shap(game, 4, 12, seed=0)

CASES = [
    (lambda: fit_hamming_gp(X, y, n_threads=10 ** 30), ValueError, "n_threads must be at most"),   # was: the unfitted start
    (lambda: fit_hamming_gp(X, y, shrinkage=np.int64(3)).lengthscale, None, None),                   # a numpy number is a number
    (lambda: fit_hamming_gp(X, y, ard="no"), TypeError, "ard must be True or False"),
    (lambda: fit_hamming_gp(X, y.astype(complex)), ValueError, "y must hold real numbers"),
    (lambda: Explanation(np.ones((2, 4)), 0.0).efficiency_residual(None), ValueError, "predictions must be numeric"),
    (lambda: Explanation(np.ones((2, 4)), 0.0).efficiency_residual(np.nan), ValueError, "predictions contains non-finite"),
    (lambda: Explanation(np.ones(2), data=np.array([1 + 1j, 2])), ValueError, "data must hold real numbers"),
    (lambda: product_kernel_shapley(np.zeros(2), np.ones((3, 2)), np.ones(3) * (1 + 5j), gamma=0.3), ValueError, "alpha must hold real numbers"),
    (lambda: product_kernel_shapley(np.zeros(2), np.ones((3, 2)), np.ones(3), gamma=True), TypeError, "gamma must be a number"),
    (lambda: kernel_game_shapley(np.ones((3, 2)), np.ones(3), return_bound="abc"), TypeError, "return_bound must be True or False"),
    (lambda: efficient_posterior([np.nan, 1, 1, 1], np.eye(4), 4.0), ValueError, "values contains non-finite"),
    (lambda: sd_inflation(None), ValueError, "z2 must be numeric, got None"),
    (lambda: float_rows(None), ValueError, "X must be rows of numbers, got None"),
    (lambda: exact_shapley(game, 4, return_values="abc"), TypeError, "return_values must be True or False"),
    (lambda: wallenius_design(4, 12, identify="abc"), TypeError, "identify must be True or False"),
    (lambda: HammingHyper([], 1.0, 0.0, 1e-6), ValueError, "at least one player"),
    (lambda: HammingHyper(np.ones(2), True, 0.0, 1e-6), TypeError, "outputscale must be a real number"),
    (lambda: gp_posterior(None, X, y, X), TypeError, "hyper must be a HammingHyper"),
    (lambda: log_evidence("warm", X, y), TypeError, "hyper must be a HammingHyper"),
    (lambda: plots.convergence([10, 20], np.ones((2, 4)), truth=float("nan")), ValueError, "truth contains non-finite"),
    (lambda: plots.bar(Explanation(np.ones(4)), ax=0), TypeError, "ax must be a matplotlib Axes"),
    (lambda: plots.beeswarm(Explanation(np.ones((3, 4)), data=np.ones((3, 4))), cmap="abc"), ValueError, "cmap 'abc' is not a matplotlib colormap"),
    (lambda: kernel_shap(game, 10 ** 30, 12), ValueError, "too many for the coalition design"),        # was: no answer within 40 s
    (lambda: surrogate_shap(game, 10 ** 30, 12), ValueError, "too many for the coalition design"),
    (lambda: split_rows(10 ** 30, None, 3), ValueError, "n must be at most"),
    (lambda: split_rows(10 ** 12, None, 3), ValueError, "chunks: pass a larger chunk_size"),
    (lambda: coalition_sizes(10 ** 30), ValueError, "at most 26"),
    (lambda: all_coalitions(10 ** 30), ValueError, "at most 26"),
    (lambda: shapleig(game, 4, 12, n_threads=np.int64(1), progress=False).values, None, None),       # a valid numpy int
    (lambda: surrogate_shap(game, 4, 14, n_boot=10 ** 30), ValueError, "n_boot must be at most"),
    (lambda: standard_errors(estimate, seed=2.5), (TypeError, ValueError), "seed"),
    (lambda: sample_subsets(4, 2, 1, rng=-1), (TypeError, ValueError), "seed"),
    (lambda: load_table_game(None), TypeError, "path must be a file name or a Path"),
    (lambda: load_table_game("/no/such/game.npz"), ValueError, "cannot read the game file"),
    (lambda: TableGame(np.array(["0.5"] * 4)), ValueError, "must be numeric, got text"),
    (lambda: kernel_shap(game, 4, 12, bootstrap=np.array(["symmetric"])), ValueError, "unknown bootstrap"),   # a choice as an array
    (lambda: surrogate_shap(game, 4, 14, correction=np.array([])), ValueError, "correction must be one of"),
    (lambda: shapleig(game, 4, 12, selection=np.array(["eig"])), ValueError, "selection must be one of"),
    (lambda: wallenius_design(4, 12, singletons="yes"), TypeError, "singletons must be True or False"),
    (lambda: surrogate_shap(game, 4, 14, singletons=np.array([True])), TypeError, "singletons must be True or False"),
    (lambda: gp_surrogate_shap(lambda Z: 1 / 0, 4, 14, singletons=None), TypeError, "singletons must be True or False"),   # before the game
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("call,error,message", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_refused_by_name(call, error, message):
    import matplotlib
    matplotlib.use("Agg")
    if error is None:
        assert np.isfinite(np.asarray(call(), float)).all()
        return
    with pytest.raises(error) as caught: call()
    assert message in str(caught.value), str(caught.value)
