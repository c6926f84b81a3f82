"""The package's shape as tests: layers import only downward and without cycles, every public parameter is documented
(nbdev docments), and `import shapnb` stays light (no torch, numba, scikit-learn or SciPy)."""
import ast, dataclasses, importlib, inspect, subprocess, sys
from pathlib import Path
import pytest
from fastcore.docments import docments

PKG = Path(__file__).resolve().parents[1] / "shapnb"
LAYERS = {"core": 0, "exact": 1, "sampling": 2, "bayes": 3}   # anything else in shapnb/ is the face (4)
FACE = 4


def module_name(path: Path) -> str:
    parts = path.relative_to(PKG.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PKG.rglob("*.py")) if p.name != "_modidx.py"}


def layer(mod: str) -> int:
    parts = mod.split(".")
    return LAYERS.get(parts[1], FACE) if len(parts) > 1 else -1   # the top-level package is lazy: no layer


def resolve(mod: str, path: Path, node: ast.ImportFrom) -> list[str]:
    "Absolute names of the shapnb modules one `from ... import ...` statement loads (relative imports resolved)."
    if node.level:
        base = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
        base = base[:len(base) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
    else: target = node.module or ""
    if not target.startswith("shapnb"): return []
    known = modules()
    names = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in known]   # `from pkg import submodule`
    return names + ([target] if target in known else [])


def import_graph() -> dict[str, set[str]]:
    "Edges module -> shapnb modules it imports, at any depth of its code (imports inside functions count too)."
    graph = {}
    for mod, path in modules().items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom): edges.update(resolve(mod, path, node))
            elif isinstance(node, ast.Import):
                edges.update(a.name for a in node.names if a.name.startswith("shapnb"))
        edges.discard(mod)
        graph[mod] = edges
    return graph


def test_layers_import_only_downward():
    graph = import_graph()
    assert {"shapnb.core.games", "shapnb.exact.kernels", "shapnb.sampling.bootstrap", "shapnb.bayes.gp"} <= set(graph)
    upward = [(a, b) for a, edges in graph.items() for b in edges
              if layer(a) >= 0 and layer(b) > layer(a)]
    assert not upward, f"imports that go up the layers (core < exact < sampling < bayes < face): {upward}"


def test_import_graph_has_no_cycle():
    graph = import_graph()
    state = {}
    def visit(m, stack):
        state[m] = "open"
        for n in sorted(graph.get(m, ())):
            if state.get(n) == "open": pytest.fail(f"import cycle: {' -> '.join(stack + [m, n])}")
            if n not in state: visit(n, stack + [m])
        state[m] = "done"
    for m in sorted(graph):
        if m not in state: visit(m, [])


def test_graph_check_sees_a_cycle_and_an_upward_import(tmp_path):
    "The two checks above would fail on a package that had a cycle or an upward import."
    assert layer("shapnb.core.games") < layer("shapnb.exact.kernels") < layer("shapnb.sampling.design") \
        < layer("shapnb.bayes.gp") < layer("shapnb.plots")
    node = ast.parse("from ..core.games import exact_shapley").body[0]
    assert resolve("shapnb.exact.kernels", PKG / "exact" / "kernels.py", node) == ["shapnb.core.games"]
    node = ast.parse("from . import plots").body[0]
    assert set(resolve("shapnb.cli", PKG / "cli.py", node)) == {"shapnb.plots", "shapnb"}   # the package runs first


def has_source(f) -> bool:
    try: return bool(inspect.getsource(f))
    except (OSError, TypeError): return False


def public_callables():
    "(module, qualified name, function) for every public function, class constructor and public method in `__all__`."
    for mod in modules():
        if mod == "shapnb": continue
        m = importlib.import_module(mod)
        for name in getattr(m, "__all__", []):
            obj = getattr(m, name)
            if getattr(obj, "__module__", None) != mod: continue   # re-exported: checked where it is defined
            if inspect.isclass(obj):
                init = vars(obj).get("__init__")
                if dataclasses.is_dataclass(obj) and init is not None and not has_source(init):
                    yield mod, name, obj   # a generated dataclass __init__: the fields' comments document it
                elif inspect.isfunction(init): yield mod, f"{name}.__init__", init
                for attr, f in vars(obj).items():
                    if not attr.startswith("_") and inspect.isfunction(f): yield mod, f"{name}.{attr}", f
            elif inspect.isfunction(obj): yield mod, name, obj
            elif inspect.isfunction(getattr(obj, "py_func", None)): yield mod, name, obj.py_func   # numba


def undocumented(f) -> list[str]:
    "Parameters of `f` (but self/cls) without a docments description; `*args`/`**kwargs` need one too."
    docs = docments(f, full=True, args_kwargs=True)
    return [p for p, d in docs.items() if p not in ("self", "cls", "return") and not d.get("docment")]


def test_every_public_parameter_has_a_description():
    missing = {f"{mod}.{name}": ps for mod, name, f in public_callables() if (ps := undocumented(f))}
    assert not missing, "parameters without a docments description (`name: type, # what it is`):\n" + \
        "\n".join(f"  {k}: {', '.join(v)}" for k, v in sorted(missing.items()))


