"""ShaplEIG with and without `learn_noise` on noisy and noise-free games (an audit of 2026-12-05, second session): coverage of
value +- 1.96 sd against the noise-free game's exact values, and RMSE; p = 8, budgets 4p and 8p, seeds 0-11, noise of sd
10% of the game's range drawn afresh at every call (seeded per run).

  taskset -c 1 python bench/noisy_games.py

Games: a product game, a weighted voting game (w = 5, 4, 3, 2, 2, 1, 1, 1, quota 10) and a tanh of a weighted sum."""
import warnings; warnings.filterwarnings("ignore")
import numpy as np, shapnb
from shapnb.core.games import all_coalitions
p = 8
Z = all_coalitions(p)
games = {"product": lambda Z: np.prod(np.where(Z, np.linspace(0.5, 1.5, p), 1.0), 1),
         "voting": lambda Z: (np.asarray(Z, int) @ np.array([5, 4, 3, 2, 2, 1, 1, 1]) >= 10).astype(float),
         "tanh": lambda Z: np.tanh(np.asarray(Z, float) @ np.linspace(-1, 1.5, p) - 0.5)}
for name, g in games.items():
    truth = shapnb.exact_shapley(g, p)
    span = np.ptp(g(Z))
    for sd_rel in (0.0, 0.1):
        for budget in (4 * p, 8 * p):
            for learn in (False, True):
                cov, err = [], []
                for s in range(12):
                    r = np.random.default_rng(100 + s)
                    game = (lambda Z, r=r: g(Z) + sd_rel * span * r.normal(size=len(Z))) if sd_rel else g
                    e = shapnb.shapleig(game, p, budget, seed=s, progress=False, learn_noise=learn)
                    cov.append(np.abs(e.values - truth) <= 1.96 * e.sd); err.append((e.values - truth) ** 2)
                print(f"{name:8s} noise {sd_rel:.0%} of range  budget {budget:3d}  learn_noise={learn!s:5s}: coverage {np.mean(cov):6.1%}  rmse {np.sqrt(np.mean(err)):.4f}", flush=True)
