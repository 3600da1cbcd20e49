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
    EXECUTORS,
    BackendUnavailable,
    bounded_map,
    die_with_parent,
    executor_kind,
    import_ray,
    play_all,
    process_worker,
)
from mtp_gym.eval.log import RunLog, record_key
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


class EndpointDown(RuntimeError):
    """The first episodes of a run all found no endpoint: the run stops instead of burning the rest."""


class _Progress:
    """tqdm bar with the score so far and the tokens spent (no bar when disabled)."""

    def __init__(self, total: int, done: Sequence[Mapping[str, Any]], label: str, enabled: bool) -> None:
        self.scores = [r["score"] for r in done if r["outcome"] != INFRA_ERROR]
        self.tokens = sum(r.get("prompt_tokens", 0) + r.get("completion_tokens", 0) for r in done)
        self.infra = 0
        self.bar: Any = None
        if enabled:
            from tqdm import tqdm

            # disable=None: no bar when stderr is not a terminal (CI logs, pipes).
            self.bar = tqdm(total=total, initial=len(done), desc=label, unit="ep", dynamic_ncols=True, disable=None)
            self._postfix()

    def _postfix(self) -> None:
        mean = sum(self.scores) / len(self.scores) if self.scores else float("nan")
        post = {"score": f"{mean:.3f}", "tokens": self.tokens}
        if self.infra:
            post["infra_err"] = self.infra
        self.bar.set_postfix(post, refresh=False)

    def update(self, record: Mapping[str, Any]) -> None:
        if record["outcome"] == INFRA_ERROR:
            self.infra += 1
        else:
            self.scores.append(record["score"])
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
    workers: int = 1,
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
    Every finished episode is appended to ``out/episodes.jsonl`` as it arrives.
    ``backend="ray"`` plays them as Ray tasks (``workers`` in flight) on the cluster at
    ``address`` (``"auto"``: the one ``ray start`` runs here; default: the Ray connection this
    process already has, else ``$RAY_ADDRESS``, else a new local instance); ``executor`` is
    then unused.

    When the first ``fail_fast`` episodes of the run all end because no connection to the
    endpoint could be made (and none reached it), the run stops with :class:`EndpointDown`
    (``fail_fast=0``: never); what was logged stays, and re-running resumes.
    """
    _check_run(workers, samples, seed, backend, address)
    env_kwargs = {e: dict((env_kwargs or {}).get(e, {})) for e in env_ids}
    identity = agent_config.identity() | ({"seed": seed} if seed is not None else {})
    ids_of = _config_ids(env_ids, env_kwargs, config_ids, split)  # bad env kwargs fail before anything is written
    log = RunLog(out, identity, env_kwargs)
    tasks, finished = _plan(ids_of, samples, log.done())
    finished_records = [r for r in log.records if record_key(r) in finished and r["outcome"] != INFRA_ERROR]
    bar = _Progress(len(tasks) + len(finished), finished_records, agent_config.label, progress)
    kind = "ray" if backend == "ray" else executor_kind(executor, workers, agent_config)
    try:
        play_all(kind, tasks, agent_config, env_kwargs, workers, address, _Recorder(log, bar, fail_fast), seed)
    finally:
        bar.close()
        log.close()
    return log


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


def _check_run(workers: int, samples: int, seed: int | None, backend: str, address: str | None) -> None:
    """``run_eval``'s argument checks, before anything is written."""
    check_int("--workers", workers)
    check_int("--samples", samples)
    if seed is not None:
        check_int("--seed", seed, low=0)
    check_choice("--backend", backend, BACKENDS)
    if address is not None and backend != "ray":
        raise ValueError(f"--address is for --backend ray, not --backend {backend}")
    if backend == "ray":
        import_ray()  # fail before the run directory is touched


def _plan(
    ids_of: dict[str, list[int]], samples: int, done: set[tuple[str, int, int]]
) -> tuple[list[tuple[str, int, int]], set[tuple[str, int, int]]]:
    """(episodes to play, episodes the log already holds) as ``(env id, config id, sample)``."""
    tasks: list[tuple[str, int, int]] = []
    finished: set[tuple[str, int, int]] = set()
    for env_id, ids in ids_of.items():
        for config_id in ids:
            for sample in range(samples):
                key = (env_id, config_id, sample)
                if key in done:
                    finished.add(key)
                else:
                    tasks.append(key)
    return tasks, finished


class _Recorder:
    """Called with each finished episode: logs it, moves the bar, and stops the run with
    :class:`EndpointDown` when the first ``fail_fast`` episodes all found no endpoint."""

    def __init__(self, log: RunLog, bar: _Progress, fail_fast: int) -> None:
        self.log, self.bar, self.fail_fast = log, bar, fail_fast
        self.reached, self.unreachable = False, 0

    def __call__(self, record: EpisodeRecord) -> None:
        self.log.append(record)
        self.bar.update(record)
        if record["outcome"] != INFRA_ERROR:
            self.reached = True
        elif not self.reached and (record.get("error") or "").startswith("endpoint unreachable"):
            self.unreachable += 1
            if self.fail_fast and self.unreachable >= self.fail_fast:
                raise EndpointDown(
                    f"the first {self.unreachable} episodes found no endpoint: {record['error']}\n"
                    "Check --base-url and that the server is up; re-running the same command resumes "
                    f"from {self.log.dir}."
                )
