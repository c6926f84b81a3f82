"""Issue 17, criterion (3): `gp_surrogate_shap(eig_after="auto")` (notebook 35: the design up to `singletons_budget(p)`,
then ShaplEIG's coalitions chosen given the design's, in the refit only) against the design alone (eig_after=0, the
estimator before this rule) and the baselines, on the tuning half, before the rule became the default.

  taskset -c 0 python bench/gp_surrogate_eig_after.py run 0 2 [n_seeds]   (and `run 1 2` on the other core; n_seeds: the
                                                                             first seeds only, the rest by a later run)
  taskset -c 0 python bench/gp_surrogate_eig_after.py run-lead 0 2   (and `run-lead 1 2`; likewise run2p, run-below)
  python bench/gp_surrogate_eig_after.py summary                  -> bench/results/gp_surrogate_eig_after.json
  taskset -c 0 python bench/gp_surrogate_eig_after.py families 0 2   (and `families 1 2`), then `families-summary`
                                                                  -> bench/results/gp_surrogate_eig_after_families.json

Budgets 2p, 3p, 4p, 8p (the cells of criterion 3); seeds 0-4; the 13 tuning games (bench/results/tuning_games.json);
the record format of bench/estimators_reporting.py (CPU seconds, coverage of the 95% interval, evaluations counted).
Records are appended to bench/results/gp_surrogate_eig_after.jsonl (a rerun skips what is done). `summary` prints and
writes, by budget: the geometric-mean MSE ratio over the cells of eig_after="auto" to the design alone and to our
ShaplEIG; the cells where each of the two has the lowest mean MSE against shapleig, shapleig_old, kernel_shap and
regression_msr; coverage of the intervals; seconds per run.

`run2p part n_parts` (the lead after "auto"): at 2p only, where "auto" then left the whole budget to the design, fixed
fractions EIG_AFTER_2P of the budget to ShaplEIG after it (seeds 0-4, same records); `summary` then adds their MSE
against our ShaplEIG at 2p and the cells where each is lowest against the baselines (`lead_at_2p`).

`run-lead part n_parts`: fixed fractions to ShaplEIG at every budget (EIG_AFTER_LEAD: three quarters at p+2 ... 8p, with
the design alone and the baselines at p+2; nine tenths at p+2 and 2p, where three quarters beat "auto"); `summary` gives
each by budget against our ShaplEIG, "auto" and the design alone (`lead_every_budget`). They chose the rule below
interval_budget(p) (notebook 35): three quarters to ShaplEIG where the design gives no interval. The records named
"gps eig_after=auto" are the rule before it (the design up to singletons_budget(p), ShaplEIG after; at p+2 and 2p the
design alone); `run-below part n_parts` runs today's default at p+2 and 2p as BELOW (its design is the fraction's, made
even), and `summary` reports it with the leads.

`families` runs the default and the design alone on the 24 games of bench/unseen_families.py (families outside the
benchmark: voting, airport, unanimity sums, a dominant player, ...; exact values by brute force), budgets 3p, 4p, 8p
(and p+2, 2p since the rule below interval_budget(p)), seeds 0-2 (records in
bench/results/gp_surrogate_eig_after_families.jsonl); `families-summary` gives by budget the geometric-mean MSE ratio of
the two, the games where the default is worse, coverage and the largest MSE ratio of a run to its cell's median over
both methods."""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, json
from pathlib import Path
import numpy as np
import pandas as pd
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))
from benchmark_games import games_dir   # the one lookup of the benchmark games
from estimators_reporting import run as run_one, GRID, SEEDS, RESULTS
from gp_surrogate import BASELINES, CELL_LABELS
from shapnb.core.games import load_table_game
from shapnb.bayes.surrogate import gp_surrogate_shap

RECORDS, SUMMARY = RESULTS / "gp_surrogate_eig_after.jsonl", RESULTS / "gp_surrogate_eig_after.json"
NEW, ALONE = "gps eig_after=auto", "gps eig_after=0"
METHODS = {NEW: lambda g, p, b, s: gp_surrogate_shap(g, p, b, seed=s, eig_after="auto"),
           ALONE: lambda g, p, b, s: gp_surrogate_shap(g, p, b, seed=s, eig_after=0), **BASELINES}


def recorded(path: Path) -> set:
    "(game, budget label, seed, method) of every record already in the .jsonl at `path` (a rerun skips them)."
    if not path.exists(): return set()
    return {(r["game"], r["budget_label"], r["seed"], r["method"]) for r in map(json.loads, path.read_text().splitlines())}


def run_plan(part: int, n_parts: int, plan):
    "Every (budget label, budget, seeds, method name, method) of `plan(p)` on this part's share of the tuning games, records to RECORDS."
    files = json.loads((RESULTS / "tuning_games.json").read_text())["games"]
    done = recorded(RECORDS)
    for i, f in enumerate(files):
        if i % n_parts != part: continue
        g = load_table_game(games_dir() / f); p = g.n_players; truth = g.exact_shapley()
        for label, budget, seeds, name, fn in plan(p):
            for seed in seeds:
                if (f[:-4], label, seed, name) in done: continue
                r = run_one(fn, g, p, label, budget, seed, name, truth); r["game"] = f[:-4]
                with open(RECORDS, "a") as fh: fh.write(json.dumps(r) + "\n")
        print(f"{i + 1}/{len(files)} {f}", flush=True)


