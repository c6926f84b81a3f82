"""The GP surrogate with an honest correction (notebook 35, `gp_surrogate_shap`) on the benchmark games of issue 17:
tuning on the tuning half (`tune`), then one run of the chosen configuration on the reporting half (`report`).

Protocol (as bench/estimators_reporting.py): the shared games are split once (bench/game_split.py); 13 games of each
half, one per task (bench/results/tuning_games.json, bench/results/reporting_games.json). Exact values from the stored
values of all 2^p coalitions; every game evaluation counted (`n_evals`, from the Explanation); "seconds" is the CPU time
of the call (time.process_time, one thread).

  taskset -c 1 python bench/gp_surrogate.py tune [n_seeds=3]  -> bench/results/gp_surrogate_tuning.json
  taskset -c 1 python bench/gp_surrogate.py summary            -> recomputes the tuning summary from the saved runs
  taskset -c 1 python bench/gp_surrogate.py report             -> bench/results/gp_surrogate_reporting.json
  (or in parts: `taskset -c 0 python bench/gp_surrogate.py report 0 2`, `... report 1 2` on the other core, then
   `python bench/gp_surrogate.py report-merge 2`)
  python bench/gp_surrogate.py shrinkage [part n_parts]         -> bench/results/gp_surrogate_shrinkage.json
  taskset -c 1 python bench/gp_surrogate.py se-rules           -> bench/results/gp_surrogate_se_rules.json

`tune` runs the variants of VARIANTS (kernel, folds, hyperparameters shared or per fold, a fraction of the budget spent
first on ShaplEIG's EIG-chosen coalitions) and, on the SAME games, budgets and seeds, kernel_shap, regression_msr and our
ShaplEIG (kernel="auto", the default, and kernel="fixed", the old default): budgets 2p, 3p, 4p, 8p (the cells of
criterion 3) and p+2 (coverage only), seeds 0..n_seeds-1. Each record is appended at once to
bench/results/gp_surrogate_tuning.jsonl (a rerun skips what is done; git-ignored: the runs are also saved under "runs" in
gp_surrogate_tuning.json). The summary: geometric-mean MSE ratio of each
variant to our shapleig and to kernel_shap by budget, the cells (game x budget, 2p up) where each method has the lowest
mean MSE of all methods run, and coverage of the 95% intervals by budget.

`report` runs only CHOSEN (method name "gp_surrogate_shap"), budgets p+2, 2p, 3p, 4p, 8p, seeds 0-4, and writes a JSON
list of runs {"game", "p", "budget_label", "budget", "seed", "method", "mse", "seconds", "coverage", "n_evals"} that
bench/issue17_report.py reads. Run it once, after the choice is fixed.

`shrinkage` (a diagnostic on the tuning half, seeds 0-2, budgets 2p-8p, active fractions SHRINK_ACTIVE) splits each
run of the whole (design-unbiased) correction into the alternatives it could report: the folds' surrogate values alone, the
correction shrunk towards zero by a James-Stein weight w = (1 - c / |delta|^2)_+ (delta: the correction's zero-sum
part, S: its bootstrap covariance; c = tr S, the plug-in of the oracle weight, or Bock's c = tr S - 2 lambda_max(S)),
and the GP posterior mean fitted to every evaluated coalition; with the MSE of
each against our shapleig on the same runs, and the coverage of the corrected estimate's interval around each.
Records go to bench/results/gp_surrogate_shrinkage.jsonl (parts can run in parallel: `shrinkage 0 2`, `shrinkage 1 2`;
then `shrinkage` alone writes the summary once every part is done). BLAS and torch threads are limited to one.
`se-rules` (tuning half, CHOSEN, budgets 3p, 4p, 8p, seeds 0-4) asks whether a tighter interval than the default's
would still cover: the coverage by budget of the default rule (Student's quantile times sqrt(bootstrap^2 + folds' spread
s^2), notebook 25), of s^2/K in its place, of the part of s^2 the cross-fitting's fold mismatch explains (s^2 times the
kernel mass of the sampled strata not every fold holds, weighted by 1/|H| - 1/K: the variance of a mean over the |H|
folds holding a stratum against the mean over all K, for folds alike), and of the bootstrap alone (with Student's
quantile). Notebook 35 checks the same rules on three games outside the benchmark.
The games are found by the one lookup, tests/benchmark_games.py ($SHAPNB_GAMES_DIR, else ../shared/games/precomputed)."""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, json, time, warnings
from pathlib import Path
import torch
from threadpoolctl import threadpool_limits
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))
from benchmark_games import games_dir   # the one lookup of the benchmark games
from estimators_reporting import run, GRID, SEEDS, RESULTS, gmean   # the same record format and budgets
from shapnb.core.games import load_table_game
from shapnb.sampling.kernelshap import kernel_shap
from shapnb.sampling.baselines import regression_msr
from shapnb.bayes.shapleig import shapleig
from shapnb.bayes.surrogate import gp_surrogate_shap, GPSurrogate

