"""The harness against an endpoint of fixed latency: requests per second at 1 to 1,024 in flight.

Run: ``python benchmarks/harness_throughput.py [--latency 0.2] [--workers 1,8,64,256,1024]
[--executors async,thread]``. Starts the latency endpoint of ``tests/fake_endpoint.py``
(its own process, 127.0.0.1) that answers Hidden Number moves after ``--latency`` seconds,
every episode exactly 4 requests. For each ``--workers W`` it runs, each in a fresh process
(for its own CPU time and peak RSS): ``mtp-gym eval``'s harness with each executor (``async``,
the default for ``openai:`` agents; ``thread``, the one it replaced; ``ray``, a local Ray
instance whose asyncio actors play the episodes), and a bare asyncio
client (W coroutines, one keep-alive socket each, the same 4 requests per episode). Printed
per run: requests/s over the window the server was busy (first request in to last answer
out), the ratio to the ideal ``W / latency``, the mean and peak requests in flight the server
saw, CPU ms per request, peak RSS, and the run's wall time with start-up (imports, envs).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fake_endpoint import MOVES, LatencyEndpoint  # noqa: E402

HN = "MTP/HiddenNumber-v0"
REQUESTS_PER_EPISODE = 4


def episodes_for(workers: int) -> tuple[int, int]:
    """(configurations, samples): 8 rounds of ``workers`` episodes, at least 16 episodes."""
    episodes = max(16, 8 * workers)
    configs = min(episodes, 256)
    return configs, -(-episodes // configs)


def run_harness(url: str, workers: int, executor: str) -> dict:
    from mtp_gym.eval.harness import AgentConfig, run_eval

    configs, samples = episodes_for(workers)
    start, cpu = time.perf_counter(), time.process_time() + children_cpu()
    with tempfile.TemporaryDirectory() as out:
        log = run_eval(
            [HN],
            AgentConfig("openai:latency", {"base_url": url, "max_retries": 0}),
            out,
            workers=workers,
            **({"backend": "ray"} if executor == "ray" else {"executor": executor}),
            env_kwargs={HN: {"configs_per_level": configs}},
            samples=samples,
            progress=False,
        )
        assert all(r["outcome"] != "infra_error" for r in log.records), "the endpoint failed"
    return {"seconds": time.perf_counter() - start, "cpu": time.process_time() + children_cpu() - cpu}


def children_cpu() -> float:
    """CPU seconds of this process's ended children (the harness's event-loop processes past
    :data:`mtp_gym.eval.backends.ASYNC_SLOTS_PER_PROCESS` in flight)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_bare(url: str, workers: int, with_env: bool = False) -> dict:
    """W coroutines, each a keep-alive connection, 4 requests per episode: the client's floor.
    ``with_env``: each coroutine plays the env too and sends what the harness sends (the rules,
    then the env's real replies), so the two compare the same requests and the same game."""
    import gymnasium as gym

    import mtp_gym  # noqa: F401

    host, port = url.split("//", 1)[1].split("/", 1)[0].split(":")
    configs, samples = episodes_for(workers)
    episodes = configs * samples

    async def main() -> None:
        queue = iter(range(episodes))

        async def slot() -> None:
            reader, writer = await asyncio.open_connection(host, int(port))
            env = gym.make(HN, configs_per_level=configs, disable_env_checker=True) if with_env else None
            messages = [{"role": "user", "content": "I have selected a hidden number ..."}]
            for episode in queue:
                if env is not None:
                    messages = [{"role": "user", "content": env.reset(options={"config_id": episode % configs})[0]}]
                convo = list(messages)
                for _ in range(REQUESTS_PER_EPISODE):
                    body = json.dumps({"model": "bare", "messages": convo}).encode()
                    writer.write(
                        f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                        f"Content-Length: {len(body)}\r\n\r\n".encode()
                        + body
                    )
                    await writer.drain()
                    length = 0
                    while (line := await reader.readline()) not in (b"\r\n", b""):
                        if line.lower().startswith(b"content-length:"):
                            length = int(line.split(b":")[1])
                    reply = json.loads(await reader.readexactly(length))["choices"][0]["message"]["content"]
                    seen = env.step(reply)[0] if env is not None else "ok"
                    convo += [{"role": "assistant", "content": reply}, {"role": "user", "content": seen}]
            writer.close()

        await asyncio.gather(*(slot() for _ in range(workers)))

    start, cpu = time.perf_counter(), time.process_time()
    asyncio.run(main())
    return {"seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu}


def child(args: argparse.Namespace) -> None:
    stats = (
        run_bare(args.url, args.child_workers, with_env=args.child == "bare-env")
        if args.child in ("bare", "bare-env")
        else run_harness(args.url, args.child_workers, args.child)
    )
    stats["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(stats))


def measure(ep: LatencyEndpoint, kind: str, workers: int, latency: float) -> dict:
    ep.stats(reset=True)
    out = subprocess.run(
        [sys.executable, __file__, "--child", kind, "--child-workers", str(workers), "--url", ep.url],
        capture_output=True,
        text=True,
        check=True,
    )
    stats = json.loads(out.stdout.strip().splitlines()[-1])
    server = ep.stats()
    requests = server["served"]
    rate = requests / server["window"]
    return {
        "kind": kind,
        "workers": workers,
        "requests": requests,
        "req_s": rate,
        "ideal": rate / (workers / latency),
        "mean_inflight": server["mean_inflight"],
        "peak": server["peak"],
        "cpu_ms": 1000 * stats["cpu"] / requests,
        "wall": stats["seconds"],
        "rss_mb": stats["rss_mb"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--workers", default="1,8,64,256,1024")
    parser.add_argument("--executors", default="async,thread,ray")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--child-workers", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)
    assert MOVES  # the endpoint's game: 3 queries and an answer
    print(f"latency {args.latency:g} s, {REQUESTS_PER_EPISODE} requests per episode, Hidden Number")
    print(f"{'run':>8} {'W':>5} {'requests':>8} {'req/s':>8} {'of ideal':>8} {'in flight':>9} {'peak':>5} "
          f"{'CPU ms/req':>10} {'RSS MB':>7} {'wall s':>7}")  # fmt: skip
    with LatencyEndpoint(args.latency) as ep:
        for workers in (int(w) for w in args.workers.split(",")):
            for kind in [*args.executors.split(","), "bare"]:
                r = measure(ep, kind, workers, args.latency)
                print(
                    f"{r['kind']:>8} {workers:>5} {r['requests']:>8} {r['req_s']:>8.1f} {r['ideal']:>8.2f} "
                    f"{r['mean_inflight']:>9.1f} {r['peak']:>5} {r['cpu_ms']:>10.2f} {r['rss_mb']:>7.0f} "
                    f"{r['wall']:>7.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
