"""Exact Shapley values of tree ensembles (`shapnb.exact.trees`) and product-kernel models (`shapnb.exact.kernels`),
numba kernels compiled on first use and cached on disk (hand-written; the modules are generated from notebooks 10–15).
Before those modules define their kernels, `numba_cache_dir` (notebook 05) makes sure numba has a folder it can write."""
from pathlib import Path as _Path
from ..core.scale import numba_cache_dir as _numba_cache_dir

_numba_cache_dir([_Path(__file__).parent, _Path(__file__).parent / "trees"])