NAME = "gp_surrogate_shap"
CHOSEN = dict()   # the configuration chosen on the tuning half (see notebook 35): the defaults of gp_surrogate_shap (correction shrunk towards the refit posterior mean)
VARIANTS = {   # the first six: the whole (design-unbiased) correction; then notebook 25's shrunk correction
    "gps auto K=5 shared": dict(correction="full"),
    "gps auto K=10 shared": dict(n_folds=10, correction="full"),
    "gps hamming K=5 shared": dict(kernel="hamming", correction="full"),
    "gps auto K=5 fold": dict(hyper_fit="fold", correction="full"),
    "gps auto K=5 active=0.25": dict(active=0.25, correction="full"),
    "gps auto K=5 active=0.5": dict(active=0.5, correction="full"),
    "gps auto K=5 shrunk": dict(correction="shrunk"),
    "gps auto K=5 shrunk active=0.75": dict(active=0.75, correction="shrunk"),
    "gps auto K=5 shrunk fold": dict(correction="shrunk", hyper_fit="fold"),   # added after an audit: shared hyperparameters under-cover a voting game
    "gps auto K=5 shrunk-refit fold": dict(correction="shrunk-refit", hyper_fit="fold"),   # added after an audit: folds that miss a dominant player
}
BASELINES = {
    "kernel_shap": lambda g, p, b, s: kernel_shap(g, p, b, seed=s, bootstrap=None),
    "regression_msr": lambda g, p, b, s: regression_msr(g, p, b, seed=s),
    "shapleig": lambda g, p, b, s: shapleig(g, p, b, seed=s, progress=False),
    "shapleig_old": lambda g, p, b, s: shapleig(g, p, b, seed=s, progress=False, kernel="fixed"),
}
CELL_LABELS = ("2p", "3p", "4p", "8p")


def gps(options: dict):
    "gp_surrogate_shap with `options` as a bench method."
    return lambda g, p, b, s: gp_surrogate_shap(g, p, b, seed=s, **options)


def tune(n_seeds: int):
    "Every variant and baseline on every tuning game, budget and seed; records appended to the .jsonl at once."
    files = json.loads((RESULTS / "tuning_games.json").read_text())["games"]
    log = RESULTS / "gp_surrogate_tuning.jsonl"
    done = set()
    if log.exists():
        for line in log.read_text().splitlines():
            r = json.loads(line); done.add((r["game"], r["budget_label"], r["seed"], r["method"]))
    methods = {**{k: gps(v) for k, v in VARIANTS.items()}, **BASELINES}
    t0 = time.perf_counter()
    with log.open("a") as out:
        for i, f in enumerate(files):
            g = load_table_game(games_dir() / f); p = g.n_players; truth = g.exact_shapley()
            for label, budget in GRID:
                for seed in range(n_seeds):
                    for name, fn in methods.items():
                        if label not in CELL_LABELS and not name.startswith("gps"): continue   # p+2: coverage of ours only
                        if (f[:-4], label, seed, name) in done: continue
                        r = run(fn, g, p, label, budget(p), seed, name, truth); r["game"] = f[:-4]
                        out.write(json.dumps(r) + "\n"); out.flush()
            print(f"{i + 1}/{len(files)} {f} {time.perf_counter() - t0:.0f} s", flush=True)


def tuning_runs() -> list:
    "The tuning records: the .jsonl log if present (it is git-ignored), else the runs saved in gp_surrogate_tuning.json."
    log = RESULTS / "gp_surrogate_tuning.jsonl"
    if log.exists(): return [json.loads(l) for l in log.read_text().splitlines()]
    return json.loads((RESULTS / "gp_surrogate_tuning.json").read_text())["runs"]


