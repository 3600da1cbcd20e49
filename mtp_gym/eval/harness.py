"""The evaluation harness behind ``mtp-gym eval``: concurrent episodes, JSONL log, resume.

>>> from mtp_gym.eval.harness import AgentConfig, run_eval
>>> logs = run_eval(["MTP/WordGuess-v0"], AgentConfig("oracle"), out="runs", split="5", progress=False)

Two backends play the episodes. ``local`` (the default): this process, or a thread/process
pool of ``workers``. ``ray``: Ray tasks on a Ray cluster (``address``; default a local Ray
instance), at most ``workers`` in flight; each task runs :func:`play_config` on a Ray worker,
which builds the env and agent from the same specs and keeps them for its next tasks. Both
append every finished episode to the same run directory as it arrives, so resume is the same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym

import mtp_gym  # noqa: F401  (registers the ids)
from mtp_gym.core import check_choice, check_int
from mtp_gym.episode import INFRA_ERROR
from mtp_gym.eval.backends import (  # noqa: F401  (re-exported: the harness's public names)
    BACKENDS,
    ENDPOINT_WAIT,
    EXECUTORS,
    BackendUnavailable,
    EndpointDown,
    bounded_map,
    default_workers,
    die_with_parent,
    endpoint_connections,
    executor_kind,
    import_ray,
    play_all,
    process_worker,
)
from mtp_gym.eval.log import RunLog
from mtp_gym.eval.play import AgentConfig, play_config  # noqa: F401
from mtp_gym.eval.record import EpisodeRecord, probe_result
from mtp_gym.eval.splits import benchmark_subset, episode_seed, select_configs

__all__ = [
    "EndpointDown",
    "AgentConfig",
    "run_eval",
    "select_configs",
    "benchmark_subset",
    "episode_seed",
    "play_config",
    "bounded_map",
    "EXECUTORS",
    "BACKENDS",
    "BackendUnavailable",
    "probe_result",
    "process_worker",
]


class _Progress:
    """tqdm bar with the score so far and the tokens spent (no bar when disabled); running sums,
    so each episode costs the same however many came before."""

    def __init__(self, total: int, done: _Done, label: str, enabled: bool) -> None:
        self.score_sum, self.scored, self.tokens = done.score_sum, done.scored, done.tokens
        self.infra = 0
        self.bar: Any = None
        if enabled:
            from tqdm import tqdm

            # disable=None: no bar when stderr is not a terminal (CI logs, pipes).
            self.bar = tqdm(total=total, initial=done.count, desc=label, unit="ep", dynamic_ncols=True, disable=None)
            self._postfix()

    def _postfix(self) -> None:
        mean = self.score_sum / self.scored if self.scored else float("nan")
        post = {"score": f"{mean:.3f}", "tokens": self.tokens}
        if self.infra:
            post["infra_err"] = self.infra
        self.bar.set_postfix(post, refresh=False)

    def update(self, record: Mapping[str, Any]) -> None:
        if record["outcome"] == INFRA_ERROR:
            self.infra += 1
        else:
            self.score_sum += record["score"]
            self.scored += 1
        self.tokens += record["prompt_tokens"] + record["completion_tokens"]
        if self.bar is not None:
            self._postfix()
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def run_eval(
    env_ids: Sequence[str],
    agent_config: AgentConfig,
    out: str | Path,
    split: str | int = "full",
    workers: int | None = 1,
    env_kwargs: dict[str, dict[str, Any]] | None = None,
    executor: str = "auto",
    progress: bool = True,
    config_ids: dict[str, list[int]] | None = None,
    backend: str = "local",
    address: str | None = None,
    fail_fast: int = 3,
    samples: int = 1,
    seed: int | None = None,
) -> RunLog:
    """Play ``agent_config`` over the ``split`` of every env into the run dir ``out``.

    Resumes what the directory holds (finished episodes are skipped, ``infra_error`` ones
    replayed) and refuses a changed agent or env config (:class:`~mtp_gym.eval.log.ConfigMismatch`).
    ``config_ids`` ({env id: ids}) overrides ``split`` for the envs it names. ``samples``
    episodes are played per configuration (``sample`` 0 … ``samples``-1 in the records, for
    pass@k); each episode's reset seed is :func:`episode_seed` (``seed`` set: a different,
    fixed set of seeds; it is part of the run's identity).
    Every finished episode is appended to ``out/episodes.jsonl`` as it arrives. ``workers=None``:
    :func:`~mtp_gym.eval.backends.default_workers` (one per core for scripted agents, else 1).
    ``backend="ray"`` plays them as Ray tasks (``workers`` in flight) on the cluster at
    ``address`` (``"auto"``: the one ``ray start`` runs here; default: the Ray connection this
    process already has, else ``$RAY_ADDRESS``, else a new local instance); ``executor`` is
    then unused.

    When no request of the run has reached the endpoint and either the first ``fail_fast`` episodes all
    ended because no connection to the endpoint could be made, or (on the event loop) no
    connection could be made for :data:`~mtp_gym.eval.backends.ENDPOINT_WAIT` seconds, the run
    stops with :class:`EndpointDown` (``fail_fast=0``: never); what was logged stays, and
    re-running resumes. A server still starting (accepting within that time) keeps the run.
    """
    _check_run(workers, samples, seed, backend, address)
    workers = default_workers(agent_config) if workers is None else workers
    env_kwargs = {e: dict((env_kwargs or {}).get(e, {})) for e in env_ids}
    identity = agent_config.identity() | ({"seed": seed} if seed is not None else {})
    ids_of = _config_ids(env_ids, env_kwargs, config_ids, split)  # bad env kwargs fail before anything is written
    log = RunLog(out, identity, env_kwargs)
    try:
        tasks, done = _plan(ids_of, samples, log)
        kind = "ray" if backend == "ray" else executor_kind(executor, workers, agent_config)
        bar = _Progress(len(tasks) + done.count, done, agent_config.label, progress)
        try:
            recorder = _Recorder(log, bar, fail_fast, agent_config, tasks)
            # the event loop watches the endpoint itself: a refused port stops the run in seconds
            watch = ENDPOINT_WAIT if fail_fast and kind == "async" and tasks else None
            play_all(kind, tasks, agent_config, env_kwargs, workers, address, recorder, seed, watch)
        except EndpointDown as err:
            raise _endpoint_down(err, log) from None
        finally:
            bar.close()
    finally:
        log.close()
    return log


def _endpoint_down(err: EndpointDown, log: RunLog) -> EndpointDown:
    """``err`` on one line, with what to check and how to resume."""
    reason = " ".join(str(err).split())  # one line, whatever the endpoint's message held
    return EndpointDown(
        f"{reason}. Check --base-url and that the server is up; re-running the same command resumes from {log.dir}."
    )


def _config_ids(
    env_ids: Sequence[str],
    env_kwargs: dict[str, dict[str, Any]],
    config_ids: dict[str, list[int]] | None,
    split: str | int,
) -> dict[str, list[int]]:
    """Env id -> the configurations to play: ``config_ids``' where it names the env, else the
    ``split`` of the env made with its kwargs (so bad kwargs fail here)."""
    ids_of = {}
    for env_id in env_ids:
        ids = (config_ids or {}).get(env_id)
        ids_of[env_id] = benchmark_subset(gym.make(env_id, **env_kwargs[env_id]), split) if ids is None else ids
    return ids_of


def _check_run(workers: int | None, samples: int, seed: int | None, backend: str, address: str | None) -> None:
    """``run_eval``'s argument checks, before anything is written."""
    if workers is not None:
        check_int("--workers", workers)
    check_int("--samples", samples)
    if seed is not None:
        check_int("--seed", seed, low=0)
    check_choice("--backend", backend, BACKENDS)
    if address is not None and backend != "ray":
        raise ValueError(f"--address is for --backend ray, not --backend {backend}")
    if backend == "ray":
        import_ray()  # fail before the run directory is touched


