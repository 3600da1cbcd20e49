"""``mtp-gym serve-env``: every env over OpenEnv's protocol (:mod:`mtp_gym.integrations.openenv_server`)."""

from __future__ import annotations

import argparse
from typing import Any

from mtp_gym.cli.common import add_env_kwargs, check_env_id, fail, json_arg, listen, positive_int, warn_exposed

__all__ = ["add_parser", "cmd_serve_env"]


def add_parser(sub: Any) -> None:
    se = sub.add_parser(
        "serve-env",
        help="serve every env over OpenEnv's HTTP/WebSocket protocol (needs the [openenv] extra)",
        epilog="example: mtp-gym serve-env --port 8000, then MTPEnvClient(base_url='http://127.0.0.1:8000')"
        ".sync().reset(env_id='MTP/TuringMachine-v0', config_id=3)",
    )
    listen(se, 8000, port_type=positive_int, port_help="port (default 8000)")
    se.add_argument("--env", default="MTP/WordGuess-v0", help="the env a session gets when reset names none")
    add_env_kwargs(se, "JSON object of kwargs for that default env")
    se.add_argument("--max-sessions", type=positive_int, default=64, help="concurrent WebSocket sessions (default 64)")
    se.set_defaults(func=cmd_serve_env)


def cmd_serve_env(args: argparse.Namespace) -> int:
    """Serve every env over OpenEnv's protocol (``mtp_gym.integrations.openenv_server``)."""
    check_env_id("--env", args.env)
    try:
        from mtp_gym.integrations.openenv_server import serve
    except ImportError as err:
        raise fail(f"serve-env needs OpenEnv: pip install 'mtp-gym[openenv]' ({err})") from None
    warn_exposed(args.host, "run envs on it")
    print(f"mtp-gym OpenEnv server on http://{args.host}:{args.port} (default env {args.env}); Ctrl-C stops it")
    serve(args.host, args.port, args.env, json_arg("--env-kwargs", args.env_kwargs), args.max_sessions)
    return 0
