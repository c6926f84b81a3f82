"""Exact TreeSHAP through product games (hand-written; the modules are generated from notebooks 10–14).

- `ensemble` (notebook 10): `TreeEnsemble`, its node arrays `TreeNodes`, the converters behind `tree_ensemble`
  (scikit-learn, XGBoost, LightGBM, CatBoost; categorical splits as `CategoryCodes`), and the slow references
  `TreePathGame` and `leaf_shapley`;
- `pathwise` (notebook 11): the compiled edge-wise pass, path-dependent and interventional, and the interventional walk
  that carries the background rows as bitsets, 64 to a word, for the trees without tables (`pathwise_values`);
- `tables` (notebook 12): the leaf tables of shallow trees, path-dependent (`leaf_tables`) and interventional against a
  background (`interventional_tables`), read by `table_values`;
- `indices` (notebook 12b): pairwise interactions (SII, BII, STII, k-SII) and semivalues (Banzhaf, weighted Banzhaf,
  Beta-Shapley) of trees, path-dependent and interventional (`tree_interactions`, `tree_semivalues`);
- `grouped` (notebook 12c): CatBoost models whose splits read several features (target statistics of feature
  combinations), exactly, path-dependent and interventional (`GroupedTrees`);
- `explainer` (notebook 13): `TreeExplainer` (shap's conventions: `feature_perturbation="auto"`, `explainer(X)` gives an
  `Explanation`);
- `bench` (notebook 14): the benchmark against shap, FastTreeSHAP and (interventional) woodelf (`shapnb-bench-trees`),
  not imported here.

The tunable limits are read when they are used, from the module that defines them: set
`shapnb.exact.trees.tables.TABLE_BYTES`, not `shapnb.exact.trees.TABLE_BYTES` (which refuses to be set).
"""
import sys
import types

from .ensemble import (DECISION_LE, DECISION_LT, DECISION_CATEGORY, MISSING_NAN, MISSING_AS_ZERO, MISSING_ZERO_OR_NAN,
                       LIGHTGBM_ZERO, CategoryCodes, TreeNodes, TreeEnsemble, goes_left, tree_ensemble, TreePathGame,
                       leaf_shapley)
from .pathwise import QuadratureRules, tree_rules, pathwise_values
from .tables import LeafTables, leaf_tables, interventional_tables, table_values
from .indices import IndexRules, index_rules, tree_interactions, tree_semivalues
from .grouped import GroupedTrees
from .explainer import TreeExplainer, GroupedTreeExplainer

__all__ = ["TreeExplainer", "GroupedTreeExplainer", "GroupedTrees", "tree_ensemble", "TreeEnsemble", "TreeNodes", "CategoryCodes", "TreePathGame", "leaf_shapley", "goes_left",
           "QuadratureRules", "tree_rules", "pathwise_values", "LeafTables", "leaf_tables", "interventional_tables", "table_values",
           "IndexRules", "index_rules", "tree_interactions", "tree_semivalues",
           "DECISION_LE", "DECISION_LT", "DECISION_CATEGORY", "MISSING_NAN", "MISSING_AS_ZERO", "MISSING_ZERO_OR_NAN",
           "LIGHTGBM_ZERO"]

_TUNABLE = {"TABLE_BYTES": "tables", "TABLE_TREE_DOUBLES": "tables", "TABLE_BLOCK": "tables", "PASS_COST": "tables", "TABLE_FILL": "tables",
            "ROW_BLOCK": "pathwise", "BIT_BLOCK": "pathwise", "BITS_BYTES": "pathwise"}


def _moved(name: str) -> str:
    return (f"{name} is not re-exported by shapnb.exact.trees: use shapnb.exact.trees.{_TUNABLE[name]}.{name}, "
            "which is read where it is used")


def __getattr__(name):
    "Point the module constants that moved to their module."
    if name in _TUNABLE: raise AttributeError(_moved(name))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _TreesPackage(types.ModuleType):
    "The package module, refusing to set a tunable here, where setting it would change nothing."
    def __setattr__(self, name, value):
        if name in _TUNABLE: raise AttributeError(_moved(name))
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _TreesPackage
