"""Issue 17 on the benchmark games outside both 13-game sets: do the estimators' intervals and errors hold there?

The estimators were tuned on the 13 games of bench/results/tuning_games.json and reported on the 13 of
reporting_games.json. Every other precomputed game (366 of 392; none of them was used to choose anything for
`gp_surrogate_shap` or `surrogate_shap`) is run here once per method, budget and seed with the defaults, and scored
against the exact values from the game's full table:

  python bench/outside_games.py run [budgets=3p,4p,8p] [seeds=1] [methods=gp_surrogate_shap,kernel_shap]
  python bench/outside_games.py summary

`run` appends one JSON line per run to bench/results/outside_games.jsonl (a run already there is skipped, so an
interrupted run resumes); `summary` prints, per method and budget, the coverage of the 95% intervals pooled over
players and games, the number of games whose coverage is below 50%, and the geometric-mean MSE relative to
kernel_shap on the same game, budget and seed. "gp_surrogate_shap shrunk" is its default before
correction="shrunk-refit" (2026-12-07), run again beside it, and "gp_surrogate_shap (kernel design)" its default before
singletons=True (the same day, later): both on the kernel's allocation of the design (singletons=False);
"surrogate_shap (kernel design)" the same for the trees of notebook 25. "gp_surrogate_shap (design alone)" is
eig_after=0, the default at p+2 and 2p before the rule below interval_budget(p) (notebook 35), run beside it at 2p. Run it on one core: `taskset -c 1 python bench/outside_games.py run`
(gp_surrogate_shap takes 1-2 s a run: the three budgets took 27 minutes). The games are found by the one
lookup, tests/benchmark_games.py ($SHAPNB_GAMES_DIR, else ../shared/games/precomputed)."""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, json, time, warnings
from pathlib import Path
import numpy as np
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from benchmark_games import games_dir   # the one lookup of the benchmark games
from shapnb.core.games import load_table_game, shapley_from_values

RESULTS = ROOT / "bench" / "results"
OUT = RESULTS / "outside_games.jsonl"
Z95 = 1.959963984540054
BUDGETS = {"p+2": lambda p: p + 2, "2p": lambda p: 2 * p, "3p": lambda p: 3 * p, "4p": lambda p: 4 * p, "8p": lambda p: 8 * p}


def estimators() -> dict:
    "name -> estimator(game, p, budget, seed) with its defaults (imported here: torch loads only when it runs)."
    from shapnb.sampling.kernelshap import kernel_shap
    from shapnb.sampling.surrogate import surrogate_shap
    from shapnb.bayes.surrogate import gp_surrogate_shap
    shrunk = lambda game, p, budget, seed: gp_surrogate_shap(game, p, budget, seed=seed, correction="shrunk", singletons=False)
    kernel_design = lambda game, p, budget, seed: gp_surrogate_shap(game, p, budget, seed=seed, singletons=False)
    trees_kernel_design = lambda game, p, budget, seed: surrogate_shap(game, p, budget, seed=seed, singletons=False)
    design_alone = lambda game, p, budget, seed: gp_surrogate_shap(game, p, budget, seed=seed, eig_after=0)
    return {"kernel_shap": kernel_shap, "surrogate_shap": surrogate_shap, "gp_surrogate_shap": gp_surrogate_shap,
            "gp_surrogate_shap shrunk": shrunk, "gp_surrogate_shap (kernel design)": kernel_design,
            "surrogate_shap (kernel design)": trees_kernel_design, "gp_surrogate_shap (design alone)": design_alone}


def outside_games() -> list[Path]:
    "The precomputed games in neither 13-game set, by name."
    studied = set()
    for name in ("tuning_games.json", "reporting_games.json"):
        studied |= set(json.loads((RESULTS / name).read_text())["games"])
    paths = [f for f in sorted(games_dir().glob("*.npz")) if f.name not in studied]
    if not paths: sys.exit(f"no benchmark games in {games_dir()} (set SHAPNB_GAMES_DIR)")
    return paths


