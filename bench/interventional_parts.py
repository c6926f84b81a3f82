"""Where the time of one interventional explanation goes (issue 15): the deep benchmark forest of notebook 14
(20 fully grown trees, 100 rows, 100 background rows), each part timed alone, best of `repeats` runs.

  python bench/interventional_parts.py [threads=1] [repeats=10]

The parts are what `TreeExplainer(model, background, "interventional").shap_values(rows)` does, in order: converting
the model, the mean prediction over the background, deciding which trees take interventional leaf tables, the
background's bitsets, the bitset walk itself, and everything together. Only the walk and the bitsets use the threads.
"""
import sys, time, warnings
import numpy as np
import numba
from shapnb.exact.trees.bench import interventional_configurations
from shapnb.exact.trees.ensemble import tree_ensemble
from shapnb.exact.trees.explainer import TreeExplainer
from shapnb.exact.trees.tables import interventional_tables
from shapnb.exact.trees import pathwise as pw


def best(f, repeats: int) -> float:
    "The shortest of `repeats` timed calls of f, in ms."
    times = []
    for _ in range(repeats):
        start = time.perf_counter(); f(); times.append(time.perf_counter() - start)
    return 1e3 * min(times)


def main(threads: int = 1, repeats: int = 10):
    warnings.simplefilter("ignore")
    numba.set_num_threads(threads)
    model, rows, bg = interventional_configurations()["deep forest, 20 trees, fully grown, background 100"]()
    e = tree_ensemble(model)
    R, B = e.as_rows(rows)[0], e.as_rows(bg)[0]
    internal = np.flatnonzero(e.left >= 0)
    row_of = np.full(len(e.left), -1, np.int64); row_of[internal] = np.arange(len(internal))
    depth = int(e.max_depth.max()) + 2
    slot, count = e.split_slot, e.distinct_above
    n_slots = int(count.max())
    W = pw._pair_weights(n_slots)
    bits = lambda: pw._background_bits(B, e.nodes(), internal, np.zeros((len(internal), 2), np.uint64))
    chunks = min(len(R), threads * -(-len(R) // (pw.BIT_BLOCK * threads)))
    walk = lambda b=bits(): pw._explain_rows_bits(R, len(B), b, row_of, slot, count, e.nodes(), depth, n_slots, e.n_outputs,
                                                  chunks, W, pw._full_words(len(B)))
    total = lambda: TreeExplainer(model, bg, "interventional", n_jobs=threads).shap_values(rows)
    total()                                                         # compiled (or loaded from the cache) first
    parts = {"convert the model": lambda: tree_ensemble(model), "mean prediction": lambda: e.predict(B, prepared=True),
             "leaf tables decided": lambda: interventional_tables(e, B, prepared=True), "background bitsets": bits,
             "bitset walk": walk, "all of it": total}
    for name, f in parts.items(): print(f"{name:22s} {best(f, repeats):8.1f} ms", flush=True)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
