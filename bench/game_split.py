"""Split the shared benchmark games into a tuning half and a reporting half, once, before any tuning (issue 17).

Rule (deterministic, needs only the file names):
  * a game's *family* is its file name without the trailing instance id, `<family>_<id>.npz`
    (e.g. `AdultCensus_LocalExplanation_Game_p14_model_name-random_forest_imputer-marginal`, ids 1..5);
  * within each family the instances, sorted by id, alternate tuning / reporting / tuning / ...;
  * the half that gets the first instance is decided by the family: tuning if the first byte of
    sha256(family name, UTF-8) is even, reporting if it is odd.
So every family with two or more instances appears in both halves (a method is reported on instances it was not tuned on),
a family with one instance (the clustering and unsupervised-data games) lands in one half by its hash, and an odd-sized
family gives its extra instance to one half or the other according to the hash, which keeps the halves near equal.

Writes nbs/data/game_split.json: {"rule": ..., "tuning": [file names], "reporting": [file names]}.
Usage (from the repository root): python bench/game_split.py
The games are found by the one lookup, tests/benchmark_games.py ($SHAPNB_GAMES_DIR, else ../shared/games/precomputed)."""
import sys, re, json, hashlib
from collections import defaultdict
from pathlib import Path
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from benchmark_games import games_dir   # the one lookup of the benchmark games

RULE = ("family = file name without the trailing '_<id>.npz'; within a family the instances sorted by id alternate "
        "tuning/reporting, starting with tuning if the first byte of sha256(family) is even, else with reporting")


def family_and_id(name: str) -> tuple[str, int]:
    "(family, instance id) of a game file name `<family>_<id>.npz`."
    m = re.fullmatch(r"(.*)_(\d+)\.npz", name)
    if m is None: raise ValueError(f"not a benchmark game file name <family>_<id>.npz: {name!r}")
    return m.group(1), int(m.group(2))


def split(names) -> dict:
    "The tuning and reporting halves of the game file names `names` by RULE."
    families = defaultdict(list)
    for n in names:
        fam, i = family_and_id(n)
        families[fam].append((i, n))
    halves = {"tuning": [], "reporting": []}
    for fam, members in sorted(families.items()):
        start = hashlib.sha256(fam.encode()).digest()[0] % 2   # 0: tuning first, 1: reporting first
        for k, (_, n) in enumerate(sorted(members)):
            halves[("tuning", "reporting")[(k + start) % 2]].append(n)
    return {"rule": RULE, "tuning": sorted(halves["tuning"]), "reporting": sorted(halves["reporting"])}


if __name__ == "__main__":
    names = sorted(f.name for f in games_dir().glob("*.npz"))
    if not names: sys.exit(f"no benchmark games in {games_dir()} (set SHAPNB_GAMES_DIR)")
    out = split(names)
    assert not set(out["tuning"]) & set(out["reporting"]) and len(out["tuning"]) + len(out["reporting"]) == len(names)
    path = ROOT / "nbs" / "data" / "game_split.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(names)} games: {len(out['tuning'])} tuning, {len(out['reporting'])} reporting -> {path}")
