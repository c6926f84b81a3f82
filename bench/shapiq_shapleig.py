"""shapiq 1.8's ShaplEIG (its defaults: initial design p+1, refit every iteration) on the seven games of notebook 34,
at the same budgets and seeds; writes one JSON line per run with the estimates and posterior SDs, which notebook 34
scores against the exact values.

shapiq >= 1.5 needs Python >= 3.12 and its ShaplEIG needs torch, so this runs in a separate environment, never
the project's:  python3.12 -m venv /tmp/v312 && /tmp/v312/bin/pip install "shapiq[shapleig]==1.8.*" joblib
                /tmp/v312/bin/python bench/shapiq_shapleig.py [n_seeds] [output]   (from the repository root)
The games are found as by the tests and notebook 34: `games_dir()` of tests/benchmark_games.py ($SHAPNB_GAMES_DIR, else
../shared/games/precomputed); shapnb is not needed.

Issue 17's anchor on the REPORTING half of the game split (nbs/data/game_split.json, made by bench/game_split.py):
                /work/venv312/bin/python bench/shapiq_shapleig.py reporting [--seeds 5] [--out bench/results/shapiq_reporting.json]
                                         [--methods NAME ...] [--games FILE ...]
runs shapiq 1.8's ShaplEIG, KernelSHAP (unpaired, its default, and paired), LeverageSHAP, RegressionMSR, SVARM and
PermutationSamplingSV on the games of `reporting_games()`: the 13 of bench/results/reporting_games.json, the selection
shared by all issue-17 runs (else, without that file, 15 games by SELECTION_RULE; both fixed before any result was seen), at budgets p+2, 2p, 3p, 4p, 8p, seeds 0..4, in one process on one thread (OMP/MKL/torch threads 1). The game is a
lookup into the stored coalition values and counts every coalition it is asked for (`n_evals`, repeats included); the
exact values are the Shapley values of the stored table by brute force. Each run's record: game, file, p, budget,
budget_label, seed, method, mse (mean over players of (estimate - exact)^2), seconds (the `approximate` call), n_evals,
values, sd (ShaplEIG's posterior SDs), error (if the method raised). Runs are appended to <out>l (JSON lines, so an
interrupted run resumes where it stopped) and <out> is rewritten after every run with all records so far. The cheap
methods run first on every game, ShaplEIG last, by increasing budget.
                /work/venv312/bin/python bench/shapiq_shapleig.py summary [bench/results/shapiq_reporting.json]
prints per method and budget the complete cells, the geometric mean of the per-cell mean MSE and the seconds per run."""
import os, sys, json, time, warnings
from pathlib import Path
if len(sys.argv) > 1 and sys.argv[1] == "reporting":   # one core: thread limits before numpy/torch are imported
    for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"): os.environ[_v] = "1"
import numpy as np
from joblib import Parallel, delayed
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from benchmark_games import games_dir   # the one lookup of the benchmark games, shared with the tests and notebook 34
GD = games_dir()
GAMES = {   # the games of notebook 34
    "data valuation p10": "AdultCensus_DatasetValuation_Game_p10_model_name-random_forest_player_sizes-increasing_n_players-10_1",
    "ViT p9": "ImageClassifier_Game_p9_model_name-vit_9_patches_1",
    "ViT p16": "ImageClassifier_Game_p16_model_name-vit_16_patches_1",
    "ResNet p14": "ImageClassifier_Game_p14_model_name-resnet_18_n_superpixel_resnet-14_1",
    "sentiment p14": "SentimentAnalysis_Game_p14_mask_strategy-mask_1",
    "local expl. p8": "CaliforniaHousing_LocalExplanation_Game_p8_model_name-neural_network_imputer-marginal_1",
    "local expl. p12": "BikeSharing_LocalExplanation_Game_p12_model_name-random_forest_imputer-marginal_1",
}
def task(label, fname, seed, budget):
    "One shapiq ShaplEIG run: its estimates, posterior SDs and time."
    import torch; torch.set_num_threads(1)
    from shapiq.approximator import ShaplEIG
    values = np.load(GD / f"{fname}.npz")["values"].astype(float); p = int(np.log2(len(values)))
    game = lambda Z: values[np.asarray(Z, dtype=np.int64) @ (1 << np.arange(p))]
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        iv, var = ShaplEIG(n=p, random_state=seed, show_progress=False).approximate_with_variance(budget=budget, game=game)
    est = np.array([iv[(i,)] for i in range(p)]); sd = np.sqrt(np.maximum(var, 0))
    return dict(game=label, file=fname, p=p, method="shapiq ShaplEIG", seed=seed, budget=budget, values=est.tolist(),
                sd=sd.tolist(), seconds=time.perf_counter() - t)
