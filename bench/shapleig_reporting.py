"""ShaplEIG with the kernel chosen by the data (issue 17): tuning on the tuning half, report on the reporting half.

Protocol: the shared games are split once (bench/game_split.py, nbs/data/game_split.json). The reporting games are the
13 of bench/results/reporting_games.json (fixed before any result); the tuning games are picked from the tuning half by
the same rule (one game per task, the smallest sha256 of the file name) and written to bench/results/tuning_games.json.
Every choice (criterion: LOO, BIC or the plain evidence) was made on the tuning half (`tune`); `report` runs only the
fixed methods on the reporting half.

  python bench/shapleig_reporting.py tune    [n_seeds=1] [variant ...] -> bench/results/shapleig_tuning.json (one run to 8p
                                                           per game, seed and variant; the smaller budgets are its prefixes)
  python bench/shapleig_reporting.py report  [method ...] -> bench/results/shapleig_reporting.json (every method's records;
                                                           each run is saved at once in shapleig_reporting_<method>.part.json)
  python bench/shapleig_reporting.py merge                 -> shapleig_reporting.json from the part files, and the new/old summary
  python bench/shapleig_reporting.py compare [shapiq file] -> prints the comparison with shapiq 1.8's ShaplEIG (cells with all
                                                           5 seeds on both sides; bench/results/shapiq_reporting.json by default)

Methods: "shapleig" = `shapleig(game, p, budget, seed=s)` as it is now (kernel="auto"); "shapleig_old" = the default
before issue 17 (kernel="fixed": one shared lengthscale below 4p observations, per-player lengthscales from 4p on, no
size trend). Budgets p+2, 2p, 3p, 4p, 8p; seeds 0-4; each (budget, seed) is a separate run from scratch; every
evaluation is counted (n_evals = distinct coalitions evaluated, ∅ and N included). Exact values by brute force from the
stored coalition values. "seconds" is the CPU time of the run (time.process_time, one thread), so that runs sharing a
core with other processes are timed fairly; also "wall".

Near-constant games (defined from the exact values before any result): var(v(S), S ≠ ∅) / var(v(S), all S) < 0.2.
Run on one core: `taskset -c 1 python bench/shapleig_reporting.py report`.
The games are found by the one lookup, tests/benchmark_games.py ($SHAPNB_GAMES_DIR, else ../shared/games/precomputed)."""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, re, json, time, hashlib, warnings
from pathlib import Path
import numpy as np
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from benchmark_games import games_dir   # the one lookup of the benchmark games

RESULTS = ROOT / "bench" / "results"
GRID = (("p+2", lambda p: p + 2), ("2p", lambda p: 2 * p), ("3p", lambda p: 3 * p), ("4p", lambda p: 4 * p),
        ("8p", lambda p: 8 * p))
SEEDS = range(5)
TUNING_SEEDS = (100, 101, 102)   # seeds of the tuning runs (never used for reporting)
NEAR_CONSTANT = 0.2              # var(non-empty values) / var(all values) below this: a near-constant game
Z95 = 1.959963984540054
METHODS = {"shapleig": dict(), "shapleig_old": dict(kernel="fixed")}   # "shapleig": kernel="auto", kernel_criterion="bic" (the defaults)
TUNED = {"loo": dict(kernel="auto", kernel_criterion="loo"), "bic": dict(kernel="auto", kernel_criterion="bic"),
         "evidence": dict(kernel="auto", kernel_criterion="evidence"), "old": dict(kernel="fixed")}


def task_of(name: str) -> str:
    "The task of a game file: the game class name without the dataset prefix (SOUM, ImageClassifier, SentimentAnalysis alone)."
    stem = re.fullmatch(r"(.*)_(\d+)\.npz", name).group(1)
    cls = stem.split("_Game")[0] + "_Game"
    for own in ("SOUM", "ImageClassifier", "SentimentAnalysis"):
        if cls.startswith(own): return own
    return cls.split("_", 1)[1] if "_" in cls[:-5] else cls


def pick_games(names) -> list[str]:
    "From each task the game whose sha256(file name) hex digest is smallest (the rule of reporting_games.json)."
    best = {}
    for n in sorted(names):
        t, h = task_of(n), hashlib.sha256(n.encode()).hexdigest()
        if t not in best or h < best[t][0]: best[t] = (h, n)
    return [n for _, n in best.values()]