def run(part: int = 0, n_parts: int = 1, n_seeds: int = len(SEEDS)):
    "Every method, budget and seed (the first n_seeds) on this part's share of the tuning games; records appended to RECORDS."
    run_plan(part, n_parts, lambda p: [(label, budget(p), SEEDS[:n_seeds], name, fn) for label, budget in GRID if label in CELL_LABELS
                                       for name, fn in METHODS.items()])


EIG_AFTER_2P = (0.5, 0.75)


def fraction_method(frac: float):
    "gp_surrogate_shap with `frac` of the budget to ShaplEIG after the design, lowered where the design would keep fewer than 4."
    return lambda g, p, b, s: gp_surrogate_shap(g, p, b, seed=s, eig_after=frac if b - round(frac * b) >= 4 else (b - 4) / b)


def run2p(part: int = 0, n_parts: int = 1):
    "At 2p, fixed fractions EIG_AFTER_2P after the design, on this part's share of the tuning games; records to RECORDS."
    run_plan(part, n_parts, lambda p: [("2p", 2 * p, SEEDS, f"gps eig_after={frac}", fraction_method(frac)) for frac in EIG_AFTER_2P])


EIG_AFTER_LEAD = {0.75: ("p+2", "2p", "3p", "4p", "8p"), 0.9: ("p+2", "2p")}   # 0.9 where 0.75 beat "auto" (below an interval)


def run_lead(part: int = 0, n_parts: int = 1):
    "Fixed fractions EIG_AFTER_LEAD to ShaplEIG at every budget p+2 ... 8p (and the baselines at p+2), this part's tuning games."
    def plan(p):
        out = [(label, budget(p), SEEDS, f"gps eig_after={frac}", fraction_method(frac))
               for frac, labels in EIG_AFTER_LEAD.items() for label, budget in GRID if label in labels]
        return out + [("p+2", p + 2, SEEDS, name, fn) for name, fn in {ALONE: METHODS[ALONE], **BASELINES}.items()]
    run_plan(part, n_parts, plan)


BELOW = "gps auto below the interval"   # the default since the rule below interval_budget(p): at p+2 and 2p, where it differs


def run_below(part: int = 0, n_parts: int = 1):
    "The default gp_surrogate_shap at p+2 and 2p (below interval_budget(p): a quarter to the design), this part's tuning games."
    default = lambda g, p, b, s: gp_surrogate_shap(g, p, b, seed=s)
    run_plan(part, n_parts, lambda p: [(label, budget(p), SEEDS, BELOW, default) for label, budget in GRID[:2]])


def summary() -> dict:
    "By budget: MSE ratios of the new rule, cells lowest against the baselines, coverage, seconds."
    d = pd.DataFrame(map(json.loads, RECORDS.read_text().splitlines()))
    leads = sorted({f"gps eig_after={frac}" for frac in EIG_AFTER_2P + tuple(EIG_AFTER_LEAD)}) + [BELOW]
    by_cell, every_run = d.groupby(["game", "budget_label", "method"]).mse.mean().unstack(), d
    d = d[~d.method.isin(leads) & (d.budget_label != "p+2")]
    cell = d.groupby(["game", "budget_label", "method"]).mse.mean().unstack().dropna()
    gmean = lambda r: {k: round(float(v), 3) for k, v in np.exp(np.log(r).groupby(level="budget_label").mean()).items()}
    lowest = lambda m: {k: int(v) for k, v in (cell[[m] + list(BASELINES)].idxmin(axis=1) == m).groupby(level="budget_label").sum().items()}
    out = dict(n_runs=len(d), n_cells=len(cell), seeds=sorted(d.seed.unique().tolist()),
               new_vs_alone=gmean(cell[NEW] / cell[ALONE]), new_vs_shapleig=gmean(cell[NEW] / cell["shapleig"]),
               alone_vs_shapleig=gmean(cell[ALONE] / cell["shapleig"]),
               cells_lowest={m: lowest(m) for m in (NEW, ALONE)},
               lowest_of_all=cell.idxmin(axis=1).value_counts().to_dict(),
               coverage={m: {k: None if x.isna().all() else round(float(x.mean()), 4) for k, x in d[d.method == m].groupby("budget_label").coverage}
                         for m in (NEW, ALONE)},
               seconds={m: {k: round(float(x.mean()), 2) for k, x in d[d.method == m].groupby("budget_label").seconds} for m in METHODS})
    at_2p = by_cell.xs("2p", level="budget_label")
    out["lead_at_2p"] = {m: dict(vs_shapleig=round(float(np.exp(np.log(at_2p[m] / at_2p["shapleig"]).mean())), 3),
                                 cells_better_than_shapleig=int((at_2p[m] < at_2p["shapleig"]).sum()),
                                 cells_lowest=int((at_2p[[m] + list(BASELINES)].idxmin(axis=1) == m).sum()), cells=int(at_2p[m].notna().sum()))
                         for m in (f"gps eig_after={frac}" for frac in EIG_AFTER_2P) if m in at_2p}
    out["lead_every_budget"] = {}   # run_lead: a fixed fraction to ShaplEIG at every budget (p+2 against its own baselines' runs)
    for m in leads:
        if m not in by_cell: continue
        x = by_cell[by_cell[m].notna() & by_cell["shapleig"].notna()]
        ratio = lambda other: {k: round(float(v), 3) for k, v in np.exp(np.log(x[m] / x[other]).dropna().groupby(level="budget_label").mean()).items()}
        out["lead_every_budget"][m] = dict(
            vs_shapleig=ratio("shapleig"), vs_auto=ratio(NEW) if NEW in x else None, vs_alone=ratio(ALONE),
            cells_better_than_shapleig={k: int(v) for k, v in (x[m] < x["shapleig"]).groupby(level="budget_label").sum().items()},
            cells_lowest={k: int(v) for k, v in (x[[m] + list(BASELINES)].idxmin(axis=1) == m).groupby(level="budget_label").sum().items()},
            cells={k: int(v) for k, v in x[m].groupby(level="budget_label").size().items()})
    print(json.dumps(out, indent=1))
    SUMMARY.write_text(json.dumps(dict(summary=out, runs=every_run.to_dict("records")), indent=1) + "\n")
    return out


