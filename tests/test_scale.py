"""The executor seam on a real Dask cluster: same values as in-process, a killed worker loses nothing, clear errors."""
import os, signal, subprocess, sys, threading, time
from concurrent.futures import ThreadPoolExecutor
import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")
import cloudpickle
import dask
import dask.array as da
import dask.dataframe as dd
from hypothesis import given, settings, strategies as st
from sklearn.ensemble import GradientBoostingClassifier, RandomForestRegressor
from sklearn.svm import SVR
from shapnb.core.games import MarginalGame
from shapnb.exact.kernels import ProductKernelExplainer
from shapnb.sampling.kernelshap import kernel_shap, kernel_shap_with_replacement
from shapnb.core.scale import (ExecutorError, GameEvaluationError, PartitionError, evaluate_coalitions, explain_collection,
                          split_rows)
from shapnb.bayes.shapleig import shapleig
from shapnb.exact.trees import TreeExplainer

cloudpickle.register_pickle_by_value(sys.modules[__name__])     # workers cannot import this test module


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    client = distributed.Client(cluster)
    yield client
    client.close(); cluster.close()


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 6))
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + 0.1 * rng.normal(size=600)
    return X, y


def slow_game(Z):
    "An integer-valued game whose evaluations take 0.04 s each (bitwise identical in any batch)."
    Z = np.asarray(Z, bool)
    time.sleep(0.04 * len(Z))
    return Z @ np.arange(1.0, Z.shape[1] + 1) + 3.0 * (Z[:, 0] & Z[:, 1])


@pytest.mark.slow   # a real LocalCluster
def test_explainers_match_in_process(client, data):
    X, y = data
    forest = RandomForestRegressor(20, max_depth=5, random_state=0).fit(X, y)
    classifier = GradientBoostingClassifier(n_estimators=10, max_depth=3, random_state=0).fit(X, np.digitize(y, [-0.5, 0.5]))
    explainers = [TreeExplainer(forest, n_jobs=1),
                  TreeExplainer(forest, X[:30], feature_perturbation="interventional", n_jobs=1),
                  TreeExplainer(classifier, n_jobs=1),                                   # three outputs: (n, p, 3)
                  ProductKernelExplainer(SVR(gamma=0.2).fit(X[:200], y[:200]))]
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(6)])
    for explainer in explainers:
        reference = explainer.shap_values(X)
        np.testing.assert_array_equal(explainer.shap_values(X, executor=client), reference)
        np.testing.assert_array_equal(explainer.shap_values(frame, executor=client, chunk_size=77), reference)
        lazy = explainer.shap_values(da.from_array(X, chunks=(100, 3)))
        assert lazy.shape == reference.shape and lazy.chunks[0] == (100,) * 6
        np.testing.assert_array_equal(lazy.compute(), reference)
        np.testing.assert_array_equal(explainer.shap_values(dd.from_pandas(frame, npartitions=4)).compute(), reference)


@pytest.mark.slow   # a real LocalCluster
def test_estimators_match_in_process(client, data):
    X, y = data
    forest = RandomForestRegressor(20, max_depth=5, random_state=0).fit(X, y)
    game = MarginalGame(forest.predict, X[0], X[:50])
    for estimate in (lambda **kw: kernel_shap(game, 6, 40, seed=1, **kw),
                     lambda **kw: kernel_shap_with_replacement(game, 6, 40, seed=1, bootstrap="naive", **kw)):
        local, remote = estimate(), estimate(executor=client)
        np.testing.assert_array_equal(remote.values, local.values)
        np.testing.assert_array_equal(remote.se, local.se)
    local = shapleig(slow_game, 6, 16, seed=2, batch_size=3)
    remote = shapleig(slow_game, 6, 16, seed=2, batch_size=3, executor=client.get_executor(), chunk_size=1)
    np.testing.assert_array_equal(remote.coalitions, local.coalitions)
    np.testing.assert_array_equal(remote.values, local.values)


def _kill_one_worker_after(client, delay: float):
    "Kill one worker process (SIGKILL) after `delay` seconds, in the background; returns the thread and the old pids."
    pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]
    thread = threading.Thread(target=lambda: (time.sleep(delay), os.kill(victim, signal.SIGKILL)))
    thread.start()
    return thread, set(pids.values())


def _wait_for_two_workers(client, old_pids):
    client.wait_for_workers(2, timeout=60)
    assert set(client.run(os.getpid).values()) != old_pids      # the kill happened: a new worker process replaced one


