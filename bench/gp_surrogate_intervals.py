"""Could gp_surrogate_shap's interval be tighter, on games nobody tuned it on? Its default (notebook 25: Student's
quantile times sqrt(bootstrap^2 + the folds' spread s^2)) against two tighter rules, s^2/K in place of s^2 and the
bootstrap alone, on the games outside the tuning half: the 366 precomputed games outside both halves (budgets 3p, 4p,
8p, seed 0, as bench/outside_games.py) and the synthetic families of bench/synthetic_families.py (its CELLS and the
three products; budgets 3p to 16p, seeds 0-4). Notebook 35 ("Could the interval be tighter?") has the tuning half's
figures (bench/gp_surrogate.py se-rules) and three more games.

  taskset -c 0 python bench/gp_surrogate_intervals.py run outside 0 2   (and `... run outside 1 2` on the other core)
  taskset -c 1 python bench/gp_surrogate_intervals.py run synth
  python bench/gp_surrogate_intervals.py summary                      -> bench/results/gp_surrogate_intervals.json

`run` appends one JSON line per run to bench/results/gp_surrogate_intervals.jsonl (git-ignored; a rerun starts the
part again): the players covered by each rule's 95% interval, or interval=false when the estimator declined. `summary`
prints and writes, per set and budget, each rule's coverage pooled over players and runs, and the cells (a game, or a
family and p) whose coverage is below 90% and below 50%; the runs are saved beside it."""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, json, warnings
from pathlib import Path
import numpy as np
from scipy.stats import t as student_t
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests")); sys.path.insert(0, str(ROOT / "bench"))
from shapnb.core.games import load_table_game
from shapnb.sampling.bootstrap import replicate_se
from shapnb.sampling.regression import residual_df
from outside_games import outside_games, BUDGETS        # the same games and budgets as bench/outside_games.py
from synthetic_families import CELLS, make, budgets    # and the same families as bench/synthetic_families.py
RESULTS = ROOT / "bench" / "results"
RECORDS, SUMMARY = RESULTS / "gp_surrogate_intervals.jsonl", RESULTS / "gp_surrogate_intervals.json"
Z95 = 1.959963984540054
RULES = ("default", "spread_over_K", "bootstrap_alone")


def record(e, truth: np.ndarray, **key) -> dict:
    "Players covered by each rule's interval around `e` (interval=False when it declined)."
    if e.se is None: return dict(key, interval=False)
    d = e.details
    boot, spread = replicate_se(d["replicates"]), np.var(d["fold_values"], axis=0, ddof=1)
    q = float(student_t.ppf(0.975, max(residual_df(d["design"]), 1)))
    err, tol = np.abs(e.values - truth), 1e-9 * np.abs(truth).max()
    return dict(key, interval=True, p=len(truth), default=int((err <= Z95 * e.se + tol).sum()),
                spread_over_K=int((err <= q * np.sqrt(boot ** 2 + spread / d["n_folds"]) + tol).sum()),
                bootstrap_alone=int((err <= q * boot + tol).sum()))


def run(which: str, part: int = 0, n_parts: int = 1):
    "gp_surrogate_shap with its defaults on this part's share of the set; one line per run."
    import torch                                         # here: `summary` runs without torch
    from shapnb.bayes.surrogate import gp_surrogate_shap
    torch.set_num_threads(1)
    with open(RECORDS, "a") as fh:
        if which == "outside":
            for i, path in enumerate(outside_games()):
                if i % n_parts != part: continue
                g = load_table_game(path); p = g.n_players; truth = g.exact_shapley()
                for label in ("3p", "4p", "8p"):
                    e = gp_surrogate_shap(g, p, BUDGETS[label](p), seed=0)
                    fh.write(json.dumps(record(e, truth, set="outside", game=path.name, budget=label)) + "\n"); fh.flush()
        elif which == "synth":
            for i, (family, p) in enumerate(CELLS + [("product", 10), ("product", 14), ("product_heavy", 12)]):
                if i % n_parts != part: continue
                game = make(family, p); exact = game.exact()
                for label, budget in budgets(p).items():
                    if label in ("p+2", "2p") or (family.startswith("product") and label == "16p"): continue
                    for seed in range(5):
                        e = gp_surrogate_shap(game, p, budget, seed=seed)
                        fh.write(json.dumps(record(e, exact, set="synth", game=f"{family}:{p}", budget=label, seed=seed)) + "\n"); fh.flush()
        else: sys.exit(f"unknown set {which!r}: use outside or synth")


def summary() -> dict:
    "Coverage of each rule by set and budget, pooled over players, and the cells below 90% and 50%."
    import pandas as pd
    runs = [json.loads(line) for line in RECORDS.read_text().splitlines()]
    d = pd.DataFrame(runs)
    d = d[d.interval].copy()
    out = {}
    for (which, budget), x in d.groupby(["set", "budget"]):
        sums = x.groupby("game")[list(RULES) + ["p"]].sum()
        cells = sums[list(RULES)].div(sums.p, axis=0)
        out[f"{which} {budget}"] = dict(runs=int(len(x)), cells=int(len(cells)),
                                       coverage={r: float(x[r].sum() / x.p.sum()) for r in RULES},
                                       cells_below_90={r: int((cells[r] < 0.9).sum()) for r in RULES},
                                       cells_below_50={r: int((cells[r] < 0.5).sum()) for r in RULES})
    SUMMARY.write_text(json.dumps(dict(summary=out, runs=runs), indent=1) + "\n")
    return out


if __name__ == "__main__":
    warnings.simplefilter("ignore")   # odd budgets and small designs warn: expected here
    mode = sys.argv[1] if len(sys.argv) > 1 else "summary"
    if mode == "run": run(sys.argv[2], *(int(a) for a in sys.argv[3:5]))
    elif mode == "summary":
        for k, v in summary().items(): print(k, v)
    else: sys.exit(f"unknown mode {mode!r}: use run or summary")
