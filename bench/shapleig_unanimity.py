"""ShaplEIG's intervals on an additive game with one high-order unanimity term (an audit's game; nbs/32 "How far to
trust `sd`"): p = 30, v(S) = sum_{i in S} a_i + 3 [{0, ..., 11} ⊆ S], a ~ N(0, 1) (seed 1), exact phi_i = a_i + 3/12 [i < 12].

  python bench/shapleig_unanimity.py [budget_multiple=2] [seeds=3]

Prints, per seed, the coverage of the 95% intervals, the largest |error| / sd, sd_inflation and the chosen lengthscale;
and kernel_shap's coverage on the same game and budget for comparison.
"""
import sys, warnings
import numpy as np
from shapnb import shapleig, kernel_shap

P, K = 30, 12
A = np.random.default_rng(1).normal(size=P)
EXACT = A + (3.0 / K) * (np.arange(P) < K)


def game(Z):
    "The additive part plus 3 where all of players 0..K-1 are present."
    Z = np.asarray(Z, bool)
    return Z @ A + 3.0 * Z[:, :K].all(1)


def main(multiple: int = 2, seeds: int = 3):
    warnings.simplefilter("ignore")
    for s in range(seeds):
        e = shapleig(game, P, multiple * P, seed=s, n_threads=1, progress=False)
        if e.sd is None:                                  # declined (budget at most p, or a size-blind sample): say why
            print(f"seed {s}: shapleig gives no sd ({e.se_note})"); continue
        z = np.abs(e.values - EXACT) / e.sd
        k = kernel_shap(game, P, multiple * P + 6, seed=s)
        cover_k = "declined" if k.se is None else f"{np.mean(np.abs(k.values - EXACT) <= 1.96 * k.se):.2f}"
        print(f"seed {s}: shapleig coverage {np.mean(z <= 1.96):.2f}, largest |error|/sd {z.max():.0f}, sd_inflation "
              f"{e.details['sd_inflation']:.2f}, lengthscale {e.details['hyper'].lengthscale.min():.3g}, RMSE "
              f"{np.sqrt(np.mean((e.values - EXACT) ** 2)):.2f} | kernel_shap at budget {multiple * P + 6}: coverage {cover_k}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
