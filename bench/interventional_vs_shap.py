"""One interventional configuration of notebook 14, shapnb against shap and FastTreeSHAP only (no woodelf, whose deep
forest takes minutes a run), the libraries alternating within each repeat so that the machine's drift hits them alike.

  python bench/interventional_vs_shap.py [threads=1] [repeats=5] [configuration="deep forest, 20 trees, fully grown, background 100"]

Prints each library's best and median time and shap's time over shapnb's (best over best, median over median). Every
library is first checked against shapnb on two rows (as `time_interventional` does) and left out if it disagrees."""
import sys, time, warnings
import numpy as np
from threadpoolctl import threadpool_limits
from shapnb.exact.trees import bench


def main(threads: int = 1, repeats: int = 5, configuration: str = "deep forest, 20 trees, fully grown, background 100"):
    warnings.simplefilter("ignore")
    model, rows, background = bench.interventional_configurations()[configuration]()
    with threadpool_limits(limits=threads):
        explain = bench._interventional_explainers(model, background, threads)
        explain.pop("woodelf", None)
        ours = np.asarray(explain["shapnb"](rows[:2]))
        for name in [n for n in explain if n != "shapnb"]:
            if np.abs(np.asarray(explain[name](rows[:2])) - ours).max() > 1e-5 * np.abs(ours).max():
                print(f"{name} disagrees with shapnb: not timed"); del explain[name]
        times = {name: [] for name in explain}
        for _ in range(repeats):
            for name, f in explain.items():
                start = time.perf_counter(); f(rows); times[name].append(time.perf_counter() - start)
    print(f"{configuration}, {len(rows)} rows, {threads} thread(s), {repeats} repeats")
    for name, t in times.items(): print(f"  {name:13s} best {min(t):.3f} s, median {np.median(t):.3f} s")
    if "shap" in times:
        print("  shap / shapnb: best %.1f, median %.1f" % (min(times["shap"]) / min(times["shapnb"]),
                                                          np.median(times["shap"]) / np.median(times["shapnb"])))


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]), *sys.argv[3:4])
