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

import asyncio
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

import mtp_gym  # noqa: F401  (registers the ids)
from mtp_gym.agents.base import is_model_spec, provider_of, transport_kwargs
from mtp_gym.core import check_choice, check_int
from mtp_gym.episode import INFRA_ERROR, arun_episode, run_episode
from mtp_gym.eval.log import RunLog, record_key
from mtp_gym.eval.record import EpisodeRecord, episode_record, probe_result
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
]

EXECUTORS = ("auto", "async", "thread", "process")
BACKENDS = ("local", "ray")
RAY_INSTALL = "pip install 'ray>=2.10'"
#: Ray CPUs one episode of an endpoint-only agent (``openai:``) reserves: it mostly waits on the network.
RAY_ENDPOINT_CPUS = 0.25


@dataclass(frozen=True)
class AgentConfig:
    """What plays: an agent spec with its kwargs, optionally handing over to a finisher.

    ``spec`` is anything :func:`mtp_gym.agents.make_agent` accepts (``oracle``, ``random``,
    ``openai:MODEL``, ``hf:PATH``, ``py:module:factory``). With ``finisher`` set, ``spec`` plays
    turns 1 … ``handoff_turn``-1 and ``finisher`` takes over the conversation at turn
    ``handoff_turn`` (:class:`mtp_gym.agents.llm.HandoffAgent`).
    """

    spec: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    finisher: str | None = None
    finisher_kwargs: dict[str, Any] = field(default_factory=dict)
    handoff_turn: int | None = None

    def __post_init__(self) -> None:
        if (self.finisher is None) != (self.handoff_turn is None):
            raise ValueError("--finisher and --handoff-turn go together: give both or neither")

    @property
    def label(self) -> str:
        """The name of this agent in logs and reports."""
        if self.finisher is None:
            return self.spec
        return f"{self.spec}>{self.finisher}@{self.handoff_turn}"

    @property
    def slug(self) -> str:
        """A directory name for the label."""
        return re.sub(r"[^A-Za-z0-9._@-]+", "_", self.label.replace(">", "_then_"))

    def identity(self) -> dict[str, Any]:
        """What must not change within one run directory (transport settings may: every model
        provider's ``transport_kwargs``, :func:`mtp_gym.agents.base.model_provider`)."""
        d = asdict(self)
        for kw in (d["kwargs"], d["finisher_kwargs"]):
            for key in transport_kwargs():
                kw.pop(key, None)
        return {"agent": self.label, **d}

    def build(self, env_id: str) -> Any:
        from mtp_gym.agents import make_agent

        agent = make_agent(self.spec, env_id, **self.kwargs)
        if self.finisher is None:
            return agent
        from mtp_gym.agents.llm.handoff import HandoffAgent

        assert self.handoff_turn is not None  # set with finisher (__post_init__)
        return HandoffAgent(agent, make_agent(self.finisher, env_id, **self.finisher_kwargs), self.handoff_turn)

    def is_endpoint(self) -> bool:
        """Whether every agent of the config plays through an endpoint (a provider with
        ``endpoint=True``: ``openai:``)."""
        return all(s is None or _endpoint_spec(s) for s in (self.spec, self.finisher))

    def is_model(self) -> bool:
        """Whether an agent of the config is a model (``openai:``, ``hf:``, ``py:``), not a scripted one."""
        return any(is_model_spec(s) for s in (self.spec, self.finisher))


def _endpoint_spec(spec: str) -> bool:
    provider = provider_of(spec)
    return provider is not None and provider.endpoint


# Per-worker (thread or process) envs and agents, built once and reused across episodes.
_LOCAL = threading.local()


def play_config(
    agent_config: AgentConfig,
    env_id: str,
    env_kwargs: dict[str, Any],
    config_id: int,
    sample: int = 0,
    seed: int | None = None,
) -> EpisodeRecord:
    """Play sample ``sample`` of one benchmark configuration and return its log record (worker
    entry point); the episode's reset seed is :func:`episode_seed`."""
    cache = getattr(_LOCAL, "cache", None)
    if cache is None:
        cache = _LOCAL.cache = {}
    env, agent = _player(cache, agent_config, env_id, env_kwargs)
    result = run_episode(env, agent, config_id=config_id, seed=episode_seed(config_id, sample, seed))
    return episode_record(agent_config, env_id, sample, result, env_kwargs)


