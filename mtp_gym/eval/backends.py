"""The harness's backends: a thread or process pool, one event loop for endpoints, or Ray tasks
and actors on a cluster; each plays episodes with :mod:`mtp_gym.eval.play` and hands every
finished record to the caller as it arrives."""

from __future__ import annotations

import contextlib
import gc
import os
import socket
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import mtp_gym  # noqa: F401  (registers the ids)
from mtp_gym.agents.base import provider_of
from mtp_gym.core import check_choice
from mtp_gym.eval.play import AgentConfig, aplay_config, play_config
from mtp_gym.eval.record import EpisodeRecord

if TYPE_CHECKING:  # asyncio and the pools load when a run uses them (`mtp-gym list` never does)
    from concurrent.futures import Executor, Future

__all__ = [
    "ASYNC_SLOTS_PER_PROCESS",
    "ENDPOINT_WAIT",
    "BACKENDS",
    "EndpointDown",
    "EXECUTORS",
    "BackendUnavailable",
    "async_processes",
    "bounded_map",
    "default_workers",
    "die_with_parent",
    "endpoint_connections",
    "executor_kind",
    "import_ray",
    "play_all",
    "process_worker",
]

EXECUTORS = ("auto", "async", "thread", "process")


BACKENDS = ("local", "ray")


RAY_INSTALL = "pip install 'ray>=2.10'"


#: Seconds a run waits for an endpoint that refuses connections (or whose host does not resolve)
#: while none of its requests has reached it, before it stops (:func:`watch_endpoint`).
ENDPOINT_WAIT = 10.0
#: Seconds between two connection attempts of :func:`watch_endpoint`.
ENDPOINT_PROBE_INTERVAL = 0.5


class EndpointDown(RuntimeError):
    """No request of the run has reached its endpoint and it cannot be reached: the run stops
    instead of burning the rest (one line; what was logged stays, and re-running resumes)."""


#: Ray CPUs one episode of an endpoint-only agent (``openai:``) reserves: it mostly waits on the network.
RAY_ENDPOINT_CPUS = 0.25


def default_workers(agent_config: AgentConfig) -> int:
    """``--workers`` when none is given: for scripted agents (their episodes are CPU work) one per
    core this process may run on; for models 1 (a local model is one process's, and an endpoint's
    parallelism is its server's to allow: ask for it with ``--workers``)."""
    if agent_config.is_model():
        return 1
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else range(os.cpu_count() or 1)
    return max(1, len(cores))


def executor_kind(kind: str, workers: int, agent_config: AgentConfig) -> str | None:
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
    from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

    return ThreadPoolExecutor(workers) if kind == "thread" else ProcessPoolExecutor(workers, initializer=process_worker)


def process_worker() -> None:
    """Pool-worker initializer: :func:`one_blas_thread`, :func:`die_with_parent`."""
    one_blas_thread()
    die_with_parent()


