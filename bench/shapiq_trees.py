"""shapiq 1.8's tree explainers, timed, for the side-by-side tree benchmarks (issues 15 and 16).

shapiq >= 1.5 needs Python >= 3.12, so shapiq runs in its own venv (/work/venv312, or $SHAPIQ_PYTHON), never in the
project's environment: the project does not depend on shapiq. This file is both

* the script the venv's python runs:
      /work/venv312/bin/python bench/shapiq_trees.py --model M --X X.npy [--background B.npy]
             --mode {path,interventional} --index {SV,k-SII} [--threads 1] [--out V.npy] [--repeat 1]
             [--class-index C] [--backend {shapiq,auto}]
  M is a saved model, its kind decided by the extension: .pkl/.pickle/.joblib a scikit-learn model (pickle),
  .json/.ubj an XGBoost model (loaded as XGBRegressor or XGBClassifier by its objective), .txt a LightGBM model
  (lightgbm.Booster). It prints ONE JSON line
      {"seconds": ..., "build_seconds": ..., "values_file": "...", ...}
  where `seconds` is the time of `explain_X` on all rows (the minimum over --repeat runs), `build_seconds` the
  time of building the explainer (TreeExplainer(...) with its tree conversion, plus the mode's computer:
  QuadratureTreeSHAP for "path", InterventionalTreeSHAPIQ for "interventional"); loading the model is not
  counted (`load_seconds`). The values are saved as float64 .npy:
      index "SV":    shape (n, p), the Shapley values;
      index "k-SII": shape (n, p, p), the order-1 k-SII values on the diagonal, the pair value k-SII({i,j}) at
                     both [i, j] and [j, i] (not halved), so values.sum of the upper triangle incl. diagonal
                     + baseline = f(x).
  The baseline (shapiq's `baseline_value`) is in the JSON line as "baseline".
  Interventional mode uses backend "shapiq" (InterventionalTreeSHAPIQ) unless --backend auto is given (then
  shapiq 1.8 would route n_rows*n_background >= 1e5 to woodelf, if woodelf-explainer were installed; it is not
  installed in /work/venv312).
* a helper importable from the project's Python 3.11 code (it imports nothing beyond the standard library and
  numpy, and never shapiq):
      sys.path.insert(0, "bench"); from shapiq_trees import shapiq_python, run_shapiq_trees
      shapiq_python()  -> path of the venv python (str) or None when there is no such venv with shapiq
      run_shapiq_trees(model_path, X, background=None, mode="path", index="SV", threads=1, ...) -> dict
"""
import os, json, time, subprocess, tempfile, functools
from pathlib import Path

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "BLIS_NUM_THREADS")
DEFAULT_VENV_PYTHON = "/work/venv312/bin/python"
MODES = {"path": "pathdependent", "interventional": "interventional"}
INDICES = {"SV": 1, "k-SII": 2}   # index -> max_order


def shapiq_python():
    "Path of a Python with shapiq 1.8 ($SHAPIQ_PYTHON, else /work/venv312/bin/python), or None if there is none."
    return _shapiq_python(os.environ.get("SHAPIQ_PYTHON") or DEFAULT_VENV_PYTHON)


@functools.lru_cache(maxsize=None)
def _shapiq_python(cand):
    "`cand` if it is a Python that imports shapiq 1.8, else None (checked once per path)."
    if not Path(cand).is_file(): return None
    try:
        r = subprocess.run([cand, "-c", "import shapiq; print(shapiq.__version__)"], capture_output=True, text=True,
                           timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return cand if r.returncode == 0 and r.stdout.strip().startswith("1.8") else None


def run_shapiq_trees(model_path,          # saved model: .pkl/.pickle/.joblib (sklearn), .json/.ubj (XGBoost), .txt (LightGBM)
                     X,                   # rows to explain: (n, p) array, or path of a .npy file
                     background=None,     # background rows ((m, p) array or .npy path); needed for mode "interventional"
                     mode="path",         # "path" (path-dependent) or "interventional"
                     index="SV",          # "SV" or "k-SII" (order 2)
                     threads=1,           # thread limit of the subprocess (OMP_NUM_THREADS etc.)
                     *,
                     repeat=1,            # time explain_X this many times, report the minimum
                     class_index=None,    # class explained for classifiers (shapiq's default: 1)
                     backend="shapiq",    # "shapiq" (InterventionalTreeSHAPIQ always) or "auto" (shapiq's routing)
                     workdir=None,        # folder for the .npy files (default: a new temporary folder)
                     python=None,         # the venv python (default: shapiq_python())
                     timeout=None,        # seconds before the subprocess is killed
                     load_values=True,    # also return the values as dict["values"] (numpy array)
                    ) -> dict:
    "Run this file under the shapiq venv on `X` and return its JSON line as a dict (plus the values)."
    import numpy as np
    if mode not in MODES: raise ValueError(f"mode must be one of {list(MODES)}, got {mode!r}")
    if index not in INDICES: raise ValueError(f"index must be one of {list(INDICES)}, got {index!r}")
    if mode == "interventional" and background is None: raise ValueError("mode 'interventional' needs a background")
    py = python or shapiq_python()
    if py is None: raise RuntimeError("no Python with shapiq 1.8: create /work/venv312 or set $SHAPIQ_PYTHON")
    wd = Path(workdir) if workdir is not None else Path(tempfile.mkdtemp(prefix="shapiq_trees_"))
    wd.mkdir(parents=True, exist_ok=True)
    def as_file(a, name):
        if isinstance(a, (str, os.PathLike)): return str(a)
        f = wd / name; np.save(f, np.ascontiguousarray(np.asarray(a, dtype=np.float64))); return str(f)
    xf = as_file(X, "X.npy")
    out = wd / f"values_{mode}_{index}_{os.getpid()}_{time.time_ns()}.npy"
    cmd = [py, str(Path(__file__).resolve()), "--model", str(model_path), "--X", xf, "--mode", mode, "--index", index,
           "--threads", str(int(threads)), "--out", str(out), "--repeat", str(int(repeat)), "--backend", backend]
    if background is not None: cmd += ["--background", as_file(background, "background.npy")]
    if class_index is not None: cmd += ["--class-index", str(int(class_index))]
    env = dict(os.environ); env.update({v: str(int(threads)) for v in THREAD_VARS})
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"shapiq_trees.py failed ({r.returncode}):\n{r.stderr[-4000:]}")
    res = json.loads(r.stdout.strip().splitlines()[-1])
    if load_values: res["values"] = np.load(res["values_file"])
    return res


