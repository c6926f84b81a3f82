"""Would a short fitted lengthscale tell when ShaplEIG's sd cannot be trusted? (notebook 32, "How far to trust sd")

When the Hamming kernel's fitted lengthscales make coalitions one player apart nearly unrelated (correlation
rho_j = exp(-1/(p xi_j)), `hamming_correlations`), a Shapley value is an average over nearly independent values, its
posterior rests on the prior, and its sd can be far too small (an audit: a minimum game, p = 10, at p+2). Candidate
rule: decline the sd when the mean rho_j of the final fit is below a threshold. This script records, per run and
budget prefix, the errors, the reported sd and the fitted hyperparameters, and scores the rule:

  python bench/shapleig_lengthscale_rule.py run tuning [first last]   the tuning half, seeds 100-102, budgets p+2 ... 8p
  python bench/shapleig_lengthscale_rule.py run outside               synthetic families (bench/synthetic_families.py)
                                                                      voting:10, heavy:12, unan_mixed:10, min:10, seeds 0-3,
                                                                      budgets p+2 ... 4p
  python bench/shapleig_lengthscale_rule.py summary                   coverage with and without the rule firing

Output: bench/results/shapleig_lengthscale_{tuning,outside}.jsonl. Run on one core: `taskset -c 0 python ...`."""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, json, warnings
from pathlib import Path
import numpy as np
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench")); sys.path.insert(0, str(ROOT / "tests"))
from benchmark_games import games_dir   # the one lookup of the benchmark games
from shapleig_reporting import GRID, TUNING_SEEDS, Z95
OUT = ROOT / "bench" / "results" / "shapleig_lengthscale_{half}.jsonl"
OUTSIDE = (("voting", 10), ("heavy", 12), ("unan_mixed", 10), ("min", 10))


def one(game, p, truth, seed, name, out, top):
    "One ShaplEIG run to `top` evaluations; a JSON line per budget prefix of GRID (error, reported sd, hyperparameters)."
    import shapnb.bayes.shapleig as S
    budgets = {b(p): label for label, b in GRID if b(p) <= top}
    res, z2 = {}, []
    hyper = lambda h: dict(lengthscale=np.asarray(h.lengthscale).tolist(), outputscale=float(h.outputscale),
                           size_scale=float(h.size_scale))
    def at(X, y, h):
        if h is not None and len(X) > S.default_n_initial(p):
            z2.append(float(S.predictive_z2(S.ShapleyPosterior(h, X[:-1]), y[:-1], X[-1:], y[-1:])[0]))
        if len(X) in budgets and len(X) < top:
            post = S.stopped_posterior(X, y, h, n_threads=None)
            sd = None if S.size_blind(X, y) else post.sd * np.sqrt(S.sd_inflation(np.array(z2)))
            res[budgets[len(X)]] = (post.values, sd, hyper(post.hyper))
    e = S.shapleig(game, p, top, seed=seed, progress=False, callback=at)
    res[budgets[top]] = (e.values, e.sd, hyper(e.details["hyper"]))
    for label, (v, sd, h) in res.items():
        out.write(json.dumps(dict(game=name, p=p, seed=seed, budget_label=label, err=(v - truth).tolist(),
                                  sd=None if sd is None else np.asarray(sd).tolist(), hyper=h)) + "\n")
    out.flush()


def run(half: str, lo: int = 0, hi: int = 99):
    import torch
    torch.set_num_threads(1); warnings.simplefilter("ignore")
    with Path(str(OUT).format(half=half)).open("a") as out:
        if half == "tuning":
            from shapnb.core.games import load_table_game
            games = json.loads((ROOT / "bench" / "results" / "tuning_games.json").read_text())["games"]
            for f in games[lo:hi]:
                g = load_table_game(games_dir() / f); p = g.n_players; truth = g.exact_shapley()
                for seed in TUNING_SEEDS: one(g, p, truth, seed, f, out, 8 * p)
                print(f[:60], "done", flush=True)
        else:
            from synthetic_families import make
            for family, p in OUTSIDE:
                game = make(family, p); truth = game.exact()
                for seed in range(4): one(game, p, truth, seed, f"{family}:{p}", out, 4 * p)
                print(family, p, "done", flush=True)


def summary():
    "Per half and threshold: how often the rule fires, and the coverage of the runs it would decline and keep."
    for half in ("tuning", "outside"):
        rows = []
        for line in Path(str(OUT).format(half=half)).read_text().splitlines():
            r = json.loads(line)
            if r["sd"] is None: continue
            rho = np.exp(-1.0 / (r["p"] * np.array(r["hyper"]["lengthscale"]))).mean()
            cover = float(np.mean(np.abs(np.array(r["err"])) <= Z95 * np.array(r["sd"])))
            rows.append((rho, cover))
        rho, cover = np.array(rows).T
        print(f"{half}: {len(rows)} runs with an sd, coverage {cover.mean():.3f}")
        for t in (0.2, 0.3, 0.5):
            fired = rho < t
            print(f"  mean rho < {t}: fires in {fired.mean():.0%} ({fired.sum()}); coverage of those {cover[fired].mean():.3f}, "
                  f"of the others {cover[~fired].mean():.3f}")


if __name__ == "__main__":
    cmd = sys.argv[1:] or ["summary"]
    if cmd[0] == "run": run(cmd[1], *map(int, cmd[2:4]))
    elif cmd[0] == "summary": summary()
    else: sys.exit(__doc__)