def one_blas_thread() -> None:
    """Limit this process's BLAS to one thread (``threadpoolctl``; works after numpy is loaded, as
    in a forked worker). Several worker processes each running one BLAS thread per core
    oversubscribe the cores, and idle BLAS threads spin on cores other work holds."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover (a dependency)
        return
    threadpool_limits(limits=1, user_api="blas")


def _run_async(
    tasks: list[tuple[str, int, int]],
    agent_config: AgentConfig,
    env_kwargs: dict[str, dict[str, Any]],
    workers: int,
    on_record: Any,
    seed: int | None = None,
    watch: float | None = None,
    stop: Any = None,
) -> None:
    """Play ``tasks`` on one event loop, ``workers`` episodes (so requests) in flight; each
    record is handed over as its episode ends. An exception from ``on_record`` stops the run.
    ``watch`` (seconds): stop with :class:`EndpointDown` when, for that long, no connection to
    the endpoint could be made and no request of the run reached it (:func:`watch_endpoint`).
    ``stop`` (an event, e.g. ``multiprocessing.Event``): once it is set, the episodes in flight
    are cancelled (unfinished, so not recorded) and :class:`_Stopped` is raised."""
    import asyncio

    async def main() -> None:
        queue = iter(tasks)

        async def slot() -> None:
            players: dict[tuple, Any] = {}
            try:
                for task in queue:
                    on_record(await aplay_config(players, agent_config, env_kwargs[task[0]], task, seed))
                    collect()
            finally:
                for env, agent in players.values():
                    env.close()
                    aclose = getattr(agent, "aclose", None)  # a chat agent's connection (ChatAgent.aclose)
                    if aclose is not None:
                        await aclose()

        slots = [asyncio.ensure_future(slot()) for _ in range(min(workers, len(tasks)))]
        played = asyncio.gather(*slots)
        watcher = stopper = None
        if watch is not None:
            watcher = asyncio.ensure_future(watch_endpoint(endpoint_connections(agent_config, tasks[0][0]), watch))
        if stop is not None:
            stopper = asyncio.ensure_future(_stop_set(stop))
        guards = [g for g in (watcher, stopper) if g is not None]
        try:
            await _await_played(played, watcher, stopper)
        finally:
            for task in [*slots, *guards]:
                task.cancel()
            await asyncio.gather(*slots, played, return_exceptions=True)
            await asyncio.gather(*guards, return_exceptions=True)

    if tasks:
        with paced_gc() as collect:
            asyncio.run(main())


async def _stop_set(stop: Any) -> None:
    """Return once ``stop`` (an event) is set."""
    import asyncio

    while not stop.is_set():
        await asyncio.sleep(_STOP_POLL)


async def _await_played(played: Any, watcher: Any, stopper: Any) -> None:
    """Await ``played``, meanwhile raising the ``watcher``'s :class:`EndpointDown` (when it is not
    None), or :class:`_Stopped` once the ``stopper`` returns."""
    import asyncio

    waiting = {f for f in (played, watcher, stopper) if f is not None}
    while not played.done():
        done, waiting = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if watcher in done and not played.done():
            watcher.result()  # EndpointDown, else the endpoint was reached: play on
        if stopper in done and not played.done():
            raise _Stopped
    await played


#: In-flight episodes one event loop plays at most before :func:`play_all` spreads them over
#: several processes, each with its own loop (one core per loop). Against a 0.2 s endpoint one
#: loop keeps up at 512 in flight and saturates its core at 1,024, where two loops serve 0.76 of
#: the bare client against 0.67 (``benchmarks/scale_harness.py``); below that, a second loop
#: only adds CPU (its records pickled to this process).
ASYNC_SLOTS_PER_PROCESS = 512
#: Seconds between two checks that every event-loop process is still alive.
_CHILD_POLL = 1.0
#: Seconds between two looks of an event-loop process at its stop event.
_STOP_POLL = 0.05
#: Seconds a stopped run waits for its other event-loop processes to hand over the episodes they
#: finished (they cancel the rest); past it they are terminated.
_DRAIN_WAIT = 30.0


class _Stopped(Exception):
    """An event-loop process was told to stop (another one stopped the run)."""


def async_processes(workers: int) -> int:
    """Event-loop processes for ``workers`` endpoint episodes in flight: one per
    :data:`ASYNC_SLOTS_PER_PROCESS` begun, at most one per core this process may run on."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cores, -(-workers // ASYNC_SLOTS_PER_PROCESS)))


def _async_child(
    queue: Any, stop: Any, tasks: list[tuple[str, int, int]], agent_config: AgentConfig, *args: Any
) -> None:
    """One event-loop process of :func:`_run_loops`: plays ``tasks`` (``args``:
    ``env_kwargs, workers, seed, watch`` of :func:`_run_async`) and puts on ``queue``
    ``("record", record, reached)`` per finished episode (``reached``: a request of this process
    reached the endpoint), then ``("done", None, False)``, or ``("down", message, False)`` /
    ``("error", text, False)`` if the run stopped here, or ``("stopped", None, False)`` once
    ``stop`` is set (the episodes in flight cancelled)."""
    import traceback

    from mtp_gym.agents.llm.endpoint import REACHED

    process_worker()
    connections = endpoint_connections(agent_config, tasks[0][0]) if tasks else []
    before = REACHED.count(connections)

    def send(record: EpisodeRecord) -> None:
        queue.put(("record", record, REACHED.count(connections) > before))

    env_kwargs, workers, seed, watch = args
    try:
        _run_async(tasks, agent_config, env_kwargs, workers, send, seed, watch, stop)
    except _Stopped:
        queue.put(("stopped", None, False))
    except EndpointDown as err:
        queue.put(("down", str(err), False))
    except BaseException:
        queue.put(("error", traceback.format_exc(limit=8), False))
    else:
        queue.put(("done", None, False))


