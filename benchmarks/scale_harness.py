"""The harness at scale, as ratios measured in one run (issue 29, items 2 and 6; issue 28).

Run: ``python benchmarks/scale_harness.py [--parts harness,resume,list,down] [--workers 256,1024,4096]
[--harness-rounds 3] [--episodes 1000000] [--rounds 5]``. Prints:

* **harness**: ``mtp-gym eval``'s harness (the ``async`` executor of ``openai:`` agents; past
  512 in flight, one event-loop process per 512 begun, at most one per core, their CPU
  counted) over a bare asyncio client (:mod:`harness_throughput`), both against the latency endpoint of
  ``tests/fake_endpoint.py`` in its own process (0.2 s per request, 4 requests per episode),
  at each ``--workers`` in flight: requests/s over the bare client's, CPU ms per request.
  Harness and bare clients alternate, each in a fresh process, ``--harness-rounds`` times:
  medians, and the range of the ratios.
* **resume**: re-opening a run directory whose log holds ``--episodes`` finished synthetic
  episodes (written in a temp dir, ~1 KB of transcript each) and planning the run over them:
  CPU µs and RSS bytes per finished episode, beside the previous way (every line parsed,
  transcripts included, one slim record kept per episode, the bar's score list), each in a
  fresh process.
* **list**: ``mtp-gym list`` wall and CPU time over ``python -c "import gymnasium"``
  (alternating, medians of ``--rounds``).
* **down**: how long a run against a refused loopback port takes to stop (default agent
  retries), and a run against a server that starts listening 3 s late (it must finish).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

HN = "MTP/HiddenNumber-v0"


# ------------------------------------------------------------------ harness over the bare client
def harness_part(workers: list[int], latency: float, rounds: int) -> None:
    from fake_endpoint import LatencyEndpoint
    from harness_throughput import measure

    print(f"\nharness over a bare asyncio client (latency {latency:g} s, 4 requests per episode)")
    print("  bare: a fixed short message; bare+env: plays the env and sends what the harness sends")
    print(f"  medians of {rounds} rounds (the three runs of a round in turn, rotated), the ratios' range in brackets")
    print(
        f"{'W':>5} {'harness req/s':>13} {'bare req/s':>10} {'ratio':>16} {'bare+env':>8} {'ratio':>16} "
        f"{'CPU ms/req':>10} {'bare CPU':>8} {'b+env CPU':>9}"
    )
    kinds = ("bare", "bare-env", "async")
    with LatencyEndpoint(latency) as ep:
        for w in workers:
            runs: dict[str, list[dict]] = {kind: [] for kind in kinds}
            for r in range(rounds):
                for kind in kinds[r % 3 :] + kinds[: r % 3]:  # a slow spell falls on each in turn
                    runs[kind].append(measure(ep, kind, w, latency))
            bare, same, harness = (runs[kind] for kind in kinds)
            over_bare = sorted(h["req_s"] / b["req_s"] for h, b in zip(harness, bare))
            over_same = sorted(h["req_s"] / b["req_s"] for h, b in zip(harness, same))

            def med(rows: list[dict], key: str) -> float:
                return statistics.median(row[key] for row in rows)

            def spread(ratios: list[float]) -> str:
                return f"{statistics.median(ratios):.2f} ({ratios[0]:.2f}-{ratios[-1]:.2f})"

            print(
                f"{w:>5} {med(harness, 'req_s'):>13.0f} {med(bare, 'req_s'):>10.0f} {spread(over_bare):>16} "
                f"{med(same, 'req_s'):>8.0f} {spread(over_same):>16} "
                f"{med(harness, 'cpu_ms'):>10.3f} {med(bare, 'cpu_ms'):>8.3f} {med(same, 'cpu_ms'):>9.3f}",
                flush=True,
            )


# ------------------------------------------------------------------ resume
def write_log(directory: Path, episodes: int) -> None:
    """``episodes`` finished Hidden Number episodes as :meth:`RunLog.append` writes them."""
    from mtp_gym.eval.log import RunLog, to_jsonable
    from mtp_gym.eval.record import EpisodeRecord

    transcript = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} " + "x" * 100} for i in range(9)
    ]
    with RunLog(directory, {"agent": "bench"}, {HN: {}}):
        pass
    template = EpisodeRecord(
        agent="bench", env_id=HN, config_id=0, outcome="success", score=1.0, turns=4, transcript=transcript,
        hidden={"number": 3, "evidence": [["odd", [], True]]}, prompt_tokens=200, completion_tokens=20,
    )  # fmt: skip
    line = json.dumps(to_jsonable(template.to_json()), separators=(",", ":"))
    head, tail = line.split('"config_id":0', 1)
    with open(directory / "episodes.jsonl", "w") as f:
        for i in range(episodes):
            f.write(f'{head}"config_id":{i}{tail}\n')


def resume_child(directory: str, episodes: int, mode: str) -> None:
    from mtp_gym.eval import harness
    from mtp_gym.eval.log import RunLog, keep_latest, record_key, scan_episodes
    from mtp_gym.eval.record import EpisodeRecord

    ids_of = {HN: list(range(episodes))}
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    cpu = time.process_time()
    log = RunLog(directory, {"agent": "bench"}, {HN: {}})
    if mode == "new":
        tasks, done = harness._plan(ids_of, 1, log)
        count, mean = done.count, done.score_sum / done.scored
    else:  # the previous resume: every line parsed, a slim record per episode, the bar's list
        latest: dict = {}
        for record in scan_episodes(log.path, slim=True):
            keep_latest(latest, EpisodeRecord.from_json(record, {}))
        finished_keys = {k for k, r in latest.items() if r.outcome != "infra_error"}
        tasks, finished = [], set()
        for config_id in ids_of[HN]:
            key = (HN, config_id, 0)
            (finished.add if key in finished_keys else tasks.append)(key)
        kept = [r for r in latest.values() if record_key(r) in finished and r["outcome"] != "infra_error"]
        scores = [r["score"] for r in kept]
        count, mean = len(finished), sum(scores) / len(scores)
    cpu = time.process_time() - cpu
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - rss0
    log.close()
    assert count == episodes and not tasks and mean == 1.0
    print(json.dumps({"cpu": cpu, "rss": rss}))


def resume_part(episodes: int) -> None:
    print(f"\nresume over {episodes:,} finished episodes (log written in a temp dir)")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        write_log(Path(tmp), episodes)
        size = (Path(tmp) / "episodes.jsonl").stat().st_size
        print(f"  log: {size / 2**30:.2f} GiB, written in {time.perf_counter() - start:.0f} s")
        out = {}
        for mode in ("old", "new"):
            done = subprocess.run(
                [sys.executable, __file__, "--resume-child", mode, "--dir", tmp, "--episodes", str(episodes)],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            out[mode] = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{'':>10} {'CPU µs/ep':>10} {'RSS B/ep':>9}")
    for mode, label in (("old", "previous"), ("new", "now")):
        r = out[mode]
        print(f"{label:>10} {1e6 * r['cpu'] / episodes:>10.2f} {r['rss'] / episodes:>9.0f}")
    print(
        f"{'ratio':>10} {out['new']['cpu'] / out['old']['cpu']:>10.3f} "
        f"{out['new']['rss'] / max(1, out['old']['rss']):>9.3f}"
    )


# ------------------------------------------------------------------ mtp-gym list
def _timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return time.perf_counter() - start, cpu


def list_part(rounds: int) -> None:
    """Measured as a user runs it: with the bytecode cached. A warm-up run writes it even where
    ``PYTHONDONTWRITEBYTECODE`` is set (a sandbox's setting: with no cache at all every run
    compiles every module, which doubled the figure)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    commands = ([sys.executable, "-c", "import gymnasium"], [sys.executable, "-m", "mtp_gym.cli", "list"])
    for cmd in commands:
        _timed(cmd, env)  # warm-up: the bytecode and the page cache
    gyms, lists = [], []
    for _ in range(rounds):
        gyms.append(_timed(commands[0], env))
        lists.append(_timed(commands[1], env))
    lw, lc = (statistics.median(x[i] for x in lists) for i in (0, 1))
    gw, gc = (statistics.median(x[i] for x in gyms) for i in (0, 1))
    print(f"\nmtp-gym list over `python -c 'import gymnasium'` (medians of {rounds}, bytecode cached)")
    print(f"  wall {lw:.2f} s / {gw:.2f} s = {lw / gw:.2f}x; CPU {lc:.2f} s / {gc:.2f} s = {lc / gc:.2f}x")


