"""Run every notebook in nbs/ as a test, as `nbdev_test` does (cells flagged `#| slow` only with --slow).

Each notebook runs in its own Python process (tests/nb_runner.py), so that one notebook's global state (matplotlib's
IPython hooks, numba caches, torch settings) can never make another pass or fail. The runner takes the notebook's
numba-compiled functions from the library, which CI has checked to be the same code (tests/nb_runner.py says why).
"""
import subprocess, sys
from pathlib import Path
import pytest
from nb_runner import RUNNER_FILE

NBS = Path(__file__).resolve().parents[1] / "nbs"
NOTEBOOKS = sorted(p for p in NBS.glob("*.ipynb") if not p.name.startswith(("_", ".")))
pytestmark = pytest.mark.slow   # each notebook runs in a process of its own: the fast tier leaves them out


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook(notebook, request):
    slow = request.config.getoption("--slow")
    flags = ("", "slow") if slow else ("slow", "")
    run = subprocess.run([sys.executable, str(RUNNER_FILE), str(notebook), *flags], capture_output=True, text=True)
    assert run.returncode == 0, f"{notebook.name} failed:\n{run.stderr[-6000:]}"


def test_readme_outputs_are_a_fresh_run():
    "The printed outputs stored in nbs/index.ipynb (and so in README.md) are what its code prints today."
    import nbformat
    from nbconvert.preprocessors import ExecutePreprocessor
    nb = nbformat.read(NBS / "index.ipynb", as_version=4)
    stored = [[o.get("text", "") for o in c.get("outputs", []) if o.get("output_type") == "stream" and o.get("name") == "stdout"]
              for c in nb.cells if c.cell_type == "code"]
    ExecutePreprocessor(timeout=600, kernel_name="python3").preprocess(nb, {"metadata": {"path": str(NBS)}})
    fresh = [[o.get("text", "") for o in c.get("outputs", []) if o.get("output_type") == "stream" and o.get("name") == "stdout"]
             for c in nb.cells if c.cell_type == "code"]
    assert "".join(map("".join, fresh)), "the run printed nothing"
    assert fresh == stored, "nbs/index.ipynb's stored outputs are stale: run it (jupyter nbconvert --execute --inplace), then python .ci/readme.py"