async def aplay_config(
    players: dict[tuple, Any],
    agent_config: AgentConfig,
    env_kwargs: dict[str, Any],
    task: tuple[str, int, int],
    seed: int | None,
) -> EpisodeRecord:
    """:func:`play_config` of ``task`` (env id, config id, sample) on the event loop; ``players``
    belong to one in-flight slot and are reused for its next episodes."""
    env_id, config_id, sample = task
    env, agent = _player(players, agent_config, env_id, env_kwargs)
    result = await arun_episode(env, agent, config_id=config_id, seed=episode_seed(config_id, sample, seed))
    return episode_record(agent_config, env_id, sample, result, env_kwargs)


def _player(cache: dict[tuple, Any], agent_config: AgentConfig, env_id: str, env_kwargs: dict[str, Any]) -> Any:
    """The (env, agent) pair of ``cache`` for this env and kwargs, built on first use."""
    key = (repr(agent_config), env_id, repr(sorted(env_kwargs.items())))
    if key not in cache:
        cache[key] = (gym.make(env_id, **env_kwargs), agent_config.build(env_id))
    return cache[key]


def _executor_kind(kind: str, workers: int, agent_config: AgentConfig) -> str | None:
    """``async``, ``thread`` or ``process``; ``None``: play in this thread, one at a time."""
    check_choice("--executor", kind, EXECUTORS)
    if kind == "auto":
        # Endpoints wait on the network (one event loop for every in-flight request); local
        # models and scripted agents use the CPU (threads / processes).
        if agent_config.is_endpoint():
            return "async"
        if workers == 1:
            return None
        return "thread" if agent_config.is_model() else "process"
    return None if workers == 1 and kind == "thread" else kind


def _executor(kind: str, workers: int) -> Executor:
    return (
        ThreadPoolExecutor(workers) if kind == "thread" else ProcessPoolExecutor(workers, initializer=die_with_parent)
    )


def _run_async(
    tasks: list[tuple[str, int, int]],
    agent_config: AgentConfig,
    env_kwargs: dict[str, dict[str, Any]],
    workers: int,
    on_record: Any,
    seed: int | None = None,
) -> None:
    """Play ``tasks`` on one event loop, ``workers`` episodes (so requests) in flight; each
    record is handed over as its episode ends. An exception from ``on_record`` stops the run."""

    async def main() -> None:
        queue = iter(tasks)

        async def slot() -> None:
            players: dict[tuple, Any] = {}
            try:
                for task in queue:
                    on_record(await aplay_config(players, agent_config, env_kwargs[task[0]], task, seed))
            finally:
                for env, agent in players.values():
                    env.close()
                    aclose = getattr(agent, "aclose", None)  # a chat agent's connection (ChatAgent.aclose)
                    if aclose is not None:
                        await aclose()

        slots = [asyncio.ensure_future(slot()) for _ in range(min(workers, len(tasks)))]
        try:
            await asyncio.gather(*slots)
        finally:
            for task in slots:
                task.cancel()
            await asyncio.gather(*slots, return_exceptions=True)

    if tasks:
        asyncio.run(main())


