"""shapnb: exact, stable and honest Shapley values.

The package is layered; imports only go down the layers:

- `shapnb.core`: validation, coalitions and games, the executor seam, the Beta integral, the Gauss–Legendre
  engine for product games, and the `Explanation` every method returns;
- `shapnb.exact` (tree ensembles, product-kernel models), `shapnb.sampling` (the Wallenius design, the constrained
  regression, bootstraps, KernelSHAP, the cross-fitted surrogate estimator) and `shapnb.bayes` (the Hamming GP, the closed-form EIG, ShaplEIG, the GP surrogate estimator; needs the
  `shapleig` extra: torch and gpytorch);
- the face: `shapnb.plots`, `shapnb.front` (`explain`), `shapnb.demo`, `shapnb.cli`.

The names below are imported on first use, so `import shapnb` loads neither numba nor torch.
"""
__version__ = "0.1.0"

import importlib as _importlib

_LAZY = {  # public name: module that defines it
    "explain": "shapnb.front",
    "Explanation": "shapnb.core.explanation",
    "exact_shapley": "shapnb.core.games",
    "MarginalGame": "shapnb.core.games",
    "TableGame": "shapnb.core.games",
    "product_shapley": "shapnb.core.quadrature",
    "product_semivalues": "shapnb.core.indices",
    "product_interactions": "shapnb.core.indices",
    "exact_semivalues": "shapnb.core.indices",
    "exact_interactions": "shapnb.core.indices",
    "TreeExplainer": "shapnb.exact.trees",
    "ProductKernelExplainer": "shapnb.exact.kernels",
    "kernel_shap": "shapnb.sampling.kernelshap",
    "surrogate_shap": "shapnb.sampling.surrogate",
    "gp_surrogate_shap": "shapnb.bayes.surrogate",
    "shapleig": "shapnb.bayes.shapleig",
}
_SUBPACKAGES = ("core", "exact", "sampling", "bayes", "plots", "front", "demo", "cli")
__all__ = [*_LAZY, *_SUBPACKAGES]


def __getattr__(name):
    "Import a public name or subpackage on first use (PEP 562)."
    if name in _LAZY: value = getattr(_importlib.import_module(_LAZY[name]), name)
    elif name in _SUBPACKAGES: value = _importlib.import_module(f"shapnb.{name}")
    else: raise AttributeError(f"module 'shapnb' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__(): return sorted({*(n for n in globals() if not n.startswith("_")), *__all__})
