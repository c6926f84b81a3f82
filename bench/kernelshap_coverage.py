"""KernelSHAP's standard errors and intervals at small budgets (issue 17): the simulations behind notebooks 20-23.

Protocol: the shared benchmark games are split once into a tuning half and a reporting half (bench/game_split.py,
nbs/data/game_split.json). Every choice was made on the tuning half (`tune`); the reporting half is used only to
report (`report`), after the choices were fixed.

  python bench/kernelshap_coverage.py tune   [n_seeds=40] [n_boot=100]   -> nbs/data/kernelshap_tuning.json
  python bench/kernelshap_coverage.py report [n_seeds=40] [n_boot=100]   -> nbs/data/kernelshap_coverage.json and .csv

`tune` runs on one game per family of the tuning half (80 games): (A1) the old default (no redrawing, no shrinkage, the
symmetric bootstrap for every budget) at p+2, 2p, 3p, 4p, 8p, the diagnosis; (A2) on redrawn designs at 2p+6 ... 12p,
the candidate variance estimators: the symmetric bootstrap (raw, or with Student's quantile at Satterthwaite's
effective degrees of freedom per player, notebook 22), the stratified jackknife (raw, inflated by sqrt(nu/(nu-2)),
or with Student's quantile), and linearised (sandwich) variances with residuals uncorrected, divided by sqrt(1 - h) or
by (1 - h); (B) point estimates below DF_MIN (p+2, 2p, 2p+2, 2p+4) and at 3p on the old and the redrawn designs, with
ridge shrinkage alpha in {0, 0.01, 0.03, 0.1, 0.3, 1}. `report` runs on every game of the reporting half: the old
default against the new (`kernel_shap` as it is now) at p+2, 2p, 3p, 4p, 8p.

Run it on one core (the machine is shared): `taskset -c 1 python bench/kernelshap_coverage.py tune`; BLAS threads are
limited to one here. A run takes about 8 minutes (tune) and 10 minutes (report) with 40 seeds.
The games are found by the one lookup, tests/benchmark_games.py ($SHAPNB_GAMES_DIR, else ../shared/games/precomputed)."""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, re, json, time, warnings
from pathlib import Path
import numpy as np
import pandas as pd
from scipy.stats import t as student_t
from threadpoolctl import threadpool_limits
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from benchmark_games import games_dir   # the one lookup of the benchmark games
from shapnb.core.games import load_table_game
from shapnb.sampling.design import wallenius_design
from shapnb.sampling.regression import estimate_from_design, sum_zero_basis, solve_constrained_wls
from shapnb.sampling.bootstrap import standard_errors, satterthwaite_df, satterthwaite_inflation
from shapnb.sampling.kernelshap import kernel_shap

DATA = ROOT / "nbs" / "data"
Z95 = 1.959963984540054
GRID = (("p+2", lambda p: p + 2), ("2p", lambda p: 2 * p), ("3p", lambda p: 3 * p), ("4p", lambda p: 4 * p),
        ("8p", lambda p: 8 * p))


def halves() -> dict:
    "The tuning and reporting file names of nbs/data/game_split.json."
    return json.loads((DATA / "game_split.json").read_text())


def one_per_family(names) -> list[str]:
    "The first instance (by id) of each family among `names`."
    first = {}
    for n in sorted(names, key=lambda n: (re.fullmatch(r"(.*)_(\d+)\.npz", n).group(1), int(re.fullmatch(r"(.*)_(\d+)\.npz", n).group(2)))):
        first.setdefault(re.fullmatch(r"(.*)_(\d+)\.npz", n).group(1), n)
    return sorted(first.values())


def ends(g, p):
    "v(∅) and v(N)."
    v = g(np.array([np.zeros(p, bool), np.ones(p, bool)]))
    return float(v[0]), float(v[1])


def old_default(g, p, budget, seed, n_boot):
    "kernel_shap before issue 17: no redrawing, no shrinkage, the symmetric bootstrap at every budget (one generator)."
    rng = np.random.default_rng(seed)
    d = wallenius_design(p, budget, identify=False, seed=rng)
    est = estimate_from_design(d, g(d.coalitions), *ends(g, p), ridge=0.0)
    return est.values, standard_errors(est, "symmetric", n_boot=n_boot, seed=rng)[0]


