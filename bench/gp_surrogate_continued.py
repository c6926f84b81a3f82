"""A lead for issue 17's criterion (3), not a method of the library: the Wallenius design (notebook 20, singletons
first) for a share of the budget, then our ShaplEIG continuing from the design's coalitions to the whole budget, on
the tuning half only.

  taskset -c 0 python bench/gp_surrogate_continued.py run 0 2   (and `run 1 2` on the other core)
  python bench/gp_surrogate_continued.py summary                 -> bench/results/gp_surrogate_continued.json

`run` spends round(share * budget) evaluations on `gp_surrogate_shap` (its defaults) and then runs `shapleig` (its
defaults) with the design's distinct coalitions as its initial design (∅ first, N second) up to the budget; the
estimate reported is ShaplEIG's posterior mean on every coalition (the surrogate's shrinkage weight is about 0 on these
games, so this is what `gp_surrogate_shap` would report with the extra coalitions in its refit). shapleig takes no
initial design of the caller's, so the run patches its first call of `leverage_coalitions` (the initial design) and
leaves the later ones (the candidate pools of p >= 13) alone. Share 1.0 is the design alone (ShaplEIG's posterior on
it, no coalition chosen by information gain). Budgets 2p, 3p, 4p, 8p; seeds 0-2; the 13 tuning games
(bench/results/tuning_games.json). Records are appended to bench/results/gp_surrogate_continued.jsonl (a rerun skips
what is done). `summary` prints and writes, per share and budget, the geometric-mean MSE over the cells relative to our
ShaplEIG's tuning runs (bench/results/gp_surrogate_tuning.json, same games, budgets and seeds) and to share 1.0, and
the cells where each share has the lowest mean MSE against shapleig, shapleig_old, kernel_shap and regression_msr.
No interval is measured: with a share below 1 the design-unbiased standard error comes from the design's part only.
"""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, json, time, warnings
from pathlib import Path
from unittest import mock
import numpy as np
import pandas as pd
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from benchmark_games import games_dir   # the one lookup of the benchmark games
from shapnb.core.games import load_table_game
from shapnb.bayes.surrogate import gp_surrogate_shap
import shapnb.bayes.shapleig as shapleig_module

RESULTS = ROOT / "bench" / "results"
RECORDS, SUMMARY = RESULTS / "gp_surrogate_continued.jsonl", RESULTS / "gp_surrogate_continued.json"
SHARES, BUDGETS, SEEDS = (0.25, 0.5, 0.75, 1.0), (("2p", 2), ("3p", 3), ("4p", 4), ("8p", 8)), range(3)
BASELINES = ("shapleig", "shapleig_old", "kernel_shap", "regression_msr")


class Recorder:
    "The game, remembering every coalition it was asked for."
    def __init__(self, game): self.game, self.asked = game, []
    def __call__(self, Z):
        self.asked.append(np.asarray(Z, bool).copy()); return self.game(Z)


def continued(game, p: int, budget: int, share: float, seed: int):
    "The design with round(share * budget) evaluations, then ShaplEIG from its coalitions up to the budget."
    rec = Recorder(game)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        design = gp_surrogate_shap(rec, p, int(round(share * budget)), seed=seed)
    seen = {}
    for z in np.vstack(rec.asked): seen.setdefault(z.tobytes(), z)
    X0 = np.array(list(seen.values()))
    sizes = X0.sum(1)
    X0 = X0[np.argsort(np.where(sizes == 0, 0, np.where(sizes == p, 1, 2)), kind="stable")]   # ∅ first, N second
    real, calls = shapleig_module.leverage_coalitions, []
    def initial_is_the_design(*args, **kwargs):
        calls.append(1)
        return X0 if len(calls) == 1 else real(*args, **kwargs)
    with mock.patch.object(shapleig_module, "leverage_coalitions", initial_is_the_design), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = shapleig_module.shapleig(game, p, budget, seed=seed + 1000, n_initial=len(X0), progress=False)
    return design, run, len(X0)


def run(part: int = 0, n_parts: int = 1):
    "Every share, budget and seed on this part's share of the tuning games; records appended to RECORDS."
    files = json.loads((RESULTS / "tuning_games.json").read_text())["games"]
    done = set()
    if RECORDS.exists(): done = {(r["game"], r["budget_label"], r["seed"], r["share"]) for r in map(json.loads, RECORDS.read_text().splitlines())}
    for i, f in enumerate(files):
        if i % n_parts != part: continue
        g = load_table_game(games_dir() / f); p = g.n_players; truth = g.exact_shapley()
        for label, mult in BUDGETS:
            for seed in SEEDS:
                for share in SHARES:
                    if (f[:-4], label, seed, share) in done: continue
                    t0 = time.process_time()
                    design, est, n_design = continued(g, p, mult * p, share, seed)
                    rec = dict(game=f[:-4], p=p, budget_label=label, seed=seed, share=share, n_design=n_design, n_evals=int(est.n_evals),
                               mse_design=float(np.mean((design.values - truth) ** 2)), mse=float(np.mean((est.values - truth) ** 2)),
                               seconds=time.process_time() - t0)
                    with open(RECORDS, "a") as fh: fh.write(json.dumps(rec) + "\n")
        print(f"{i + 1}/{len(files)} {f}", flush=True)


def summary() -> dict:
    "Per share and budget: MSE against our ShaplEIG and against share 1.0, and cells lowest against the baselines."
    d = pd.DataFrame(map(json.loads, RECORDS.read_text().splitlines()))
    t = pd.DataFrame(json.loads((RESULTS / "gp_surrogate_tuning.json").read_text())["runs"])
    base = t[t.seed.isin(list(SEEDS))].groupby(["method", "game", "budget_label"]).mse.mean().unstack(0)[list(BASELINES)]
    cell = d.groupby(["share", "game", "budget_label"]).mse.mean().unstack(0)
    both = base.join(cell, how="inner")
    gmean = lambda r: {k: round(float(v), 3) for k, v in np.exp(np.log(r).groupby(level="budget_label").mean()).items()}
    out = {}
    for share in cell.columns:
        lowest = both[list(BASELINES) + [share]].idxmin(axis=1) == share
        out[str(share)] = dict(vs_shapleig=gmean(both[share] / both["shapleig"]), vs_design_alone=gmean(both[share] / both[1.0]),
                               cells_lowest={k: int(v) for k, v in lowest.groupby(level="budget_label").sum().items()},
                               cells=int(len(both)), seconds={k: round(float(v), 2) for k, v in d[d.share == share].groupby("budget_label").seconds.mean().items()})
        print(share, out[str(share)])
    SUMMARY.write_text(json.dumps(dict(summary=out, runs=d.to_dict("records")), indent=1) + "\n")
    return out


if __name__ == "__main__":
    if sys.argv[1:2] == ["run"]: run(*map(int, sys.argv[2:4]))
    elif sys.argv[1:2] == ["summary"]: summary()
    else: sys.exit(__doc__)
