"""The README's main job (command 1), idle and beside busy processes, and the Movie Rec oracle's cost.

Run: ``python benchmarks/main_job.py [--busy 2] [--episodes 10] [--full-split]``. Prints:

* command 1 (``mtp-gym eval --env all --agent oracle,random --split 100``, into a temporary
  directory) wall and CPU time (its process and children), first as the machine is, then with
  ``--busy`` processes spinning beside it (``python -c 'while True: pass'``);
* the CPU seconds per Movie Rec oracle episode as shipped (one BLAS thread while it thinks) and,
  for comparison, with BLAS's default thread count, each as the machine is and beside the busy
  processes;
* with ``--full-split``: the oracle's mean score and top-1 rate on the full split (1000
  configurations, several CPU minutes), which ``tests/test_movie_rec.py -k full_split`` checks
  (>= 0.97 and >= 55%).

"Idle" means "without the busy processes": the load average printed first says what else ran.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

COMMAND_1 = ["eval", "--env", "all", "--agent", "oracle,random", "--split", "100", "--no-progress"]
ENV_ID = "MTP/MovieRec-v0"


@contextlib.contextmanager
def busy(n: int) -> Iterator[None]:
    """``n`` processes spinning on the CPU while the block runs."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        time.sleep(0.5)
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def command_1() -> tuple[float, float]:
    """(wall s, CPU s) of command 1 into a fresh directory, its child processes included."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "mtp_gym.cli", *COMMAND_1, "--out", out],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def oracle_cpu(episodes: int, limited: bool) -> float:
    """CPU seconds per Movie Rec oracle episode (configurations spread over the split), as shipped
    (``limited``) or with its BLAS thread limit bypassed."""
    import gymnasium as gym

    import mtp_gym  # noqa: F401
    from mtp_gym.agents.oracles.movie_rec import MovieRecOracle
    from mtp_gym.episode import run_episode

    class Unlimited(MovieRecOracle):
        def act(self, observation: str, info: dict) -> str:
            return self._act(observation)

    env = gym.make(ENV_ID)
    agent = MovieRecOracle() if limited else Unlimited()
    run_episode(env, agent, config_id=999)  # warm: the cached grid sample and synthetic sets
    start = time.process_time()
    for i in range(episodes):
        run_episode(env, agent, config_id=(i * 97) % 1000)
    return (time.process_time() - start) / episodes


def full_split() -> str:
    from mtp_gym.eval import evaluate, summarize

    start, cpu = time.perf_counter(), time.process_time()
    s = summarize(evaluate(ENV_ID, "oracle"))
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return (
        f"Movie Rec oracle, full split (1000): mean {s['mean_score']:.4f}, top-1 {s['success_rate']:.1%} "
        f"({wall:.0f} s wall, {cpu:.0f} s CPU)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", type=int, default=2, help="busy processes beside the second runs (default 2)")
    parser.add_argument("--episodes", type=int, default=10, help="Movie Rec oracle episodes per CPU figure")
    parser.add_argument("--full-split", action="store_true", help="also the oracle's scores on the full split")
    parser.add_argument("--skip-command", action="store_true", help="only the oracle's figures")
    args = parser.parse_args()

    print(f"{os.cpu_count()} CPUs; load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if not args.skip_command:
        wall, cpu = command_1()
        print(f"command 1, idle          : {wall:6.1f} s wall, {cpu:6.1f} s CPU")
        with busy(args.busy):
            wall, cpu = command_1()
        print(f"command 1, {args.busy} busy beside : {wall:6.1f} s wall, {cpu:6.1f} s CPU")
    for label, limited in (("as shipped (1 BLAS thread)", True), ("BLAS default threads", False)):
        idle = oracle_cpu(args.episodes, limited)
        with busy(args.busy):
            loaded = oracle_cpu(args.episodes, limited)
        print(f"Movie Rec oracle, {label:<26}: {idle:.3f} s CPU/episode idle, {loaded:.3f} beside {args.busy} busy")
    if args.full_split:
        print(full_split())
    else:
        print("Movie Rec oracle, full split: run with --full-split (1000 episodes, several CPU minutes)")


if __name__ == "__main__":
    main()
