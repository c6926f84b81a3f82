"""Run every notebook in nbs/ as a test, as `nbdev_test` does (cells flagged `#| slow` only with --slow)."""
from pathlib import Path
import pytest
from nbdev.test import test_nb as run_notebook_tests

NBS = Path(__file__).resolve().parents[1] / "nbs"
NOTEBOOKS = sorted(p for p in NBS.glob("*.ipynb") if not p.name.startswith(("_", ".")))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook(notebook, request):
    slow = request.config.getoption("--slow")
    ok, seconds = run_notebook_tests(notebook, skip_flags=[] if slow else ["slow"], force_flags=["slow"] if slow else [],
                                     showerr=True)
    assert ok, f"{notebook.name} failed (see the traceback above)"