@pytest.mark.slow   # a real LocalCluster
def test_killed_worker_loses_no_coalition(client):
    Z = np.random.default_rng(3).random((80, 7)) < 0.5
    reference = evaluate_coalitions(slow_game, Z)
    thread, old = _kill_one_worker_after(client, 0.6)
    start = time.perf_counter()
    values = evaluate_coalitions(slow_game, Z, client, chunk_size=1)     # 80 tasks of 0.04 s: about 1.6 s on 2 workers
    thread.join()
    assert time.perf_counter() - start > 0.6                             # the worker died while the run was going on
    np.testing.assert_array_equal(values, reference)
    _wait_for_two_workers(client, old)


def _slow_copy(block):
    time.sleep(0.15)
    return block.copy()


@pytest.mark.slow   # a real LocalCluster
def test_killed_worker_loses_no_row(client, data):
    X, y = data
    explainer = TreeExplainer(RandomForestRegressor(10, max_depth=4, random_state=0).fit(X, y), n_jobs=1)
    reference = explainer.shap_values(X)
    rows = da.from_array(X, chunks=(30, 6)).map_blocks(_slow_copy, dtype=float)     # 20 partitions of 0.15 s
    lazy = explainer.shap_values(rows)                                               # the explainer is on the workers
    thread, old = _kill_one_worker_after(client, 0.5)
    start = time.perf_counter()
    values = lazy.compute()
    thread.join()
    assert time.perf_counter() - start > 0.5
    np.testing.assert_array_equal(values, reference)
    _wait_for_two_workers(client, old)


@pytest.mark.slow   # a real LocalCluster
def test_errors_name_what_failed(client, data):
    X, y = data
    def fragile(Z):
        Z = np.asarray(Z, bool)
        if (Z[:, 1] & Z[:, 4]).any(): raise ZeroDivisionError("1 and 4 clash")
        return Z.sum(1) * 1.0
    with pytest.raises(GameEvaluationError, match=r"coalition \[1, 4\] \(row 3 of the batch\) in process \d+"):
        evaluate_coalitions(fragile, np.eye(6, dtype=bool)[[0, 2, 3, 1]] | np.eye(6, dtype=bool)[4] * [[0], [0], [0], [1]],
                            client, chunk_size=2)
    explainer = TreeExplainer(RandomForestRegressor(5, max_depth=3, random_state=0).fit(X, y), n_jobs=1)
    blocks = [da.from_delayed(dask.delayed(X[:10]), shape=(10, 6), dtype=float),
              da.from_delayed(dask.delayed(X[10:15, :5]), shape=(5, 6), dtype=float)]
    with pytest.raises(PartitionError, match=r"partition 1 has shape \(5, 5\)"):
        explainer.shap_values(da.concatenate(blocks)).compute()
    with pytest.raises(ValueError, match="must have shape"): explainer.shap_values(da.zeros((10, 5)))
    with pytest.raises(TypeError, match="Dask array or DataFrame"): explain_collection(explainer, da.zeros(6).to_delayed()[0])


@pytest.mark.slow   # a real LocalCluster
def test_closed_cluster_and_shut_down_pool_are_refused(data):
    X, y = data
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0")
    closed = distributed.Client(cluster)
    closed.close(); cluster.close()
    with pytest.raises(ExecutorError, match="'closed', not running"): kernel_shap(slow_game, 4, 10, executor=closed)
    with pytest.raises(ExecutorError, match="'closed', not running"):
        TreeExplainer(RandomForestRegressor(3, max_depth=2).fit(X, y)).shap_values(X, executor=closed)
    with ThreadPoolExecutor(1) as pool: pass
    with pytest.raises(ExecutorError, match="shut down"): shapleig(slow_game, 4, 8, executor=pool)
    with pytest.raises(TypeError, match="executor must be"): kernel_shap(slow_game, 4, 10, executor="tcp://127.0.0.1:1")
    with pytest.raises(OSError):     # an unreachable scheduler fails where the client is made, with Dask's own error
        distributed.Client("tcp://127.0.0.1:9", timeout="1s")


@pytest.mark.slow   # a real LocalCluster
def test_client_closed_mid_run_is_an_error_not_a_hang():
    from shapnb.core.games import all_coalitions
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0")
    client = distributed.Client(cluster, set_as_default=False)
    outcome = []
    def run():
        try: outcome.append(evaluate_coalitions(slow_game, all_coalitions(7), client, 2))
        except Exception as exc: outcome.append(exc)
    worker = threading.Thread(target=run, daemon=True)
    try:
        threading.Timer(0.5, client.close).start()          # from another thread, while the coalitions are being evaluated
        worker.start(); worker.join(120)
        assert not worker.is_alive(), "evaluate_coalitions hung after its client was closed"
        assert isinstance(outcome[0], ExecutorError), outcome[0]   # it resubmitted cancelled work to a closing client, for ever
    finally:
        client.close(); cluster.close()


