"""Issue 17 on game families outside the benchmark altogether: do the estimators' intervals hold on games of kinds
nobody tuned them on?

Every game here is synthetic, built from a fixed seed, with exact Shapley values (closed form for sums of unanimity
games, `exact_shapley` by enumeration otherwise): sums of unanimity games (positive or mixed signs, also shifted by
1e9 and scaled by 1e-12), weighted voting games (Pareto and log-normal weights), a random tanh network and a random
cubic polynomial explained against a baseline row, a game of three dominant players among near-null ones, a
heavy-tailed game (exp of random pairwise interactions), an additive game, and (not in CELLS: run them by name, `min:10`,
`product:10`) the minimum of the players' weights and products of log-normal factors, v(S) = prod over S of a_i
(`product`: sigma 0.6; `product_heavy`: sigma 1.5); p from 3 to 24. Each method runs with
its defaults at budgets p+2, 2p, 3p, 4p, 8p (and 16p for p <= 12):

  python bench/synthetic_families.py run METHOD SEED0 SEED1 [cells=fam:p,...] [budgets=3p,4p,...]
  python bench/synthetic_families.py summary [SEEDS]

METHOD is kernel_shap, gp_surrogate_shap, "gp_surrogate_shap shrunk" (its default before 2026-12-07, correction="shrunk"),
"gp_surrogate_shap (kernel design)" (its default before singletons=True, the same day; both on the kernel's allocation)
or shapleig. The rows "gp_surrogate_shap shrunk (earlier code)" are that default's seeds 5-19 on three cells, run before
2026-12-07 with the code of their day (kept for notebook 35's history; not runnable under that name). `run` appends one JSON line per run to
bench/results/synthetic_families.jsonl (a run already there is skipped); `summary` prints, per method and budget, the
coverage of the 95% intervals pooled over players, games and seeds (declined runs left out, their share shown), and
the cells (family, p, budget) whose coverage is below 90%; with SEEDS, only the runs of seeds below it (so that
cells run with more seeds do not weigh more in the pooled figures). Run it on one core: `taskset -c 1 python ...`."""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, json, time, warnings
from pathlib import Path
import numpy as np
import shapnb

OUT = Path(__file__).resolve().parent / "results" / "synthetic_families.jsonl"
Z95 = 1.959963984540054
CELLS = [("unan_pos", 10), ("unan_mixed", 10), ("unan_mixed", 16), ("voting", 10), ("voting_ln", 14), ("nn", 10),
         ("nn", 14), ("poly3", 10), ("dominant", 12), ("dominant", 20), ("heavy", 10), ("heavy", 12),
         ("unan_offset1e9", 10), ("unan_scale1e-12", 10), ("additive", 10), ("additive", 16), ("unan_mixed", 3),
         ("unan_mixed", 4), ("unan_mixed", 20), ("unan_mixed", 24)]


class UnanimitySum:
    "v(S) = c + sum_t w_t [T_t ⊆ S], times `scale`; φ_i = scale · sum over the sets holding i of w_t / |T_t|."
    def __init__(self, p, sets, w, c=0.0, scale=1.0):
        self.p, self.sets, self.w, self.c, self.scale = p, sets, np.asarray(w, float), c, scale
        self.mask = np.zeros((len(sets), p), bool)
        for k, T in enumerate(sets): self.mask[k, T] = True
    def __call__(self, Z):
        held = (np.asarray(Z, bool)[:, None, :] | ~self.mask[None]).all(2)
        return (self.c + held.astype(float) @ self.w) * self.scale
    def exact(self):
        phi = np.zeros(self.p)
        for T, w in zip(self.sets, self.w): phi[T] += w / len(T)
        return phi * self.scale


class EnumeratedGame:
    "A game given as a function of the coalition matrix; its exact values by enumeration."
    def __init__(self, f, p): self.f, self.p = f, p
    def __call__(self, Z): return self.f(np.asarray(Z, bool))
    def exact(self): return shapnb.exact_shapley(self.f, self.p)


def unanimity_sum(p, rng, mixed, c=0.0, scale=1.0, k=8):
    sets = [sorted(rng.choice(p, rng.integers(1, p + 1), replace=False).tolist()) for _ in range(k)]
    return UnanimitySum(p, sets, rng.exponential(1, k) * (rng.choice([-1, 1], k) if mixed else 1), c, scale)

