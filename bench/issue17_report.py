"""Issue 17's tables on the reporting half, from every run file in bench/results/ (*_reporting.json).

  python bench/issue17_report.py [--results bench/results]

Reads bench/results/ours_reporting.json (bench/estimators_reporting.py: surrogate_shap, kernel_shap and the baselines of
notebook 24), gp_surrogate_reporting.json (bench/gp_surrogate.py: gp_surrogate_shap, notebook 35), shapleig_reporting.json
(our ShaplEIG) and shapiq_reporting.json (shapiq 1.8's approximators), whichever exist. A file is either a JSON list of runs or a dict with the runs under "runs"; a run has game (file name, with or
without .npz), p, budget_label, budget, seed, method, mse, seconds, n_evals and, for methods with intervals, coverage
(fraction of players covered by the 95% interval; null when no interval was given). Runs with an "error" or no mse are
skipped. Only the 13 games of bench/results/reporting_games.json count (a file may hold others).

Prints: (a) the per-cell mean MSE of every method (cell = game x budget; as notebook 34's table), (b) coverage of the 95%
intervals by budget per method that gives intervals (runs declined counted apart), (c) CPU seconds per run by method,
and the issue's criteria: (1) coverage 92-98% at each budget for kernel_shap and the surrogates with a correction (or
declined), (3) the new estimator (NEW = gp_surrogate_shap; surrogate_shap, the tree surrogate, shown too) the lowest mean
MSE of all methods in at least half of the cells from 2p up, (4) no run of our methods with MSE > 100x the median MSE of
its method in its cell (offenders listed)."""
import sys, json, argparse
from pathlib import Path
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
BUDGETS = ["p+2", "2p", "3p", "4p", "8p"]
OURS_FILES = ("ours_reporting.json", "gp_surrogate_reporting.json", "shapleig_reporting.json")   # methods of this library (criterion 4)
NEW, KS = "gp_surrogate_shap", "kernel_shap"   # the new estimator of criterion (3), and the reference
TREES = "surrogate_shap"                       # the tree surrogate of notebook 25 (shown beside NEW)
OUR_SHAPLEIG = ("shapleig", "shapleig_old")    # our ShaplEIG (criterion 3 is also shown without it: how the new estimator fares against the rest)
ABBREV = {"gp_surrogate_shap": "gp_sur", "surrogate_shap": "surrogate", "kernel_shap": "kernelshap", "permutation_sampling": "perm", "kernel_shap_paired": "ks_paired",
          "leverage_shap": "leverage", "regression_msr": "msr", "shapiq KernelSHAP": "sq:KS", "shapiq KernelSHAP paired": "sq:KSpair",
          "shapiq LeverageSHAP": "sq:Lev", "shapiq RegressionMSR": "sq:MSR", "shapiq SVARM": "sq:SVARM",
          "shapiq PermutationSamplingSV": "sq:Perm", "shapiq ShaplEIG": "sq:ShaplEIG"}   # column labels of table (a)


def load(results: Path) -> tuple[pd.DataFrame, dict]:
    "All runs of the *_reporting.json files, with the file each came from; and which files were read."
    frames, read = [], {}
    for f in sorted(results.glob("*_reporting.json")):
        try: data = json.loads(f.read_text())
        except json.JSONDecodeError as e:
            print(f"skipping {f.name}: not valid JSON ({e})", file=sys.stderr); continue
        runs = data.get("runs", []) if isinstance(data, dict) else data
        rows = [r for r in runs if isinstance(r, dict) and r.get("error") is None and r.get("mse") is not None]
        if not rows: continue
        d = pd.DataFrame(rows)
        d["game"] = d["game"].astype(str).str.replace(r"\.npz$", "", regex=True)
        if "coverage" not in d: d["coverage"] = np.nan
        d["source"] = f.name
        frames.append(d[["game", "p", "budget_label", "budget", "seed", "method", "mse", "seconds", "coverage", "n_evals", "source"]])
        read[f.name] = len(d)
    if not frames: sys.exit(f"no *_reporting.json runs in {results}")
    return pd.concat(frames, ignore_index=True), read