def linearised_se(est, adjust):
    "Sandwich variance of the HT regression, stratified by unit, residuals times 1, 1/sqrt(1-h) or 1/(1-h) (a rejected candidate)."
    d, p = est.design, est.design.p
    P = sum_zero_basis(p)
    X = d.coalitions @ P
    b = est.game_values - est.v_empty - d.coalitions @ np.full(p, (est.v_full - est.v_empty) / p)
    w = d.weights
    Gi = np.linalg.pinv((w[:, None] * X).T @ X)
    e = b - X @ (P.T @ est.values - P.T @ np.full(p, (est.v_full - est.v_empty) / p))
    T = np.zeros((d.n_units, p - 1))
    for u in range(d.n_units):
        r = np.flatnonzero(d.unit == u)
        A = np.sqrt(w[r])[:, None] * X[r]
        lam, V = np.linalg.eigh(A @ Gi @ A.T)
        f = {"hc0": np.ones_like(lam), "hc2": 1 / np.sqrt(np.clip(1 - lam, 1e-12, None)),
             "hc3": 1 / np.clip(1 - lam, 1e-12, None)}[adjust]
        T[u] = A.T @ (V @ (f * (V.T @ (np.sqrt(w[r]) * e[r]))))
    su = np.zeros(d.n_units, int); su[d.unit] = d.stratum
    Vc = np.zeros((p - 1, p - 1))
    for h, fh in enumerate(d.inclusion):
        Th = T[su == h]
        if len(Th) == 0 or fh >= 1: continue
        Vc += (1 - fh) * (np.outer(Th[0], Th[0]) if len(Th) == 1 else len(Th) / (len(Th) - 1) * np.cov(Th, rowvar=False, bias=True) * len(Th))
    A = P @ Gi
    return np.sqrt(np.clip(np.einsum("ij,jk,ik->i", A, Vc, A), 0, None))


def cell(V, S, truth):
    "Coverage, mean SE/SD, MSE and worst run of one game and budget: V (K, p) estimates, S (K, p) SEs (NaN rows: none)."
    err = V - truth
    mse = (err ** 2).mean(1)
    sd = V.std(0, ddof=1)
    ok = sd > 1e-12 * (1 + np.abs(truth).max())
    given = ~np.isnan(S).any(1)
    out = dict(mse=float(mse.mean()), worst=float(mse.max() / max(np.median(mse), 1e-300)), runs=len(V),
               declined=int((~given).sum()), covered=0, count=0, ratio=np.nan)
    if given.any():
        out["covered"] = int((np.abs(err[given]) <= Z95 * S[given]).sum()); out["count"] = int(err[given].size)
        if ok.any(): out["ratio"] = float(np.mean(S[given].mean(0)[ok] / sd[ok]))
    return out


def gmean(x):
    "Geometric mean."
    return float(np.exp(np.mean(np.log(np.asarray(x, float)))))


