"""The asyncio executor: --workers W means W requests in flight at the server, on one event loop."""

from __future__ import annotations

import threading

import pytest
from fake_endpoint import LatencyEndpoint

from mtp_gym.eval.backends import executor_kind
from mtp_gym.eval.harness import AgentConfig, run_eval
from mtp_gym.eval.log import read_episodes

HN = "MTP/HiddenNumber-v0"


@pytest.fixture(scope="module")
def endpoint():
    with LatencyEndpoint(0.1) as ep:
        yield ep


def test_endpoint_agents_default_to_the_event_loop():
    assert executor_kind("auto", 32, AgentConfig("openai:m")) == "async"
    assert executor_kind("auto", 32, AgentConfig("openai:a", finisher="openai:b", handoff_turn=2)) == "async"
    assert executor_kind("auto", 32, AgentConfig("hf:smollm2")) == "thread"
    assert executor_kind("auto", 32, AgentConfig("oracle")) == "process"
    assert executor_kind("auto", 1, AgentConfig("oracle")) is None
    with pytest.raises(ValueError, match="--executor must be one of"):
        executor_kind("fibers", 2, AgentConfig("openai:m"))


@pytest.mark.parametrize("workers", [1, 16, 48])
def test_workers_are_requests_in_flight_at_the_server(tmp_path, workers):
    """A 0.3 s endpoint: the loop's own CPU between two answers (about 15 ms for 48 requests on a
    busy 2-core machine, twice that beside another test run) stays small beside the latency."""
    episodes = max(4, 4 * workers)
    with LatencyEndpoint(0.3) as endpoint:
        threads = threading.active_count()
        log = run_eval(
            [HN],
            AgentConfig("openai:m", {"base_url": endpoint.url}),
            tmp_path,
            workers=workers,
            env_kwargs={HN: {"configs_per_level": episodes}},
            progress=False,
        )
        stats = endpoint.stats()
        assert threading.active_count() <= threads + 1  # one loop, not a thread per episode
    assert stats["served"] == 4 * episodes  # 4 requests per episode, none repeated
    assert stats["peak"] == workers and stats["mean_inflight"] > 0.85 * workers, stats
    recs = read_episodes(log.path)[0]
    assert len(recs) == episodes and {r["turns"] for r in recs} == {4}
    assert {r["outcome"] for r in recs} <= {"success", "failure"}


def test_an_interrupted_async_run_resumes_without_replaying(endpoint, tmp_path):
    config = AgentConfig("openai:m", {"base_url": endpoint.url})
    kwargs = {HN: {"configs_per_level": 24}}
    run_eval([HN], config, tmp_path, split="12", workers=8, env_kwargs=kwargs, progress=False)
    endpoint.stats(reset=True)
    log = run_eval([HN], config, tmp_path, workers=8, env_kwargs=kwargs, progress=False)
    assert endpoint.stats()["served"] == 4 * 12  # only the 12 configurations not played yet
    recs = read_episodes(log.path)[0]
    assert sorted(r["config_id"] for r in recs) == list(range(24))


def test_a_dead_endpoint_stops_an_async_run_early(tmp_path):
    from mtp_gym.eval.harness import EndpointDown

    config = AgentConfig("openai:m", {"base_url": "http://127.0.0.1:9/v1", "max_retries": 1, "backoff": 0.001})
    with pytest.raises(EndpointDown, match="the first 3 episodes found no endpoint"):
        run_eval([HN], config, tmp_path, workers=4, progress=False)
    recs = read_episodes(tmp_path / "episodes.jsonl")[0]
    assert 3 <= len(recs) <= 8 and {r["outcome"] for r in recs} == {"infra_error"}