def near_constant_ratio(values: np.ndarray) -> float:
    "var of the non-empty coalitions' values over var of all values (bitmask 0 is ∅)."
    v = np.asarray(values, float)
    return float(v[1:].var() / v.var()) if v.var() > 0 else 1.0


def one_run(g, p, truth, budget, seed, options):
    "One ShaplEIG run from scratch: MSE, CPU and wall seconds, coverage of the 95% intervals, evaluations, the last kernel."
    import torch
    from shapnb.bayes.shapleig import shapleig
    torch.set_num_threads(1)
    t0, c0 = time.perf_counter(), time.process_time()
    e = shapleig(g, p, budget, seed=seed, progress=False, **options)
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    err = e.values - truth
    cov = None if e.sd is None else float(np.mean(np.abs(err) <= Z95 * e.sd))
    kc = e.details.get("kernel_choice")
    return dict(mse=float(np.mean(err ** 2)), seconds=cpu, wall=wall, coverage=cov, n_evals=int(e.n_evals),
                kernel=None if kc is None else kc.name, values=e.values.tolist(),
                sd=None if e.sd is None else e.sd.tolist())   # None: declined (size-blind data, notebook 32)


def prefix_runs(g, p, truth, seed, options):
    """Tuning shortcut: one run to 8p; at every smaller budget of GRID the estimate a run stopped there returns.

    The coalitions chosen do not depend on the budget, so a run with budget b chooses the first b coalitions of the 8p
    run; its estimate is `stopped_posterior` at that point (warm-started from the hyperparameters of the last round), its sd
    widened by the one-step-ahead check of the coalitions so far and declined on size-blind data, as the run would."""
    import torch
    from shapnb.bayes.shapleig import shapleig, stopped_posterior, predictive_z2, sd_inflation, size_blind
    from shapnb.bayes.eig import ShapleyPosterior
    torch.set_num_threads(1)
    selection_fits = options.get("selection", "eig") in ("eig", "uncertainty") and options.get("batch_size", 1) == 1
    budgets = {b(p): label for label, b in GRID}
    out, c0, z2 = {}, time.process_time(), []
    def at(X, y, hyper):
        if hyper is not None and selection_fits:           # the run's one-step-ahead check (notebook 32), one coalition a round
            z2.append(float(predictive_z2(ShapleyPosterior(hyper, X[:-1]), y[:-1], X[-1:], y[-1:])[0]))
        if len(X) in budgets and len(X) < 8 * p:
            post = stopped_posterior(X, y, hyper, n_threads=None,
                                     **{k: v for k, v in options.items() if k in ("kernel",)},
                                     **({"criterion": options["kernel_criterion"]} if "kernel_criterion" in options else {}))
            sd = None if size_blind(X, y) else post.sd * np.sqrt(sd_inflation(z2))   # what a run with this budget reports
            out[budgets[len(X)]] = (post.values, sd, time.process_time() - c0, getattr(post, "kernel_choice", None))
    e = shapleig(g, p, 8 * p, seed=seed, progress=False, callback=at, **options)
    out["8p"] = (e.values, e.sd, time.process_time() - c0, e.details.get("kernel_choice"))
    rows = []
    for label, b in GRID:
        v, sd, sec, kc = out[label]
        err = v - truth
        rows.append(dict(budget_label=label, budget=b(p), mse=float(np.mean(err ** 2)), seconds=sec, wall=None,
                         coverage=None if sd is None else float(np.mean(np.abs(err) <= Z95 * sd)), n_evals=b(p),
                         kernel=None if kc is None else kc.name, values=v.tolist(), sd=None if sd is None else sd.tolist()))
    return rows