def tune(K: int, n_boot: int) -> dict:
    "The tuning-half simulations (A1, A2, B): summaries by budget."
    files = one_per_family(halves()["tuning"])
    t0 = time.perf_counter()
    rows_a1, rows_a2, rows_b = [], [], []
    alphas = (0.0, 0.01, 0.03, 0.1, 0.3, 1.0)
    for i, f in enumerate(files):
        g = load_table_game(games_dir() / f); p = g.n_players; truth = g.exact_shapley(); v0, v1 = ends(g, p)
        for tag, budget in GRID:   # A1: the old default, the diagnosis
            runs = [old_default(g, p, budget(p), s, n_boot) for s in range(K)]
            rows_a1.append(dict(file=f, p=p, tag=tag, **cell(np.array([r[0] for r in runs]), np.array([r[1] for r in runs]), truth)))
        for tag, budget in (("2p+6", lambda p: 2 * p + 6), ("3p", lambda p: 3 * p), ("4p", lambda p: 4 * p),
                            ("5p", lambda p: 5 * p), ("6p", lambda p: 6 * p), ("8p", lambda p: 8 * p), ("12p", lambda p: 12 * p)):
            V, S = [], {m: [] for m in ("symmetric", "symmetric, Satterthwaite t quantile", "jackknife", "hc0", "hc2", "hc3")}
            for s in range(K):   # A2: the candidate variance estimators on the new (redrawn) design, no shrinkage here
                rng = np.random.default_rng(s)
                d = wallenius_design(p, budget(p), seed=rng)
                est = estimate_from_design(d, g(d.coalitions), v0, v1)
                V.append(est.values)
                S["symmetric"].append(standard_errors(est, "symmetric", n_boot=n_boot, seed=rng)[0])
                S["symmetric, Satterthwaite t quantile"].append(S["symmetric"][-1] * satterthwaite_inflation(
                    satterthwaite_df(d, est.game_values, est.v_empty, est.v_full, est.values)))
                S["jackknife"].append(standard_errors(est, "jackknife")[0])
                for a in ("hc0", "hc2", "hc3"): S[a].append(linearised_se(est, a))
            nu = d.n_units - (p - 1)
            V = np.array(V)
            variants = {m: np.array(v) for m, v in S.items()}
            variants["jackknife, inflated"] = variants["jackknife"] * np.sqrt(nu / (nu - 2))
            variants["jackknife, t quantile"] = variants["jackknife"] * student_t.ppf(0.975, nu) / Z95
            for m, Sm in variants.items(): rows_a2.append(dict(file=f, p=p, tag=tag, df=nu, method=m, **cell(V, Sm, truth)))
        for tag, budget in (("p+2", lambda p: p + 2), ("2p", lambda p: 2 * p), ("2p+2", lambda p: 2 * p + 2),
                            ("2p+4", lambda p: 2 * p + 4), ("3p", lambda p: 3 * p)):
            for redraw in (False, True):   # B: shrinkage below DF_MIN (and at 3p), on the old and the redrawn designs
                err = {a: [] for a in alphas}
                for s in range(K):
                    d = wallenius_design(p, budget(p), identify=redraw, seed=s)
                    y = g(d.coalitions)
                    for a in alphas:
                        err[a].append(((solve_constrained_wls(d.coalitions, y, d.weights, v0, v1, ridge=a) - truth) ** 2).mean())
                for a in alphas:
                    m = np.array(err[a])
                    rows_b.append(dict(file=f, p=p, tag=tag, redraw=redraw, alpha=a, mse=float(m.mean()),
                                       worst=float(m.max() / max(np.median(m), 1e-300))))
        print(f"{i + 1}/{len(files)} {f} {time.perf_counter() - t0:.0f} s", flush=True)
    a1, a2, b = pd.DataFrame(rows_a1), pd.DataFrame(rows_a2), pd.DataFrame(rows_b)
    out = dict(games=files, n_seeds=K, n_boot=n_boot, seconds=round(time.perf_counter() - t0))
    out["old_default"] = {t: dict(coverage=float(x.covered.sum() / x["count"].sum()), se_over_sd=float(x.ratio.mean()),
                                  se_over_sd_median=float(x.ratio.median()), worst_run=float(x.worst.max()),
                                  runs_over_100=int((x.worst > 100).sum()))
                          for t, x in a1.groupby("tag", sort=False)}
    mse = a1.pivot(index="file", columns="tag", values="mse")
    out["old_default_2p_worse_than_p+2"] = [int((mse["2p"] > mse["p+2"]).sum()), len(mse)]
    out["variance"] = {t: {m: dict(coverage=float(y.covered.sum() / y["count"].sum()), se_over_sd=float(y.ratio.mean()),
                                   se_over_sd_median=float(y.ratio.median()))
                           for m, y in x.groupby("method", sort=False)} for t, x in a2.groupby("tag", sort=False)}
    jk = a2[a2.method == "jackknife, inflated"]
    out["jackknife_inflated_by_p"] = {t: {int(p): float(y.covered.sum() / y["count"].sum()) for p, y in x.groupby("p")}
                                      for t, x in jk.groupby("tag", sort=False)}
    base = b[(~b.redraw) & (b.alpha == 0)].set_index(["file", "tag"]).mse
    shrink = {}
    for (t, redraw, a), x in b.groupby(["tag", "redraw", "alpha"], sort=False):
        same = b[(b.tag == t) & (b.redraw == redraw) & (b.alpha == 0)].set_index("file").mse
        r_old = x.set_index("file").mse / base.xs(t, level="tag")
        r_same = x.set_index("file").mse / same
        shrink.setdefault(t, {}).setdefault("redrawn" if redraw else "old design", {})[str(a)] = dict(
            mse_vs_old_gmean=gmean(r_old), mse_vs_old_max=float(r_old.max()), mse_vs_no_shrinkage_gmean=gmean(r_same),
            mse_vs_no_shrinkage_max=float(r_same.max()), worst_run=float(x.worst.max()),
            games_better_than_old=int((r_old < 1).sum()))
    out["shrinkage"] = shrink
    return out


