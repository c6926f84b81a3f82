"""How small gp_surrogate_shap's standard errors get, relative to the game's range, and whether they cover (notebook 35,
"When the sample shows no error"): the evidence for FIT_RESOLUTION.

  taskset -c 0 python bench/gp_surrogate_resolution.py run 0 2     (and `run 1 2` on the other core)
  python bench/gp_surrogate_resolution.py summary

Each run calls gp_surrogate_shap with its defaults but FIT_RESOLUTION = 0 (so every standard error is reported) at
budgets 3p, 4p, 8p (and 16p for p <= 12 on the synthetic families), seeds 0-2, on: the tuning and reporting halves of
the benchmark games (bench/results/*_games.json), the 20 synthetic games of bench/synthetic_families.py, and two games
made for this check (p = 10: additive; additive plus 100 on one coalition of four players). It records the largest
standard error over the game's range (max |v - v(empty)| over the evaluated coalitions), the largest error over the
same range, and the coverage of the 95% intervals. `summary` prints, per group, the smallest ratios and what the rule
would decline at FIT_RESOLUTION. Records: bench/results/gp_surrogate_resolution.jsonl (a rerun skips what is done).
"""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, json, warnings
from pathlib import Path
import numpy as np
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests")); sys.path.insert(0, str(ROOT / "bench"))
OUT = ROOT / "bench" / "results" / "gp_surrogate_resolution.jsonl"


def jobs():
    "(group, name, p, game, exact values, budget name, budget) of every cell."
    from benchmark_games import games_dir
    from shapnb.core.games import load_table_game, exact_shapley
    import synthetic_families as sf
    for half in ("tuning", "reporting"):
        for f in json.loads((ROOT / "bench" / "results" / f"{half}_games.json").read_text())["games"]:
            g = load_table_game(games_dir() / f)
            for m in (3, 4, 8): yield half, f, g.n_players, g, g.exact_shapley(), f"{m}p", m * g.n_players
    for family, p in sf.CELLS:
        g = sf.make(family, p)
        for bname, budget in sf.budgets(p).items():
            if bname not in ("p+2", "2p"): yield "synthetic", f"{family}:{p}", p, g, g.exact(), bname, budget
    a = np.random.default_rng(0).normal(size=10); top = np.isin(np.arange(10), [1, 4, 7, 8])
    made = {"additive:10": lambda Z: np.asarray(Z, float) @ a,
            "one unseen coalition:10": lambda Z: np.asarray(Z, float) @ a + 100.0 * (np.asarray(Z) == top).all(1)}
    for name, g in made.items():
        for m in (3, 4, 8): yield "made", name, 10, g, exact_shapley(g, 10), f"{m}p", 10 * m


def run(part: int, n_parts: int):
    import torch
    import shapnb.bayes.surrogate as surrogate
    import shapnb.sampling.surrogate as rule                        # where the rule lives (notebook 25)
    torch.set_num_threads(1); warnings.simplefilter("ignore")
    rule.FIT_RESOLUTION = 0.0                                       # every standard error reported
    done = {(r["group"], r["game"], r["budget"], r["seed"]) for r in map(json.loads, OUT.read_text().splitlines())} if OUT.exists() else set()
    with open(OUT, "a") as out:
        for i, (group, name, p, game, exact, bname, budget) in enumerate(jobs()):
            if i % n_parts != part: continue
            for seed in range(3):
                if (group, name, bname, seed) in done: continue
                e = surrogate.gp_surrogate_shap(game, p, budget, seed=seed)
                scale = float(np.abs(np.append(e.details["game_values"], e.details["v_full"]) - e.base_values).max())
                rec = dict(group=group, game=name, budget=bname, seed=seed, enumerated=bool(e.details["design"].enumerated),
                           err=float(np.abs(e.values - exact).max() / scale))
                if e.se is not None:
                    rec.update(se=float(e.se.max() / scale),
                               coverage=float(np.mean(np.abs(e.values - exact) <= 1.959964 * e.se + 1e-9 * np.abs(exact).max())))
                out.write(json.dumps(rec) + "\n"); out.flush()


def summary():
    from shapnb.sampling.surrogate import FIT_RESOLUTION
    R = [json.loads(line) for line in OUT.read_text().splitlines()]
    for group in ("tuning", "reporting", "synthetic", "made"):
        S = [r for r in R if r["group"] == group and "se" in r and not r["enumerated"]]
        hit = [r for r in S if r["se"] < FIT_RESOLUTION]
        cover = lambda rs: f"{np.mean([r['coverage'] for r in rs]):.3f}" if rs else "-"
        print(f"{group}: {len(S)} runs with standard errors (every coalition evaluated: left out); smallest se/range "
              f"{min(r['se'] for r in S):.1e}; below FIT_RESOLUTION = {FIT_RESOLUTION:g}: {len(hit)} runs "
              f"(coverage {cover(hit)}, largest error/range {max([r['err'] for r in hit], default=0):.1e}); the rest cover {cover([r for r in S if r not in hit])}")
        for r in hit: print(f"    {r['game']} {r['budget']} seed {r['seed']}: se/range {r['se']:.1e}, error/range {r['err']:.1e}, coverage {r['coverage']:.2f}")


if __name__ == "__main__":
    if sys.argv[1] == "run": run(int(sys.argv[2]), int(sys.argv[3]))
    else: summary()
