"""The notebook runner (tests/nb_runner.py): what it rewrites, and that a failing cell fails the notebook."""
import subprocess, sys
from pathlib import Path
import nbformat
from nb_runner import library_source, RUNNER_FILE


CELL = '''#| export
import numpy as np
from numba import njit

@njit(cache=True,
      fastmath=True)
def _kernel(x):   # compiled: taken from the library
    return x + 1

def wrapper(x):   # plain Python: the notebook's own
    return _kernel(x)
LIMIT = 3'''


def test_only_the_compiled_functions_are_imported():
    out = library_source(CELL, "core.games")
    assert "from shapnb.core.games import _kernel" in out and "@njit" not in out and "return x + 1" not in out
    assert "def wrapper(x):" in out and "LIMIT = 3" in out and "import numpy as np" in out


def _notebook(tmp_path: Path, test_source: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("#| default_exp core.games"), nbformat.v4.new_code_cell(CELL.replace("_kernel", "check_int")),
                nbformat.v4.new_code_cell(test_source)]
    path = tmp_path / "nb.ipynb"; nbformat.write(nb, path)
    return path


def _run(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(RUNNER_FILE), str(path), "slow", ""], capture_output=True, text=True, cwd=path.parent)


def test_a_notebook_passes_and_fails_on_its_asserts(tmp_path):
    ok = _run(_notebook(tmp_path, "from shapnb.core.validation import check_int as lib\nassert check_int is lib and LIMIT == 3"))
    assert ok.returncode == 0, ok.stderr
    bad = _run(_notebook(tmp_path, "assert LIMIT == 4, 'the notebook failed'"))
    assert bad.returncode != 0 and "the notebook failed" in bad.stderr
