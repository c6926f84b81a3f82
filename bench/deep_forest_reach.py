"""How much of a deep tree one interventional explanation must touch (issue 15): the deep benchmark forest of
notebook 14 (20 fully grown trees, 100 background rows), counted by a plain Python walk of its first tree.

  python bench/deep_forest_reach.py [rows=5]

The walk counts a (row x, background row z) pair at a node when every split above it is met by x or by z: an upper
bound on the kernel's reach, which asks per feature that x or z meet all of its conditions on the path (on the first
tree and row, 5652 leaves by this count, 2061 by the kernel's). The walk follows, per explained row, the set of
background rows still paired with it. Printed per row: the nodes and leaves reached by any
pair, and the (leaf, background row) pairs; then, per reached (row, leaf): the live background rows, their distinct
failed-slot masks (the slots, distinct features on the leaf's path, whose conditions z fails; the only part of z the
leaf's Shapley weights read), and the slots. Last, shapnb's one-thread time per explained row of the whole forest
(the slope between 100 and 300 rows, best of three), for the cost per (row, leaf, background row) it implies.
"""
import sys, time
import numpy as np
import numba
from shapnb.exact.trees.bench import interventional_configurations, _data
from shapnb.exact.trees.explainer import TreeExplainer


def reached_leaves(tree, x, Z):
    "Per leaf reached by some pair (x, z): (leaf, background rows reaching it, path as (feature, threshold, went left)); and the nodes reached."
    left, right, feature, threshold = tree.children_left, tree.children_right, tree.feature, tree.threshold
    stack, leaves, nodes = [(0, np.arange(len(Z)), ())], [], 0
    while stack:
        node, zs, path = stack.pop()
        nodes += 1
        if left[node] < 0: leaves.append((node, zs, path)); continue
        f, t = feature[node], threshold[node]
        x_left, z_left = x[f] <= t, Z[zs, f] <= t
        for child, live, went_left in ((left[node], zs if x_left else zs[z_left], True),
                                       (right[node], zs[~z_left] if x_left else zs, False)):
            if len(live): stack.append((child, live, path + ((f, t, went_left),)))
    return leaves, nodes


def failed_slots(path, v) -> int:
    "Bit k set when `v` fails a condition on the k-th distinct feature of `path`."
    mask = 0
    for k, f in enumerate(sorted({g for g, _, _ in path})):
        if not all((v[f] <= t) == went_left for g, t, went_left in path if g == f): mask |= 1 << k
    return mask


def main(n_rows: int = 5):
    model, rows, background = interventional_configurations()["deep forest, 20 trees, fully grown, background 100"]()
    tree = model.estimators_[0].tree_
    print(f"tree 0: {tree.node_count} nodes, {(tree.children_left < 0).sum()} leaves, depth {tree.max_depth}")
    per_leaf = []
    for i in range(n_rows):
        leaves, nodes = reached_leaves(tree, rows[i], background)
        print(f"row {i}: {nodes} nodes and {len(leaves)} leaves reached, {sum(len(zs) for _, zs, _ in leaves)} (leaf, background row) pairs")
        for _, zs, path in leaves:
            masks = {failed_slots(path, background[z]) for z in zs}
            per_leaf.append((len(zs), len(masks), len({g for g, _, _ in path})))
    live, distinct, slots = np.mean(per_leaf, axis=0)
    print(f"per reached (row, leaf): {live:.1f} live background rows, {distinct:.1f} distinct failed-slot masks, {slots:.1f} slots")
    numba.set_num_threads(1)
    X, _ = _data(20_000, rows.shape[1])
    explainer = TreeExplainer(model, background, "interventional", n_jobs=1)
    explainer.shap_values(X[:2])                                   # compiled, untimed
    def seconds(n):
        start = time.perf_counter(); explainer.shap_values(X[:n]); return time.perf_counter() - start
    slope = (min(seconds(300) for _ in range(3)) - min(seconds(100) for _ in range(3))) / 200
    pairs = np.mean([sum(len(zs) for _, zs, _ in reached_leaves(tree, X[i], background)[0]) for i in range(n_rows)])
    print(f"shapnb, one thread: {1e3 * slope:.2f} ms per explained row over {len(model.estimators_)} trees, about "
          f"{1e9 * slope / (len(model.estimators_) * pairs):.1f} ns per (row, leaf, background row) (tree 0's pair count)")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
