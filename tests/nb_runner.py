"""Run one notebook's tests as `nbdev_test` does, with its numba-compiled functions taken from the installed library.

    python tests/nb_runner.py NOTEBOOK "SKIP_FLAGS" "FORCE_FLAGS"

Every cell runs as written, except that in an exported cell each function compiled by numba (`@njit`, ...) is
imported from the module the cell exports to instead of being defined again. CI checks first that `nbdev_export`
would change nothing, so it is the same code; numba then loads it from the library's on-disk cache (warmed by
.ci/warm.py) instead of compiling the notebook's copy, whose cache numba keeps per machine only (in a CI run on a new
machine, notebook 11 alone took 145 s instead of 34 s). Everything else (Python functions, classes, constants) is
the notebook's own, so a test that sets a notebook global still steers the functions that read it.
"""
import ast, os, sys, time, traceback
from pathlib import Path
from execnb.shell import CaptureShell
from nbdev.process import NBProcessor
from nbdev.frontmatter import FrontmatterProc
from nbdev.imports import IN_NOTEBOOK
from fastcore.xtras import working_directory

EXPORT_FLAGS = ("export", "exports", "exporti")
PACKAGE = "shapnb"
RUNNER_FILE = Path(__file__).resolve()   # run as a script: python RUNNER_FILE NOTEBOOK "SKIP" "FORCE"
NUMBA_DECORATORS = ("njit", "jit", "vectorize", "guvectorize", "generated_jit")


def jitted(statement) -> bool:
    "Is this a function compiled by numba (a decorator named like `njit`, `jit`, `vectorize`)?"
    def name(d):
        d = d.func if isinstance(d, ast.Call) else d
        return d.attr if isinstance(d, ast.Attribute) else getattr(d, "id", "")
    return isinstance(statement, ast.FunctionDef) and any(name(d) in NUMBA_DECORATORS for d in statement.decorator_list)


def library_source(source: str, module: str) -> str:
    "An exported cell with each numba-compiled function replaced by an import of the library's; the rest as written."
    lines = source.splitlines()
    for st in reversed(ast.parse(source).body):
        if jitted(st):
            first = min([st.lineno] + [d.lineno for d in st.decorator_list]) - 1
            lines[first:st.end_lineno] = [f"from {PACKAGE}.{module} import {st.name}"]
    return "\n".join(lines)


def run_notebook(path: Path, skip_flags: set, force_flags: set) -> bool:
    "Execute the notebook's cells (numba kernels from the library), stopping at the first error; True if none."
    if not IN_NOTEBOOK: os.environ["IN_TEST"] = "1"
    flags = skip_flags - force_flags
    nb = NBProcessor(path, procs=FrontmatterProc, process=True).nb
    default = next((c.directives_["default_exp"][0] for c in nb.cells if "default_exp" in (getattr(c, "directives_", {}) or {})), None)

    def skip_or_rewrite(cell):
        if cell.cell_type != "code" or "nbdev_export" + "(" in cell.source: return True
        directives = getattr(cell, "directives_", {}) or {}
        if directives.get("eval:", [""])[0].lower() == "false" or flags & directives.keys(): return True
        exported = [directives[k] for k in EXPORT_FLAGS if k in directives]
        if exported:
            module = (exported[0] or [None])[0] or default
            if module is None: raise ValueError(f"{path.name}: an exported cell with no module (no default_exp)")
            cell.source = library_source(cell.source, module)
        return False

    shell = CaptureShell(path)
    try:
        with working_directory(path.parent): shell.run_all(nb, exc_stop=True, preproc=skip_or_rewrite)
        return True
    except Exception:
        sys.stderr.write((shell.prettytb(fname=path) if shell.exc is not None else traceback.format_exc()) + "\n")
        return False


if __name__ == "__main__":
    start = time.time()
    ok = run_notebook(Path(sys.argv[1]), set(sys.argv[2].split()), set(sys.argv[3].split()))
    print(f"{sys.argv[1]}: {'ok' if ok else 'FAILED'} in {time.time() - start:.1f} s")
    sys.exit(0 if ok else 1)