class _Done:
    """The planned episodes the log already holds: how many, and their scores' and tokens' sums."""

    def __init__(self) -> None:
        self.count, self.scored, self.score_sum, self.tokens = 0, 0, 0.0, 0

    def add(self, score: Any, tokens: Any) -> None:
        self.count += 1
        if isinstance(score, (int, float)) and not isinstance(score, bool):
            self.score_sum += score
            self.scored += 1
        self.tokens += tokens


def _plan(ids_of: dict[str, list[int]], samples: int, log: RunLog) -> tuple[list[tuple[str, int, int]], _Done]:
    """(episodes to play as ``(env id, config id, sample)``, what the log already holds of the plan)."""
    tasks: list[tuple[str, int, int]] = []
    done = _Done()
    for env_id, ids in ids_of.items():
        for config_id in ids:
            for sample in range(samples):
                key = (env_id, config_id, sample)
                kept = log.finished(key)
                if kept is None:
                    tasks.append(key)
                else:
                    done.add(kept[1], kept[2])
    return tasks, done


class _Recorder:
    """Called with each finished episode: logs it, moves the bar, and stops the run with
    :class:`EndpointDown` when the first ``fail_fast`` episodes all found no endpoint and no
    request of the run ever reached it (at thousands in flight the first episodes to end can
    be connect timeouts while every other one is being served)."""

    def __init__(
        self, log: RunLog, bar: _Progress, fail_fast: int, agent_config: AgentConfig, tasks: list[tuple[str, int, int]]
    ) -> None:
        self.log, self.bar, self.fail_fast = log, bar, fail_fast
        self.reached, self.unreachable = False, 0
        self.connections: list[Any] = []
        if fail_fast and tasks and agent_config.is_endpoint():
            from mtp_gym.agents.llm.endpoint import REACHED

            self.counter = REACHED
            self.connections = endpoint_connections(agent_config, tasks[0][0])
            self.before = REACHED.count(self.connections)

    def _reached(self) -> bool:
        """Whether a request of this run reached the endpoint (connected or was answered), as this
        process's connections saw it (:data:`mtp_gym.agents.llm.endpoint.REACHED`)."""
        return bool(self.connections) and self.counter.count(self.connections) > self.before

    def endpoint_reached(self) -> None:
        """A request of the run reached the endpoint in another process (a Ray actor): from now on
        no failure stops the run."""
        self.reached = True

    def __call__(self, record: EpisodeRecord) -> None:
        self.log.append(record)
        self.bar.update(record)
        if self.reached:
            return
        if record["outcome"] != INFRA_ERROR or record["turns"] or self._reached():
            self.reached = True
        elif (record.get("error") or "").startswith("endpoint unreachable"):
            self.unreachable += 1
            if self.fail_fast and self.unreachable >= self.fail_fast:
                raise EndpointDown(f"the first {self.unreachable} episodes found no endpoint: {record['error']}")