def score(e, truth: np.ndarray) -> dict:
    "MSE against the exact values; the interval's coverage over players, or None where the estimator declined one."
    err = np.asarray(e.values, float) - truth
    out = {"mse": float(np.mean(err ** 2))}
    se = None if e.se is None else np.asarray(e.se, float)
    if se is None or not np.isfinite(se).any(): out.update(coverage=None, mean_se=None)
    else:
        ok = np.isfinite(se)
        out.update(coverage=float(np.mean(np.abs(err[ok]) <= Z95 * se[ok])), mean_se=float(se[ok].mean()))
    return out


def run(budgets: list[str], n_seeds: int, methods: list[str]):
    "One JSON line per (game, method, budget, seed) not yet in OUT."
    fns = estimators()
    done = set()
    if OUT.exists():
        for line in OUT.read_text().splitlines():
            r = json.loads(line); done.add((r["game"], r["method"], r["budget"], r["seed"]))
    paths = outside_games()
    print(f"{len(paths)} games outside the tuning and reporting sets", flush=True)
    for k, path in enumerate(paths):
        game = load_table_game(path)
        p = int(np.log2(len(game.values)))
        truth = shapley_from_values(game.values)
        with OUT.open("a") as fh:
            for label in budgets:
                budget = BUDGETS[label](p)
                for method in methods:
                    for seed in range(n_seeds):
                        if (path.name, method, label, seed) in done: continue
                        start = time.process_time()
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            e = fns[method](game, p, budget, seed=seed)
                        row = {"game": path.name, "p": p, "budget": label, "method": method, "seed": seed,
                               "seconds": time.process_time() - start, **score(e, truth)}
                        fh.write(json.dumps(row) + "\n")
        print(k + 1, path.name, time.strftime("%H:%M:%S"), flush=True)


def summary() -> dict:
    "Coverage, games below 50% coverage, and geometric-mean MSE relative to kernel_shap, per method and budget."
    rows = [json.loads(line) for line in OUT.read_text().splitlines()]
    mse = {(r["game"], r["budget"], r["seed"], r["method"]): r["mse"] for r in rows}
    out = {}
    for method in sorted({r["method"] for r in rows}):
        for label in BUDGETS:
            cell = [r for r in rows if r["method"] == method and r["budget"] == label]
            if not cell: continue
            given = [r for r in cell if r["coverage"] is not None]
            pooled = (sum(r["coverage"] * r["p"] for r in given) / sum(r["p"] for r in given)) if given else None
            ratios = [np.log(max(r["mse"], 1e-300) / max(mse[key], 1e-300)) for r in cell
                      if (key := (r["game"], label, r["seed"], "kernel_shap")) in mse]
            out[f"{method} {label}"] = {"runs": len(cell), "games": len({r["game"] for r in cell}),
                                        "with_interval": len(given), "coverage": pooled,
                                        "games_below_50": sum(r["coverage"] < 0.5 for r in given),
                                        "gmean_mse_vs_kernel_shap": float(np.exp(np.mean(ratios))) if ratios else None}
    for key, s in out.items():
        cov = "declined" if s["coverage"] is None else f"{100 * s['coverage']:.1f}%"
        ratio = "" if s["gmean_mse_vs_kernel_shap"] is None else f"{s['gmean_mse_vs_kernel_shap']:.3f}"
        print(f"{key:28s} runs {s['runs']:5d}  games {s['games']:4d}  with interval {s['with_interval']:5d}  coverage {cov:>9s}"
              f"  games < 50%: {s['games_below_50']:3d}  gmean MSE / kernel_shap {ratio}")
    return out


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "summary"
    if what == "run":
        budgets = (sys.argv[2] if len(sys.argv) > 2 else "3p,4p,8p").split(",")
        n_seeds = int(sys.argv[3]) if len(sys.argv) > 3 else 1
        methods = (sys.argv[4] if len(sys.argv) > 4 else "gp_surrogate_shap,kernel_shap").split(",")
        if bad := [b for b in budgets if b not in BUDGETS]: sys.exit(f"unknown budgets {bad}; choose from {list(BUDGETS)}")
        run(budgets, n_seeds, methods)
    elif what == "summary": summary()
    else: sys.exit("usage: python bench/outside_games.py run [budgets] [seeds] [methods] | summary")
