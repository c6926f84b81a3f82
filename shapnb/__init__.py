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
_NEED_TORCH = ("gp_surrogate_shap", "shapleig")   # the `shapleig` extra: torch and gpytorch


def _has_torch() -> bool:
    "Whether torch and gpytorch can be imported (found, not imported: `import shapnb` stays light)."
    from importlib.util import find_spec
    try: return all(find_spec(m) is not None for m in ("torch", "gpytorch"))
    except (ImportError, ValueError): return False   # a module set to None in sys.modules, or a broken one


# without the extra, `from shapnb import *` and help(shapnb) leave its names out; `shapnb.shapleig` says what to install
__all__ = [n for n in (*_LAZY, *_SUBPACKAGES) if n not in _NEED_TORCH or _has_torch()]


def __getattr__(name):
    "Import a public name or subpackage on first use (PEP 562)."
    if name in _LAZY:   # with its parameters' comments in its docstring, for help() (notebook 00)
        from shapnb.core.validation import document_parameters
        value = document_parameters(getattr(_importlib.import_module(_LAZY[name]), name))
    elif name in _SUBPACKAGES: value = _importlib.import_module(f"shapnb.{name}")
    else: raise AttributeError(f"module 'shapnb' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__(): return sorted({*(n for n in globals() if not n.startswith("_")), *__all__})
