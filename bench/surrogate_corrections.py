"""surrogate_shap's correction (notebook 25) chosen on the tuning half and checked on games outside the benchmark: the
three CORRECTIONS ("full": design-unbiased; "shrunk": towards the folds' surrogates; "shrunk-refit": the design-unbiased
estimate shrunk towards the surrogate refit on every coalition) with the default boosted-tree surrogate, and kernel_shap
as the yardstick, on the same runs.

  taskset -c 0 python bench/surrogate_corrections.py tune       # tuning half: 13 games, budgets p+2-8p, seeds 0-4 (about 5 min)
  taskset -c 0 python bench/surrogate_corrections.py families   # bench/unseen_families.py, budgets 2p-8p, seeds 0-3 (about 4 min)

Writes bench/results/surrogate_corrections_<mode>.json (runs and summary) and prints the summary: per budget the
geometric-mean over cells (game x budget) of each correction's mean MSE relative to kernel_shap's, the cells where each
has the lowest mean MSE of the three, the coverage of its 95% intervals (pooled over players and runs; declined runs
counted apart; for "shrunk-refit" also of the intervals of three candidates not adopted: `empirical_bayes_se`,
`refit_bound_se`, `chi2_scaled_se`; and each one's lowest coverage in a cell of one game and budget), each correction's
largest run MSE over its own cell's median, and the fraction of runs where "shrunk-refit"'s weight is 0 (the estimate is
the refit surrogate's values)."""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, json, time, warnings
from pathlib import Path
import numpy as np
from scipy.stats import chi2
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))
from benchmark_games import games_dir   # the one lookup of the benchmark games
from unseen_families import UNSEEN_GAMES
from estimators_reporting import GRID   # the budgets of issue 17's protocol
from shapnb.core.games import load_table_game, exact_shapley
from shapnb.sampling.kernelshap import kernel_shap
from shapnb.sampling.surrogate import surrogate_shap, CORRECTIONS

RESULTS = ROOT / "bench" / "results"
Z95 = 1.959963984540054
MULTIPLES = {"tune": ("p+2", "2p", "3p", "4p", "8p"), "families": ("2p", "3p", "4p", "8p")}
BUDGET = dict(GRID)


def games(mode: str):
    "(name, game, p, exact values) of the tuning half or of the unseen families."
    if mode == "tune":
        for f in json.loads((RESULTS / "tuning_games.json").read_text())["games"]:
            g = load_table_game(games_dir() / f)
            yield f[:-4], g, g.n_players, g.exact_shapley()
    else:
        for name, (_, build) in UNSEEN_GAMES.items():
            p, g = build()
            yield name, g, p, exact_shapley(g, p)


def empirical_bayes_se(se, U, R) -> np.ndarray:
    """Morris's (1983) empirical-Bayes standard errors of U shrunk towards R with the weight 1 - B, B = min(1, sum se^2 /
    |U - R|^2), over k = p - 1 free coordinates (the values are efficient): se^2 (1 - B (k-2)/k) + 2/(k-2) B^2 (U - R)^2.
    They assume R's errors independent of U's; R is fitted to the same coalitions."""
    d = U - R
    k = len(se) - 1
    B = 1.0 if d @ d == 0 else min(1.0, float((se ** 2).sum() / (d @ d)))
    return np.sqrt(se ** 2 * (1 - B * (k - 2) / k) + 2 / (k - 2) * B ** 2 * d ** 2)


def refit_bound_se(se, U, R, folds, weight: float) -> np.ndarray:
    """A candidate not adopted: per player the larger of the refit's variability (the delete-a-fold jackknife of the K
    folds' surrogates' values) and one draw of its distance from the design-unbiased U (its bias plus U's noise), at least
    the estimate's share of U's SE and at most U's SE: min(se, max(sd_J, |U - R|, weight se))."""
    folds = np.asarray(folds, float)
    K = len(folds)
    jackknife = np.sqrt((K - 1) / K * ((folds - folds.mean(0)) ** 2).sum(0))
    return np.minimum(se, np.maximum.reduce([jackknife, np.abs(U - R), weight * se]))


def chi2_scaled_se(se, U, R, weight: float, level: float = 0.2) -> np.ndarray:
    """A candidate not adopted: U's SE scaled by min(1, max(weight, sqrt(Q / chi2_{p-1}(level)))), Q = sum ((U - R) / se)^2,
    how closely the refit follows U in units of U's noise. Calibrated when pooled, not per game; and where U and R agree
    exactly it leaves no width, although the estimate is then U itself."""
    Q = float((((U - R) / se) ** 2).sum())
    return se * min(1.0, max(weight, float(np.sqrt(Q / chi2.ppf(level, len(se) - 1)))))