def dominant(p, rng):
    "Three dominant players (terms of orders 1-3 among them, weights ~5) and 2p small terms (weights ~1e-3)."
    sets = [[0], [1], [2], [0, 1], [1, 2], [0, 1, 2]]; w = list(5 * rng.normal(size=6))
    for _ in range(2 * p):
        sets.append(sorted(rng.choice(p, rng.integers(1, 4), replace=False).tolist())); w.append(1e-3 * rng.normal())
    return UnanimitySum(p, sets, w, c=1.0)

def voting(p, rng, weights, quota=None):
    "A weighted majority game: v(S) = 1 when S's weight reaches the quota (a random share of the total if None)."
    w = weights(rng, p); q = (rng.uniform(0.3, 0.7) if quota is None else quota) * w.sum()
    return EnumeratedGame(lambda Z: (Z.astype(float) @ w >= q).astype(float), p)

def baseline_model(p, rng, model):
    "A model explained at a random row against a random baseline row (features outside S take the baseline's)."
    x, b = rng.normal(size=p), rng.normal(size=p)
    return EnumeratedGame(lambda Z: model(np.where(Z, x, b)), p)

def tanh_network(p, rng):
    W1, b1, W2 = rng.normal(size=(p, 16)) / np.sqrt(p), rng.normal(size=16), rng.normal(size=16)
    return baseline_model(p, rng, lambda X: np.tanh(X @ W1 + b1) @ W2)

def cubic(p, rng):
    terms = [rng.choice(p, rng.integers(1, 4), replace=False) for _ in range(3 * p)]; c = rng.normal(size=len(terms))
    return baseline_model(p, rng, lambda X: sum(ci * X[:, t].prod(1) for ci, t in zip(c, terms)))

def heavy_tailed(p, rng):
    W = np.triu(rng.normal(size=(p, p)), 1) * 0.6; a = rng.normal(size=p) * 0.3
    return EnumeratedGame(lambda Z: np.exp(np.einsum("ki,ij,kj->k", Z * 1.0, W, Z * 1.0) + Z @ a), p)

def minimum(p, rng):
    "v(S) = the smallest of the players' exponential weights in S (0 for the empty coalition)."
    a = rng.exponential(1, p)
    return EnumeratedGame(lambda Z: np.where(Z.any(1), np.where(Z, a, np.inf).min(1), 0.0), p)

def product(p, rng, sigma):
    "v(S) = the product of the players' log-normal(0, sigma) factors in S (1 for the empty coalition)."
    a = rng.lognormal(0, sigma, p)
    return EnumeratedGame(lambda Z: np.where(Z, a, 1.0).prod(1), p)

def additive(p, rng):
    a = rng.normal(size=p)
    return EnumeratedGame(lambda Z: 3.0 + Z.astype(float) @ a, p)

def make(family, p):
    "The game of `family` with p players (the same game on every call)."
    rng = lambda name: np.random.default_rng([12345, p, sum(map(ord, name))])
    builders = {"unan_pos": lambda: unanimity_sum(p, rng(family), False),
                "unan_mixed": lambda: unanimity_sum(p, rng(family), True),
                "unan_offset1e9": lambda: unanimity_sum(p, rng("unan_mixed"), True, c=1e9),
                "unan_scale1e-12": lambda: unanimity_sum(p, rng("unan_mixed"), True, scale=1e-12),
                "dominant": lambda: dominant(p, rng(family)),
                "voting": lambda: voting(p, rng(family), lambda r, n: r.pareto(1.5, n) + 0.1),
                "voting_ln": lambda: voting(p, rng(family), lambda r, n: r.lognormal(0, 0.7, n), quota=0.5),
                "nn": lambda: tanh_network(p, rng(family)), "poly3": lambda: cubic(p, rng(family)),
                "heavy": lambda: heavy_tailed(p, rng(family)), "additive": lambda: additive(p, rng(family)),
                "min": lambda: minimum(p, rng(family)),
                "product": lambda: product(p, rng(family), 0.6), "product_heavy": lambda: product(p, rng(family), 1.5)}
    return builders[family]()

