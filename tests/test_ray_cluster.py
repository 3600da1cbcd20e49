"""The Ray backend on a simulated two-node cluster (``ray.cluster_utils.Cluster`` on this machine):
endpoint episodes play on asyncio actors spread over the nodes, each logged once; killing the
driver or a node mid-run loses nothing; ``--address`` is checked against a connection already made."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from fake_endpoint import LatencyEndpoint
from helpers import CLI_ENV

from mtp_gym.eval.harness import AgentConfig, run_eval
from mtp_gym.eval.log import read_episodes

HN = "MTP/HiddenNumber-v0"


@pytest.fixture(scope="module")
def cluster():
    ray = pytest.importorskip("ray", reason="the Ray backend needs the optional 'ray' package (pip install ray)")
    from ray.cluster_utils import Cluster

    if ray.is_initialized():
        ray.shutdown()
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    c.add_node(num_cpus=1)
    c.wait_for_nodes()
    ray.init(address=c.address)
    yield c
    ray.shutdown()
    c.shutdown()


@pytest.fixture(scope="module")
def endpoint():
    with LatencyEndpoint(0.05) as ep:
        yield ep


def once_each(path) -> dict:
    recs = read_episodes(path)[0]
    keys = [(r["env_id"], r["config_id"], r.get("sample", 0)) for r in recs]
    assert len(keys) == len(set(keys)), "an episode was logged twice"
    return {k: r for k, r in zip(keys, recs)}


def test_endpoint_episodes_spread_over_the_nodes_and_are_logged_once(cluster, endpoint, tmp_path):
    import ray

    assert sum(n["Alive"] for n in ray.nodes()) == 2
    endpoint.stats(reset=True)
    config = AgentConfig("openai:m", {"base_url": endpoint.url})
    log = run_eval(
        [HN], config, tmp_path, workers=16, env_kwargs={HN: {"configs_per_level": 64}}, backend="ray",
        address=cluster.address, progress=False,
    )  # fmt: skip
    got = once_each(log.path)
    assert len(got) == 64 and {r["turns"] for r in got.values()} == {4}
    stats = endpoint.stats()
    assert stats["served"] == 4 * 64 and stats["peak"] == 16, stats


def test_address_must_match_the_connection_already_made(cluster, tmp_path):
    with pytest.raises(ValueError, match="already connected to the Ray cluster at"):
        run_eval([HN], AgentConfig("oracle"), tmp_path, split="2", backend="ray", address="10.9.9.9:6379",
                 progress=False)  # fmt: skip
    log = run_eval([HN], AgentConfig("oracle"), tmp_path, split="2", backend="ray", address=cluster.address,
                   progress=False)  # fmt: skip
    assert len(once_each(log.path)) == 2


def test_killing_the_driver_mid_run_loses_no_episode(cluster, tmp_path):
    with LatencyEndpoint(0.2) as slow:
        argv = [
            sys.executable, "-m", "mtp_gym.cli", "eval", "--env", HN, "--agent", "openai:m", "--base-url", slow.url,
            "--env-kwargs", '{"configs_per_level": 48}', "--workers", "8", "--backend", "ray", "--address",
            cluster.address, "--out", str(tmp_path), "--no-progress", "--no-report",
        ]  # fmt: skip
        log = tmp_path / "openai_m" / "episodes.jsonl"
        # os.environ as it is now: ray.init in this process may have turned on token auth
        # (RAY_AUTH_MODE), which the cluster then asks of every client.
        env = {**os.environ, "PYTHONPATH": CLI_ENV["PYTHONPATH"]}
        err = tmp_path / "driver.err"
        with err.open("w") as stderr:
            driver = subprocess.Popen(argv, env=env, start_new_session=True, stderr=stderr)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and (not log.exists() or len(read_episodes(log)[0]) < 10):
            time.sleep(0.2)
        os.killpg(driver.pid, signal.SIGKILL)
        driver.wait()
        before = once_each(log) if log.exists() else {}
        assert 10 <= len(before) < 48, err.read_text()[-3000:]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    after = once_each(log)
    assert len(after) == 48
    assert all(after[k]["finished_at"] == r["finished_at"] for k, r in before.items())  # kept, not replayed


def test_a_node_lost_mid_run_loses_no_episode(cluster, tmp_path):
    from ray._private.state import actors

    extra = cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    log = tmp_path / "episodes.jsonl"  # run_eval writes into the directory it is given
    with LatencyEndpoint(0.1) as ep, ThreadPoolExecutor(1) as pool:
        config = AgentConfig("openai:m", {"base_url": ep.url})
        run = pool.submit(
            run_eval, [HN], config, tmp_path, workers=12, env_kwargs={HN: {"configs_per_level": 48}}, backend="ray",
            address=cluster.address, progress=False,
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and (not log.exists() or len(read_episodes(log)[0]) < 6):
            time.sleep(0.1)
        on_extra = [
            a for a in actors().values()
            if a["ActorClassName"].endswith("_EndpointPlayer") and a["State"] == "ALIVE"
            and a["Address"]["NodeID"] == extra.node_id
        ]  # fmt: skip
        assert on_extra, "no player actor on the node to remove"
        cluster.remove_node(extra, allow_graceful=False)
        run.result(timeout=300)
        served = ep.stats()["served"]
    got = once_each(log)
    assert len(got) == 48 and {r["turns"] for r in got.values()} == {4}
    assert all(r["error"] is None for r in got.values())
    assert served > 4 * 48, "no episode was cut off with the node and played again"