def _run_loops(processes: int, on_record: Any, job: tuple) -> None:
    """:func:`_run_async` over ``processes`` processes, each with its own event loop playing every
    ``processes``-th task with its share of the slots (``job``: ``tasks, agent_config,
    env_kwargs, workers, seed, watch`` of :func:`_run_async`); records come back to this process
    as they finish and go to ``on_record`` here. An exception from ``on_record``, a stopped
    process (:class:`EndpointDown` included), a process that died or an interrupt stops the
    run: the others are told to stop, and the episodes they finished meanwhile still go to ``on_record``
    (:func:`_drain`) before the exception is raised."""
    import multiprocessing as mp

    tasks, agent_config, env_kwargs, workers, seed, watch = job
    ctx = mp.get_context()
    channel = ctx.Queue()
    stop = ctx.Event()
    children = [
        ctx.Process(
            target=_async_child,
            args=(
                channel,
                stop,
                tasks[i::processes],
                agent_config,
                env_kwargs,
                workers // processes + (i < workers % processes),
                seed,
                watch,
            ),
            name=f"mtp-gym-loop-{i}",
            daemon=True,
        )
        for i in range(processes)
    ]
    for child in children:
        child.start()
    try:
        _receive(channel, children, on_record)
    except BaseException:  # a Ctrl-C too: finished episodes are logged (a second one stops that)
        stop.set()
        _drain(channel, children, on_record)
        raise
    finally:
        for child in children:
            if child.is_alive():
                child.terminate()
        for child in children:
            child.join()
        channel.close()


def _receive(channel: Any, children: list[Any], on_record: Any) -> None:
    """Hand ``on_record`` every record of the event-loop ``children`` until each has said "done";
    raise why one stopped (or that it died)."""
    import queue as queues

    running = len(children)
    while running:
        try:
            kind, payload, reached = channel.get(timeout=_CHILD_POLL)
        except queues.Empty:
            dead = [c for c in children if c.exitcode not in (None, 0)]
            if dead:
                raise RuntimeError(f"an event-loop process died (exit code {dead[0].exitcode})") from None
            continue
        if kind == "record":
            _deliver(on_record, payload, reached)
        elif kind == "done":
            running -= 1
        elif kind == "down":
            raise EndpointDown(payload)
        else:
            raise RuntimeError(f"an event-loop process failed:\n{payload}")


def _deliver(on_record: Any, record: EpisodeRecord, reached: bool) -> None:
    if reached and hasattr(on_record, "endpoint_reached"):
        on_record.endpoint_reached()
    on_record(record)


def _drain(channel: Any, children: list[Any], on_record: Any) -> None:
    """Hand ``on_record`` the records still on ``channel`` while the ``children`` (told to stop)
    end, for at most :data:`_DRAIN_WAIT` seconds: episodes other processes finished before they
    stopped are logged, not played and paid for again on resume. Stops at the first exception
    of ``on_record`` (the one that stopped the run may be its own)."""
    import queue as queues

    deadline = time.monotonic() + _DRAIN_WAIT
    ended = False
    while time.monotonic() < deadline:
        try:
            kind, payload, reached = channel.get(timeout=_STOP_POLL)
        except queues.Empty:
            if ended:
                return
            ended = not any(child.is_alive() for child in children)  # then one more empty read
            continue
        if kind == "record":
            try:
                _deliver(on_record, payload, reached)
            except Exception:
                return


def endpoint_connections(agent_config: AgentConfig, env_id: str) -> list[Any]:
    """The endpoint connections of an agent of ``agent_config`` (a hand-off pair's both; none for
    an agent without one, or one this process cannot build: a Ray driver without the workers'
    key), from one agent built for ``env_id``."""
    from mtp_gym.agents.llm.endpoint import Connection

    try:
        agent = agent_config.build(env_id)
    except (ValueError, TypeError, OSError):
        return []
    found = []
    for part in (agent, getattr(agent, "first", None), getattr(agent, "finisher", None)):
        connection = getattr(part, "connection", None)
        if isinstance(connection, Connection):
            found.append(connection)
    return found


async def watch_endpoint(connections: list[Any], wait: float, interval: float = ENDPOINT_PROBE_INTERVAL) -> None:
    """Return once the endpoints of ``connections`` were reached (a request of the run connected
    or was answered, or a connection of this watch was made); raise :class:`EndpointDown` when,
    for ``wait`` seconds, none was.

    A refused port or a host that does not resolve then stops a run in ``wait`` seconds, not
    after every in-flight episode spent its retries; a server still starting (it accepts
    within ``wait``) keeps the run, whose agents retry their requests. Once the endpoint was
    reached, a later failure is the episodes' own (``infra_error``), never a reason to stop.
    """
    import asyncio

    from mtp_gym.agents.llm.async_endpoint import can_connect
    from mtp_gym.agents.llm.endpoint import REACHED

    if not connections:
        return
    before = REACHED.count(connections)
    start = time.monotonic()
    while REACHED.count(connections) == before:
        errors = [e for e in await asyncio.gather(*(can_connect(c, interval) for c in connections)) if e]
        if not errors:
            return
        if time.monotonic() - start >= wait and REACHED.count(connections) == before:
            raise EndpointDown(f"no endpoint reached in {wait:g} s: {errors[0]}")
        await asyncio.sleep(interval)


