"""Issue 17: can one run of `kernel_shap` tell, from its own sample, that its interval cannot be trusted on a heavy-tailed
game (products of log-normal factors, where it covers 69-91% and never declines)? A study of candidate statistics, each
computed from the Explanation's details, with thresholds chosen on a tuning set of games and checked once on a
reporting set. The answer was no (notebook 35, "Products of log-normal factors"; CHANGELOG, "Measured, not changed").

  python bench/kernelshap_tail_rules.py synth   -> bench/results/kernelshap_tail_rules_synth.jsonl (about 5 minutes)
  python bench/kernelshap_tail_rules.py real    -> bench/results/kernelshap_tail_rules_real.jsonl (30 tuning-half and 30 reporting-half games, picked at random)
  python bench/kernelshap_tail_rules.py summary tune|report   -> the frozen rules per game and budget, pooled, and on the real games

`synth` runs kernel_shap with its defaults at 3p, 4p and 8p, seeds 0-19, on the synthetic families of
bench/synthetic_families.py (TUNE: the tuning set; REPORT: other p of the same families, other families, and four
families built here, new_*) and records per run the coverage of its 95% intervals and every candidate statistic (`stats`):
the top shares, Kish's effective size, the kurtosis and a Hill index of the weighted regression residuals (over the
sampled strata, and over the strata sampled at a fraction below 0.1 or 0.3: `_lowf`, `_midf`), of the units' linearised
influences, the largest Horvitz-Thompson term, the spread of log|v| within strata, the replicates' skewness and kurtosis.
RULES are the two best, chosen on the tuning set. Run it on one core: `taskset -c 1 python ...`; the runs are
deterministic (the result files, 3 MB, are git-ignored: rerun to get them).
The games are found by the one lookup, tests/benchmark_games.py ($SHAPNB_GAMES_DIR, else ../shared/games/precomputed)."""

import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, json, warnings, collections
from pathlib import Path
import numpy as np
from scipy.stats import skew, kurtosis
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench")); sys.path.insert(0, str(ROOT / "tests"))
from benchmark_games import games_dir   # the one lookup of the benchmark games
from synthetic_families import make, EnumeratedGame, UnanimitySum
import shapnb
from shapnb.core.games import load_table_game

Z95 = 1.959963984540054
TUNE = ["product_heavy:12", "product:10", "heavy:10", "unan_mixed:10", "voting:10", "nn:10", "dominant:12", "additive:10"]
REPORT = ["product_heavy:10", "product_heavy:14", "product:14", "heavy:12", "unan_mixed:16", "voting_ln:14", "nn:14",
          "poly3:10", "dominant:20", "unan_pos:10", "unan_offset1e9:10", "unan_scale1e-12:10", "additive:16",
          "new_pareto:12", "new_expt:12", "new_unanln:12", "new_prodlight:12"]

def make_new(family, p):
    rng = np.random.default_rng([777, p, sum(map(ord, family))])
    if family == "new_pareto":      # product of Pareto(1.5) factors >= 1
        a = rng.pareto(1.5, p) + 1.0
        return EnumeratedGame(lambda Z: np.where(Z, a, 1.0).prod(1), p)
    if family == "new_expt":        # exp(sum of t3 weights in S), large weights
        w = rng.standard_t(3, p) * 1.0
        return EnumeratedGame(lambda Z: np.exp(Z.astype(float) @ w), p)
    if family == "new_unanln":      # sum of 12 unanimity games, log-normal(0,2) weights
        sets = [sorted(rng.choice(p, rng.integers(1, p + 1), replace=False).tolist()) for _ in range(12)]
        return UnanimitySum(p, sets, rng.lognormal(0, 2.0, 12))
    if family == "new_prodlight":   # control: product of log-normal(0, 0.3) factors
        a = rng.lognormal(0, 0.3, p)
        return EnumeratedGame(lambda Z: np.where(Z, a, 1.0).prod(1), p)
    raise KeyError(family)

def get_game(cell):
    fam, p = cell.split(":"); p = int(p)
    g = make_new(fam, p) if fam.startswith("new_") else make(fam, p)
    ex = g.exact() if hasattr(g, "exact") else shapnb.exact_shapley(g, p)
    return g, p, np.asarray(ex, float)

