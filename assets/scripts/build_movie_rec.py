"""Build ``assets/movie_rec/benchmark.json``: the Movie Recommendation benchmark split.

20 users (distinct weight vectors in {0.0, ..., 1.0}^8, seed ``USER_SEED``) and 50 movie
sets (set ``i`` from ``numpy.random.default_rng([MOVIE_SET_SEED, i])``), all made by the
generator in ``mtp_gym/envs/movie_rec.py`` with its default constants. Shipping the result
keeps the split identical on every machine even if numpy's sampling streams change; the test
``tests/test_movie_rec.py::test_shipped_split_rebuilds`` reruns this build and compares.

Run: ``python assets/scripts/build_movie_rec.py [--out PATH]``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from mtp_gym.envs.movie_rec import (
    DEFAULTS,
    MOVIE_SET_SEED,
    N_MOVIE_SETS,
    USER_SEED,
    benchmark_movie_set,
    benchmark_users,
)

OUT = Path(__file__).resolve().parents[1] / "movie_rec" / "benchmark.json"


def build() -> dict[str, Any]:
    """The split as a JSON-ready dict."""
    sets = []
    for i in range(N_MOVIE_SETS):
        m = benchmark_movie_set(i)
        sets.append(
            {
                "seen_titles": list(m.seen_titles),
                "seen_scores": m.seen_scores.tolist(),
                "unseen_titles": list(m.unseen_titles),
                "unseen_scores": m.unseen_scores.tolist(),
            }
        )
    return {
        "description": "MTP Movie Recommendation benchmark: config i = user i // 50 with movie set i % 50",
        "generator": dict(DEFAULTS),
        "seeds": {"users": USER_SEED, "movie_sets": MOVIE_SET_SEED},
        "users": [list(u) for u in benchmark_users()],
        "movie_sets": sets,
    }


def dumps(data: dict[str, Any]) -> str:
    """Stable text: one movie set per block, compact rows."""
    return json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(dumps(build()), encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