FAMILY_RECORDS = RESULTS / "gp_surrogate_eig_after_families.jsonl"
FAMILY_BUDGETS = tuple(GRID)   # p+2 and 2p added with the rule below interval_budget(p); 3p, 4p, 8p before it


def families(part: int = 0, n_parts: int = 1):
    "The rule and the design alone on this part's share of the games outside the benchmark; records to FAMILY_RECORDS."
    from unseen_families import UNSEEN_GAMES
    from shapnb import exact_shapley
    done = recorded(FAMILY_RECORDS)
    for i, (name, (family, build)) in enumerate(UNSEEN_GAMES.items()):
        if i % n_parts != part: continue
        p, game = build(); truth = exact_shapley(game, p)
        for label, budget in FAMILY_BUDGETS:
            for seed in range(3):
                for method in (NEW, ALONE):
                    if (name, label, seed, method) in done: continue
                    r = run_one(METHODS[method], game, p, label, budget(p), seed, method, truth); r.update(game=name, family=family)
                    with open(FAMILY_RECORDS, "a") as fh: fh.write(json.dumps(r) + "\n")
        print(f"{i + 1}/{len(UNSEEN_GAMES)} {name}", flush=True)


def families_summary() -> dict:
    "By budget: MSE ratio of the rule to the design alone, where it is worse, coverage, the largest run-to-median ratio."
    d = pd.DataFrame(map(json.loads, FAMILY_RECORDS.read_text().splitlines()))
    cell = d.groupby(["game", "budget_label", "method"]).mse.mean().unstack()
    ratio = (cell[NEW] / cell[ALONE]).replace([np.inf, np.nan], 1.0).clip(lower=1e-12)   # 0/0: both exact
    d["to_median"] = d.mse / d.groupby(["game", "budget_label"]).mse.transform("median").clip(lower=1e-300)
    out = dict(n_runs=len(d), n_games=int(d.game.nunique()),
               new_vs_alone={k: round(float(v), 3) for k, v in np.exp(np.log(ratio).groupby(level="budget_label").mean()).items()},
               worse_than_alone={k: {g: round(float(v), 2) for g, v in x.droplevel(1).items() if v > 1.5} for k, x in ratio.groupby(level="budget_label")},
               coverage={m: {k: None if x.isna().all() else round(float(x.mean()), 4) for k, x in d[d.method == m].groupby("budget_label").coverage} for m in (NEW, ALONE)},
               largest_to_median={m: round(float(d[d.method == m].to_median.max()), 2) for m in (NEW, ALONE)},
               seconds={m: {k: round(float(x.mean()), 2) for k, x in d[d.method == m].groupby("budget_label").seconds} for m in (NEW, ALONE)})
    print(json.dumps(out, indent=1))
    (RESULTS / "gp_surrogate_eig_after_families.json").write_text(json.dumps(dict(summary=out, runs=d.drop(columns="to_median").to_dict("records")), indent=1) + "\n")
    return out


if __name__ == "__main__":
    if sys.argv[1:2] == ["run"]: run(*map(int, sys.argv[2:5]))
    elif sys.argv[1:2] == ["run2p"]: run2p(*map(int, sys.argv[2:4]))
    elif sys.argv[1:2] == ["run-lead"]: run_lead(*map(int, sys.argv[2:4]))
    elif sys.argv[1:2] == ["run-below"]: run_below(*map(int, sys.argv[2:4]))
    elif sys.argv[1:2] == ["summary"]: summary()
    elif sys.argv[1:2] == ["families"]: families(*map(int, sys.argv[2:4]))
    elif sys.argv[1:2] == ["families-summary"]: families_summary()
    else: sys.exit(__doc__)