def short(game: str) -> str:
    "A short label: dataset and task, p, instance id."
    parts = game.split("_")
    task = game.split("_Game")[0]
    p = next((x for x in parts if x.startswith("p") and x[1:].isdigit()), "")
    return f"{task[:34]} {p} #{parts[-1]}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default=str(ROOT / "bench" / "results"))
    a = ap.parse_args(argv)
    results = Path(a.results)
    games = [g[:-4] for g in json.loads((results / "reporting_games.json").read_text())["games"]]
    d, read = load(results)
    outside = sorted(set(d.game) - set(games))
    d = d[d.game.isin(games)].copy()
    pd.set_option("display.width", 250); pd.set_option("display.max_columns", 40); pd.set_option("display.max_rows", 200)
    print("files read:", ", ".join(f"{k} ({v} runs)" for k, v in read.items()))
    if outside: print(f"runs on {len(outside)} games outside reporting_games.json ignored")
    ours = set(d[d.source.isin(OURS_FILES)].method)
    methods = list(dict.fromkeys([NEW, TREES, KS] + sorted(ours - {NEW, TREES, KS}) + sorted(set(d.method) - ours)))
    methods = [m for m in methods if m in set(d.method)]
    runs_per = d.groupby(["method"]).size()
    print("runs per method:", ", ".join(f"{m} {runs_per[m]}" for m in methods))

    # (a) per-cell mean MSE
    cell = d.groupby(["game", "budget_label", "method"]).mse.mean().unstack()[methods]
    cell = cell.reindex(pd.MultiIndex.from_product([games, BUDGETS]), fill_value=np.nan).dropna(how="all")
    show = cell.rename(columns=ABBREV); show.index = [f"{short(g)} | {b}" for g, b in show.index]
    print("\n(a) mean MSE per cell (game x budget; mean over seeds 0-4)")
    print(show.map(lambda x: "" if pd.isna(x) else f"{x:.3g}").to_string())
    if KS in cell:
        print("\ngeometric-mean MSE relative to kernel_shap, by budget (cells where both ran)")
        rel = np.log(cell.div(cell[KS], axis=0))
        print(np.exp(rel.groupby(level=1).mean()).reindex(BUDGETS).rename(columns=ABBREV).map(lambda x: "" if pd.isna(x) else f"{x:.3g}").to_string())

    # (b) coverage by budget
    print("\n(b) coverage of the 95% intervals by budget (runs with an interval / declined runs)")
    cov_rows = {}
    for m in methods:
        x = d[d.method == m]
        if x.coverage.notna().sum() == 0: continue
        cov_rows[m] = {b: (f"{y.coverage.mean():.1%} ({y.coverage.notna().sum()}/{y.coverage.isna().sum()})"
                           if y.coverage.notna().any() else f"declined ({len(y)})")
                       for b, y in x.groupby("budget_label")}
    print(pd.DataFrame(cov_rows).reindex(BUDGETS).fillna("").to_string())

    # (c) seconds per run
    print("\n(c) seconds per run (mean, median; CPU seconds for ours, as recorded for the others)")
    sec = d.groupby(["method", "budget_label"]).seconds.mean().unstack().reindex(columns=BUDGETS).loc[methods]
    sec["median (all)"] = d.groupby("method").seconds.median()
    print(sec.map(lambda x: f"{x:.3g}").to_string())

    # criterion (1)
    print(f"\ncriterion (1): coverage 92-98% at each budget (or declined), {KS}, {TREES} and {NEW}")
    for m in (KS, TREES, NEW):
        x = d[d.method == m]
        if x.empty: print(f"  {m}: no runs"); continue
        parts, ok = [], True
        for b in BUDGETS:
            y = x[x.budget_label == b]
            if y.empty: continue
            c = y.coverage.dropna()
            if c.empty: parts.append(f"{b} declined (all {len(y)} runs)"); continue
            good = 0.92 <= c.mean() <= 0.98
            ok &= good
            parts.append(f"{b} {c.mean():.1%}{'' if good else ' MISS'}" + (f" ({y.coverage.isna().sum()} runs declined)" if y.coverage.isna().any() else ""))
        print(f"  {m}: {'MET' if ok else 'MISSED'}: " + "; ".join(parts))

    # criterion (3): the new estimator, and the tree surrogate for comparison
    for m in (NEW, TREES):
        if m not in cell: continue
        upper = cell[cell.index.get_level_values(1).isin(BUDGETS[1:])]
        best = upper.idxmin(axis=1)
        wins = int((best == m).sum())
        print(f"\ncriterion (3): {m} lowest mean MSE of all methods in {wins} of {len(upper)} cells from 2p up "
              f"({'MET' if wins >= len(upper) / 2 else 'MISSED'}; half = {len(upper) / 2:g})")
        print("  lowest per cell by method:", best.value_counts().to_dict())
        for b in BUDGETS[1:]:
            y = best[best.index.get_level_values(1) == b]
            print(f"  {b}: {m} lowest in {int((y == m).sum())}/{len(y)}")
        full = upper.dropna()
        if len(full) < len(upper):
            w = int((full.idxmin(axis=1) == m).sum())
            print(f"  on the {len(full)} cells where every method ran: lowest in {w}")
        second = upper.drop(columns=m).min(axis=1)
        print(f"  {m} MSE / best other method's, geometric mean over these cells: {np.exp(np.log(upper[m] / second).mean()):.3g}")
        rivals = upper.drop(columns=[c for c in OUR_SHAPLEIG if c in upper])
        w = int((rivals.idxmin(axis=1) == m).sum())
        print(f"  against every method but our own ShaplEIG ({', '.join(OUR_SHAPLEIG)}): lowest in {w} of {len(rivals)} "
              f"(by method: {rivals.idxmin(axis=1).value_counts().to_dict()})")

    # criterion (4)
    x = d[d.method.isin(ours)].copy()
    med = x.groupby(["game", "budget_label", "method"]).mse.transform("median")
    x["ratio"] = x.mse / med.where(med > 0, np.nan)
    bad = x[x.ratio > 100].sort_values("ratio", ascending=False)
    print(f"\ncriterion (4): runs of our methods with MSE > 100x their cell median: {len(bad)} "
          f"({'MET' if bad.empty else 'MISSED'}); largest ratio by method:")
    print("  " + ", ".join(f"{m} {r:.3g}" for m, r in x.groupby("method").ratio.max().items()))
    if len(bad): print(bad[["game", "budget_label", "seed", "method", "mse", "ratio"]].assign(game=bad.game.map(short)).to_string(index=False))


if __name__ == "__main__":
    main()
