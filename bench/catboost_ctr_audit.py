"""CatBoost target-statistic (CTR) splits under many settings (CHANGELOG, 0.2.0 "Added"): per model, the largest error of
the converted trees' predictions against CatBoost's raw output, of the interventional values against the brute force of
`predict` on hybrid rows (3 rows, 20 background rows, all 2^4 coalitions), of the path-dependent values' sum against the
raw output, and (symmetric trees) of the path-dependent values against CatBoost's own ShapValues; or the refusal.

  python bench/catboost_ctr_audit.py      (about 2 minutes, one core)"""
import numpy as np, pandas as pd, catboost, tempfile, os, traceback
from shapnb import TreeExplainer
from shapnb.core.tabular import HybridRows
from shapnb.core.games import exact_shapley
from shapnb.exact.trees.ensemble import tree_ensemble, catboost_json
rng = np.random.default_rng(3)
n = 1500
df = pd.DataFrame({"x": rng.normal(size=n), "city": rng.choice([f"c{i}" for i in range(12)], n),
                   "kind": rng.integers(0, 6, n), "small": rng.choice(["u", "v", "w"], n)})
eff = rng.normal(size=12)
y = df.x + eff[df.city.str[1:].astype(int)] + 0.5 * (df.kind == 2) - 0.3 * (df.small == "v") + 0.2 * rng.normal(size=n)
ybin = (y > np.median(y)).astype(int); y3 = np.digitize(y, np.quantile(y, [0.33, 0.66]))
cats = ["city", "kind", "small"]
base = dict(iterations=40, depth=4, verbose=0, allow_writing_files=False, random_seed=0, thread_count=1, max_ctr_complexity=1)
def brute(predict, x, background, p):
    h = HybridRows(x, background)
    k = np.reshape(predict(h(np.ones((1, p), bool))), (len(background), -1)).shape[1]
    return np.stack([exact_shapley(lambda Z: np.asarray(predict(h(Z)), float).reshape(len(Z), len(background), -1).mean(1)[:, o], p) for o in range(k)], 1)
def check(name, model, frame=df, fit_cats=cats):
    rows = frame[:6].copy()
    if isinstance(rows, pd.DataFrame): rows.iloc[0, 1] = "nowhere"; rows.iloc[1, 2] = 77
    raw = lambda f: np.reshape(model.predict(f, prediction_type="RawFormulaVal"), (len(f), -1))
    try:
        e = tree_ensemble(model)
        pe = np.abs(e.predict(rows) - raw(rows)).max()
        bg = frame[700:720]
        inter = TreeExplainer(model, bg, feature_perturbation="interventional")
        bi = max(np.abs(np.reshape(inter.shap_values(rows[r:r+1])[0], (4, -1)) - np.reshape(brute(raw, rows.iloc[r] if isinstance(rows, pd.DataFrame) else rows[r], bg, 4), (4, -1))).max() for r in range(3))
        path = TreeExplainer(model); phi = path.shap_values(rows)
        add = np.abs(np.reshape(phi.sum(1), (len(rows), -1)) + path.expected_value - raw(rows)).max()
        msg = f"predict {pe:.1e} inter-brute {bi:.1e} path-add {add:.1e}"
        if "oblivious_trees" in catboost_json(model):            # symmetric trees: CatBoost's ShapValues are the path-dependent values
            th = model.get_feature_importance(catboost.Pool(rows, cat_features=fit_cats), type="ShapValues")
            th = th[:, :-1] if th.ndim == 2 else np.moveaxis(th[:, :, :-1], 1, 2)
            msg += f" vs CatBoost {np.abs(np.reshape(phi, th.shape) - th).max():.1e}"
        bad = max(pe, bi, add) > 1e-9
        print(("FAIL " if bad else "ok   ") + name, msg, flush=True)
    except ValueError as ex: print("REFUSED " + name, str(ex)[:230], flush=True)
    except Exception: print("CRASH " + name); traceback.print_exc()
for pol in ("SymmetricTree", "Depthwise", "Lossguide"):
    kw = dict(base, grow_policy=pol)
    for ctr in ("Borders", "Buckets", "BinarizedTargetMeanValue", "Counter"):
        check(f"{pol} regressor simple_ctr={ctr}", catboost.CatBoostRegressor(simple_ctr=[ctr], **kw).fit(df, y, cat_features=cats))
    check(f"{pol} regressor simple_ctr=Borders:TargetBorderCount=3", catboost.CatBoostRegressor(simple_ctr=["Borders:TargetBorderCount=3"], **kw).fit(df, y, cat_features=cats))
    check(f"{pol} binary", catboost.CatBoostClassifier(**kw).fit(df, ybin, cat_features=cats))
    check(f"{pol} binary weights", catboost.CatBoostClassifier(**kw).fit(df, ybin, cat_features=cats, sample_weight=rng.uniform(0.2, 3, n)))
    check(f"{pol} multiclass", catboost.CatBoostClassifier(loss_function="MultiClass", **kw).fit(df, y3, cat_features=cats))
    check(f"{pol} one_hot_max_size=3 (small one-hot, others CTR)", catboost.CatBoostRegressor(one_hot_max_size=3, **kw).fit(df, y, cat_features=cats))
    check(f"{pol} counter_calc_method=Full", catboost.CatBoostRegressor(counter_calc_method="Full", **kw).fit(df, y, cat_features=cats))
    check(f"{pol} 300 trees depth 6", catboost.CatBoostRegressor(**dict(kw, iterations=300, depth=6)).fit(df, y, cat_features=cats))
    m = catboost.CatBoostRegressor(**kw).fit(df, y, cat_features=cats)
    with tempfile.TemporaryDirectory() as d:
        m.save_model(os.path.join(d, "m.cbm")); m2 = catboost.CatBoostRegressor(); m2.load_model(os.path.join(d, "m.cbm"))
    check(f"{pol} saved .cbm and loaded", m2)
    m3 = catboost.CatBoostRegressor(**kw).fit(df, y, cat_features=cats, init_model=m)
    check(f"{pol} init_model continued", m3)
    try: check(f"{pol} sum_models", catboost.sum_models([m, m3]))
    except Exception as ex: print("sum_models unavailable", str(ex)[:100])
    obj = df.to_numpy(dtype=object)
    mi = catboost.CatBoostRegressor(**kw).fit(obj, y, cat_features=[1, 2, 3])
    check(f"{pol} numpy object array, cat_features by index", mi, frame=pd.DataFrame(obj), fit_cats=[1, 2, 3])
for sc in (["Borders:CtrBorderCount=3"], ["Counter"], ["Borders:Prior=0.5/1"], ["Borders:Prior=0.5/1:CtrBorderCount=4"], ["Borders:Prior=0.5/1:CtrBorderCount=7"]):
    for it in (40, 300):                                  # multiclass with fewer statistics per feature than the default
        check(f"multiclass simple_ctr={sc} {it} trees", catboost.CatBoostClassifier(loss_function="MultiClass", simple_ctr=sc, **dict(base, iterations=it)).fit(df, y3, cat_features=cats))
