"""ShaplEIG's one-step-ahead calibration of `sd` (notebook 32, "Checking the model as it goes"), chosen on the tuning half.

  python bench/shapleig_calibration.py run tuning [first last]  -> bench/results/shapleig_calibration_tuning.jsonl
  python bench/shapleig_calibration.py summary [tuning]         -> coverage of the 95% intervals by budget and rule

`run` makes one ShaplEIG run to 8p per game of bench/results/<half>_games.json (games first..last-1, so two cores can
share the work) and tuning seed (100-102, never used for reporting), with the rule switched off (the run's `sd` is the
model's); its callback records, for every coalition chosen after the initial design, the squared standardised error
z^2 of the GP's prediction of its value made before it was evaluated (`predictive_z2`), and at every smaller budget of
the grid the posterior a run stopped there returns (`stopped_posterior`; no sd where the data are size-blind). One JSON
line per (game, seed, budget): the errors against the exact values, the model's sd, and the z^2 so far. `summary`
scores the candidate rules on those lines: the sd times sqrt(c) with c = max(1, mean z^2) ("all"),
mean z^2 unclipped ("both_ways"), over the later half of the predictions only ("late"), from the median
(median / 0.455, the chi^2_1 median), with every z^2 capped at 25 ("capped", the library's rule after an audit), and
no rule ("none").
Run on one core each: `taskset -c 0 python bench/shapleig_calibration.py run tuning 0 7`, `... 7 13` on core 1."""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, json, warnings
from pathlib import Path
import numpy as np
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench")); sys.path.insert(0, str(ROOT / "tests"))
from benchmark_games import games_dir   # the one lookup of the benchmark games
from shapleig_reporting import GRID, TUNING_SEEDS, Z95
OUT = ROOT / "bench" / "results" / "shapleig_calibration_{half}.jsonl"
RULES = ("none", "all", "both_ways", "late", "median", "capped")
CHI2_MEDIAN = 0.454936   # median of chi^2 with one degree of freedom


def run(half: str, lo: int, hi: int):
    "One 8p run per game lo..hi-1 and tuning seed, the calibration off; a JSON line per budget prefix."
    import torch
    from unittest import mock
    from shapnb.core.games import load_table_game
    import shapnb.bayes.shapleig as S
    torch.set_num_threads(1); warnings.simplefilter("ignore")
    games = json.loads((ROOT / "bench" / "results" / f"{half}_games.json").read_text())["games"]
    with Path(str(OUT).format(half=half)).open("a") as out, mock.patch.object(S, "sd_inflation", lambda z2: 1.0):
        for f in games[lo:hi]:
            g = load_table_game(games_dir() / f); p = g.n_players; truth = g.exact_shapley()
            budgets = {b(p): label for label, b in GRID}
            for seed in TUNING_SEEDS:
                res, z2 = {}, []
                def at(X, y, hyper):
                    if hyper is not None and len(X) > S.default_n_initial(p):
                        z2.append(float(S.predictive_z2(S.ShapleyPosterior(hyper, X[:-1]), y[:-1], X[-1:], y[-1:])[0]))
                    if len(X) in budgets and len(X) < 8 * p:
                        post = S.stopped_posterior(X, y, hyper, n_threads=None)
                        res[budgets[len(X)]] = (post.values, None if S.size_blind(X, y) else post.sd, list(z2))
                e = S.shapleig(g, p, 8 * p, seed=seed, progress=False, callback=at)
                res["8p"] = (e.values, e.sd, list(z2))
                for label, (v, sd, zz) in res.items():
                    out.write(json.dumps(dict(game=f, p=p, seed=seed, budget_label=label, err=(v - truth).tolist(),
                                              sd=None if sd is None else sd.tolist(), z2=zz)) + "\n")
                out.flush()
            print(f[:60], "done", flush=True)


def factor(z2, rule: str) -> float:
    "The variance factor of `rule` from the squared one-step-ahead errors `z2` (1 with none)."
    z = np.asarray(z2, float)
    z = z[~np.isnan(z)]                                   # NaN: no prediction (a fit to values without spread)
    if rule == "none" or len(z) == 0: return 1.0
    if rule == "both_ways": return float(z.mean())
    m = {"all": z.mean(), "late": z[len(z) // 2:].mean(), "median": np.median(z) / CHI2_MEDIAN,
         "capped": np.minimum(z, 25.0).mean()}[rule]
    return max(1.0, float(m))


def summary(half: str = "tuning"):
    "Coverage of the 95% intervals by budget for every rule, and the largest |error| / sd."
    import pandas as pd
    rows, seen = [], set()
    for line in Path(str(OUT).format(half=half)).read_text().splitlines():
        r = json.loads(line)
        key = (r["game"], r["seed"], r["budget_label"])
        if r["sd"] is None or key in seen: continue   # declined, or a rerun's repeat
        seen.add(key)
        err, sd = np.abs(np.array(r["err"])), np.array(r["sd"])
        for rule in RULES:
            s = sd * np.sqrt(factor(r["z2"], rule))
            rows.append(dict(budget=r["budget_label"], rule=rule, coverage=float(np.mean(err <= Z95 * s)),
                             max_z=float(np.max(err / s))))
    d = pd.DataFrame(rows)
    order = [label for label, _ in GRID]
    print("coverage of the 95% intervals (mean over runs with an sd):")
    print(d.pivot_table(index="budget", columns="rule", values="coverage").reindex(order)[list(RULES)].round(3))
    print("largest |error| / sd:")
    print(d.pivot_table(index="budget", columns="rule", values="max_z", aggfunc="max").reindex(order)[list(RULES)].round(1))


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "summary"
    if cmd == "run": run(sys.argv[2], *((int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (0, 99)))
    elif cmd == "summary": summary(*sys.argv[2:3])
    else: raise SystemExit(__doc__)
