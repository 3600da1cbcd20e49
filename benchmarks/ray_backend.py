"""Ray backend against the local one: oracle episodes/s through ``run_eval`` on a fixed sample.

Run: ``python benchmarks/ray_backend.py [--split N] [--cpus C] [--envs ID,…]`` (needs ``pip install ray``).

Every row plays the same episodes (the oracle on ``--split`` configurations of each env) into a
fresh run directory, in this one process: local serial, the local process pool of ``--cpus``
workers, local serial again ("warm": this process keeps the envs and agents it built), then Ray tasks on a local instance of ``--cpus`` CPUs with ``--cpus`` and 2 × ``--cpus``
episodes in flight (the first Ray run starts the workers, the "warm" one reuses them). Ratios
are against the local process pool measured in the same run; Ray's start-up is printed apart.

BLAS threads are pinned to 1 in every row (as Ray does for its 1-CPU tasks): unpinned, the
numpy-heavy MovieRec oracle oversubscribes the cores, and on a busy 2-core machine the local
rows were ~3x slower for that reason alone, not for the backend.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # before numpy is imported

import argparse  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import mtp_gym  # noqa: F401, E402
from mtp_gym.eval.harness import AgentConfig, run_eval  # noqa: E402
from mtp_gym.eval.log import read_episodes  # noqa: E402
from mtp_gym.registration import ENV_IDS  # noqa: E402

#: MovieRec's oracle is the slow one (~0.3 s an episode); the others take milliseconds.
DEFAULT_ENVS = list(ENV_IDS)


def timed(label: str, out: Path, envs: list[str], split: str, **kw) -> tuple[str, int, float, dict]:
    """Seconds to play the sample into ``out``, the episode count and each episode's score."""
    start = time.perf_counter()
    log = run_eval(envs, AgentConfig("oracle"), out, split=split, progress=False, **kw)
    seconds = time.perf_counter() - start
    records, _ = read_episodes(log.path)
    return label, len(records), seconds, {(r["env_id"], r["config_id"]): r["score"] for r in records}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="40", help="configurations per env (default: 40)")
    parser.add_argument("--cpus", type=int, default=2, help="local pool workers and Ray CPUs (default: 2)")
    parser.add_argument("--envs", default=",".join(DEFAULT_ENVS), help="comma-separated env ids (default: all)")
    args = parser.parse_args()
    import ray

    envs = [e for e in args.envs.split(",") if e]
    tmp = Path(tempfile.mkdtemp(prefix="mtp-ray-bench-"))
    rows = [
        timed("local, serial", tmp / "serial", envs, args.split),
        timed(f"local, {args.cpus} processes", tmp / "pool", envs, args.split, workers=args.cpus, executor="process"),
        timed("local, serial (warm)", tmp / "serial-warm", envs, args.split),
    ]
    start = time.perf_counter()
    ray.init(address="local", num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
    startup = time.perf_counter() - start
    for label, workers in [("cold", args.cpus), ("warm", args.cpus), ("warm", 2 * args.cpus)]:
        rows.append(
            timed(
                f"ray, {workers} in flight ({label})",
                tmp / f"ray-{label}-{workers}",
                envs,
                args.split,
                workers=workers,
                backend="ray",
            )
        )
    ray.shutdown()

    base = rows[1]
    print(
        f"oracle on {len(envs)} env(s) × split {args.split}: {base[1]} episodes; Ray ray.init: {startup:.1f} s "
        f"(not in the rows); {args.cpus} CPUs"
    )
    print(f"{'backend':34s} {'seconds':>8s} {'episodes/s':>11s} {'vs local pool':>14s}")
    for label, n, seconds, scores in rows:
        assert scores == base[3], f"{label}: different scores than the local pool"
        print(f"{label:34s} {seconds:8.2f} {n / seconds:11.1f} {base[2] / seconds:13.2f}x")
    print("scores: identical on every row")


if __name__ == "__main__":
    main()