REPORTING_METHODS = ("shapiq KernelSHAP", "shapiq KernelSHAP paired", "shapiq LeverageSHAP", "shapiq RegressionMSR",
                     "shapiq SVARM", "shapiq PermutationSamplingSV", "shapiq ShaplEIG")
BUDGETS = (("p+2", lambda p: p + 2), ("2p", lambda p: 2 * p), ("3p", lambda p: 3 * p), ("4p", lambda p: 4 * p),
           ("8p", lambda p: 8 * p))
SELECTION_RULE = ("task type = the part of the file name before '_Game' without the dataset (DataValuation, LocalExplanation, "
                  "...), the whole name's first token for SOUM and SentimentAnalysis, and ImageClassifier split by model "
                  "(resnet, vit); for each of the 14 task types in the reporting half, the reporting game of smallest p, "
                  "ties broken by sorted file name; plus a 15th game, a second LocalExplanation game (the largest task type, "
                  "and the one where issue 17 saw shapiq ahead) from another dataset: the first BikeSharing LocalExplanation "
                  "reporting game by the same rule. Fixed before any result was looked at.")


def _task_type(name):
    "Task type of a game file name (see SELECTION_RULE)."
    import re
    if name.startswith("ImageClassifier"): return "ImageClassifier_" + ("resnet" if "resnet" in name else "vit")
    if name.startswith(("SOUM", "SentimentAnalysis")): return name.split("_")[0]
    return re.match(r"[A-Za-z]+_(.*?)_Game", name).group(1)


def _p_of(name):
    import re
    return int(re.search(r"_Game_p(\d+)", name).group(1))


def reporting_games():
    """The games of the issue-17 anchor run: the 13 of bench/results/reporting_games.json (the selection every issue-17 run
    shares, made by bench/shapleig_reporting.py, read by bench/issue17_report.py) when that file exists; else the 15
    chosen by SELECTION_RULE (file names with .npz)."""
    shared = Path(__file__).resolve().parent / "results" / "reporting_games.json"
    if shared.exists(): return list(json.loads(shared.read_text())["games"])
    return rule_games()


def rule_games():
    "The 15 reporting-half games chosen by SELECTION_RULE (file names with .npz), used when there is no shared selection."
    from collections import defaultdict
    split = json.loads((Path(__file__).resolve().parents[1] / "nbs" / "data" / "game_split.json").read_text())
    by_task = defaultdict(list)
    for n in split["reporting"]: by_task[_task_type(n)].append(n)
    chosen = [sorted(v, key=lambda n: (_p_of(n), n))[0] for _, v in sorted(by_task.items())]
    bike_local = [n for n in by_task["LocalExplanation"] if n.startswith("BikeSharing")]
    chosen.append(sorted(bike_local, key=lambda n: (_p_of(n), n))[0])
    assert len(set(chosen)) == len(chosen) == 15
    return chosen


def exact_shapley_table(values, p):
    "Shapley values of the game whose value of coalition S (bit j = player j) is values[S], by brute force over all 2^p."
    from math import comb
    idx = np.arange(1 << p)
    size = np.zeros(1 << p, dtype=np.int64)
    for j in range(p): size += (idx >> j) & 1
    w = np.array([1.0 / (p * comb(p - 1, s)) for s in range(p)])
    phi = np.empty(p)
    for i in range(p):
        without = idx[((idx >> i) & 1) == 0]
        phi[i] = np.sum(w[size[without]] * (values[without | (1 << i)] - values[without]))
    return phi


