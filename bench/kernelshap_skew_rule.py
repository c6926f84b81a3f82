"""Issue 17: would a rule on the skewness of KernelSHAP's bootstrap replicates (Cochran's rule: a normal interval needs
the estimator's skewness small) tell the runs whose 95% intervals miss, on products of log-normal factors, from the rest?

  python bench/kernelshap_skew_rule.py run [cells=fam:p,...] [seeds=20]
  python bench/kernelshap_skew_rule.py summary

`run` explains each game of bench/synthetic_families.py named in `cells` (default below) by `kernel_shap` with its
defaults at budgets 3p, 4p and 8p, seeds 0..seeds-1, and appends per run the players' coverage and the skewness of
their bootstrap replicates to bench/results/kernelshap_skew_rule.jsonl (the file is rewritten); `summary` prints, per
threshold on the largest |skewness| over the players, the share of runs a rule "interval only below the threshold"
would keep and their coverage, per game. Run it on one core: `taskset -c 1 python ...` (about a minute)."""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, json, warnings, collections
from pathlib import Path
import numpy as np
from scipy.stats import skew
sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic_families import make
import shapnb

OUT = Path(__file__).resolve().parent / "results" / "kernelshap_skew_rule.jsonl"
CELLS = "product_heavy:12,product:10,heavy:10,heavy:12,unan_mixed:10,voting:10,nn:10,poly3:10,dominant:12,unan_pos:10,voting_ln:14"
Z95 = 1.959963984540054

def run(cells: str = CELLS, seeds: int = 20):
    "One line per (game, budget, seed): declined, and else each player's coverage and replicate skewness."
    warnings.simplefilter("ignore")
    with open(OUT, "w") as out:
        for family, p in (c.split(":") for c in cells.split(",")):
            p = int(p); game = make(family, p); exact = game.exact()
            for name, budget in (("3p", 3 * p), ("4p", 4 * p), ("8p", 8 * p)):
                for seed in range(seeds):
                    e = shapnb.kernel_shap(game, p, budget, seed=seed)
                    rec = dict(family=family, p=p, budget=name, seed=seed, declined=e.se is None)
                    if e.se is not None:
                        rec.update(covered=(np.abs(e.values - exact) <= Z95 * e.se).tolist(),
                                   skew=np.nan_to_num(skew(np.asarray(e.details["replicates"]), axis=0, bias=False)).tolist())
                    out.write(json.dumps(rec) + "\n")

def summary():
    "Per threshold and game: runs kept by the rule and their coverage, against every run's coverage."
    rows = [json.loads(line) for line in OUT.read_text().splitlines()]
    games = collections.defaultdict(list)
    for r in rows:
        if not r["declined"]: games[f"{r['family']}:{r['p']}"].append(r)
    for threshold in (0.5, 1.0, 1.5):
        print(f"interval only where max |skewness| <= {threshold}:")
        for game, runs in games.items():
            kept = [r for r in runs if max(map(abs, r["skew"])) <= threshold]
            cover = lambda rs: np.mean([c for r in rs for c in r["covered"]]) if rs else float("nan")
            print(f"  {game:16s} {len(runs):3d} runs cover {cover(runs):.3f}; kept {len(kept) / len(runs):.2f}, covering {cover(kept):.3f}")

if __name__ == "__main__":
    if sys.argv[1:2] == ["run"]: run(*(sys.argv[2:3] or [CELLS]), *map(int, sys.argv[3:4]))
    elif sys.argv[1:2] == ["summary"]: summary()
    else: sys.exit(__doc__)