def _basis(p):
    Q, _ = np.linalg.qr(np.eye(p) - 1.0 / p)
    return Q[:, :p - 1]

def hill(x, frac=0.25):
    x = np.sort(np.abs(x[np.isfinite(x)]))[::-1]; x = x[x > 0]
    if len(x) < 6: return np.nan
    k = max(3, int(len(x) * frac))
    return float(np.mean(np.log(x[:k] / x[k])))

def stats(e, p):
    d = e.details; des = d["design"]
    Z = np.asarray(d["coalitions"], bool); y = np.asarray(d["game_values"], float); w = np.asarray(d["weights"], float)
    v0 = d["v_empty"]; phi = np.asarray(e.values, float)
    out = {}
    sampled_strata = np.flatnonzero(des.counts < des.population)
    rows = np.isin(des.stratum, sampled_strata)
    out["n_rows_sampled"] = int(rows.sum())
    scale = max(np.abs(y - v0).max(), abs(d["v_full"] - v0), 1e-300)
    r = (y - v0 - Z @ phi) / scale                     # residuals (scale-free)
    u = np.sqrt(w) * r                                  # weighted residuals
    us = u[rows]
    q = us ** 2
    if len(us) >= 2 and q.sum() > 0:
        qs = np.sort(q)[::-1]
        out["res_top1"] = float(qs[0] / q.sum()); out["res_top2"] = float(qs[:2].sum() / q.sum())
        out["res_kish"] = float(q.sum() ** 2 / (q ** 2).sum() / len(q))
        out["res_kurt"] = float(np.mean(us ** 4) / np.mean(us ** 2) ** 2)
        out["res_hill"] = hill(us)
    # influence of each unit on phi (linearised constrained WLS), centred within sampled strata
    P = _basis(p); X = Z @ P
    A = X.T @ (X * w[:, None])
    try:
        Ainv = np.linalg.pinv(A)
        IF = ((X * (w * r)[:, None]) @ Ainv) @ P.T       # (n, p)
        nu = des.n_units
        U = np.zeros((nu, p)); np.add.at(U, des.unit, IF)
        ustr = np.zeros(nu, int); ustr[des.unit] = des.stratum
        D = []
        for h in sampled_strata:
            m = ustr == h
            if m.sum() >= 2: D.append(U[m] - U[m].mean(0))
        if D:
            D = np.concatenate(D); s2 = (D ** 2).sum(0); ok = s2 > 1e-30 * max(s2.max(), 1e-300)
            if ok.any():
                top = (D[:, ok] ** 2).max(0) / s2[ok]
                kish = s2[ok] ** 2 / (D[:, ok] ** 4).sum(0) / len(D)
                out["inf_top1_max"] = float(top.max()); out["inf_top1_med"] = float(np.median(top))
                out["inf_kish_min"] = float(kish.min()); out["inf_kish_med"] = float(np.median(kish))
                kur = (D[:, ok] ** 4).mean(0) / (D[:, ok] ** 2).mean(0) ** 2
                out["inf_kurt_max"] = float(kur.max()); out["inf_kurt_med"] = float(np.median(kur))
                out["inf_hill_med"] = float(np.nanmedian([hill(D[:, j]) for j in np.flatnonzero(ok)]))
                out["n_units_c"] = int(len(D))
        # HT term ratio: largest |w r z_j| over sum, per player
        T = np.abs((w * r)[rows, None] * Z[rows])
        ts = T.sum(0); okk = ts > 0
        if okk.any(): out["ht_max_ratio"] = float(np.median(T[:, okk].max(0) / ts[okk]))
    except np.linalg.LinAlgError:
        pass

    # --- extra: low-sampling-fraction strata and log-scale spread of unit residual magnitudes
    f = des.counts / np.maximum(des.population, 1)
    for cut, tag in ((0.1, "lowf"), (0.3, "midf")):
        lows = np.flatnonzero((des.counts < des.population) & (f < cut))
        m = np.isin(des.stratum, lows)
        q2 = (np.sqrt(w) * r)[m] ** 2
        if len(q2) >= 4 and q2.sum() > 0:
            out["res_kish_" + tag] = float(q2.sum() ** 2 / (q2 ** 2).sum() / len(q2))
            out["res_top1_" + tag] = float(q2.max() / q2.sum())
            out["res_kurt_" + tag] = float(np.mean(q2 ** 2) / np.mean(q2) ** 2)
            uu = np.sort(np.abs(np.sqrt(w) * r)[m])[::-1]
            out["res_hill_" + tag] = hill(uu)
            out["res_lmax75_" + tag] = float(np.log(uu[0] / max(np.quantile(uu, 0.75), 1e-300)))
            out["nuniq_" + tag] = float(len(np.unique(np.round(y[m] / scale, 12))) / len(uu))
    a = np.zeros(des.n_units); np.add.at(a, des.unit, w * np.abs(r))
    ustr2 = np.zeros(des.n_units, int); ustr2[des.unit] = des.stratum
    dev, dfs = [], 0
    for h in sampled_strata:
        mm = ustr2 == h
        la = np.log(np.maximum(a[mm], 1e-300))
        if mm.sum() >= 2 and np.isfinite(la).all() and (a[mm] > 1e-14 * max(a.max(), 1e-300)).all():
            dev.append(la - la.mean()); dfs += mm.sum() - 1
    if dfs >= 2:
        dev = np.concatenate(dev); out["unit_logsd"] = float(np.sqrt((dev ** 2).sum() / dfs)); out["unit_logsd_df"] = int(dfs)
        out["unit_logmaxdev"] = float(dev.max())
    lr = []
    for h in sampled_strata:
        mm = des.stratum == h
        la = np.log(np.maximum(np.sqrt(w[mm]) * np.abs(r[mm]), 1e-300))
        if mm.sum() >= 2: lr.append(la - la.mean())
    if lr:
        lr = np.concatenate(lr); out["row_logsd"] = float(lr.std())
    # value-based, within sampled strata: robust tail ratio and log spread
    rt, ls, lw = [], [], []
    for h in sampled_strata:
        m = des.stratum == h
        yy = y[m]
        if len(yy) >= 4:
            med = np.median(yy); mad = np.median(np.abs(yy - med))
            if mad > 1e-12 * scale: rt.append(np.abs(yy - med).max() / mad)
        if len(yy) >= 3 and ((yy > 0).all() or (yy < 0).all()):
            ls.append(np.std(np.log(np.abs(yy)))); lw.append(len(yy))
    if rt: out["val_tailratio"] = float(max(rt))
    if ls: out["val_logsd"] = float(np.average(ls, weights=lw))
    R = d.get("replicates")
    if R is not None:
        R = np.asarray(R)
        sd = R.std(0); ok = sd > 0
        if ok.any():
            out["rep_skew"] = float(np.abs(skew(R[:, ok], axis=0)).max())
            out["rep_kurt"] = float(kurtosis(R[:, ok], axis=0).max())
    out["residual_df"] = d.get("residual_df")
    return {k: (None if v is None or (isinstance(v, float) and not np.isfinite(v)) else v) for k, v in out.items()}

