"""Where the precomputed benchmark games are: the one lookup shared by the tests, notebook 34 and bench/ (no imports
beyond the standard library, so that the benchmark environments need nothing else). The library never reads them."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def games_dir() -> Path:
    "Folder of the precomputed benchmark games: $SHAPNB_GAMES_DIR, else ../shared/games/precomputed beside the repository."
    return Path(os.environ.get("SHAPNB_GAMES_DIR", ROOT.parent / "shared" / "games" / "precomputed"))