def _load_model(path: Path):
    "The model saved at `path`, its kind decided by the extension."
    ext = path.suffix.lower()
    if ext in (".pkl", ".pickle", ".joblib"):
        if ext == ".joblib":
            import joblib; return joblib.load(path)
        import pickle
        with open(path, "rb") as fh: return pickle.load(fh)
    if ext in (".json", ".ubj"):
        import xgboost as xgb
        b = xgb.Booster(); b.load_model(str(path))
        objective = json.loads(b.save_config())["learner"]["learner_train_param"]["objective"]
        m = xgb.XGBClassifier() if objective.startswith(("binary:", "multi:")) else xgb.XGBRegressor()
        m.load_model(str(path)); return m
    if ext == ".txt":
        import lightgbm as lgb
        return lgb.Booster(model_file=str(path))
    raise ValueError(f"unknown model file extension {ext!r} (want .pkl/.pickle/.joblib, .json/.ubj or .txt)")


def _to_array(batch, n: int, p: int, index: str):
    "shapiq's InteractionValuesBatch as a float64 (n, p) (SV) or (n, p, p) (k-SII) array."
    import numpy as np
    vals = batch.values   # {interaction tuple: (n,) array}
    out = np.zeros((n, p) if index == "SV" else (n, p, p))
    for key, v in vals.items():
        v = np.asarray(v, dtype=np.float64)
        if len(key) == 1:
            if index == "SV": out[:, key[0]] = v
            else: out[:, key[0], key[0]] = v
        elif len(key) == 2:
            i, j = key; out[:, i, j] = v; out[:, j, i] = v
        elif len(key) != 0:
            raise ValueError(f"unexpected interaction {key} of order {len(key)}")
    return out


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True); ap.add_argument("--X", required=True)
    ap.add_argument("--background"); ap.add_argument("--mode", choices=list(MODES), required=True)
    ap.add_argument("--index", choices=list(INDICES), required=True)
    ap.add_argument("--threads", type=int, default=1); ap.add_argument("--out")
    ap.add_argument("--repeat", type=int, default=1); ap.add_argument("--class-index", type=int)
    ap.add_argument("--backend", choices=["shapiq", "auto"], default="shapiq")
    a = ap.parse_args(argv)
    if a.threads < 1: ap.error("--threads must be >= 1")
    if a.repeat < 1: ap.error("--repeat must be >= 1")
    if a.mode == "interventional" and a.background is None: ap.error("--mode interventional needs --background")
    for v in THREAD_VARS: os.environ[v] = str(a.threads)   # before numpy & co. are imported
    import warnings
    import numpy as np
    try:
        from threadpoolctl import threadpool_limits; threadpool_limits(a.threads)
    except ImportError:
        pass
    import shapiq
    from shapiq import TreeExplainer
    X = np.ascontiguousarray(np.load(a.X), dtype=np.float64)
    if X.ndim != 2: ap.error(f"--X must hold a 2-d array, got shape {X.shape}")
    bg = None if a.background is None else np.ascontiguousarray(np.load(a.background), dtype=np.float64)
    t = time.perf_counter(); model = _load_model(Path(a.model)); load_s = time.perf_counter() - t
    out = Path(a.out) if a.out else Path(a.X).with_name(Path(a.X).stem + f"_shapiq_{a.mode}_{a.index}.npy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        ex = TreeExplainer(model, mode=MODES[a.mode], reference_dataset=bg if a.mode == "interventional" else None,
                           index=a.index, max_order=INDICES[a.index], min_order=1, class_index=a.class_index,
                           backend=a.backend)
        if not ex._should_use_woodelf(len(X)): ex._init_explainers()   # build the computer now, not in the timed call
        build_s = time.perf_counter() - t
        times = []
        for _ in range(a.repeat):
            t = time.perf_counter(); batch = ex.explain_X(X); times.append(time.perf_counter() - t)
        baseline = float(ex.baseline_value)
    vals = _to_array(batch, len(X), X.shape[1], a.index)
    np.save(out, vals)
    print(json.dumps({"seconds": min(times), "build_seconds": build_s, "values_file": str(out.resolve()),
                      "load_seconds": load_s, "all_seconds": times, "baseline": baseline, "shape": list(vals.shape),
                      "n_rows": len(X), "n_background": None if bg is None else len(bg), "mode": a.mode,
                      "index": a.index, "threads": a.threads, "backend": a.backend,
                      "shapiq_version": shapiq.__version__, "model": str(a.model)}))


if __name__ == "__main__":
    main()
