"""Would a player-balanced design help `gp_surrogate_shap` (notebook 35) fit its GP? A measurement on the tuning half only.

Notebook 35 found the GP surrogate on the Wallenius design 2x worse than ShaplEIG at 3p-4p on the tuning half, with every
point used for the fit: the design, not the correction, is what ShaplEIG has and the surrogate lacks. Here each
stratum's coalitions are drawn so that every player is in about as many of them as any other (each next coalition takes
the players drawn least so far, ties broken at random; a repeat is redrawn uniformly). Every step treats the players
alike, so every coalition of a size keeps the same chance to be drawn, and the HT correction stays unbiased. Run with the
estimator's defaults, tuning half (bench/results/tuning_games.json), budgets 2p-8p, seeds 0-2, the default design and the
balanced one on the same seeds; our ShaplEIG's MSE from bench/results/gp_surrogate_tuning.json (same games and seeds).

  taskset -c 0 python bench/gp_surrogate_balanced.py run default & taskset -c 1 python bench/gp_surrogate_balanced.py run balanced
  python bench/gp_surrogate_balanced.py summary

Runs go to bench/results/gp_surrogate_balanced_<design>.jsonl (git-ignored)."""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, json, math, time, warnings
from pathlib import Path
import numpy as np, pandas as pd, torch
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from benchmark_games import games_dir   # the one lookup of the benchmark games
from shapnb.core.games import load_table_game
import shapnb.sampling.design as design
from shapnb.bayes.surrogate import gp_surrogate_shap

RESULTS = ROOT / "bench" / "results"
uniform_subsets = design.sample_subsets


def balanced_subsets(p, size, count, rng, fixed_first=False):
    "`count` distinct subsets of `size` of `p` players, each next one of the players drawn least so far (as `sample_subsets`)."
    free, k = (p - 1, size - 1) if fixed_first else (p, size)
    if count == 0 or k == 0 or 2 * count >= math.comb(free, k): return uniform_subsets(p, size, count, rng, fixed_first)
    drawn, seen, out = np.zeros(free), set(), []
    while len(out) < count:
        row = np.zeros(free, bool); row[np.argpartition(drawn + rng.random(free), k - 1)[:k]] = True
        if np.packbits(row).tobytes() in seen:
            row = np.zeros(free, bool); row[rng.choice(free, k, replace=False)] = True
            if np.packbits(row).tobytes() in seen: continue
        seen.add(np.packbits(row).tobytes()); out.append(row); drawn[row] += 1
    out = np.array(out)
    return np.concatenate([np.ones((len(out), 1), bool), out], axis=1) if fixed_first else out


def run(which: str):
    "Every tuning game, budget and seed with the `which` design ('default' or 'balanced')."
    warnings.simplefilter("ignore"); torch.set_num_threads(1)
    if which == "balanced": design.sample_subsets = balanced_subsets
    with open(RESULTS / f"gp_surrogate_balanced_{which}.jsonl", "w") as out:
        for g in json.loads((RESULTS / "tuning_games.json").read_text())["games"]:
            game = load_table_game(games_dir() / g); p = game.n_players; truth = game.exact_shapley()
            for label, budget in (("2p", 2 * p), ("3p", 3 * p), ("4p", 4 * p), ("8p", 8 * p)):
                for seed in range(3):
                    start = time.process_time()
                    e = gp_surrogate_shap(game, p, budget, seed=seed)
                    covered = None if e.se is None or not np.isfinite(e.se).all() else float(np.mean(np.abs(e.values - truth) <= 1.959964 * e.se))
                    out.write(json.dumps(dict(game=g, budget_label=label, seed=seed, mse=float(np.mean((e.values - truth) ** 2)),
                                              coverage=covered, seconds=time.process_time() - start)) + "\n"); out.flush()


def summary():
    "Geometric-mean MSE ratios by budget: balanced / default, and each / our ShaplEIG; coverage by budget."
    d = pd.concat([pd.read_json(RESULTS / f"gp_surrogate_balanced_{w}.jsonl", lines=True).assign(design=w) for w in ("default", "balanced")])
    cell = d.groupby(["design", "game", "budget_label"]).mse.mean().unstack(0)
    ratio = np.log(cell.balanced / cell.default)
    print("balanced / default, geometric mean by budget:", np.exp(ratio.groupby(level=1).mean()).round(2).to_dict(),
          f"(balanced lower in {(ratio < 0).sum()} of {len(ratio)} cells)")
    runs = pd.DataFrame(json.loads((RESULTS / "gp_surrogate_tuning.json").read_text())["runs"])
    runs = runs[(runs.method == "shapleig") & (runs.seed < 3)].assign(game=lambda r: r.game.astype(str).str.replace(r"(\.npz)?$", ".npz", regex=True))
    eig = runs.groupby(["game", "budget_label"]).mse.mean().reindex(cell.index)
    for w in ("default", "balanced"):
        r = np.log(cell[w] / eig)
        print(f"{w} / shapleig:", np.exp(r.groupby(level=1).mean()).round(2).to_dict(), f"(lower in {(r < 0).sum()} cells)")
    print("coverage of the 95% intervals:\n", d.groupby(["design", "budget_label"]).coverage.mean().unstack(0).round(3))


if __name__ == "__main__":
    {"run": lambda: run(sys.argv[2]), "summary": summary}[sys.argv[1]]()