def summary(runs) -> dict:
    "Tuning summary: MSE ratios (geometric mean over cells) by budget, cells won, coverage by budget."
    import pandas as pd
    d = pd.DataFrame(runs)
    cell = d[d.budget_label.isin(CELL_LABELS)].groupby(["game", "budget_label", "method"]).mse.mean().unstack().dropna()
    rel = {ref: {b: {m: gmean(x[m] / x[ref]) for m in cell.columns} for b, x in cell.groupby(level=1)}
           for ref in ("shapleig", "kernel_shap")}
    won = {}
    for v in VARIANTS:   # each variant against every baseline (the other variants left out): cells where it is lowest
        c = cell[[v] + list(BASELINES)]
        won[v] = {b: int((x.idxmin(axis=1) == v).sum()) for b, x in c.groupby(level=1)}
        won[v]["total"] = int(sum(won[v].values()))
    lowest_all = cell.idxmin(axis=1).value_counts().to_dict()
    cov = {v: {b: dict(runs=int(len(x)), declined=int(x.coverage.isna().sum()),
                       coverage=None if x.coverage.isna().all() else float(x.coverage.mean()))
               for b, x in d[d.method == v].groupby("budget_label")} for v in VARIANTS}
    sec = d.groupby("method").seconds.mean().to_dict()
    return dict(n_runs=len(d), n_cells=int(len(cell)), seeds=sorted(d.seed.unique().tolist()),
                mse_ratio_gmean=rel, cells_lowest_vs_baselines=won, lowest_of_all_methods=lowest_all, coverage=cov,
                mean_seconds=sec)


def report(part: int = 0, n_parts: int = 1):
    "CHOSEN on the reporting half (this part's share of the games): budgets p+2..8p, seeds 0-4."
    files = json.loads((RESULTS / "reporting_games.json").read_text())["games"]
    runs, t0 = [], time.perf_counter()
    for i, f in enumerate(files):
        if i % n_parts != part: continue
        g = load_table_game(games_dir() / f); p = g.n_players; truth = g.exact_shapley()
        for label, budget in GRID:
            for seed in SEEDS:
                r = run(gps(CHOSEN), g, p, label, budget(p), seed, NAME, truth); r["game"] = f[:-4]
                runs.append(r)
        print(f"{i + 1}/{len(files)} {f} {time.perf_counter() - t0:.0f} s", flush=True)
    path = RESULTS / ("gp_surrogate_reporting.json" if n_parts == 1 else f"gp_surrogate_reporting.part{part}of{n_parts}.json")
    path.write_text(json.dumps(runs, indent=1) + "\n")
    print(f"{len(runs)} runs -> {path}")


def merge_report(n_parts: int):
    "The parts of `report part n_parts` as the one file issue17_report.py reads (the parts removed)."
    parts = [RESULTS / f"gp_surrogate_reporting.part{k}of{n_parts}.json" for k in range(n_parts)]
    if missing := [q.name for q in parts if not q.exists()]: sys.exit(f"parts missing: {missing}")
    runs = [r for q in parts for r in json.loads(q.read_text())]
    (RESULTS / "gp_surrogate_reporting.json").write_text(json.dumps(runs, indent=1) + "\n")
    for q in parts: q.unlink()
    print(f"{len(runs)} runs -> gp_surrogate_reporting.json")


SHRINK_ACTIVE = (0.0, 0.5, 0.75)
SHRINK_ESTIMATES = ("corrected", "surrogate", "shrunk", "shrunk_bock", "full_gp", "full_gp_shrunk")