def report(K: int, n_boot: int) -> tuple[dict, pd.DataFrame]:
    "The reporting half: the old default against kernel_shap as it is now, at p+2, 2p, 3p, 4p and 8p."
    files = sorted(halves()["reporting"])
    t0 = time.perf_counter()
    rows = []
    for i, f in enumerate(files):
        g = load_table_game(games_dir() / f); p = g.n_players; truth = g.exact_shapley()
        for tag, budget in GRID:
            old = [old_default(g, p, budget(p), s, n_boot) for s in range(K)]
            new = [kernel_shap(g, p, budget(p), seed=s, n_boot=n_boot) for s in range(K)]
            co = cell(np.array([r[0] for r in old]), np.array([r[1] for r in old]), truth)
            cn = cell(np.array([e.values for e in new]), np.array([np.full(p, np.nan) if e.se is None else e.se for e in new]), truth)
            rows.append(dict(file=f, p=p, tag=tag, budget=budget(p), **{f"new_{k}": v for k, v in cn.items()},
                             **{f"old_{k}": v for k, v in co.items()},
                             new_method=",".join(sorted({str(e.bootstrap) for e in new}))))
        print(f"{i + 1}/{len(files)} {f} {time.perf_counter() - t0:.0f} s", flush=True)
    df = pd.DataFrame(rows)
    summary = dict(games=len(files), n_seeds=K, n_boot=n_boot, seconds=round(time.perf_counter() - t0), budgets={})
    for t, x in df.groupby("tag", sort=False):
        n = x.new_count.sum()
        summary["budgets"][t] = dict(
            runs=int(x.new_runs.sum()), declined=int(x.new_declined.sum()),
            coverage=(float(x.new_covered.sum() / n) if n else None),
            se_over_sd=(float(x.new_ratio.mean()) if n else None), se_over_sd_median=(float(x.new_ratio.median()) if n else None),
            old_coverage=float(x.old_covered.sum() / x.old_count.sum()), old_se_over_sd=float(x.old_ratio.mean()),
            mse_new_over_old_gmean=gmean(x.new_mse / x.old_mse), mse_new_over_old_median=float((x.new_mse / x.old_mse).median()),
            mse_new_over_old_max=float((x.new_mse / x.old_mse).max()), games_new_better=int((x.new_mse < x.old_mse).sum()),
            worst_run_new=float(x.new_worst.max()), worst_run_old=float(x.old_worst.max()),
            cells_over_100_new=int((x.new_worst > 100).sum()), cells_over_100_old=int((x.old_worst > 100).sum()),
            methods=sorted(set(",".join(x.new_method).split(","))),
            coverage_by_p=({int(p): float(y.new_covered.sum() / y.new_count.sum()) for p, y in x.groupby("p")} if n else None))
    mse = {k: df.pivot(index="file", columns="tag", values=f"{k}_mse") for k in ("new", "old")}
    summary["2p_worse_than_p+2"] = {k: [int((m["2p"] > m["p+2"]).sum()), len(m)] for k, m in mse.items()}
    return summary, df


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "report"
    K = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    n_boot = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    warnings.simplefilter("ignore")   # small budgets warn (underdetermined designs, singular replicates): expected here
    with threadpool_limits(1):
        if mode == "tune":
            out = tune(K, n_boot)
            (DATA / "kernelshap_tuning.json").write_text(json.dumps(out, indent=1) + "\n")
        elif mode == "report":
            out, cells = report(K, n_boot)
            (DATA / "kernelshap_coverage.json").write_text(json.dumps(out, indent=1) + "\n")
            cells.to_csv(DATA / "kernelshap_coverage.csv", index=False, float_format="%.4g")
        else: sys.exit(f"unknown mode {mode!r}: use tune or report")
    print(json.dumps(out if mode == "report" else {k: v for k, v in out.items() if k != "games"}, indent=1)[:4000])
