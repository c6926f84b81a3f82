import warnings, numpy as np, pandas as pd, shapnb, catboost, lightgbm, xgboost
from sklearn.ensemble import RandomForestRegressor
from sklearn.svm import SVR
warnings.filterwarnings("ignore")
rng = np.random.default_rng(1)
A = rng.normal(size=(120, 3)); y = A[:, 0] * 3 + A[:, 1] - A[:, 2] ** 2
F = pd.DataFrame(A, columns=[2, 0, 1])   # int column labels, not in order
for M in (catboost.CatBoostRegressor(iterations=20, depth=3, verbose=0), lightgbm.LGBMRegressor(n_estimators=10, verbose=-1, min_child_samples=5),
          xgboost.XGBRegressor(n_estimators=10), RandomForestRegressor(n_estimators=5, random_state=0), SVR()):
    try: M.fit(F, y)
    except Exception as ex: print(type(M).__name__, "fit fail", str(ex)[:100]); continue
    Xq = F.iloc[100:101][[0, 1, 2]]
    try: mp = float(np.ravel(M.predict(Xq))[0]); how = "model.predict(Xq)"
    except Exception as ex: mp = float(np.ravel(M.predict(F.iloc[100:101]))[0]); how = f"model refuses reordered ({str(ex)[:60]}); predict(original order)"
    try:
        e = shapnb.explain(M, Xq, data=F.iloc[:20], progress=False)
        print(type(M).__name__, "names", e.feature_names, f"base+sum {float(np.ravel(e.base_values)[0] + e.values.sum()):.4f}", f"{how}={mp:.4f}")
    except Exception as ex: print(type(M).__name__, "explain:", type(ex).__name__, str(ex)[:250])
