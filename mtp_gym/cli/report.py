"""``mtp-gym report``: tables, figures and report.html from run directories."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mtp_gym.cli.common import add_price, examples, fail

__all__ = ["add_parser", "cmd_report", "make_report", "written"]


def add_parser(sub: Any) -> None:
    rp = sub.add_parser(
        "report",
        help="tables (Markdown, CSV), figures and report.html from run directories",
        **examples(
            "mtp-gym report runs",
            "mtp-gym report runs/openai_gpt-4o runs/human_alice --out cmp --price openai:gpt-4o=2.5,10",
        ),
    )
    rp.add_argument("dirs", nargs="+", metavar="DIR", help="run directories, or directories holding them")
    rp.add_argument("--out", help="where to write report.md/.csv and the figures (default: DIR/report)")
    add_price(rp, "US$ per 1M prompt,completion tokens of an agent (repeatable)")
    rp.add_argument("--no-baselines", action="store_true", help="do not add random/oracle rows the directories lack")
    rp.add_argument(
        "--trust-code",
        action="store_true",
        help="let the baselines import the code a run directory's env kwargs name ('module:Class' outside mtp_gym)",
    )
    rp.set_defaults(func=cmd_report)


def make_report(
    dirs: list[Path], out: Path, price: list[str], baselines: bool, progress: bool = False, trust_code: bool = False
) -> str:
    """The report of ``dirs`` written into ``out`` (:func:`mtp_gym.eval.pipeline.build_report`),
    after reading ``--price`` and the run directories (exits naming what cannot be read)."""
    from mtp_gym.eval.pipeline import build_report
    from mtp_gym.eval.report import parse_prices
    from mtp_gym.eval.report.load import find_run_dirs

    try:
        prices = parse_prices(price or [])
        find_run_dirs(dirs)  # names a missing or empty directory before anything is written
        return build_report(None, dirs, out, prices, baselines, progress=progress, trust_code=trust_code)
    except ValueError as err:  # a run directory that cannot be read
        raise fail(str(err)) from None


def written(out: Path) -> str:
    """Where the report is and how to open it (two lines)."""
    return (
        f"written: {out / 'report.md'} (every table), report.html, report.csv, macro.csv and the figures\n"
        f"view: mtp-gym view {out}   (or open {out / 'report.html'})"
    )


def cmd_report(args: argparse.Namespace) -> int:
    out = Path(args.out) if args.out else Path(args.dirs[0]) / "report"
    dirs = [Path(d) for d in args.dirs]
    print(make_report(dirs, out, args.price, baselines=not args.no_baselines, trust_code=args.trust_code))
    print("\n" + written(out), file=sys.stderr)
    return 0