def die_with_parent(interval: float = 0.5) -> None:
    """Pool-worker initializer: exit as soon as the process that started the worker is gone
    (a ``kill -9`` of ``mtp-gym eval`` must not leave workers blocked forever)."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(1)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


def bounded_map(pool: Executor, fn: Any, tasks: Iterable[tuple], limit: int, on_result: Any) -> None:
    """``on_result(fn(*task))`` for every task, as each finishes, with at most ``limit`` tasks
    submitted to ``pool`` at a time (a long split never queues all its episodes at once)."""
    queue = iter(tasks)
    pending: set[Future] = set()
    for task in queue:
        pending.add(pool.submit(fn, *task))
        if len(pending) >= limit:
            break
    while pending:
        ready, pending = wait(pending, return_when=FIRST_COMPLETED)
        for fut in ready:
            on_result(fut.result())
            nxt = next(queue, None)
            if nxt is not None:
                pending.add(pool.submit(fn, *nxt))


class EndpointDown(RuntimeError):
    """The first episodes of a run all found no endpoint: the run stops instead of burning the rest."""


class BackendUnavailable(RuntimeError):
    """The chosen backend needs a package that is not installed (the message says which and how)."""


def _forwarded_env(agent_config: AgentConfig) -> dict[str, str]:
    """The driver's variables the config's model agents read (each provider's ``env_vars``: an
    ``openai:`` agent's endpoint and key), for the Ray workers.

    Workers on other nodes do not see the driver's environment; without these an agent
    built there would reach another endpoint, or none. They travel in the tasks' Ray
    ``runtime_env``, which whoever can read the cluster's job metadata can see.
    """
    names: set[str] = set()
    for spec, kwargs in (
        (agent_config.spec, agent_config.kwargs),
        (agent_config.finisher, agent_config.finisher_kwargs),
    ):
        provider = provider_of(spec)
        if provider is not None:
            names.update(provider.env_vars(kwargs))
    return {n: os.environ[n] for n in sorted(names) if n in os.environ}


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise BackendUnavailable(
            f"--backend ray needs the 'ray' package, which is not installed: {RAY_INSTALL} "
            "(on every node of the cluster), or use --backend local"
        ) from None
    return ray


def _ray_connect(address: str | None) -> Any:
    """The ``ray`` module, connected: an existing connection (which must be ``address``'s
    cluster when one is given), else ``address``, else a new local instance."""
    ray = _import_ray()
    if ray.is_initialized():
        current = ray.get_runtime_context().gcs_address
        # a ray:// (Ray Client) address names another port than the cluster's GCS: not comparable
        if address not in (None, "auto") and not address.startswith("ray://") and not _same_address(address, current):
            raise ValueError(
                f"--address {address}: this process is already connected to the Ray cluster at {current}; "
                "give that address, or leave --address out to use it"
            )
    elif address is None and not os.environ.get("RAY_ADDRESS"):
        ray.init(include_dashboard=False)  # a local instance on this machine's CPUs
    else:
        ray.init(address=address)
    return ray


def _same_address(a: str, b: str) -> bool:
    """Whether ``host:port`` addresses ``a`` and ``b`` name the same port on the same host
    (``localhost:6379`` and ``127.0.0.1:6379`` do)."""
    (host_a, _, port_a), (host_b, _, port_b) = a.rpartition(":"), b.rpartition(":")
    if port_a != port_b:
        return False
    try:
        return socket.gethostbyname(host_a) == socket.gethostbyname(host_b)
    except OSError:
        return host_a == host_b


class _EndpointPlayer:
    """A Ray actor that plays endpoint episodes on its own event loop: every call to
    :meth:`play` is one in-flight episode (Ray runs an ``async`` actor's calls concurrently),
    each with an (env, agent) pair taken from the actor's pool of free ones."""

    def __init__(self, agent_config: AgentConfig, env_kwargs: dict[str, dict[str, Any]], seed: int | None) -> None:
        self.agent_config, self.env_kwargs, self.seed = agent_config, env_kwargs, seed
        self.free: list[dict[tuple, Any]] = []

    async def play(self, task: tuple[str, int, int]) -> EpisodeRecord:
        players = self.free.pop() if self.free else {}
        try:
            return await aplay_config(players, self.agent_config, self.env_kwargs[task[0]], task, self.seed)
        finally:
            self.free.append(players)


#: In-flight episodes one Ray actor's event loop plays at most (more in flight: more actors).
RAY_SLOTS_PER_ACTOR = 256
#: Times an episode whose actor was lost is played again (on the next actor) before the run fails.
RAY_REPLAYS = 3


def _run_ray_async(
    ray: Any,
    tasks: list[tuple[str, int, int]],
    agent_config: AgentConfig,
    env_kwargs: dict[str, dict[str, Any]],
    workers: int,
    on_record: Any,
    seed: int | None,
    options: dict[str, Any],
) -> None:
    """Endpoint episodes on Ray: ``workers`` in flight over asyncio actors spread on the nodes."""
    nodes = sum(1 for n in ray.nodes() if n.get("Alive"))
    count = min(workers, max(nodes, -(-workers // RAY_SLOTS_PER_ACTOR)))
    actor_cls = ray.remote(_EndpointPlayer).options(
        num_cpus=RAY_ENDPOINT_CPUS,
        max_concurrency=-(-workers // count),
        max_restarts=RAY_REPLAYS,
        scheduling_strategy="SPREAD",
        **({"runtime_env": options["runtime_env"]} if "runtime_env" in options else {}),
    )
    actors = [actor_cls.remote(agent_config, env_kwargs, seed) for _ in range(count)]
    queue = iter(tasks)
    pending: dict[Any, tuple[int, tuple[str, int, int], int]] = {}  # ref -> (slot, task, replays)

    def submit(slot: int, task: tuple[str, int, int] | None, replays: int = 0) -> None:
        if task is not None:
            pending[actors[(slot + replays) % count].play.remote(task)] = (slot, task, replays)

    try:
        for slot in range(workers):
            submit(slot, next(queue, None))
        while pending:
            refs = list(pending)
            ray.wait(refs, num_returns=1)  # one is done; then take every other one done by now
            ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
            for ref in ready:
                slot, task, replays = pending.pop(ref)
                try:
                    record = ray.get(ref)
                except ray.exceptions.RayTaskError as err:  # the worker's exception, as the local loop raises it
                    raise (err.cause if isinstance(err.cause, Exception) else err) from err
                except ray.exceptions.RayActorError:  # its actor was lost (e.g. with its node): play it again
                    if replays >= RAY_REPLAYS:
                        raise
                    submit(slot, task, replays + 1)
                    continue
                on_record(record)
                submit(slot, next(queue, None))
    finally:
        for ref in pending:
            ray.cancel(ref)
        for actor in actors:
            ray.kill(actor)


def _run_ray(
    tasks: list[tuple[str, int, int]],
    agent_config: AgentConfig,
    env_kwargs: dict[str, dict[str, Any]],
    workers: int,
    address: str | None,
    on_record: Any,
    seed: int | None = None,
) -> None:
    """Play ``tasks`` as Ray tasks, ``workers`` in flight, handing each record over as it finishes;
    endpoint agents play on asyncio actors instead (:func:`_run_ray_async`)."""
    if not tasks:
        return
    ray = _ray_connect(address)
    options: dict[str, Any] = {"max_retries": 3}  # retried on worker/node loss, not on Python errors
    env_vars = _forwarded_env(agent_config)
    if env_vars:
        options["runtime_env"] = {"env_vars": env_vars}
    if agent_config.is_endpoint():
        return _run_ray_async(ray, tasks, agent_config, env_kwargs, workers, on_record, seed, options)
    remote = ray.remote(play_config).options(**options)
    config_ref = ray.put(agent_config)
    queue = iter(tasks)
    pending: list[Any] = []
    try:
        for env_id, config_id, sample in queue:
            pending.append(remote.remote(config_ref, env_id, env_kwargs[env_id], config_id, sample, seed))
            if len(pending) >= workers:
                break
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            try:
                record = ray.get(ready[0])
            except ray.exceptions.RayTaskError as err:  # the worker's exception, as the local pool raises it
                raise (err.cause if isinstance(err.cause, Exception) else err) from err
            on_record(record)
            nxt = next(queue, None)
            if nxt is not None:
                pending.append(remote.remote(config_ref, nxt[0], env_kwargs[nxt[0]], nxt[1], nxt[2], seed))
    finally:
        for ref in pending:
            ray.cancel(ref)


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
    kind = "ray" if backend == "ray" else _executor_kind(executor, workers, agent_config)
    try:
        _play_all(kind, tasks, agent_config, env_kwargs, workers, address, _Recorder(log, bar, fail_fast), seed)
    finally:
        bar.close()
        log.close()
    return log


def _play_all(
    kind: str | None,
    tasks: list[tuple[str, int, int]],
    agent_config: AgentConfig,
    env_kwargs: dict[str, dict[str, Any]],
    workers: int,
    address: str | None,
    on_record: Callable[[EpisodeRecord], None],
    seed: int | None,
) -> None:
    """Play ``tasks`` on the executor ``kind`` (``ray``, ``async``, ``thread``, ``process`` or
    ``None``: here, one at a time), handing each finished record to ``on_record``."""
    if kind == "ray":
        _run_ray(tasks, agent_config, env_kwargs, workers, address, on_record, seed)
        return
    if kind == "async":
        _run_async(tasks, agent_config, env_kwargs, workers, on_record, seed)
        return
    calls = ((agent_config, e, env_kwargs[e], c, sample, seed) for e, c, sample in tasks)
    if kind is None:
        for call in calls:
            on_record(play_config(*call))
        return
    pool = _executor(kind, workers)
    try:
        bounded_map(pool, play_config, calls, 2 * workers, on_record)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


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
        _import_ray()  # fail before the run directory is touched


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
