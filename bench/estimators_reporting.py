"""Our sampling estimators on the benchmark games of issue 17: the surrogate with an honest correction (notebook 25),
kernel_shap (notebook 23) and the baselines of notebook 24, on the tuning half (`tune`) or the reporting half (`report`).

Protocol: the shared games are split once (bench/game_split.py, nbs/data/game_split.json); 13 games of each half, one
per task, are fixed by the rule in bench/results/reporting_games.json (reporting half) and bench/results/tuning_games.json
(the same rule on the tuning half). Budgets p+2, 2p, 3p, 4p, 8p; seeds 0-4; exact values from the stored values of all
2^p coalitions; every game evaluation counted (`n_evals`, from the Explanation).

  taskset -c 0 python bench/estimators_reporting.py tune     -> bench/results/surrogate_tuning.json
  taskset -c 0 python bench/estimators_reporting.py tune-se  -> adds "se_rules" to bench/results/surrogate_tuning.json
  taskset -c 0 python bench/estimators_reporting.py report   -> bench/results/ours_reporting.json
  taskset -c 0 python bench/estimators_reporting.py report-method kernel_shap
                                                        -> reruns one method of METHODS, its records replaced in that file

`report` writes a JSON list of runs {"game", "p", "budget_label", "budget", "seed", "method", "mse" (mean over players of
the squared error), "seconds" (CPU seconds of the call), "coverage" (fraction of players whose 95% interval covers the
exact value; null without an interval), "n_evals"}. `tune` compares the surrogate's variants (kind, folds) on the tuning
half and the coverage of its intervals by budget, and writes the runs and a summary; `tune-se` the coverage on the
tuning half (5 seeds, budgets 2p+6, 3p, 4p, 8p) of the candidate standard-error rules of notebook 25, computed from the
estimator's own bootstrap replicates, fold values and residual degrees of freedom. Both ran with the design-unbiased
correction ("full", the default until 2026-12-07); the default correction is chosen by bench/surrogate_corrections.py. BLAS threads are limited to one.
The games are found by the one lookup, tests/benchmark_games.py ($SHAPNB_GAMES_DIR, else ../shared/games/precomputed)."""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, json, time, warnings
from pathlib import Path
import numpy as np
from threadpoolctl import threadpool_limits
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from benchmark_games import games_dir   # the one lookup of the benchmark games
from shapnb.core.games import load_table_game
from shapnb.sampling.kernelshap import kernel_shap
from shapnb.sampling.baselines import permutation_sampling, kernel_shap_paired, leverage_shap, regression_msr
from shapnb.sampling.surrogate import surrogate_shap

RESULTS = ROOT / "bench" / "results"
Z95 = 1.959963984540054
GRID = (("p+2", lambda p: p + 2), ("2p", lambda p: 2 * p), ("3p", lambda p: 3 * p), ("4p", lambda p: 4 * p),
        ("8p", lambda p: 8 * p))
SEEDS = range(5)
METHODS = {
    "surrogate_shap": lambda g, p, b, s: surrogate_shap(g, p, b, seed=s),
    "kernel_shap": lambda g, p, b, s: kernel_shap(g, p, b, seed=s),
    "permutation_sampling": lambda g, p, b, s: permutation_sampling(g, p, b, seed=s),
    "kernel_shap_paired": lambda g, p, b, s: kernel_shap_paired(g, p, b, seed=s),
    "leverage_shap": lambda g, p, b, s: leverage_shap(g, p, b, seed=s),
    "regression_msr": lambda g, p, b, s: regression_msr(g, p, b, seed=s),
}
VARIANTS = {   # tuning: surrogate kinds and folds (MSE only, the design-unbiased correction), against kernel_shap and regression_msr
    "trees K=5": lambda g, p, b, s: surrogate_shap(g, p, b, seed=s, correction="full", bootstrap=None),
    "trees K=10": lambda g, p, b, s: surrogate_shap(g, p, b, seed=s, n_folds=10, correction="full", bootstrap=None),
    "linear+trees K=5": lambda g, p, b, s: surrogate_shap(g, p, b, seed=s, surrogate="linear+trees", correction="full", bootstrap=None),
    "linear K=5": lambda g, p, b, s: surrogate_shap(g, p, b, seed=s, surrogate="linear", correction="full", bootstrap=None),
    "kernel_shap": lambda g, p, b, s: kernel_shap(g, p, b, seed=s, bootstrap=None),
    "regression_msr": lambda g, p, b, s: regression_msr(g, p, b, seed=s),
}


def run(fn, g, p, label, budget, seed, method, truth) -> dict:
    "One run of `fn` as a record."
    t0 = time.process_time()
    e = fn(g, p, budget, seed)
    sec = time.process_time() - t0
    err = np.asarray(e.values, float).reshape(p) - truth
    cov = None if e.se is None else float(np.mean(np.abs(err) <= Z95 * np.asarray(e.se).reshape(p)))
    return dict(game=g.name if hasattr(g, "name") else "", p=p, budget_label=label, budget=budget, seed=seed, method=method,
                mse=float(np.mean(err ** 2)), seconds=sec, coverage=cov, n_evals=int(e.n_evals))