def shrinkage_record(g, p, truth, label, budget, seed, active) -> dict:
    "One diagnostic run: the MSE of each of SHRINK_ESTIMATES, the James-Stein weight, coverage around each."
    import numpy as np
    e = gp_surrogate_shap(g, p, budget, seed=seed, bootstrap="symmetric", active=active, correction="full")
    d = e.details
    cor = d["correction"]
    c0 = np.full(p, cor.sum() / p)                         # the efficiency part (the HT part sums to zero)
    delta = cor - c0
    D = d["replicates"] - d["replicates"].mean(0)
    S = D.T @ D / (len(D) - 1)
    w = max(0.0, 1 - np.trace(S) / max(float(delta @ delta), 1e-300))
    top = float(np.linalg.eigvalsh(S)[-1])                 # Bock's constant tr S - 2 lambda_max (dominance needs tr S >= 4 lambda_max)
    w_bock = max(0.0, 1 - max(np.trace(S) - 2 * top, 0.0) / max(float(delta @ delta), 1e-300))
    sur = d["surrogate_values"] + c0
    ends = np.array([np.zeros(p, bool), np.ones(p, bool)])
    Za, ya = d["anchors"] if d["anchors"] is not None else (np.zeros((0, p), bool), np.zeros(0))
    Z = np.concatenate([ends, Za, d["coalitions"]])
    y = np.concatenate([[d["v_empty"], d["v_full"]], ya, d["game_values"]])
    gp = GPSurrogate().prepare(Z, y).fit(Z, y)
    full = gp.shapley(); full += (d["v_full"] - d["v_empty"] - full.sum()) / p
    est = dict(corrected=e.values, surrogate=sur, shrunk=sur + w * delta, shrunk_bock=sur + w_bock * delta, full_gp=full,
               full_gp_shrunk=full + w * delta)
    rec = dict(p=p, budget_label=label, budget=budget, seed=seed, active=active, weight=w, weight_bock=w_bock,
               trace_over_top=float(np.trace(S) / top), n_evals=int(e.n_evals))
    for k, v in est.items():
        rec[f"mse_{k}"] = float(np.mean((v - truth) ** 2))
        rec[f"coverage_{k}"] = float(np.mean(np.abs(v - truth) <= 1.959963984540054 * e.se))
    return rec


def shrinkage(part: int, n_parts: int):
    "The diagnostic runs of one part of the tuning games; records appended to the .jsonl at once."
    files = json.loads((RESULTS / "tuning_games.json").read_text())["games"][part::n_parts]
    log = RESULTS / "gp_surrogate_shrinkage.jsonl"
    done = set()
    if log.exists():
        for line in log.read_text().splitlines():
            r = json.loads(line); done.add((r["game"], r["budget_label"], r["seed"], r["active"]))
    with log.open("a") as out:
        for f in files:
            g = load_table_game(games_dir() / f); p = g.n_players; truth = g.exact_shapley()
            for label, budget in GRID:
                if label not in CELL_LABELS: continue
                for seed in range(3):
                    for active in SHRINK_ACTIVE:
                        if (f[:-4], label, seed, active) in done: continue
                        r = shrinkage_record(g, p, truth, label, budget(p), seed, active); r["game"] = f[:-4]
                        out.write(json.dumps(r) + "\n"); out.flush()
            print(f, flush=True)


def shrinkage_summary() -> dict:
    "Per active fraction and budget: geometric-mean MSE of each estimate over the cells relative to our shapleig (same runs), cells where it beats both our ShaplEIGs, mean weight, coverage."
    import numpy as np, pandas as pd
    d = pd.DataFrame([json.loads(l) for l in (RESULTS / "gp_surrogate_shrinkage.jsonl").read_text().splitlines()])
    t = pd.DataFrame(tuning_runs())
    base = t[t.method.isin(["shapleig", "shapleig_old"])].pivot_table(index=["game", "budget_label", "seed"], columns="method", values="mse")
    d = d.join(base, on=["game", "budget_label", "seed"])
    out = {}
    for a, x in d.groupby("active"):
        cell = x.groupby(["game", "budget_label"]).mean(numeric_only=True)
        out[str(a)] = {b: dict(cells=int(len(y)), weight=float(y.weight.mean()), weight_bock=float(y.weight_bock.mean()),
                               trace_over_top_median=float(x[x.budget_label == b].trace_over_top.median()),
                               mse_vs_shapleig={k: gmean(y[f"mse_{k}"] / y["shapleig"]) for k in SHRINK_ESTIMATES},
                               cells_below_both_shapleigs={k: int((y[f"mse_{k}"] < np.minimum(y.shapleig, y.shapleig_old)).sum())
                                                           for k in SHRINK_ESTIMATES},
                               coverage={k: float(x[x.budget_label == b][f"coverage_{k}"].mean()) for k in SHRINK_ESTIMATES})
                       for b, y in cell.groupby(level=1)}
    return dict(n_runs=len(d), by_active=out)


