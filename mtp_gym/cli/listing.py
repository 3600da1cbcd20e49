"""``mtp-gym list``: every env id with its suite, levels, split size and scripted agents."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from mtp_gym.cli.common import examples

__all__ = ["add_parser", "cmd_list"]


def add_parser(sub: Any) -> None:
    ls = sub.add_parser(
        "list",
        help="every env id with its suite, levels, split size and scripted agents",
        **examples("mtp-gym list", "mtp-gym list --json"),
    )
    ls.add_argument("--json", action="store_true", help="print JSON instead of a Markdown table")
    ls.set_defaults(func=cmd_list)


def cmd_list(args: argparse.Namespace) -> int:
    """Print every env id with its suite, levels, split size and scripted agents."""
    from mtp_gym.agents.base import model_spec_examples
    from mtp_gym.eval.catalog import env_table

    rows = env_table()
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    keys = ("id", "suite", "levels", "split", "agents")
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(str(r[k]) for k in keys) + " |" for r in rows]
    print("\n".join(lines))
    *most, last = model_spec_examples()
    print(
        f"\n{len(rows)} envs. Split: configurations in the benchmark split (query games: per level). "
        f"Models play as {', '.join(most)} or {last} on every env.",
        file=sys.stderr,
    )
    return 0
