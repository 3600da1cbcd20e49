"""Step time on hostile replies: repeated unclosed tags of every kind an env reads.

Run: ``python benchmarks/hostile_replies.py [--sizes 32768 262144 1048576] [--env ID ...]``.

A model in a loop writes replies such as ``<answer>`` × N or ``<think>`` × N, or repeats a
move's words inside one tag (``<question>Would you prefer watching X over Y?`` × N
``</question>``: every example move the env shows, repeated). For every
registered env (and the necessity and counterfactual probes, which read replies of their own)
this plays, at each size, one reply of each hostile kind at benchmark configuration 0 and
prints the slowest step in seconds and the growth ratio from the smallest to the largest size
(linear reading: about the size ratio; quadratic: its square). A size is skipped for an env
for a kind once a smaller one took longer than ``--give-up`` seconds (the old quadratic reading needed
49 s at 256 KB).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym

import mtp_gym

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from helpers import shown_tags  # noqa: E402  (the tags and example moves the test plays too)

PROBED = {
    "necessity": ("MTP/HiddenNumber-v0", {"probe": "necessity"}),
    "counterfactual": ("MTP/HiddenNumber-v0", {"probe": "counterfactual"}),
}


def hostile(names: list[str], examples: list[tuple[str, str]], size: int) -> Iterator[tuple[str, str]]:
    """``(kind, reply)`` of about ``size`` characters each."""

    def fill(unit: str) -> str:
        return unit * max(1, size // len(unit))

    for name, content in examples:
        yield f"<{name}>{content[:20]} x N</{name}>", f"<{name}>{fill(content + ' ')}</{name}>"
    for name in names:
        yield f"<{name}> x N", fill(f"<{name}>")
        yield f"</{name}> x N", fill(f"</{name}>")
        yield f"<{name}>x x N", fill(f"<{name}>1 ")
        yield f"< {name} > x N", fill(f"< {name.upper()} >")
        yield f"<{name}>: x N", fill(f"<{name}>: 1 ")
    yield "< x N", fill("<")
    yield "<< x N", fill("< <")
    yield "quotes x N", fill("'a ")
    yield "yes no x N", fill("no yes ")
    yield "dashes x N", fill("\u2212-1 ")
    yield "digits", fill("7")
    yield "one line", fill("a")


def time_step(env: gym.Env, reply: str) -> float:
    env.reset(options={"config_id": 0})
    start = time.perf_counter()
    env.step(reply)
    return time.perf_counter() - start


def measure(env_id: str, kwargs: dict, sizes: list[int], give_up: float) -> list[tuple[int, float, str]]:
    """The slowest step per size, ``(size, seconds, kind)``. A kind whose step took longer than
    ``give_up`` is not played at larger sizes; from then on the row is a lower bound (``-1``
    marks a size where every kind gave up)."""
    env = gym.make(env_id, disable_env_checker=True, **kwargs)
    first, _ = env.reset(options={"config_id": 0})
    names, examples = shown_tags(env, first)
    worst: dict[int, tuple[float, str]] = {s: (0.0, "") for s in sizes}
    slow: set[str] = set()
    for size in sizes:
        for kind, reply in hostile(names, examples, size):
            if kind in slow:
                worst[size] = max(worst[size], (float("inf"), kind))
                continue
            t = time_step(env, reply)
            worst[size] = max(worst[size], (t, kind))
            if t > give_up:
                slow.add(kind)
    env.close()
    return [(s, *worst[s]) for s in sizes]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[32 << 10, 256 << 10, 1 << 20])
    parser.add_argument("--env", nargs="*", default=None, help="env ids (default: every registered id and the probes)")
    parser.add_argument("--give-up", type=float, default=5.0)
    args = parser.parse_args()
    targets = [(e, e, {}) for e in (args.env or sorted(mtp_gym.ENV_IDS))]
    if not args.env:
        targets += [(f"{e} probe={name}", e, kw) for name, (e, kw) in PROBED.items()]
    sizes = sorted(args.sizes)
    head = " ".join(f"{s >> 10:>8} KB" for s in sizes)
    print(f"{'env':<52} {head}  growth  slowest kind")
    worst_growth = 0.0
    for label, env_id, kwargs in targets:
        rows = measure(env_id, kwargs, sizes, args.give_up)
        cells = " ".join(f"{t:>9.4f}s" if t != float("inf") else f"{'gave up':>10}" for _, t, _ in rows)
        if rows[-1][1] != float("inf"):
            growth = rows[-1][1] / max(rows[0][1], 1e-9) / (sizes[-1] / sizes[0])
            worst_growth = max(worst_growth, growth)
            ratio = f"{growth:6.2f}x"
        else:
            ratio = "  gave up"
        print(f"{label:<52} {cells} {ratio}  {rows[-1][2]}")
    print(f"\ngrowth = (time at {sizes[-1] >> 10} KB / time at {sizes[0] >> 10} KB) / size ratio; 1 is linear.")
    print(f"worst growth over all envs: {worst_growth:.2f}x")


if __name__ == "__main__":
    main()
