"""KernelSHAP's intervals at many players (p = 10 … 100): the library's bootstrap / jackknife against a prototype
linearised variance with a leverage correction (HC2) and Bell–McCaffrey degrees of freedom (notebook 22, "At many
players"). Games whose exact values are known in closed form: sums of unanimity games (low and high order) and a
product game. Usage: python bench/kernelshap_large_p.py library 60 20,50,100
                     python bench/kernelshap_large_p.py prototype 100 20,50,100"""
import sys, warnings
import numpy as np
from scipy.stats import norm, t as student_t
import shapnb
from shapnb.sampling.design import wallenius_design
from shapnb.sampling.regression import estimate_from_design, sum_zero_basis


class Unanimity:
    "v(S) = sum_T c_T [T ⊆ S], φ_i = sum_{T ∋ i} c_T / |T|."
    def __init__(self, p, n_terms, size_lo, size_hi, rng):
        self.T = np.zeros((n_terms, p), bool)
        for t in range(n_terms): self.T[t, rng.choice(p, rng.integers(size_lo, size_hi + 1), replace=False)] = True
        self.c = rng.normal(size=n_terms)
        self.phi = (self.T * (self.c / self.T.sum(1))[:, None]).sum(0)
    def __call__(self, Z):
        missing = (~np.asarray(Z, bool)).astype(np.int32) @ self.T.T.astype(np.int32)
        return (missing == 0).astype(float) @ self.c


class Product:
    "v(S) = prod_{i in S} a_i, exact values by `product_shapley`."
    def __init__(self, p, rng):
        self.log_a = np.log(rng.uniform(0.5, 1.5, p))
        self.phi = np.asarray(shapnb.product_shapley(np.exp(self.log_a)), float)
    def __call__(self, Z): return np.exp(np.asarray(Z, float) @ self.log_a)


def make_game(kind, p, game_seed=12345):
    rng = np.random.default_rng([game_seed, p, {"unan": 1, "prod": 2, "high": 3}[kind]])
    if kind == "unan": return Unanimity(p, 30, 1, 4, rng)
    if kind == "prod": return Product(p, rng)
    return Unanimity(p, 30, max(2, p // 10), max(3, p // 4), rng)


def library(game, p, budget, seeds):
    "Errors, reported standard errors (None where declined) and the methods used, over the seeds."
    E, S, used = [], [], set()
    for s in seeds:
        e = shapnb.kernel_shap(game, p, budget, seed=1000 + s)
        E.append(e.values - game.phi); S.append(e.se); used.add(e.details["bootstrap"])
    return np.array(E), S, used


def sampled_groups(d, stratum_of_unit):
    "The sampled strata's units, a one-unit stratum merged into its neighbour (as the jackknife's groups)."
    groups = []
    for h in range(len(d.counts)):
        if not 0 < d.counts[h] < d.population[h]: continue
        u = np.flatnonzero(stratum_of_unit == h)
        if len(u) == 1 and groups: groups[-1] = np.concatenate([groups[-1], u])
        else: groups.append(u)
    if len(groups) > 1 and len(groups[0]) == 1: groups = [np.concatenate(groups[:2])] + groups[2:]
    return groups


def prototype_se(d, y, v0, vN, phi, h_floor=0.05):
    "HC2-linearised stratified variance of the estimate and the Student factor at Bell–McCaffrey degrees of freedom."
    p = d.p; P = sum_zero_basis(p); w = d.weights / d.weights.max()
    phi0 = np.full(p, (vN - v0) / p)
    X = d.coalitions @ P
    r = y - v0 - d.coalitions @ phi0 - X @ (P.T @ (phi - phi0))
    Gi = np.linalg.pinv((w[:, None] * X).T @ X)
    n = d.n_units
    first = np.full(n, -1); rows = np.arange(len(d.unit)); first[d.unit[::-1]] = rows[::-1]
    omega = np.zeros(n); np.add.at(omega, d.unit, w)
    T = np.zeros((n, p - 1)); np.add.at(T, d.unit, (w * r)[:, None] * X)
    Xw = np.sqrt(omega)[:, None] * X[first]
    H = Xw @ Gi @ Xw.T; h = np.diag(H)
    stratum = np.zeros(n, int); stratum[d.unit] = d.stratum
    f = d.inclusion[stratum]
    adjust = 1 / np.sqrt(np.maximum(1 - h, h_floor))
    terms = (T * adjust[:, None]) @ (P @ Gi).T
    V = np.zeros(p)
    for u in sampled_groups(d, stratum):
        if len(u) < 2: continue
        dev = terms[u] - terms[u].mean(0)
        V += len(u) / (len(u) - 1) * ((1 - f[u])[:, None] * dev ** 2).sum(0)
    B = np.eye(n) - H
    D = (1 - f)[:, None] * ((Xw @ (P @ Gi).T) * adjust[:, None]) ** 2
    df = np.clip((D * np.diag(B)[:, None]).sum(0) ** 2 / np.maximum(np.einsum("up,uv,vp->p", D, B * B, D), 1e-300), 1, None)
    return np.sqrt(V) * np.maximum(student_t.ppf(0.975, df) / norm.ppf(0.975), 1.0)


def prototype(game, p, budget, seeds):
    E, S = [], []
    v0, vN = float(game(np.zeros((1, p), bool))[0]), float(game(np.ones((1, p), bool))[0])
    for s in seeds:
        d = wallenius_design(p, budget, seed=np.random.default_rng([7000 + s, p, budget // p]))
        y = game(d.coalitions)
        est = estimate_from_design(d, y, v0, vN)
        E.append(est.values - game.phi); S.append(prototype_se(d, y, v0, vN, est.values))
    return np.array(E), S, {"HC2 + Bell–McCaffrey"}


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    which, n_seeds, ps = sys.argv[1], int(sys.argv[2]), [int(x) for x in sys.argv[3].split(",")]
    run = {"library": library, "prototype": prototype}[which]
    print("| p | budget | game | variance used | mean se² / mean error² | coverage of the 95% intervals |")
    print("|---|---|---|---|---|---|")
    for p in ps:
        for kind in ("unan", "high", "prod"):
            game = make_game(kind, p)
            for m in (3, 8, 16):
                E, S, used = run(game, p, m * p, range(n_seeds))
                if any(s is None for s in S): print(f"| {p} | {m}p | {kind} | {'/'.join(sorted(map(str, used)))} | declined | – |"); continue
                S = np.array(S)
                print(f"| {p} | {m}p | {kind} | {'/'.join(sorted(map(str, used)))} | {(S ** 2).mean() / (E ** 2).mean():.2f} | "
                      f"{(np.abs(E) <= 1.959964 * S).mean():.3f} |", flush=True)