class CountingGame:
    "Lookup into the stored coalition values; counts every coalition asked for (rows of the boolean matrix)."
    def __init__(self, values, p):
        self.values, self.p, self.n_evals, self.weights = values, p, 0, 1 << np.arange(p, dtype=np.int64)
    def __call__(self, Z):
        Z = np.atleast_2d(np.asarray(Z))
        if Z.shape[1] != self.p: raise ValueError(f"coalition matrix with {Z.shape[1]} columns for a {self.p}-player game")
        self.n_evals += len(Z)
        return self.values[Z.astype(np.int64) @ self.weights]


def _approximator(method, p, seed):
    from shapiq.approximator import (KernelSHAP, LeverageSHAP, RegressionMSR, SVARM, PermutationSamplingSV, ShaplEIG)
    if method == "shapiq KernelSHAP": return KernelSHAP(n=p, random_state=seed)
    if method == "shapiq KernelSHAP paired": return KernelSHAP(n=p, pairing_trick=True, random_state=seed)
    if method == "shapiq LeverageSHAP": return LeverageSHAP(n=p, random_state=seed)
    if method == "shapiq RegressionMSR": return RegressionMSR(n=p, index="SV", random_state=seed)
    if method == "shapiq SVARM": return SVARM(n=p, random_state=seed)
    if method == "shapiq PermutationSamplingSV": return PermutationSamplingSV(n=p, random_state=seed)
    if method == "shapiq ShaplEIG": return ShaplEIG(n=p, random_state=seed, show_progress=False)
    raise ValueError(f"unknown method {method!r}")


def reporting_run(fname, values, exact, method, seed, budget_label, budget):
    "One run of a shapiq approximator on a stored game: its record (mse, seconds, n_evals, values, sd or error)."
    import traceback
    p = len(exact)
    rec = dict(game=fname[:-4], file=fname, p=p, budget=budget, budget_label=budget_label, seed=seed, method=method)
    game = CountingGame(values, p)
    t = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            approx = _approximator(method, p, seed)
            if method == "shapiq ShaplEIG":
                iv, var = approx.approximate_with_variance(budget=budget, game=game)
                rec["sd"] = np.sqrt(np.maximum(np.asarray(var, dtype=float), 0)).tolist()
            else:
                iv = approx.approximate(budget, game)
        est = np.array([float(iv[(i,)]) for i in range(p)])
        rec.update(mse=float(np.mean((est - exact) ** 2)), values=est.tolist())
    except Exception as e:   # a failing method is recorded, not fatal
        rec.update(mse=None, error=f"{type(e).__name__}: {e}", traceback=traceback.format_exc()[-1500:])
    rec.update(seconds=time.perf_counter() - t, n_evals=game.n_evals)
    return rec


SHARED = Path(__file__).resolve().parent / "results" / "reporting_games.json"


def reporting_main(argv):
    import argparse, os
    ap = argparse.ArgumentParser(prog="shapiq_shapleig.py reporting")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "shapiq_reporting.json"))
    ap.add_argument("--methods", nargs="*", default=list(REPORTING_METHODS))
    ap.add_argument("--games", nargs="*", default=None)
    a = ap.parse_args(argv)
    for m in a.methods:
        if m not in REPORTING_METHODS: ap.error(f"unknown method {m!r}; choose from {REPORTING_METHODS}")
    import torch; torch.set_num_threads(1)
    import shapiq
    games = a.games or reporting_games()
    out = Path(a.out); out.parent.mkdir(parents=True, exist_ok=True)
    log = out.with_suffix(out.suffix + "l")
    recs = [json.loads(l) for l in log.read_text().splitlines() if l.strip()] if log.exists() else []
    done = {(r["file"], r["method"], r["budget"], r["seed"]) for r in recs}
    tables, exact = {}, {}
    for f in games:
        v = np.load(GD / f)["values"].astype(float); p = int(round(np.log2(len(v))))
        if len(v) != 1 << p: raise ValueError(f"{f}: {len(v)} values is not 2^p")
        tables[f], exact[f] = v, exact_shapley_table(v, p)
    cheap = [m for m in a.methods if m != "shapiq ShaplEIG"]
    order = [(f, m, lab, b(len(exact[f])), s) for f in games for m in cheap for lab, b in BUDGETS for s in range(a.seeds)]
    if "shapiq ShaplEIG" in a.methods:
        order += [(f, "shapiq ShaplEIG", lab, b(len(exact[f])), s) for lab, b in BUDGETS for f in games
                  for s in range(a.seeds)]
    def dump():
        tmp = out.with_suffix(".tmp")
        tmp.write_text(json.dumps(dict(
            protocol="issue 17 anchor: shapiq 1.8 approximators on the reporting half; budgets p+2, 2p, 3p, 4p, 8p; "
                     f"seeds 0..{a.seeds - 1}; exact values by brute force over the stored 2^p coalition values; mse = mean "
                     "over players of (estimate - exact)^2; every game evaluation counted (n_evals); one thread",
            selection_rule=(json.loads(SHARED.read_text())["rule"] + " (bench/results/reporting_games.json)")
                           if a.games is None and SHARED.exists() else SELECTION_RULE if a.games is None else "--games",
            games=games, methods=a.methods, shapiq_version=shapiq.__version__,
            command="/work/venv312/bin/python bench/shapiq_shapleig.py reporting " + " ".join(argv),
            exact={f: exact[f].tolist() for f in games}, n_runs_planned=len(order), runs=recs)) + "\n")
        os.replace(tmp, out)
    t0 = time.perf_counter(); n_new = 0
    for f, m, lab, b, s in order:
        if (f, m, b, s) in done: continue
        r = reporting_run(f, tables[f], exact[f], m, s, lab, b)
        recs.append(r); done.add((f, m, b, s)); n_new += 1
        with open(log, "a") as fh: fh.write(json.dumps(r) + "\n")
        dump()
    dump()
    print(f"{n_new} new runs, {len(recs)} in all, {time.perf_counter() - t0:.0f} s -> {out}")