def budgets(p):
    "Budget name -> evaluations at p players."
    out = {"p+2": p + 2, "2p": 2 * p, "3p": 3 * p, "4p": 4 * p, "8p": 8 * p}
    return out | ({"16p": 16 * p} if p <= 12 else {})

def method(name):
    if name in ("gp_surrogate_shap", "gp_surrogate_shap shrunk", "gp_surrogate_shap (kernel design)"):
        from shapnb.bayes.surrogate import gp_surrogate_shap
        if name == "gp_surrogate_shap shrunk":
            return lambda game, p, budget, seed: gp_surrogate_shap(game, p, budget, seed=seed, correction="shrunk", singletons=False)
        if name == "gp_surrogate_shap (kernel design)":
            return lambda game, p, budget, seed: gp_surrogate_shap(game, p, budget, seed=seed, singletons=False)
        return gp_surrogate_shap
    return {"kernel_shap": shapnb.kernel_shap, "shapleig": shapnb.shapleig}[name]

def run(name, seed0, seed1, cells=None, only=None):
    "Append one line per (cell, budget, seed) not yet in OUT."
    f = method(name)
    done = set()
    if OUT.exists():
        for line in OUT.read_text().splitlines():
            r = json.loads(line); done.add((r["method"], r["family"], r["p"], r["budget_name"], r["seed"]))
    OUT.parent.mkdir(exist_ok=True)
    with open(OUT, "a") as out:
        for family, p in cells or CELLS:
            game = make(family, p); exact = game.exact()
            for bname, budget in budgets(p).items():
                if only and bname not in only: continue
                for seed in range(seed0, seed1):
                    if (name, family, p, bname, seed) in done: continue
                    start = time.perf_counter()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        e = f(game, p, budget, seed=seed)
                    rec = dict(method=name, family=family, p=p, budget_name=bname, budget=budget, seed=seed,
                               seconds=time.perf_counter() - start, mse=float(np.mean((e.values - exact) ** 2)))
                    if e.uncertainty is not None:
                        tol = 1e-9 * np.abs(exact).max()           # an exact run (every coalition) has SE 0
                        rec["covered"] = int((np.abs(e.values - exact) <= Z95 * np.asarray(e.uncertainty) + tol).sum())
                    out.write(json.dumps(rec) + "\n"); out.flush()

def summary(seeds=None):
    rows = [r for r in map(json.loads, OUT.read_text().splitlines()) if seeds is None or r["seed"] < seeds]
    names = ["p+2", "2p", "3p", "4p", "8p", "16p"]
    for name in sorted({r["method"] for r in rows}):
        mine = [r for r in rows if r["method"] == name]
        print(f"{name}: {len(mine)} runs")
        for b in names:
            runs = [r for r in mine if r["budget_name"] == b]
            if not runs: continue
            given = [r for r in runs if "covered" in r]
            cover = sum(r["covered"] for r in given) / max(sum(r["p"] for r in given), 1)
            print(f"  {b:>4}: coverage {cover:.3f} over {sum(r['p'] for r in given)} intervals, "
                  f"declined {1 - len(given) / len(runs):.0%} of {len(runs)} runs")
        cells = {}
        for r in mine:
            if "covered" in r: cells.setdefault((r["family"], r["p"], r["budget_name"]), []).append(r)
        low = [(k, sum(r["covered"] for r in v) / sum(r["p"] for r in v), len(v)) for k, v in cells.items()]
        low = sorted((x for x in low if x[1] < 0.9), key=lambda x: x[1])
        if low: print("  below 90%: " + "; ".join(f"{f} p={p} {b} {c:.2f} ({n} seeds)" for (f, p, b), c, n in low))

if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["summary"]: summary(int(args[1]) if len(args) > 1 else None)
    elif args[:1] == ["run"] and len(args) >= 4:
        cells = [(c.split(":")[0], int(c.split(":")[1])) for c in args[4].split(",")] if len(args) > 4 and args[4] != "all" else None
        run(args[1], int(args[2]), int(args[3]), cells, args[5].split(",") if len(args) > 5 else None)
    else: sys.exit(__doc__)