def run_games(files, seeds, methods: dict, out: Path, tag_key="method"):
    "Run every method on every game, budget and seed; append each record to `out` (a JSON list) as soon as it is done."
    from shapnb.core.games import load_table_game
    records = json.loads(out.read_text()) if out.exists() else []
    done = {(r["game"], r["budget_label"], r["seed"], r[tag_key]) for r in records}
    t_start = time.perf_counter()
    for f in files:
        g = load_table_game(games_dir() / f); p = g.n_players; truth = g.exact_shapley()
        for label, b in GRID:
            for s in seeds:
                for m, opts in methods.items():
                    if (f, label, s, m) in done: continue
                    r = one_run(g, p, truth, b(p), s, opts)
                    records.append(dict(game=f, p=p, budget_label=label, budget=b(p), seed=s, **{tag_key: m},
                                        **{k: r[k] for k in ("mse", "seconds", "wall", "coverage", "n_evals", "kernel")},
                                        values=r["values"], sd=r["sd"]))
                    tmp = out.with_suffix(".tmp"); tmp.write_text(json.dumps(records) + "\n"); tmp.replace(out)
            print(f"{f[:60]} {label} done, {time.perf_counter() - t_start:.0f} s", flush=True)
    return records


def gmean(x):
    "Geometric mean."
    return float(np.exp(np.mean(np.log(np.asarray(x, float)))))


def summarise(records, method, base, key="method"):
    "Cell means (game x budget) of `method` against `base`: wins, geometric-mean ratio, coverage by budget, worst run."
    import pandas as pd
    df = pd.DataFrame(records)
    cells = df.groupby(["game", "budget_label", key]).mse.mean().unstack(key)
    ratio = (cells[method] / cells[base]).dropna()
    out = dict(cells=len(ratio), wins=int((ratio < 1).sum()), gmean_ratio=gmean(ratio),
               ratio_by_budget={b: gmean(ratio.xs(b, level="budget_label")) for b, _ in GRID if b in ratio.index.get_level_values(1)})
    m = df[df[key] == method]
    out["coverage_by_budget"] = {b: float(m[m.budget_label == b].coverage.mean()) for b, _ in GRID if (m.budget_label == b).any()}
    med = m.groupby(["game", "budget_label"]).mse.transform("median")
    out["worst_run_over_cell_median"] = float((m.mse / med.clip(lower=1e-300)).max())
    out["seconds_median"] = float(m.seconds.median()); out["seconds_max"] = float(m.seconds.max())
    return out


def tune(n_seeds: int, variants=("old", "loo", "bic")):
    "The tuning half: the old default and the three selection criteria, on one game per task, `n_seeds` seeds."
    split = json.loads((ROOT / "nbs" / "data" / "game_split.json").read_text())
    files = pick_games(split["tuning"])
    (RESULTS / "tuning_games.json").write_text(json.dumps(dict(
        rule="tuning half only; games grouped by task (the game class name without the dataset prefix; SOUM, ImageClassifier, "
             "SentimentAnalysis are their own task); from each task the game whose sha256(file name) hex digest is smallest "
             "(the rule of reporting_games.json). Fixed before any tuning result was seen.", games=files), indent=1) + "\n")
    out = RESULTS / "shapleig_tuning.json"
    from shapnb.core.games import load_table_game
    recs = json.loads(out.read_text()) if out.exists() else []
    done = {(r["game"], r["seed"], r["variant"]) for r in recs}
    t_start = time.perf_counter()
    for f in files:
        g = load_table_game(games_dir() / f); p = g.n_players; truth = g.exact_shapley()
        for s in TUNING_SEEDS[:n_seeds]:
            for v in variants:
                if (f, s, v) in done: continue
                recs += [dict(game=f, p=p, seed=s, variant=v, **r) for r in prefix_runs(g, p, truth, s, TUNED[v])]
                tmp = out.with_suffix(".tmp"); tmp.write_text(json.dumps(recs) + "\n"); tmp.replace(out)
        print(f"{f[:60]} done, {time.perf_counter() - t_start:.0f} s", flush=True)
    summary = {v: summarise(recs, v, "old", key="variant") for v in variants if v != "old"}
    summary["old"] = summarise(recs, "old", "old", key="variant")
    return summary


