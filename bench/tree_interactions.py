"""Tree interactions and Banzhaf values, timed side by side (issue 16): shapnb's TreeExplainer against shap 0.51,
woodelf-explainer and shapiq 1.8, on one thread each, in one run.

    python bench/tree_interactions.py [--rows 200] [--trees 100] [--depth 8] [--features 10] [--background 100] [--repeats 2]

The model is a scikit-learn random forest regressor (float64 thresholds and leaves). Each cell is the best of
`--repeats` runs, wall-clock seconds, explainer construction included (shapiq: its build plus `explain_X`). shap
computes interactions path-dependent only; woodelf computes `shap_interaction_values` and `banzhaf_values` in both
modes; shapiq (k-SII, order 2) runs in its own Python 3.12 venv through bench/shapiq_trees.py when that venv exists
(else "–"). The table prints the ratios of the others' times to shapnb's and the largest difference of their values
from shapnb's. shap's `shap_interaction_values` and order-2 k-SII hold the same numbers (k-SII's first-order terms are
shap's diagonal; its pair terms are twice shap's off-diagonal), so shapiq's k-SII is compared with ours in that form.
"""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_v] = "1"
import argparse, pickle, sys, tempfile, time, warnings
from pathlib import Path
import numpy as np
import pandas as pd

warnings.filterwarnings("ignore")
sys.path.insert(0, str(Path(__file__).resolve().parent))


def best_of(repeats, fn):
    "The smallest wall-clock time of `repeats` calls of fn(), and the last result."
    best, out = np.inf, None
    for _ in range(repeats):
        t = time.perf_counter(); out = fn(); best = min(best, time.perf_counter() - t)
    return best, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=200); ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--depth", type=int, default=8); ap.add_argument("--features", type=int, default=10)
    ap.add_argument("--background", type=int, default=100); ap.add_argument("--repeats", type=int, default=2)
    a = ap.parse_args(argv)
    from sklearn.ensemble import RandomForestRegressor
    from shapnb.exact.trees.explainer import TreeExplainer
    import shap
    rng = np.random.default_rng(0)
    p = a.features
    X = rng.normal(size=(2000, p))
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + X[:, 3] + 0.1 * rng.normal(size=2000)
    model = RandomForestRegressor(a.trees, max_depth=a.depth, random_state=0, n_jobs=1).fit(X, y)
    rows, bg = X[:a.rows], X[1000:1000 + a.background]
    cols = [f"f{j}" for j in range(p)]
    frame, bg_frame = pd.DataFrame(rows, columns=cols), pd.DataFrame(bg, columns=cols)
    TreeExplainer(model, n_jobs=1).shap_interaction_values(rows[:2])               # compile the kernels first
    TreeExplainer(model, bg[:2], n_jobs=1).shap_interaction_values(rows[:2]); TreeExplainer(model, bg[:2], n_jobs=1).semivalues(rows[:2])
    TreeExplainer(model, n_jobs=1).semivalues(rows[:2])
    half = lambda M: M - (M - np.einsum("nii->ni", M)[:, :, None] * np.eye(p)) / 2   # k-SII (pairs at [i,j] and [j,i]) -> shap's

    try:
        import woodelf
        W = woodelf.WoodelfExplainer
    except ImportError: W = None
    try:
        from shapiq_trees import shapiq_python, run_shapiq_trees
        shapiq_py = shapiq_python()
    except ImportError: shapiq_py = None
    workdir = Path(tempfile.mkdtemp(prefix="tree_interactions_"))
    model_file = workdir / "model.pkl"
    with open(model_file, "wb") as fh: pickle.dump(model, fh)

    def shapiq_run(mode):
        if shapiq_py is None: return None
        best = None
        for _ in range(a.repeats):
            r = run_shapiq_trees(model_file, rows, bg if mode == "interventional" else None, mode=mode, index="k-SII", threads=1,
                                 workdir=workdir)
            total = r["seconds"] + r["build_seconds"]
            if best is None or total < best[0]: best = (total, half(r["values"]))
        return best

    table = []
    def row(task, ours, others):
        "One line: shapnb's (time, values) and the others' as name -> (time, values) or None."
        t0, v0 = ours
        cells = {"task": task, "shapnb": f"{t0:.3f}"}
        for name in ("shap", "woodelf", "shapiq"):
            o = others.get(name)
            cells[name] = "–" if o is None else f"{o[0]:.3f}"
            cells[f"{name}/shapnb"] = "–" if o is None else f"{o[0] / t0:.1f}×"
            cells[f"max|Δ| {name}"] = "–" if o is None else f"{np.abs(np.asarray(o[1]) - v0).max():.1e}"
        fast = [others[n][0] for n in ("woodelf", "shapiq") if others.get(n) is not None]
        cells["best(woodelf, shapiq)/shapnb"] = f"{min(fast) / t0:.1f}×" if fast else "–"
        table.append(cells)
        print(cells, flush=True)

    path, inter = lambda: TreeExplainer(model, n_jobs=1), lambda: TreeExplainer(model, bg, n_jobs=1)
    ours = best_of(a.repeats, lambda: path().shap_interaction_values(rows))
    row("path-dependent shap_interaction_values", ours, {
        "shap": best_of(a.repeats, lambda: shap.TreeExplainer(model).shap_interaction_values(rows)),
        "woodelf": None if W is None else best_of(a.repeats, lambda: W(model).shap_interaction_values(frame, verbose=False)),
        "shapiq": shapiq_run("path")})
    ours = best_of(a.repeats, lambda: path().semivalues(rows, "banzhaf").values)
    row("path-dependent banzhaf_values", ours, {
        "woodelf": None if W is None else best_of(a.repeats, lambda: np.asarray(W(model).banzhaf_values(frame, verbose=False)))})
    ours = best_of(a.repeats, lambda: inter().shap_interaction_values(rows))
    row(f"interventional shap_interaction_values ({a.background} background rows)", ours, {
        "woodelf": None if W is None else best_of(a.repeats, lambda: W(model, bg_frame).shap_interaction_values(frame, verbose=False)),
        "shapiq": shapiq_run("interventional")})
    ours = best_of(a.repeats, lambda: inter().semivalues(rows, "banzhaf").values)
    row(f"interventional banzhaf_values ({a.background} background rows)", ours, {
        "woodelf": None if W is None else best_of(a.repeats, lambda: np.asarray(W(model, bg_frame).banzhaf_values(frame, verbose=False)))})

    out = pd.DataFrame(table).set_index("task")
    print(f"\nRandom forest, {a.trees} trees of depth {a.depth}, {p} features, {a.rows} rows, one thread each; seconds "
          f"(best of {a.repeats}); shap {shap.__version__}, woodelf {getattr(woodelf, '__version__', 'installed') if W else 'missing'}, "
          f"shapiq {'1.8 (venv)' if shapiq_py else 'missing'}")
    with pd.option_context("display.width", 250, "display.max_columns", 20):
        print(out.to_string())
    return out


if __name__ == "__main__":
    main()