def one(game, p, exact, budget, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = shapnb.kernel_shap(game, p, budget, seed=seed)
    rec = dict(declined=e.se is None, mse=float(np.mean((e.values - exact) ** 2)))
    if e.se is not None:
        tol = 1e-9 * np.abs(exact).max()
        rec["covered"] = (np.abs(e.values - exact) <= Z95 * np.asarray(e.se) + tol).astype(int).tolist()
    else:
        rec["note"] = str(e.details.get("se_note"))[:120]
    try: rec.update(stats(e, p))
    except Exception as exc: rec["stats_error"] = repr(exc)[:200]
    return rec

def synth(outpath, seeds=20):
    with open(outpath, "w") as out:
        for split, cells in (("tune", TUNE), ("report", REPORT)):
            for cell in cells:
                g, p, ex = get_game(cell)
                for bname, mult in (("3p", 3), ("4p", 4), ("8p", 8)):
                    for seed in range(seeds):
                        rec = dict(split=split, game=cell, p=p, budget=bname, seed=seed, **one(g, p, ex, mult * p, seed))
                        out.write(json.dumps(rec) + "\n")
                out.flush(); print(cell, flush=True)

def real(outpath, n=30, seeds=5):
    sp = json.load(open(ROOT / "nbs" / "data" / "game_split.json"))
    rng = np.random.default_rng(2025)
    with open(outpath, "w") as out:
        for split in ("tuning", "reporting"):
            names = sorted(sp[split]); pick = sorted(rng.choice(len(names), n, replace=False))
            for i in pick:
                path = games_dir() / names[i]
                g = load_table_game(path); p = g.n_players; ex = g.exact_shapley()
                for bname, mult in (("3p", 3), ("4p", 4), ("8p", 8)):
                    for seed in range(seeds):
                        rec = dict(split="tune" if split == "tuning" else "report", game=names[i], p=p, budget=bname,
                                   seed=seed, **one(g, p, ex, mult * p, seed))
                        out.write(json.dumps(rec) + "\n")
                out.flush(); print(names[i], flush=True)

# the two best statistics, with thresholds chosen on the tuning set (frozen before the reporting set was run)
RULES = {
  "A: kish_lowf<0.10": lambda r: r.get("res_kish_lowf") is not None and r["res_kish_lowf"] < 0.10,
  "B: logsd>0.7 & kish_lowf<0.30": lambda r: (r.get("val_logsd") or 0) > 0.7 and r.get("res_kish_lowf") is not None and r["res_kish_lowf"] < 0.30,
}


def summary(split):
    "The frozen RULES on the `split` ('tune' or 'report') runs: per cell, pooled by budget, and on the real games."
    syn = [json.loads(line) for line in open(SYNTH)]; real = [json.loads(line) for line in open(REAL)]
    syn = [r for r in syn if r["split"] == split]; real = [r for r in real if r["split"] == split]
    cov = lambda rs: np.mean([c for r in rs for c in r["covered"]]) if rs else float("nan")
    cells = collections.defaultdict(list)
    for r in syn: cells[(r["game"], r["budget"])].append(r)
    names = list(RULES)
    print(f"split={split}; per cell: ksDecl = kernel_shap's own declines; then per rule: declined share of given runs / coverage of kept")
    print(f"{'game:budget':24s} ks  covAll | " + " | ".join(f"{n[:30]:>30s}" for n in names))
    pool = collections.defaultdict(lambda: collections.defaultdict(lambda: [[], []]))
    for (g, b), rs in sorted(cells.items()):
        given = [r for r in rs if not r["declined"]]
        out = []
        for n, f in RULES.items():
            kept = [r for r in given if not f(r)]
            out.append(f"{(1-len(kept)/len(given)) if given else float('nan'):5.2f} / {cov(kept):5.3f}".rjust(30))
            pool[n][b][0] += given; pool[n][b][1] += kept
        print(f"{g[:20]+':'+b:24s} {1-len(given)/len(rs):.2f} {cov(given):.3f} | " + " | ".join(out))
    for n in names:
        for b in ("3p", "4p", "8p"):
            gv, kp = pool[n][b]
            print(f"POOLED synthetic {n:32s} {b}: declined {1-len(kp)/len(gv):.3f}, coverage all {cov(gv):.3f}, kept {cov(kp):.3f}")
    given = [r for r in real if not r["declined"]]
    print(f"REAL {split}: {len({r['game'] for r in real})} games, {len(real)} runs, kernel_shap gave SE in {len(given)}; coverage all {cov(given):.3f}")
    for n, f in RULES.items():
        for b in ("3p", "4p", "8p", None):
            gb = [r for r in given if b is None or r["budget"] == b]
            d = [r for r in gb if f(r)]
            print(f"  {n:32s} {b or 'all':>3s}: false-decline {len(d)/len(gb):.3f} ({len(d)}/{len(gb)}) games hit {len({r['game'] for r in d})}; kept coverage {cov([r for r in gb if not f(r)]):.3f}")

SYNTH = ROOT / "bench" / "results" / "kernelshap_tail_rules_synth.jsonl"
REAL = ROOT / "bench" / "results" / "kernelshap_tail_rules_real.jsonl"

if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "synth": synth(SYNTH)
    elif mode == "real": real(REAL)
    elif mode == "summary": summary(sys.argv[2] if len(sys.argv) > 2 else "report")
    else: sys.exit(__doc__)