# ------------------------------------------------------------------ a dead endpoint
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def down_part() -> None:
    from fake_endpoint import LatencyEndpoint

    from mtp_gym.eval.harness import AgentConfig, EndpointDown, run_eval

    print("\nan unreachable endpoint (default agent retries)")
    with tempfile.TemporaryDirectory() as tmp:
        config = AgentConfig("openai:m", {"base_url": f"http://127.0.0.1:{_free_port()}/v1"})
        start = time.perf_counter()
        try:
            run_eval([HN], config, tmp, workers=4, progress=False)
            print("  refused port: the run did not stop")
        except EndpointDown as err:
            print(f"  refused port: stopped after {time.perf_counter() - start:.1f} s: {err}")
    port = _free_port()
    box: dict = {}

    def later() -> None:
        time.sleep(3)
        box["ep"] = LatencyEndpoint(0.05, port=port).__enter__()

    starter = threading.Thread(target=later)
    starter.start()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        try:
            log = run_eval([HN], AgentConfig("openai:m", {"base_url": f"http://127.0.0.1:{port}/v1"}), tmp,
                           workers=8, split="16", progress=False)  # fmt: skip
            recs = log.records
            infra = sum(r["outcome"] == "infra_error" for r in recs)
            print(
                f"  server up after 3 s: {len(recs)} episodes, {infra} infra_error, {time.perf_counter() - start:.1f} s"
            )
        finally:
            starter.join()
            box["ep"].__exit__(None, None, None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", default="harness,resume,list,down")
    parser.add_argument("--workers", default="256,1024,4096")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--episodes", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--harness-rounds", type=int, default=3)
    parser.add_argument("--resume-child", help=argparse.SUPPRESS)
    parser.add_argument("--dir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.resume_child:
        return resume_child(args.dir, args.episodes, args.resume_child)
    print(f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    parts = args.parts.split(",")
    if "harness" in parts:
        harness_part([int(w) for w in args.workers.split(",")], args.latency, args.harness_rounds)
    if "resume" in parts:
        resume_part(args.episodes)
    if "list" in parts:
        list_part(args.rounds)
    if "down" in parts:
        down_part()


if __name__ == "__main__":
    main()