def reporting_summary(path):
    "Print, per method and budget, the cells done (game x budget with all seeds), the geometric mean over cells of the per-cell mean MSE, and the mean seconds per run."
    from collections import defaultdict
    runs = json.loads(Path(path).read_text())["runs"]
    n_seeds = max(r["seed"] for r in runs) + 1
    cell = defaultdict(list)
    for r in runs: cell[(r["method"], r["budget_label"], r["file"])].append(r)
    labels = [lab for lab, _ in BUDGETS]
    print(f"{'method':30s}" + "".join(f"{lab:>22s}" for lab in labels) + "   (cells, geo-mean of cell-mean MSE, s/run)")
    for m in REPORTING_METHODS:
        row = f"{m:30s}"
        for lab in labels:
            cs = [rs for (mm, ll, _), rs in cell.items() if mm == m and ll == lab and len(rs) == n_seeds
                  and all(r["mse"] is not None for r in rs)]
            if not cs: row += f"{'-':>22s}"; continue
            g = np.exp(np.mean([np.log(max(np.mean([r["mse"] for r in rs]), 1e-300)) for rs in cs]))
            sec = np.mean([r["seconds"] for rs in cs for r in rs])
            row += f"{len(cs):>5d} {g:9.2e} {sec:6.2f}"
        print(row)
    failed = [r for r in runs if r.get("error")]
    print(f"{len(runs)} runs, {len(failed)} failed" + "".join(f"\n  {r['method']} {r['file']} {r['budget_label']} seed {r['seed']}: {r['error']}" for r in failed[:20]))


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "reporting":
    reporting_main(sys.argv[2:])
elif __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "summary":
    reporting_summary(sys.argv[2] if len(sys.argv) > 2 else Path(__file__).resolve().parent / "results" / "shapiq_reporting.json")
elif __name__ == "__main__":
    seeds = range(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
    out = Path(sys.argv[2] if len(sys.argv) > 2 else "nbs/data/shapiq_shapleig.jsonl")
    done = {(r["game"], r["seed"], r["budget"]) for r in map(json.loads, out.read_text().splitlines())} if out.exists() else set()
    tasks = []
    for g, f in GAMES.items():
        p = int(np.log2(len(np.load(GD / f"{f}.npz")["values"])))
        for s in seeds:
            for b in (p + 2, 2 * p, 3 * p, 4 * p):
                if (g, s, b) not in done: tasks.append(delayed(task)(g, f, s, b))
    t = time.perf_counter()
    for r in Parallel(n_jobs=2, return_as="generator")(tasks):
        with open(out, "a") as fh: fh.write(json.dumps(r) + "\n")
    print(f"{len(tasks)} runs, {time.perf_counter() - t:.0f} s")
