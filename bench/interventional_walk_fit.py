"""What a row saves with the interventional tables (notebook 12's `BITSET_WALK_NS`): per model, the bitset walk of the
trees that get tables against their table look-ups, per explained row, in ns per node of those trees and per (64-row
word of the background, plus one). Notebook 14's forest, XGBoost and LightGBM models and the 100-feature forest, against
100 and 1000 background rows; 200 rows, best of three, one thread.

  python bench/interventional_walk_fit.py
"""
import time
import numpy as np
import numba
from shapnb.exact.trees.bench import interventional_configurations, configurations, _data
from shapnb.exact.trees.ensemble import tree_ensemble
from shapnb.exact.trees.tables import interventional_tables, table_values
from shapnb.exact.trees.pathwise import pathwise_values


def best_seconds(f, repeats: int = 3) -> float:
    "The best of `repeats` timings of f()."
    out = np.inf
    for _ in range(repeats):
        start = time.perf_counter(); f(); out = min(out, time.perf_counter() - start)
    return out


def wide_forest(n_background: int):
    "The 100-feature forest of notebook 14 with `n_background` background rows."
    def build():
        model, rows = configurations()["random forest, 100 trees, depth 8, p=100"]()
        X, _ = _data(5000, rows.shape[1])
        return model, rows, X[-n_background:]
    return build


def main():
    numba.set_num_threads(1)
    models = {k: v for k, v in interventional_configurations().items() if "deep" not in k}
    models |= {f"random forest, 100 trees, depth 8, p=100, background {n}": wide_forest(n) for n in (100, 1000)}
    for name, build in models.items():
        model, rows, background = build()
        e = tree_ensemble(model)
        R, B = e.rows(rows[:200], False), e.rows(background, False, "background")
        tables = interventional_tables(e, B, prepared=True)
        owner = np.repeat(np.arange(len(e.roots)), np.diff(np.append(e.roots, len(e.left))))
        unit = float(tables.use[owner].sum()) * (-(-len(B) // 64) + 1)
        table_values(e, R[:2], tables, prepared=True); pathwise_values(e, R[:2], B, trees=tables.use, prepared=True)   # compiled
        look = best_seconds(lambda: table_values(e, R, tables, prepared=True)) / len(R)
        walk = best_seconds(lambda: pathwise_values(e, R, B, trees=tables.use, prepared=True)) / len(R)
        print(f"{name}: walk {1e3 * walk:.3f} ms, look-ups {1e3 * look:.3f} ms per row; saved {1e9 * (walk - look) / unit:.2f} ns per node and word")


if __name__ == "__main__":
    main()
