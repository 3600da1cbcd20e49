"""What the commands share: the parser class, the error exit, argument types and options."""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any, NoReturn

from mtp_gym.registration import ENV_IDS, did_you_mean

__all__ = [
    "Parser",
    "add_env_kwargs",
    "add_price",
    "cannot_listen",
    "check_env_id",
    "check_env_kwargs",
    "examples",
    "fail",
    "json_arg",
    "listen",
    "non_negative_int",
    "port_number",
    "positive_int",
    "unit_float",
    "warn_exposed",
]


_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)$")


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # exit code 2 with the usage, as argparse does
        choice = _INVALID_CHOICE.search(message)
        if choice:  # a misspelled command or choice: the closest one
            message += did_you_mean(choice.group(1), re.findall(r"'([^']*)'", choice.group(2)))
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def fail(message: str) -> SystemExit:
    """The exit (status 1) of a command that names the argument at fault; ``raise fail(...)``."""
    return SystemExit(f"mtp-gym: error: {message}")


def check_env_id(name: str, env_id: str) -> None:
    """Exit naming ``name`` unless ``env_id`` is a registered id."""
    if env_id not in ENV_IDS:
        hint = did_you_mean(env_id, ENV_IDS)
        raise fail(f"{name}: unknown env id {env_id!r}{hint}; allowed: {sorted(ENV_IDS)} (see `mtp-gym list`)")


def check_env_kwargs(name: str, env_id: str, env_kwargs: dict[str, Any]) -> None:
    """Exit naming option ``name`` unless ``env_id``'s env takes every key of ``env_kwargs``
    (read from its class: :func:`mtp_gym.env_kwarg_names`); ``gym.make``'s own kwargs pass."""
    import inspect

    import gymnasium as gym

    from mtp_gym import env_kwarg_names

    allowed = env_kwarg_names(env_id)
    own = set(inspect.signature(gym.make).parameters)
    unknown = sorted(k for k in env_kwargs if k not in allowed and k not in own)
    if unknown:
        hint = did_you_mean(unknown[0], allowed)
        raise fail(f"{name}: unknown key(s) {unknown} for {env_id}{hint}; allowed: {allowed}")


def json_arg(name: str, text: str | None) -> dict[str, Any]:
    """The JSON object given to option ``name`` (``{}`` when not given)."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise fail(f"{name}: not JSON ({err}); expected an object like '{{\"max_turns\": 5}}'") from None
    if not isinstance(value, dict):
        raise fail(f"{name}: expected a JSON object like '{{\"max_turns\": 5}}', got {text!r}")
    return value


def positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a positive int, got {text!r}")
    return int(text)


def non_negative_int(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"must be a non-negative int, got {text!r}")
    return int(text)


def port_number(text: str) -> int:
    """A TCP port, 0 (any free port) … 65535."""
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"must be a port number 0-65535 (0: any free port), got {text!r}")
    return int(text)


def unit_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1], got {text!r}")
    return value


def examples(*lines: str) -> dict[str, Any]:
    """``add_parser`` kwargs that end a command's ``--help`` with example command lines."""
    return {
        "epilog": "examples:\n" + "\n".join(f"  {line}" for line in lines),
        "formatter_class": argparse.RawDescriptionHelpFormatter,
    }


def listen(parser: argparse.ArgumentParser, port: int, port_type: Any = port_number, port_help: str = "") -> None:
    """``--host`` and ``--port`` of a local server."""
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)"
    )
    help_text = port_help or f"port (default {port}; 0: any free port)"
    parser.add_argument("--port", type=port_type, default=port, help=help_text)


def cannot_listen(host: str, port: int, err: OSError, port_flag: str = "--port 0 for any free port") -> SystemExit:
    """The one-line exit of a server that cannot listen on ``host:port``, naming the fix."""
    import errno

    if err.errno == errno.EADDRINUSE:
        return fail(
            f"--port: {host}:{port} is already in use (another server, or this one still running); "
            f"pick another: --port N, or {port_flag}"
        )
    why = err.strerror or str(err)
    return fail(f"--host/--port: cannot listen on {host}:{port} ({why}); --host 127.0.0.1 listens on this machine")


def add_env_kwargs(parser: argparse.ArgumentParser, help_text: str) -> None:
    """``--env-kwargs JSON`` (read with :func:`json_arg`)."""
    parser.add_argument("--env-kwargs", help=help_text)


def add_price(parser: argparse.ArgumentParser, help_text: str) -> None:
    """``--price AGENT=IN,OUT`` (repeatable), for the report's cost column."""
    parser.add_argument("--price", action="append", default=[], metavar="AGENT=IN,OUT", help=help_text)


def warn_exposed(host: str, what: str) -> None:
    """Print a warning when a server's ``--host`` is not a loopback address."""
    from mtp_gym.web.server import exposure_warning

    warning = exposure_warning(host, what)
    if warning:
        print(warning, file=sys.stderr)