def test_p1_estimators_check_the_executor():
    game = lambda Z: np.asarray(Z, float).sum(1)
    with pytest.raises(TypeError, match="executor must be"): kernel_shap(game, 1, 4, executor="x")
    with pytest.raises(ValueError, match="chunk_size must be at least 1"): kernel_shap(game, 1, 4, executor=None, chunk_size=0)
    with ThreadPoolExecutor(1) as pool: pass
    with pytest.raises(ExecutorError, match="shut down"): kernel_shap_with_replacement(game, 1, 4, executor=pool)
    from shapnb.sampling.surrogate import surrogate_shap
    with pytest.raises(TypeError, match="executor must be"): surrogate_shap(game, 1, 4, executor=[1, 2])


def test_dask_collections_refused_where_not_lazy(data):
    from shapnb.front import explain
    X, y = data
    forest = RandomForestRegressor(3, max_depth=2, random_state=0).fit(X, y)
    frame = dd.from_pandas(pd.DataFrame(X[:40], columns=[f"f{j}" for j in range(6)]), npartitions=2)
    for rows in (da.from_array(X[:40], chunks=20), frame):
        with pytest.raises(TypeError, match="explain computes in memory and takes no Dask collection"): explain(forest, rows)
    with pytest.raises(TypeError, match="takes no Dask collection"): explain(forest, X[:3], data=da.from_array(X[:40]))
    with ThreadPoolExecutor(1) as pool:   # a pool cannot compute a Dask graph: refused, not ignored
        with pytest.raises(ValueError, match="not by the executor given"): TreeExplainer(forest).shap_values(frame, executor=pool)
    with pytest.raises(ValueError, match="chunk_size is not used"): TreeExplainer(forest).shap_values(frame, chunk_size=5)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 500), workers=st.integers(1, 9), chunk=st.one_of(st.none(), st.integers(1, 600)))
def test_split_rows_covers_every_row_once(n, workers, chunk):
    with ThreadPoolExecutor(workers) as pool: parts = split_rows(n, pool, chunk)
    assert np.array_equal(np.concatenate([np.arange(n)[s] for s in parts] + [np.zeros(0, int)]), np.arange(n))
    if chunk is None and n: assert len(parts) <= 4 * workers


def test_import_and_in_process_use_need_no_dask():
    code = ("import sys; sys.modules['dask'] = sys.modules['distributed'] = None\n"
            "import numpy as np, shapnb.core.scale, shapnb.exact.trees, shapnb.exact.kernels, shapnb.sampling.kernelshap, shapnb.bayes.shapleig, shapnb.front\n"
            "from shapnb.sampling.kernelshap import kernel_shap\n"
            "print(kernel_shap(lambda Z: np.asarray(Z, float).sum(1), 4, 12, seed=0).values)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "[1. 1. 1. 1.]" in out.stdout


@pytest.mark.slow   # a real LocalCluster
def test_front_door_runs_through_the_executor(client, data):
    from shapnb.front import explain
    from shapnb.core.games import exact_shapley
    X, y = data
    forest = RandomForestRegressor(10, max_depth=4, random_state=0).fit(X, y)
    local, remote = explain(forest, X[:50]), explain(forest, X[:50], executor=client)
    np.testing.assert_array_equal(remote.values, local.values)
    np.testing.assert_array_equal(exact_shapley(slow_game, 5, batch_size=8, executor=client), exact_shapley(slow_game, 5))
    local = explain(forest, X[:2], method="kernelshap", data=X[:20], budget=30, seed=4, progress=False)
    remote = explain(forest, X[:2], method="kernelshap", data=X[:20], budget=30, seed=4, progress=False, executor=client)
    np.testing.assert_array_equal(remote.values, local.values)
    np.testing.assert_array_equal(remote.se, local.se)


def test_thread_pool_under_numba_workqueue_layer_does_not_abort(tmp_path):
    "numba's workqueue layer aborts the process when two threads enter it: the explainers take turns there (kernel_lock)."
    script = tmp_path / "workqueue.py"
    script.write_text(
        "import numpy as np\n"
        "from concurrent.futures import ThreadPoolExecutor\n"
        "from sklearn.ensemble import RandomForestRegressor\n"
        "from shapnb import TreeExplainer\n"
        "import numba\n"
        "X = np.random.default_rng(0).normal(size=(200, 5)); y = X[:, 0] * X[:, 1]\n"
        "m = RandomForestRegressor(n_estimators=8, max_depth=5, random_state=0).fit(X, y)\n"
        "e = TreeExplainer(m, X[:40])\n"
        "with ThreadPoolExecutor(4) as pool: a = e.shap_values(X[:60], executor=pool, chunk_size=5)\n"
        "assert np.array_equal(a, e.shap_values(X[:60])), 'values differ'\n"
        "print(numba.threading_layer())\n")
    env = dict(os.environ, NUMBA_THREADING_LAYER="workqueue", NUMBA_NUM_THREADS="2")   # two numba threads: the abort is certain
    run = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "workqueue"