def record(game, p, budget, seed, truth) -> dict:
    """One run of each correction and of kernel_shap: MSE, the interval's coverage (None where declined); for
    "shrunk-refit" also its weight and the coverage of the candidate intervals not adopted (None where declined or p < 4)."""
    out = {"kernel_shap": float(np.mean((kernel_shap(game, p, budget, seed=seed, bootstrap=None).values - truth) ** 2))}
    runs = {c: surrogate_shap(game, p, budget, seed=seed, correction=c) for c in CORRECTIONS}
    for c, e in runs.items():
        err = np.asarray(e.values) - truth
        out[c] = float(np.mean(err ** 2))
        out["cov " + c] = None if e.se is None else float(np.mean(np.abs(err) <= Z95 * np.asarray(e.se)))
    e = runs["shrunk-refit"]
    err, d = np.asarray(e.values) - truth, e.details
    out["weight shrunk-refit"] = float(d["shrinkage_weight"])
    measured = e.se is not None and d["refit_values"] is not None and p >= 4
    se, U, R, w = (np.asarray(e.se), d["surrogate_values"] + d["full_correction"], d["refit_values"], d["shrinkage_weight"]) if measured else (None,) * 4
    candidates = {"empirical Bayes": lambda: empirical_bayes_se(se, U, R), "refit bound": lambda: refit_bound_se(se, U, R, d["fold_values"], w),
                  "chi2 scaled": lambda: chi2_scaled_se(se, U, R, w)}
    for name, rule in candidates.items():
        out["cov shrunk-refit, " + name] = float(np.mean(np.abs(err) <= Z95 * rule())) if measured else None
    return out


def summary(rows: list) -> dict:
    import pandas as pd
    d = pd.DataFrame(rows)
    gm = lambda x: float(np.exp(np.mean(np.log(np.maximum(np.asarray(x, float), 1e-300)))))
    cell = d.groupby(["game", "label"])[list(CORRECTIONS) + ["kernel_shap"]].mean()
    rel = {b: {c: gm(x[c] / x["kernel_shap"]) for c in CORRECTIONS} for b, x in cell.groupby(level=1)}
    wins = {b: x[list(CORRECTIONS)].idxmin(axis=1).value_counts().to_dict() for b, x in cell.groupby(level=1)}
    candidates = [c[4:] for c in d.columns if c.startswith("cov shrunk-refit, ")]
    cover = {b: {c: (None if x["cov " + c].isna().all() else
                     [float(x["cov " + c].mean()), int(x["cov " + c].isna().sum())]) for c in list(CORRECTIONS) + candidates}
             for b, x in d.groupby("label")}
    cell_cover = d.groupby(["game", "label"])[["cov " + c for c in ["shrunk-refit"] + candidates]].mean()
    worst_cell_cover = {c[4:]: float(cell_cover[c].min()) for c in cell_cover}
    worst = {c: float((d[c] / d.groupby(["game", "label"])[c].transform("median").clip(lower=1e-12)).max()) for c in CORRECTIONS}
    return dict(n_runs=len(d), mse_relative_to_kernel_shap_gmean=rel, lowest_of_the_three=wins,
                coverage_and_declined=cover, worst_cell_coverage=worst_cell_cover, worst_run_over_cell_median=worst,
                shrunk_refit_weight_zero=float((d["weight shrunk-refit"] == 0).mean()))


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "tune"
    if mode not in MULTIPLES: sys.exit("usage: python bench/surrogate_corrections.py tune|families")
    warnings.simplefilter("ignore")   # small budgets warn (underdetermined designs): expected here
    rows, t0 = [], time.perf_counter()
    seeds = range(5) if mode == "tune" else range(4)
    for name, g, p, truth in games(mode):
        for label in MULTIPLES[mode]:
            budget = BUDGET[label](p)
            if budget >= 2 ** p: continue
            for seed in seeds: rows.append(dict(game=name, p=p, label=label, budget=budget, seed=seed, **record(g, p, budget, seed, truth)))
        print(name, f"{time.perf_counter() - t0:.0f} s", flush=True)
    s = summary(rows)
    (RESULTS / f"surrogate_corrections_{mode}.json").write_text(json.dumps(dict(summary=s, runs=rows), indent=1) + "\n")
    print(f"{len(rows)} runs in {time.perf_counter() - t0:.0f} s")
    print(json.dumps(s, indent=1))