def compare(shapiq_file: Path, ours_files=None):
    "Our ShaplEIG against shapiq 1.8's on the same cells: wins, geometric-mean ratio, with and without the near-constant games."
    import pandas as pd
    ours_files = ours_files or [RESULTS / "shapleig_reporting.json"]
    ours = pd.DataFrame([r for f in ours_files for r in json.loads(Path(f).read_text())])
    raw = json.loads(shapiq_file.read_text()) if shapiq_file.suffix == ".json" else [json.loads(l) for l in shapiq_file.read_text().splitlines()]
    if isinstance(raw, dict): raw = raw["runs"]   # bench/shapiq_shapleig.py reporting: {"protocol": ..., "runs": [...]}
    theirs = pd.DataFrame(raw)
    theirs = theirs[theirs["method"].str.lower().str.contains("shapleig")]
    if "file" in theirs: theirs["game"] = [f if f.endswith(".npz") else f + ".npz" for f in theirs.file]
    if "budget_label" not in theirs:
        theirs["budget_label"] = [next(l for l, b in GRID if b(p) == bud) for p, bud in zip(theirs.p, theirs.budget)]
    near = {f: near_constant_ratio(np.load(games_dir() / f)["values"]) < NEAR_CONSTANT for f in ours.game.unique()}
    complete = lambda df: df.groupby(["game", "budget_label"]).mse.agg(["mean", "count"]).query(f"count >= {len(SEEDS)}")["mean"]
    t = complete(theirs)                                   # only cells with every seed, on both sides
    report = {}
    for m in ours.method.unique():
        o = complete(ours[ours.method == m])
        r = (o / t).dropna()
        keep = np.array([not near[g] for g, _ in r.index])
        report[m] = dict(cells=len(r), wins=int((r < 1).sum()), gmean_ratio=gmean(r),
                         cells_without_near_constant=int(keep.sum()), wins_without_near_constant=int((r[keep] < 1).sum()),
                         gmean_ratio_without_near_constant=gmean(r[keep]),
                         ratio_by_budget={b: gmean(r.xs(b, level="budget_label")) for b, _ in GRID if b in r.index.get_level_values(1)},
                         ratio_by_game={g: gmean(r.xs(g, level="game")) for g in r.index.get_level_values(0).unique()})
    report["near_constant_games"] = [g for g, v in near.items() if v]
    return report


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "report"
    warnings.simplefilter("ignore")
    from threadpoolctl import threadpool_limits
    with threadpool_limits(1):
        if mode == "tune":
            print(json.dumps(tune(int(sys.argv[2]) if len(sys.argv) > 2 else 1, tuple(sys.argv[3:]) or ("old", "loo", "bic")), indent=1))
        elif mode == "report":
            files = json.loads((RESULTS / "reporting_games.json").read_text())["games"]
            for m in (sys.argv[2:] or METHODS):   # one part file per method: two methods can run at once
                run_games(files, SEEDS, {m: METHODS[m]}, RESULTS / f"shapleig_reporting_{m}.part.json")
            recs = [r for m in METHODS if (RESULTS / f"shapleig_reporting_{m}.part.json").exists()
                    for r in json.loads((RESULTS / f"shapleig_reporting_{m}.part.json").read_text())]
            (RESULTS / "shapleig_reporting.json").write_text(json.dumps(recs) + "\n")
            if {"shapleig", "shapleig_old"} <= {r["method"] for r in recs}:
                print(json.dumps(summarise(recs, "shapleig", "shapleig_old"), indent=1))
        elif mode == "merge":   # every method's part file into shapleig_reporting.json
            recs = [r for m in METHODS if (RESULTS / f"shapleig_reporting_{m}.part.json").exists()
                    for r in json.loads((RESULTS / f"shapleig_reporting_{m}.part.json").read_text())]
            (RESULTS / "shapleig_reporting.json").write_text(json.dumps(recs) + "\n")
            print(json.dumps(summarise(recs, "shapleig", "shapleig_old"), indent=1))
        elif mode == "compare":
            parts = sorted(RESULTS.glob("shapleig_reporting_*.part.json"))   # while `report` runs: its part files
            print(json.dumps(compare(Path(sys.argv[2]) if len(sys.argv) > 2 else RESULTS / "shapiq_reporting.json",
                                     None if (RESULTS / "shapleig_reporting.json").exists() else parts), indent=1))
        else: sys.exit(f"unknown mode {mode!r}: use tune, report or compare")