#: Finished episodes between two collections of the young generations while :func:`paced_gc` holds.
GC_EVERY = 1024
#: Young collections between two full ones.
GC_FULL_EVERY = 16


@contextlib.contextmanager
def paced_gc(every: int = GC_EVERY) -> Any:
    """Python's cyclic garbage collector paced by finished episodes instead of allocations, for
    one event loop with thousands of episodes in flight; yields ``collect``, to call once per
    finished episode.

    With thousands of live envs and conversations the automatic collector runs every few
    hundred allocations and rescans them each time: measured at 1,024 in flight, more than half
    of the harness's CPU. Objects are still freed by reference counting as they die; cycles
    (tracebacks, futures) are collected every ``every`` episodes, everything every
    :data:`GC_FULL_EVERY` of those. The collector's state is restored on exit.
    """
    enabled = gc.isenabled()
    finished = 0

    def collect() -> None:
        nonlocal finished
        finished += 1
        if finished % every == 0:
            gc.collect(2 if finished % (every * GC_FULL_EVERY) == 0 else 1)

    gc.disable()
    try:
        yield collect
    finally:
        if enabled:
            gc.enable()


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
    from concurrent.futures import FIRST_COMPLETED, wait

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


def import_ray() -> Any:
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
    ray = import_ray()
    if ray.is_initialized():
        current = ray.get_runtime_context().gcs_address
        # a ray:// (Ray Client) address names another port than the cluster's GCS: not comparable
        if address not in (None, "auto") and not address.startswith("ray://") and not _same_address(address, current):
            raise ValueError(
                f"--address {address}: this process is already connected to the Ray cluster at {current}; "
                "give that address, or leave --address out to use it"
            )
    elif address is None and not os.environ.get("RAY_ADDRESS"):
        # "local": a new instance even where a cluster runs on this node (or a killed run left one
        # behind); `--address auto` joins that one
        ray.init(address="local", include_dashboard=False)
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
        self.connections: list[Any] | None = None
        self.before = 0

    async def play(self, task: tuple[str, int, int]) -> tuple[EpisodeRecord, bool]:
        """The episode's record, and whether this actor has reached the endpoint so far (the
        driver's fail-fast rule cannot see a worker's connections; what the worker process reached
        before this actor, at an address a later server reuses, does not count)."""
        from mtp_gym.agents.llm.endpoint import REACHED

        if self.connections is None:
            self.connections = endpoint_connections(self.agent_config, task[0])
            self.before = REACHED.count(self.connections)
        players = self.free.pop() if self.free else {}
        try:
            record = await aplay_config(players, self.agent_config, self.env_kwargs[task[0]], task, self.seed)
        finally:
            self.free.append(players)
        return record, REACHED.count(self.connections) > self.before


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
                    record, reached = ray.get(ref)
                except ray.exceptions.RayTaskError as err:  # the worker's exception, as the local loop raises it
                    raise (err.cause if isinstance(err.cause, Exception) else err) from err
                except ray.exceptions.RayActorError:  # its actor was lost (e.g. with its node): play it again
                    if replays >= RAY_REPLAYS:
                        raise
                    submit(slot, task, replays + 1)
                    continue
                if reached and hasattr(on_record, "endpoint_reached"):
                    on_record.endpoint_reached()
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


def play_all(
    kind: str | None,
    tasks: list[tuple[str, int, int]],
    agent_config: AgentConfig,
    env_kwargs: dict[str, dict[str, Any]],
    workers: int,
    address: str | None,
    on_record: Callable[[EpisodeRecord], None],
    seed: int | None,
    watch: float | None = None,
) -> None:
    """Play ``tasks`` on the executor ``kind`` (``ray``, ``async``, ``thread``, ``process`` or
    ``None``: here, one at a time), handing each finished record to ``on_record``; ``watch``:
    see :func:`_run_async` (the event loop only). More than :data:`ASYNC_SLOTS_PER_PROCESS`
    episodes in flight on the event loop run in several processes (:func:`async_processes`)."""
    if kind == "ray":
        _run_ray(tasks, agent_config, env_kwargs, workers, address, on_record, seed)
        return
    if kind == "async":
        processes = async_processes(min(workers, len(tasks)))
        if processes > 1:
            _run_loops(processes, on_record, (tasks, agent_config, env_kwargs, workers, seed, watch))
        else:
            _run_async(tasks, agent_config, env_kwargs, workers, on_record, seed, watch)
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