def sweep(files, methods, seeds, labels=None) -> list:
    "Every method on every game, budget and seed."
    out, t0 = [], time.perf_counter()
    for i, f in enumerate(files):
        g = load_table_game(games_dir() / f); p = g.n_players; truth = g.exact_shapley()
        for label, budget in GRID:
            if labels and label not in labels: continue
            for seed in seeds:
                for name, fn in methods.items():
                    r = run(fn, g, p, label, budget(p), seed, name, truth); r["game"] = f[:-4]
                    out.append(r)
        print(f"{i + 1}/{len(files)} {f} {time.perf_counter() - t0:.0f} s", flush=True)
    return out


def se_rules(files) -> dict:
    "Coverage by budget of the candidate standard-error rules on the tuning games (notebook 25's choice: t, plus folds)."
    from scipy.stats import t as student_t
    from shapnb.sampling.bootstrap import replicate_se
    from shapnb.sampling.regression import residual_df
    cov = {}
    for f in files:
        g = load_table_game(games_dir() / f); p = g.n_players; truth = g.exact_shapley()
        for label, budget in (("2p+6", 2 * p + 6), ("3p", 3 * p), ("4p", 4 * p), ("8p", 8 * p)):
            for seed in SEEDS:
                e = surrogate_shap(g, p, budget, seed=seed, correction="full")
                if e.se is None: continue
                err, boot = np.abs(e.values - truth), replicate_se(e.replicates)
                spread, nu = np.var(e.fold_values, axis=0, ddof=1), residual_df(e.design)
                q = student_t.ppf(0.975, nu)
                rules = {"bootstrap": Z95 * boot, "t quantile": q * boot, "t, plus folds / K": q * np.sqrt(boot ** 2 + spread / e.n_folds),
                         "t, plus folds (chosen)": q * np.sqrt(boot ** 2 + spread)}
                for name, half in rules.items(): cov.setdefault(name, {}).setdefault(label, []).append(float(np.mean(err <= half)))
        print(f, flush=True)
    return {name: {b: float(np.mean(v)) for b, v in by.items()} for name, by in cov.items()}


def gmean(x): return float(np.exp(np.mean(np.log(np.asarray(x, float)))))


def tune_summary(runs) -> dict:
    "Geometric-mean MSE of each variant relative to kernel_shap by budget, and the surrogate's coverage by budget."
    import pandas as pd
    d = pd.DataFrame(runs)
    v = d[d.method.isin(VARIANTS)]
    cell = v.groupby(["game", "budget_label", "method"]).mse.mean().unstack()
    rel = {b: {m: gmean(x[m] / x["kernel_shap"]) for m in cell.columns} for b, x in cell.groupby(level=1)}
    wins = {b: x.idxmin(axis=1).value_counts().to_dict() for b, x in cell.groupby(level=1)}
    c = d[d.method == "surrogate_shap (intervals)"]
    cov = {b: dict(runs=int(len(x)), declined=int(x.coverage.isna().sum()),
                   coverage=(None if x.coverage.isna().all() else float(x.coverage.mean())))
           for b, x in c.groupby("budget_label")}
    return dict(mse_relative_to_kernel_shap_gmean=rel, lowest_in_cells=wins, surrogate_coverage=cov)


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "report"
    warnings.simplefilter("ignore")   # small budgets warn (underdetermined designs, odd budgets): expected here
    with threadpool_limits(1):
        if mode == "tune":
            files = json.loads((RESULTS / "tuning_games.json").read_text())["games"]
            runs = sweep(files, VARIANTS, range(2), labels=("2p", "3p", "4p", "8p"))
            full = lambda g, p, b, s: surrogate_shap(g, p, b, seed=s, correction="full")   # as tuned; the correction: surrogate_corrections.py
            runs += [dict(r, method="surrogate_shap (intervals)") for r in sweep(files, {"s": full}, SEEDS)]
            out = dict(games=files, summary=tune_summary(runs), runs=runs)
            (RESULTS / "surrogate_tuning.json").write_text(json.dumps(out, indent=1) + "\n")
            print(json.dumps(out["summary"], indent=1))
        elif mode == "tune-se":
            path = RESULTS / "surrogate_tuning.json"
            out = json.loads(path.read_text())
            out["se_rules"] = se_rules(json.loads((RESULTS / "tuning_games.json").read_text())["games"])
            path.write_text(json.dumps(out, indent=1) + "\n")
            print(json.dumps(out["se_rules"], indent=1))
        elif mode == "report":
            files = json.loads((RESULTS / "reporting_games.json").read_text())["games"]
            runs = sweep(files, METHODS, SEEDS)
            (RESULTS / "ours_reporting.json").write_text(json.dumps(runs, indent=1) + "\n")
            print(f"{len(runs)} runs -> {RESULTS / 'ours_reporting.json'}")
        elif mode == "report-method":   # after a change to one method: its runs again, the others' kept
            name = sys.argv[2]
            if name not in METHODS: sys.exit(f"unknown method {name!r}: use one of {list(METHODS)}")
            files = json.loads((RESULTS / "reporting_games.json").read_text())["games"]
            path = RESULTS / "ours_reporting.json"
            runs = [r for r in json.loads(path.read_text()) if r["method"] != name] + sweep(files, {name: METHODS[name]}, SEEDS)
            path.write_text(json.dumps(runs, indent=1) + "\n")
            print(f"{len(runs)} runs -> {path}")
        else: sys.exit(f"unknown mode {mode!r}: use tune, tune-se, report or report-method")
