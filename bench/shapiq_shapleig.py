"""shapiq 1.8's ShaplEIG (its defaults: initial design p+1, refit every iteration) on the seven games of notebook 34,
at the same budgets and seeds; writes one JSON line per run with the estimates and posterior SDs, which notebook 34
scores against the exact values.

shapiq >= 1.5 needs Python >= 3.12 and its ShaplEIG needs torch, so this runs in a separate environment, never
the project's:  python3.12 -m venv /tmp/v312 && /tmp/v312/bin/pip install "shapiq[shapleig]==1.8.*" joblib
                /tmp/v312/bin/python bench/shapiq_shapleig.py [n_seeds] [output]   (from the repository root)
The games are found as by the tests and notebook 34: `games_dir()` of tests/benchmark_games.py ($SHAPNB_GAMES_DIR, else
../shared/games/precomputed); shapnb is not needed."""
import sys, json, time, warnings
from pathlib import Path
import numpy as np
from joblib import Parallel, delayed
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from benchmark_games import games_dir   # the one lookup of the benchmark games, shared with the tests and notebook 34
GD = games_dir()
GAMES = {   # the games of notebook 34
    "data valuation p10": "AdultCensus_DatasetValuation_Game_p10_model_name-random_forest_player_sizes-increasing_n_players-10_1",
    "ViT p9": "ImageClassifier_Game_p9_model_name-vit_9_patches_1",
    "ViT p16": "ImageClassifier_Game_p16_model_name-vit_16_patches_1",
    "ResNet p14": "ImageClassifier_Game_p14_model_name-resnet_18_n_superpixel_resnet-14_1",
    "sentiment p14": "SentimentAnalysis_Game_p14_mask_strategy-mask_1",
    "local expl. p8": "CaliforniaHousing_LocalExplanation_Game_p8_model_name-neural_network_imputer-marginal_1",
    "local expl. p12": "BikeSharing_LocalExplanation_Game_p12_model_name-random_forest_imputer-marginal_1",
}
def task(label, fname, seed, budget):
    "One shapiq ShaplEIG run: its estimates, posterior SDs and time."
    import torch; torch.set_num_threads(1)
    from shapiq.approximator import ShaplEIG
    values = np.load(GD / f"{fname}.npz")["values"].astype(float); p = int(np.log2(len(values)))
    game = lambda Z: values[np.asarray(Z, dtype=np.int64) @ (1 << np.arange(p))]
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        iv, var = ShaplEIG(n=p, random_state=seed, show_progress=False).approximate_with_variance(budget=budget, game=game)
    est = np.array([iv[(i,)] for i in range(p)]); sd = np.sqrt(np.maximum(var, 0))
    return dict(game=label, file=fname, p=p, method="shapiq ShaplEIG", seed=seed, budget=budget, values=est.tolist(),
                sd=sd.tolist(), seconds=time.perf_counter() - t)
if __name__ == "__main__":
    seeds = range(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
    out = Path(sys.argv[2] if len(sys.argv) > 2 else "nbs/data/shapiq_shapleig.jsonl")
    done = {(r["game"], r["seed"], r["budget"]) for r in map(json.loads, out.read_text().splitlines())} if out.exists() else set()
    tasks = []
    for g, f in GAMES.items():
        p = int(np.log2(len(np.load(GD / f"{f}.npz")["values"])))
        for s in seeds:
            for b in (p + 2, 2 * p, 3 * p, 4 * p):
                if (g, s, b) not in done: tasks.append(delayed(task)(g, f, s, b))
    t = time.perf_counter()
    for r in Parallel(n_jobs=2, return_as="generator")(tasks):
        with open(out, "a") as fh: fh.write(json.dumps(r) + "\n")
    print(f"{len(tasks)} runs, {time.perf_counter() - t:.0f} s")
