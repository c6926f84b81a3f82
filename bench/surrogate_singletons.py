"""The design for a surrogate (notebook 20's `singletons=True`): the sizes 1 and p - 1 enumerated first, against the
kernel's allocation, for both surrogate estimators, on the tuning half of issue 17 (the choice of their default).

  taskset -c 1 python bench/surrogate_singletons.py run [part n_parts]   -> bench/results/surrogate_singletons.jsonl
  python bench/surrogate_singletons.py summary                            -> bench/results/surrogate_singletons.json

`run` runs gp_surrogate_shap (notebook 35) and surrogate_shap (notebook 25, trees), each with singletons=False and
True and their defaults otherwise, on the 13 games of bench/results/tuning_games.json at budgets 3p and 4p, seeds
0-2. Below 3p and where the kernel's allocation enumerates the singletons anyway (8p on these games) the two designs
are the same (notebook 20 checks it), so those budgets are not run. Each record is appended at once (a rerun skips
what is done; parts can run on both cores). `summary` prints and writes, per estimator and budget, the geometric-mean
MSE ratio singletons / kernel over the cells (game x budget, mean over seeds), the cells where it is lower, each
one's ratio to our ShaplEIG (its tuning runs, same games, budgets and seeds, bench/results/gp_surrogate_tuning.json),
and the coverage of the 95% intervals; the runs are saved beside the summary (the .jsonl is git-ignored). BLAS and
torch threads are limited to one."""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, json, time, warnings
from pathlib import Path
import numpy as np
import pandas as pd
import torch
from threadpoolctl import threadpool_limits
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from benchmark_games import games_dir   # the one lookup of the benchmark games
from shapnb.core.games import load_table_game
from shapnb.sampling.surrogate import surrogate_shap
from shapnb.bayes.surrogate import gp_surrogate_shap

RESULTS = ROOT / "bench" / "results"
RECORDS, SUMMARY = RESULTS / "surrogate_singletons.jsonl", RESULTS / "surrogate_singletons.json"
BUDGETS, SEEDS = (("3p", 3), ("4p", 4)), range(3)
ESTIMATORS = {"gp_surrogate_shap": gp_surrogate_shap, "surrogate_shap": surrogate_shap}


def run(part: int = 0, n_parts: int = 1):
    "Every estimator with both designs on this part's share of the tuning games; records appended to RECORDS."
    files = json.loads((RESULTS / "tuning_games.json").read_text())["games"]
    done = set()
    if RECORDS.exists():
        done = {(r["game"], r["budget_label"], r["seed"], r["method"], r["singletons"]) for r in map(json.loads, RECORDS.read_text().splitlines())}
    for i, f in enumerate(files):
        if i % n_parts != part: continue
        g = load_table_game(games_dir() / f); p = g.n_players; truth = g.exact_shapley()
        for label, mult in BUDGETS:
            for seed in SEEDS:
                for name, fn in ESTIMATORS.items():
                    for singletons in (False, True):
                        if (f[:-4], label, seed, name, singletons) in done: continue
                        t0 = time.process_time()
                        e = fn(g, p, mult * p, seed=seed, singletons=singletons)
                        err = e.values - truth
                        rec = dict(game=f[:-4], p=p, budget_label=label, seed=seed, method=name, singletons=singletons,
                                   mse=float(np.mean(err ** 2)), seconds=time.process_time() - t0, n_evals=int(e.n_evals),
                                   coverage=None if e.se is None else float(np.mean(np.abs(err) <= 1.959963984540054 * e.se)),
                                   counts=e.details["design"].counts.tolist())
                        with open(RECORDS, "a") as fh: fh.write(json.dumps(rec) + "\n")
        print(f"{i + 1}/{len(files)} {f}", flush=True)


def summary() -> dict:
    "Per estimator and budget: MSE ratio singletons / kernel, cells lower, ratio to our ShaplEIG, coverage."
    d = pd.DataFrame(map(json.loads, RECORDS.read_text().splitlines()))
    t = pd.DataFrame(json.loads((RESULTS / "gp_surrogate_tuning.json").read_text())["runs"])
    eig = t[(t.method == "shapleig") & t.seed.isin(list(SEEDS))].groupby(["game", "budget_label"]).mse.mean()
    out = {}
    for name, x in d.groupby("method"):
        cell = x.groupby(["game", "budget_label", "singletons"]).mse.mean().unstack()
        for label, c in cell.groupby(level="budget_label"):
            ratio = c[True] / c[False]
            vs = {k: c[k] / eig.reindex(c.index) for k in (False, True)}
            cov = x[x.budget_label == label].groupby("singletons").coverage.mean()
            out[f"{name} {label}"] = dict(cells=int(len(c)), mse_ratio_gmean=float(np.exp(np.log(ratio).mean())),
                                          cells_lower=int((ratio < 1).sum()),
                                          vs_shapleig_gmean={str(k): float(np.exp(np.log(v).mean())) for k, v in vs.items()},
                                          cells_below_shapleig={str(k): int((v < 1).sum()) for k, v in vs.items()},
                                          coverage={str(k): float(cov[k]) for k in cov.index},
                                          seconds={str(k): float(x[(x.budget_label == label) & (x.singletons == k)].seconds.mean()) for k in (False, True)})
    SUMMARY.write_text(json.dumps(dict(summary=out, runs=d.to_dict("records")), indent=1) + "\n")
    return out


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "summary"
    warnings.simplefilter("ignore")   # odd budgets and small designs warn: expected here
    torch.set_num_threads(1)
    with threadpool_limits(1):
        if mode == "run": run(*(int(a) for a in sys.argv[2:4]))
        elif mode == "summary": print(json.dumps(summary(), indent=1))
        else: sys.exit(f"unknown mode {mode!r}: use run or summary")
