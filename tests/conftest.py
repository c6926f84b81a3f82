"""Shared pytest options and fixtures for shapnb's test-suite."""
import os
from pathlib import Path
import pytest
from benchmark_games import games_dir   # the one lookup of the benchmark games

ROOT = Path(__file__).resolve().parents[1]


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: takes more than a few seconds (whole notebooks, Dask clusters); "
                                       "`pytest -m 'not slow'` is the fast tier")


def pytest_collection_modifyitems(config, items):
    "The notebooks first: they are most of the long tests, and two pytest workers finish together when those start early."
    items.sort(key=lambda item: item.path.name != "test_notebooks.py")   # stable: the order within each group is kept


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", default=False,
                     help="also run notebook cells flagged `#| slow` (benchmarks and simulation studies)")


@pytest.fixture(scope="session")
def game_files():
    "All precomputed benchmark games; skipped where the folder is absent, an error in CI (SHAPNB_REQUIRE_GAMES=1)."
    files = sorted(games_dir().glob("*.npz"))
    if not files:
        if os.environ.get("SHAPNB_REQUIRE_GAMES") == "1": pytest.fail(f"no benchmark games found in {games_dir()}")
        pytest.skip(f"benchmark games not found in {games_dir()} (set SHAPNB_GAMES_DIR)")
    return files
