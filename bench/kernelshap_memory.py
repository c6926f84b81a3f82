"""Peak memory and wall time of kernel_shap at p = 40, budget 10^6 (an additive + pairwise + third-order game, which the
regression does not fit exactly, so the bootstrap runs), in a fresh process:

  taskset -c 0 python bench/kernelshap_memory.py

Compare two versions side by side by running it under each (e.g. PYTHONPATH pointing at an older checkout).
"""
import resource, time
import numpy as np
import shapnb
from shapnb.sampling.kernelshap import kernel_shap

P, BUDGET = 40, 10 ** 6
rng = np.random.default_rng(123)
a = rng.normal(size=P)
B = np.triu(rng.normal(size=(P, P)) * 0.1, 1)   # pairwise terms i < j
c = rng.normal(size=P - 2) * 0.05                # third-order terms of consecutive triples


def game(Z):
    "v(S) = sum_i a_i z_i + sum_{i<j} B_ij z_i z_j + sum_i c_i z_i z_{i+1} z_{i+2}, in blocks of 10^5 coalitions."
    out = np.empty(len(Z))
    for lo in range(0, len(Z), 100_000):
        z = Z[lo:lo + 100_000].astype(float)
        out[lo:lo + 100_000] = z @ a + ((z @ B) * z).sum(1) + (z[:, :-2] * z[:, 1:-1] * z[:, 2:]) @ c
    return out


if __name__ == "__main__":
    start = time.perf_counter()
    est = kernel_shap(game, P, BUDGET, seed=0)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20
    print(f"shapnb from {shapnb.__file__}: peak RSS {peak:.3f} GB, {wall:.1f} s; bootstrap {est.details['bootstrap']}, "
          f"largest se {est.se.max():.3g}")