def test_docments_check_finds_a_missing_description():
    def documented(a,   # the a
                   b: int = 1,  # the b
                   ): pass
    def half(a,   # the a
             b, **kwargs): pass
    assert undocumented(documented) == [] and undocumented(half) == ["b", "kwargs"]
    @dataclasses.dataclass
    class Fields:
        x: int      # the x
        y: float = 0.0
    assert undocumented(Fields) == ["y"]


LIGHT = "import sys, shapnb; print(sorted(m for m in ('torch', 'gpytorch', 'numba', 'sklearn', 'scipy') if m in sys.modules))"


def test_import_shapnb_is_light():
    "`import shapnb` loads none of the heavy dependencies; they come with the first name used."
    out = subprocess.run([sys.executable, "-c", LIGHT], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out


def test_explain_and_trees_need_no_torch():
    "Only the Bayesian layer imports torch: the front door, the exact explainers and KernelSHAP do not."
    code = ("import sys, shapnb; shapnb.explain; shapnb.TreeExplainer; shapnb.ProductKernelExplainer; shapnb.kernel_shap; "
            "shapnb.plots; import shapnb.cli; print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False", out


def test_every_public_top_level_name_resolves():
    "Each name `import shapnb` promises (`shapnb.__all__`) is there on first use, and unknown names are an AttributeError."
    import shapnb
    for name in shapnb.__all__: assert getattr(shapnb, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'TreeExplaner'"): shapnb.TreeExplaner
    public = {n for n in dir(shapnb) if not n.startswith("_")}
    assert public == set(shapnb.__all__), public ^ set(shapnb.__all__)   # tab completion shows the API, no helper modules


READ_ONLY = """set -e
mount --bind "$PKG" "$PKG" && mount -o remount,bind,ro "$PKG"
mount --bind "$HOME" "$HOME" && mount -o remount,bind,ro "$HOME"
cd "$TMPDIR" && python -c '
import numpy as np, numba, shapnb
X = np.random.default_rng(0).normal(size=(60, 3))
from sklearn.tree import DecisionTreeRegressor
tree = DecisionTreeRegressor(max_depth=3).fit(X, X[:, 0] * X[:, 1])
e = shapnb.explain(tree, X[:2])                                      # compiles (and caches) the path-dependent kernels
assert abs(e.values.sum(1) + e.base_values - tree.predict(X[:2])).max() < 1e-9
print(numba.config.CACHE_DIR)'
"""


def test_read_only_install_without_home_still_explains(tmp_path):
    "Package and home read-only (a container's install): numba is pointed at a folder under TMPDIR instead of failing at import."
    if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        pytest.skip("needs unshare -m (root in a mount namespace) to make the package read-only")
    home, scratch = tmp_path / "home", tmp_path / "tmp"
    home.mkdir(); scratch.mkdir()
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env.update(PKG=str(PKG), HOME=str(home), TMPDIR=str(scratch))
    out = subprocess.run(["unshare", "-m", "bash", "-c", READ_ONLY], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    folder = Path(out.stdout.strip().splitlines()[-1])
    assert folder.parent == scratch and folder.name.startswith("shapnb-numba-cache") and any(folder.rglob("*.nbi")), out.stdout


def test_sdist_carries_what_setup_reads(tmp_path):
    "The source distribution holds settings.ini (setup.py reads everything from it), the README and the license, and no tests."
    import tarfile
    root = PKG.parent
    subprocess.run([sys.executable, "setup.py", "-q", "sdist", "--dist-dir", str(tmp_path)], cwd=root, check=True, capture_output=True)
    (archive,) = tmp_path.glob("shapnb-*.tar.gz")
    with tarfile.open(archive) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
        tar.extractall(tmp_path / "x", filter="data")
    assert {"settings.ini", "README.md", "LICENSE", "setup.py", "shapnb/__init__.py", "shapnb/exact/trees/pathwise.py"} <= names
    assert not any(n.startswith(("tests/", "nbs/", "bench/")) for n in names), sorted(names)[:20]
    (unpacked,) = (tmp_path / "x").iterdir()
    out = subprocess.run([sys.executable, "setup.py", "--version"], cwd=unpacked, check=True, capture_output=True, text=True)
    assert out.stdout.strip().splitlines()[-1] == (root / "settings.ini").read_text().split("version = ")[1].split()[0]


def test_help_shows_every_parameter_of_the_top_level_names():
    "help() of each name `shapnb` exports lists its parameters with their docments (notebook 00's `document_parameters`)."
    import pydoc
    import shapnb
    for name in shapnb.__all__:
        obj = getattr(shapnb, name)
        if inspect.ismodule(obj): continue
        text = pydoc.render_doc(obj, renderer=pydoc.plaintext)
        f = obj.__init__ if inspect.isclass(obj) else obj
        for p, doc in docments(f, full=True).items():
            if p in ("self", "return") or not doc["docment"]: continue
            assert f"{p}: {doc['docment']}" in " ".join(text.split()), (name, p)
