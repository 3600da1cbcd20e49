"""``mtp-gym serve``: play the puzzles in the browser (:mod:`mtp_gym.web.server`)."""

from __future__ import annotations

import argparse
from typing import Any

from mtp_gym.cli.common import cannot_listen, examples, listen, warn_exposed

__all__ = ["add_parser", "cmd_serve"]


def add_parser(sub: Any) -> None:
    sv = sub.add_parser(
        "serve",
        help="play the puzzles in the browser; finished games are logged for `mtp-gym report`",
        **examples(
            "mtp-gym serve --out runs        # then open http://127.0.0.1:8765/",
            "mtp-gym report runs             # human:<name> rows beside the models",
        ),
    )
    listen(sv, 8765)
    sv.add_argument("--out", default="runs", help="where finished games go: OUT/human_<name>/ (default: runs)")
    sv.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    """Human play in the browser (``mtp_gym.web.server``)."""
    from mtp_gym.web.server import make_play_server, run_until_interrupted

    warn_exposed(args.host, f"play games on it, logged into {args.out}")
    try:
        server = make_play_server(args.host, args.port, args.out)
    except OSError as err:
        raise cannot_listen(args.host, args.port, err) from None
    host, port = server.server_address[:2]
    print(
        f"mtp-gym play server on http://{host!s}:{port}/ ; finished games go to {args.out}/human_<name>/; "
        "Ctrl-C stops it"
    )
    run_until_interrupted(server)
    return 0
