"""The ``mtp-gym`` program: its parser (one module per command) and :func:`main`."""

from __future__ import annotations

import argparse
import errno
import os
import re
import shlex
import sys

from mtp_gym.cli import eval as eval_command
from mtp_gym.cli import listing, play, report, serve, serve_env, view
from mtp_gym.cli.common import Parser

__all__ = ["COMMANDS", "DISK_FULL", "EXIT_INTERRUPTED", "build_parser", "main"]

#: The command modules, in the order ``mtp-gym --help`` lists them; each has ``add_parser(sub)``.
COMMANDS = (listing, eval_command, report, play, serve, view, serve_env)
#: Exit status after Ctrl-C (SIGINT): 128 + 2, as a shell reports a process SIGINT ended.
EXIT_INTERRUPTED = 130
#: The errors of a full disk (or a spent quota).
DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})
_URL_RE = re.compile(r"https?://[^\s\"',]+")


def build_parser() -> argparse.ArgumentParser:
    from mtp_gym import __version__

    parser = Parser(prog="mtp-gym", description="Multi-turn puzzles for LLM agents.")
    parser.add_argument("--version", action="version", version=f"mtp-gym {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def _command(argv: list[str]) -> str:
    """The command line that ran, to run again (credentials in URLs masked, as in the logs)."""
    from mtp_gym.agents.llm.endpoint import redact_url

    return shlex.join(["mtp-gym", *(_URL_RE.sub(lambda m: redact_url(m.group(0)) or "", a) for a in argv)])


def _stopped(args: argparse.Namespace, argv: list[str], why: str, first: str = "") -> str:
    """Two lines for an ``eval`` or ``report`` that stopped early: the logs are whole, and the
    command that resumes (after ``first``, what to do before)."""
    command = _command(argv)
    masked = " (credentials masked: put them back)" if command != shlex.join(["mtp-gym", *argv]) else ""
    if args.command == "eval":
        kept = f"the log is whole: every finished episode is kept under {args.out}/"
        again = "resume with the same command"
    else:
        kept = "the run logs were only read and are whole (every finished baseline episode is kept)"
        again = "run the same command again"
    return f"mtp-gym {args.command}: {why}; {kept}.\n{first}{again}{masked}: {command}"


#: What a Ctrl-C'd command other than ``eval``/``report`` left behind, in one line.
_INTERRUPTED = {
    "play": "the game was not finished, so nothing was logged; run the same command to play again",
    "serve-env": "the server stopped",
}


def main(argv: list[str] | None = None) -> int:
    """Run one ``mtp-gym`` command; ``eval`` and ``report`` end in two lines, not a traceback,
    on Ctrl-C (exit status 130) or a full disk (1): the logs are whole, and how to resume.
    Ctrl-C in any other command ends in one line (130); no command prints the help (exit 2).

    Run as the program (``argv`` ``None``), a Ctrl-C'd local ``eval`` exits at once: its
    worker threads or processes would otherwise finish their episodes, which are not logged.
    """
    program = argv is None
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    if not argv:  # bare `mtp-gym`: the help, as a usage error (no command given)
        parser.print_help(sys.stderr)
        return 2
    try:
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        print("\nmtp-gym: interrupted before any command ran; nothing was written", file=sys.stderr)
        return EXIT_INTERRUPTED
    if args.command not in ("eval", "report"):
        try:
            return int(args.func(args))
        except KeyboardInterrupt:
            left = _INTERRUPTED.get(args.command, "nothing was written")
            print(f"\nmtp-gym {args.command}: interrupted; {left}", file=sys.stderr)
            return EXIT_INTERRUPTED
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print(f"\n{_stopped(args, argv, 'interrupted')}", file=sys.stderr)
        if program and getattr(args, "backend", "local") == "local":  # Ray shuts its cluster down at exit
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(EXIT_INTERRUPTED)  # every log line is already written (os.write) and the logs closed
        return EXIT_INTERRUPTED
    except OSError as err:
        if err.errno not in DISK_FULL:
            raise
        where = f": {err.filename}" if err.filename else ""
        why = f"error: disk full ({err.strerror or err}{where})"
        raise SystemExit(_stopped(args, argv, why, first="free some space, then ")) from None
