"""ShaplEIG's explore rule (notebook 32, "When the data cannot tell the players apart") on the tuning half: does it cost accuracy?

  python bench/shapleig_explore.py run [first last]  -> bench/results/shapleig_explore_tuning.jsonl (appends; games first..last-1
                                                        of bench/results/tuning_games.json, so two cores can share the work)
  python bench/shapleig_explore.py summary           -> runs the rule changed, and their geometric-mean MSE ratio
  python bench/shapleig_explore.py blind [half]      -> runs at p+2, 2p, 3p that end size-blind (no sd; tuning seeds
                                                        100-102): the MSE of their posterior mean and of the equal split

Variants: "none" (the rule off), "now" (as in the library), "after_p" (the rule only once p coalitions beyond ∅ and N are in).
One run to 8p per game, seed (100-102, the tuning seeds) and variant; the smaller budgets are its prefixes
(bench/shapleig_reporting.py `prefix_runs`). The games are found by tests/benchmark_games.py ($SHAPNB_GAMES_DIR, else
../shared/games/precomputed). Run on one core each: `taskset -c 1 python bench/shapleig_explore.py run 0 7`."""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, json, warnings
from pathlib import Path
import numpy as np
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench")); sys.path.insert(0, str(ROOT / "tests"))
from benchmark_games import games_dir   # the one lookup of the benchmark games
OUT = ROOT / "bench" / "results" / "shapleig_explore_tuning.jsonl"


def run(lo: int, hi: int):
    "Every variant on tuning games lo..hi-1, seeds 100-102: one JSON line per (game, seed, variant, budget)."
    import shapnb.bayes.shapleig as S
    from shapleig_reporting import prefix_runs, TUNING_SEEDS
    from shapnb.core.games import load_table_game
    warnings.simplefilter("ignore")
    games = json.loads((ROOT / "bench" / "results" / "tuning_games.json").read_text())["games"]
    rule = S._sizes_to_explore
    variants = {"none": lambda X, y: None, "now": rule,
                "after_p": lambda X, y: rule(X, y) if len(X) - 2 >= X.shape[1] else None}
    with OUT.open("a") as out:
        for f in games[lo:hi]:
            g = load_table_game(games_dir() / f); p = g.n_players; truth = g.exact_shapley()
            for seed in TUNING_SEEDS:
                for name, fn in variants.items():
                    S._sizes_to_explore = fn
                    for r in prefix_runs(g, p, truth, seed, {}):
                        out.write(json.dumps(dict(game=f, seed=seed, variant=name, budget_label=r["budget_label"], mse=r["mse"])) + "\n")
                    out.flush()
            print(f[:60], "done", flush=True)
    S._sizes_to_explore = rule


def summary() -> dict:
    "Per variant: the runs it changed against 'none' and their geometric-mean MSE ratio, overall and by game."
    import pandas as pd
    d = pd.read_json(OUT, lines=True).drop_duplicates(["game", "seed", "variant", "budget_label"])
    w = d.pivot_table(index=["game", "seed", "budget_label"], columns="variant", values="mse")
    out = {"runs": len(w), "games": int(w.index.get_level_values(0).nunique())}
    for v in ("now", "after_p"):
        r = np.log(w[v] / w["none"]); changed = r.abs() > 1e-9
        out[v] = dict(changed=int(changed.sum()), gmean_all=float(np.exp(r.mean())),
                      gmean_changed=float(np.exp(r[changed].mean())) if changed.any() else None,
                      by_game={g: [len(x), float(np.exp(x.mean()))] for g, x in r[changed].groupby(level=0)})
    return out


def blind(half: str = "tuning") -> dict:
    "The runs at p+2, 2p and 3p whose data end size-blind: MSE of the posterior mean (returned) and of the equal split."
    from shapnb.bayes.shapleig import shapleig
    from shapnb.core.games import load_table_game
    from shapleig_reporting import TUNING_SEEDS
    warnings.simplefilter("ignore")
    games = json.loads((ROOT / "bench" / "results" / f"{half}_games.json").read_text())["games"]
    rows = []
    for f in games:
        g = load_table_game(games_dir() / f); p = g.n_players; truth = g.exact_shapley()
        for b in (p + 2, 2 * p, 3 * p):
            for s in TUNING_SEEDS:
                e = shapleig(g, p, b, seed=s, progress=False)
                if e.sd is None:
                    rows.append(dict(game=f, budget=b, seed=s, mse_posterior=float(np.mean((e.values - truth) ** 2)),
                                     mse_equal_split=float(np.mean((truth.sum() / p - truth) ** 2))))
    ratio = [r["mse_equal_split"] / r["mse_posterior"] for r in rows]
    return dict(runs=rows, gmean_equal_over_posterior=float(np.exp(np.mean(np.log(ratio)))) if rows else None)


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "summary"
    if mode == "run": run(*(map(int, sys.argv[2:4]) if len(sys.argv) > 3 else (0, 13)))
    elif mode == "summary": print(json.dumps(summary(), indent=1))
    elif mode == "blind": print(json.dumps(blind(*sys.argv[2:3]), indent=1))
    else: sys.exit(f"unknown mode {mode!r}: use run, summary or blind")