def mismatch_share(design, folds, n_folds: int) -> float:
    "Kernel-mass share of the sampled strata not held by every fold, each weighted by 1/|H| - 1/K (see the docstring)."
    import numpy as np
    from shapnb.sampling.design import shapley_kernel
    stratum_of_unit = np.zeros(design.n_units, np.int64); stratum_of_unit[design.unit] = design.stratum
    held = np.array([len(np.unique(folds[stratum_of_unit == h])) for h in range(len(design.counts))])
    sampled = (design.counts > 0) & (design.counts < design.population)
    mass = design.population * shapley_kernel(design.p, design.sizes)
    share = np.where(sampled & (held < n_folds), 1 / np.maximum(held, 1) - 1 / n_folds, 0.0)
    return float((share * mass).sum() / mass.sum())


SE_RULES = ("default: t, bootstrap + s^2", "t, bootstrap + s^2/K", "t, bootstrap + fold mismatch", "t, bootstrap alone")


def se_rule_coverage(e, truth) -> dict:
    "Coverage of each of SE_RULES' 95% intervals around the estimate `e` (an Explanation of gp_surrogate_shap with an se)."
    import numpy as np
    from scipy.stats import t as student_t
    from shapnb.sampling.bootstrap import replicate_se
    from shapnb.sampling.regression import residual_df
    d = e.details
    boot, spread, K = replicate_se(d["replicates"]), np.var(d["fold_values"], axis=0, ddof=1), d["n_folds"]
    q = float(student_t.ppf(0.975, max(residual_df(d["design"]), 1)))
    share = mismatch_share(d["design"], d["folds"], K)
    widths = (np.asarray(e.se) * 1.959963984540054, q * np.sqrt(boot ** 2 + spread / K), q * np.sqrt(boot ** 2 + share * spread), q * boot)
    err = np.abs(np.asarray(e.values) - truth)
    return {rule: float(np.mean(err <= w)) for rule, w in zip(SE_RULES, widths)}


def se_rules() -> dict:
    "Coverage by budget of SE_RULES on the tuning half (CHOSEN, budgets 3p, 4p, 8p, seeds 0-4)."
    import numpy as np
    files = json.loads((RESULTS / "tuning_games.json").read_text())["games"]
    cov = {}
    for f in files:
        g = load_table_game(games_dir() / f); p = g.n_players; truth = g.exact_shapley()
        for label, budget in GRID:
            if label not in ("3p", "4p", "8p"): continue
            for seed in SEEDS:
                e = gp_surrogate_shap(g, p, budget(p), seed=seed, **CHOSEN)
                if e.se is None: continue
                for rule, c in se_rule_coverage(e, truth).items(): cov.setdefault(rule, {}).setdefault(label, []).append(c)
        print(f, flush=True)
    return {rule: {b: dict(runs=len(c), coverage=float(np.mean(c))) for b, c in by.items()} for rule, by in cov.items()}


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "tune"
    warnings.simplefilter("ignore")   # small budgets warn (underdetermined designs): expected here
    torch.set_num_threads(1)
    with threadpool_limits(1):
        if mode == "tune":
            tune(int(sys.argv[2]) if len(sys.argv) > 2 else 3)
        if mode in ("tune", "summary"):
            runs = tuning_runs()
            out = dict(games=json.loads((RESULTS / "tuning_games.json").read_text())["games"], variants=VARIANTS, summary=summary(runs),
                       runs=runs)
            (RESULTS / "gp_surrogate_tuning.json").write_text(json.dumps(out, indent=1, default=str) + "\n")
            print(json.dumps(out["summary"], indent=1))
        elif mode == "report":
            report(*map(int, sys.argv[2:4]))
        elif mode == "report-merge":
            merge_report(int(sys.argv[2]))
        elif mode == "shrinkage":
            if len(sys.argv) > 2: shrinkage(int(sys.argv[2]), int(sys.argv[3]))
            else:
                out = shrinkage_summary()
                (RESULTS / "gp_surrogate_shrinkage.json").write_text(json.dumps(out, indent=1) + "\n")
                print(json.dumps(out, indent=1))
        elif mode == "se-rules":
            out = se_rules()
            (RESULTS / "gp_surrogate_se_rules.json").write_text(json.dumps(out, indent=1) + "\n")
            print(json.dumps(out, indent=1))
        elif mode != "summary": sys.exit(f"unknown mode {mode!r}: use tune, summary, report, shrinkage or se-rules")
