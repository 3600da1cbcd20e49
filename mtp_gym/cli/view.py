"""``mtp-gym view``: a report's report.html through a small local server."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from mtp_gym.cli.common import cannot_listen, examples, fail, listen, warn_exposed

__all__ = ["add_parser", "cmd_view"]


def add_parser(sub: Any) -> None:
    vw = sub.add_parser(
        "view",
        help="open a report's report.html through a small local server",
        **examples("mtp-gym view runs/report", "mtp-gym view runs --port 0 --no-browser"),
    )
    vw.add_argument("dir", metavar="DIR", help="a report directory (or a run directory holding report/)")
    listen(vw, 8766)
    vw.add_argument("--no-browser", action="store_true", help="do not open a browser")
    vw.set_defaults(func=cmd_view)


def _report_dir(text: str) -> Path:
    """``DIR``, or ``DIR/report``: the one holding report.html."""
    directory = Path(text)
    if not (directory / "report.html").exists() and (directory / "report" / "report.html").exists():
        directory = directory / "report"
    if not (directory / "report.html").exists():
        raise fail(f"DIR: no report.html in {text} or {text}/report; run `mtp-gym report {text}` first")
    return directory


def cmd_view(args: argparse.Namespace) -> int:
    """Serve a report directory's report.html on 127.0.0.1 and open it in the browser."""
    from mtp_gym.web.server import make_view_server, run_until_interrupted

    directory = _report_dir(args.dir)
    warn_exposed(args.host, f"read every file of {directory}")
    try:
        server = make_view_server(args.host, args.port, directory)
    except OSError as err:
        raise cannot_listen(args.host, args.port, err) from None
    host, port = server.server_address[:2]
    url = f"http://{host!s}:{port}/"
    print(f"report of {directory} on {url} ; Ctrl-C stops it (the file also opens on its own: {directory}/report.html)")
    if not args.no_browser:
        import webbrowser

        webbrowser.open(url)
    run_until_interrupted(server)
    return 0
