"""KernelSHAP's intervals on smooth games outside the benchmark (an audit of 2026-12-05): the jackknife that
`bootstrap="auto"` uses below BOOT_UNITS (p - 1) units against the symmetric and doubled-half bootstraps, and the
jackknife scaled by Student's quantile at Satterthwaite's degrees of freedom instead of its residual-df factor.

  taskset -c 0 python bench/kernelshap_smooth.py [n_seeds=150]
  taskset -c 0 python bench/kernelshap_smooth.py surrogate [n_seeds=40]  -> surrogate_shap and kernel_shap (defaults) on
      v(S) = exp(2|S|) (1 + 0.1 w.1_S), w = linspace(1, 2), whose values span seven orders of magnitude

Games on p = 8 players: v(S) = prod_{i in S} a_i with a = linspace(0.5, 1.5) ("product"), and
v(S) = exp(sum_{i in S} b_i) with b = linspace(-0.5, 0.8) ("exp"); budgets 3p and 4p; seeds 0..n_seeds-1. For each
rule: runs with an interval, coverage of value +- 1.96 se (the reported se, which carries the Student factor), and the
runs in which some player's |error| / se exceeds 6. Exact values by brute force."""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ.setdefault(_v, "1")
import sys, warnings
import numpy as np
from shapnb.core.games import exact_shapley
from shapnb.sampling.kernelshap import kernel_shap
from shapnb.sampling.bootstrap import satterthwaite_df, satterthwaite_inflation

P = 8
GAMES = {"product": lambda Z: np.prod(np.where(Z, np.linspace(0.5, 1.5, P), 1.0), axis=1),
         "exp": lambda Z: np.exp(np.asarray(Z, float) @ np.linspace(-0.5, 0.8, P))}


def jackknife_satterthwaite(e) -> np.ndarray:
    "The jackknife's se with Student's quantile at Satterthwaite's df in place of its residual-df factor."
    d = e.details
    raw = e.se / d["se_inflation"]
    return raw * satterthwaite_inflation(satterthwaite_df(d["design"], d["game_values"], d["v_empty"], d["v_full"], e.values))


def main(n_seeds: int = 150):
    warnings.simplefilter("ignore")
    print("game     budget  rule                        runs  coverage  runs with |error|/se > 6")
    for name, game in GAMES.items():
        exact = exact_shapley(game, P)
        for budget in (3 * P, 4 * P):
            rows = {}
            for s in range(n_seeds):
                for rule in ("auto", "symmetric", "doubled_half"):
                    e = kernel_shap(game, P, budget, seed=s, bootstrap=rule)
                    if e.se is None: continue
                    ses = {rule: e.se}
                    if rule == "auto" and e.details["bootstrap"] == "jackknife": ses["jackknife, Satterthwaite"] = jackknife_satterthwaite(e)
                    for label, se in ses.items():
                        z = np.abs(e.values - exact) / se
                        r = rows.setdefault(label, [0, [], 0])
                        r[0] += 1; r[1].append(np.mean(z <= 1.959964)); r[2] += int(z.max() > 6)
            for label, (n, cov, big) in rows.items():
                print(f"{name:8s} {budget:6d}  {label:26s} {n:5d}  {np.mean(cov):8.3f}  {big}", flush=True)


def scales(n_seeds: int = 40):
    "Coverage of the default intervals of surrogate_shap and kernel_shap on the exponential-in-size game."
    from shapnb.sampling.surrogate import surrogate_shap
    warnings.simplefilter("ignore")
    w = np.linspace(1.0, 2.0, P)
    game = lambda Z: np.exp(2.0 * np.asarray(Z, float).sum(1)) * (1 + 0.1 * (np.asarray(Z, float) @ w))
    exact = exact_shapley(game, P)
    for budget in (3 * P, 4 * P):
        for name, method in (("surrogate_shap", surrogate_shap), ("kernel_shap", kernel_shap)):
            cov, worst, n = [], 0.0, 0
            for s in range(n_seeds):
                e = method(game, P, budget, seed=s)
                if e.se is None: continue
                z = np.abs(e.values - exact) / e.se
                cov.append(np.mean(z <= 1.959964)); worst = max(worst, float(z.max())); n += 1
            print(f"{name:15s} budget {budget}: {n} runs with an interval, coverage {np.mean(cov):.3f}, largest |error|/se {worst:.1f}", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["surrogate"]: scales(*(int(a) for a in sys.argv[2:3]))
    else: main(*(int(a) for a in sys.argv[1:2]))
