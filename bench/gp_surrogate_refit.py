"""Notebook 35's choice of `correction="shrunk-refit"` on games outside the benchmark: per run, the MSE and the coverage
of the 95% interval of the design-unbiased estimate U shrunk towards the folds' posterior means ("shrunk"), towards the
posterior mean refit on every coalition with three constants for the weight (the squared standard errors, the choice;
the bootstrap's tr S plus the folds' spread over K; tr S alone), the refit alone, and U itself.

  taskset -c 0 python bench/gp_surrogate_refit.py dominated   # the audit's game with one dominant player, p=10, budgets 2p-4p, 8 seeds
  taskset -c 0 python bench/gp_surrogate_refit.py families     # bench/unseen_families.py, budgets 2p-8p, 4 seeds (about 15 min)

Writes bench/results/gp_surrogate_refit_<mode>.json (runs and summary) and prints the summary: geometric-mean MSE over
the cells relative to "shrunk", coverage by budget, and each estimate's largest run MSE over the "shrunk" cell's median."""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, json, time, warnings
from pathlib import Path
import numpy as np
sys.path.insert(0, str(Path(__file__).resolve().parent))
from unseen_families import UNSEEN_GAMES
from shapnb.core.games import exact_shapley
from shapnb.bayes.surrogate import gp_surrogate_shap
from shapnb.sampling.surrogate import shrinkage_weight

Z95 = 1.959963984540054
RESULTS = Path(__file__).resolve().parent / "results"


def estimates(game, p: int, budget: int, seed: int) -> tuple:
    "The estimates of one run (name -> values) and the interval's standard errors (None where declined)."
    e = gp_surrogate_shap(game, p, budget, seed=seed, bootstrap="symmetric")          # the default: shrunk-refit
    d = e.details
    out = {"shrunk-refit": e.values}
    out["shrunk"] = gp_surrogate_shap(game, p, budget, seed=seed, bootstrap="symmetric", correction="shrunk").values
    if d["refit_values"] is not None and d["replicates"] is not None:
        U, R = d["surrogate_values"] + d["full_correction"], d["refit_values"]
        boot = float(np.var(d["replicates"], axis=0, ddof=1).sum())
        spread = float(np.var(d["fold_values"], axis=0, ddof=1).sum())
        for name, noise in (("refit, tr S + spread/K", boot + spread / d["n_folds"]), ("refit, tr S", boot)):
            out[name] = R + shrinkage_weight(U - R, noise) * (U - R)
        out["refit alone"], out["U"] = R, U
    return out, e.se


def cases(mode: str):
    if mode == "dominated":
        p, game = UNSEEN_GAMES["dominated"][1]()
        truth = exact_shapley(game, p)
        for m in (2, 3, 4):
            for seed in range(8): yield "dominated", game, p, truth, f"{m}p", m * p, seed
    else:
        for name, (_, build) in UNSEEN_GAMES.items():
            p, game = build()
            truth = exact_shapley(game, p)
            for m in (2, 3, 4, 8):
                if m * p >= 2 ** p: continue
                for seed in range(4): yield name, game, p, truth, f"{m}p", m * p, seed


def summary(rows) -> dict:
    import pandas as pd
    d = pd.DataFrame(rows)
    names = [c[4:] for c in d.columns if c.startswith("mse_")]
    cell = d.groupby(["game", "label"]).mean(numeric_only=True)
    gm = lambda x: float(np.exp(np.mean(np.log(np.maximum(x, 1e-300)))))
    ratio = {b: {k: gm(x["mse_" + k] / x["mse_shrunk"]) for k in names if x["mse_" + k].notna().all()} for b, x in cell.groupby(level=1)}
    cover = {b: {k: float(x["cov_" + k].mean()) for k in names if "cov_" + k in x} for b, x in d.groupby("label")}
    median = d.groupby(["game", "label"]).mse_shrunk.transform("median").clip(lower=1e-12)
    worst = {k: float((d["mse_" + k] / median).max()) for k in names}
    by_cell = {f"{g} {b}": {k: [float(x["mse_" + k].median()), float(x["mse_" + k].max())] for k in names}
               for (g, b), x in d.groupby(["game", "label"])}
    return dict(n_runs=len(d), mse_ratio_to_shrunk_gmean=ratio, coverage=cover, worst_run_over_shrunk_median=worst,
                median_and_largest_mse=by_cell)


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "dominated"
    if mode not in ("dominated", "families"): raise SystemExit("usage: gp_surrogate_refit.py dominated|families")
    warnings.simplefilter("ignore")
    rows, t0 = [], time.perf_counter()
    for name, game, p, truth, label, budget, seed in cases(mode):
        out, se = estimates(game, p, budget, seed)
        r = dict(game=name, label=label, budget=budget, seed=seed)
        for k, v in out.items():
            r["mse_" + k] = float(np.mean((v - truth) ** 2))
            if se is not None: r["cov_" + k] = float(np.mean(np.abs(v - truth) <= Z95 * se))
        rows.append(r)
    s = summary(rows)
    (RESULTS / f"gp_surrogate_refit_{mode}.json").write_text(json.dumps(dict(summary=s, runs=rows), indent=1) + "\n")
    print(f"{len(rows)} runs in {time.perf_counter() - t0:.0f} s")
    print(json.dumps({k: s[k] for k in ("mse_ratio_to_shrunk_gmean", "coverage", "worst_run_over_shrunk_median")}, indent=1))
    if mode == "dominated": print(json.dumps(s["median_and_largest_mse"], indent=1))
