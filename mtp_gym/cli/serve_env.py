"""``mtp-gym serve-env``: every env over OpenEnv's protocol (:mod:`mtp_gym.integrations.openenv_server`)."""

from __future__ import annotations

import argparse
from typing import Any

from mtp_gym.cli.common import (
    add_env_kwargs,
    cannot_listen,
    check_env_id,
    check_env_kwargs,
    fail,
    json_arg,
    listen,
    port_number,
    positive_int,
    warn_exposed,
)

__all__ = ["add_parser", "cmd_serve_env"]


def add_parser(sub: Any) -> None:
    se = sub.add_parser(
        "serve-env",
        help="serve every env over OpenEnv's HTTP/WebSocket protocol (needs the [openenv] extra)",
        epilog="example: mtp-gym serve-env --port 8000, then MTPEnvClient(base_url='http://127.0.0.1:8000')"
        ".sync().reset(env_id='MTP/TuringMachine-v0', config_id=3)",
    )
    listen(se, 8000, port_type=_port, port_help="port (default 8000)")
    se.add_argument("--env", default="MTP/WordGuess-v0", help="the env a session gets when reset names none")
    add_env_kwargs(se, "JSON object of kwargs for that default env")
    se.add_argument("--max-sessions", type=positive_int, default=64, help="concurrent WebSocket sessions (default 64)")
    se.set_defaults(func=cmd_serve_env)


def _port(text: str) -> int:
    port = port_number(text)
    if port == 0:
        raise argparse.ArgumentTypeError("must be a port number 1-65535 (clients need to know it), got '0'")
    return port


def _check_port(host: str, port: int) -> None:
    """Exit in one line when ``host:port`` cannot be listened on (uvicorn would log it after
    the start line); the socket is closed at once (``SO_REUSEADDR``, as uvicorn binds)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        with socket.socket(infos[0][0], socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(infos[0][4])
    except OSError as err:
        raise cannot_listen(host, port, err, port_flag="--port 8001") from None


def cmd_serve_env(args: argparse.Namespace) -> int:
    """Serve every env over OpenEnv's protocol (``mtp_gym.integrations.openenv_server``)."""
    check_env_id("--env", args.env)
    env_kwargs = json_arg("--env-kwargs", args.env_kwargs)
    check_env_kwargs("--env-kwargs", args.env, env_kwargs)
    try:
        from mtp_gym.integrations.openenv_server import serve
    except ImportError as err:
        raise fail(f"serve-env needs OpenEnv: pip install 'mtp-gym[openenv]' ({err})") from None
    warn_exposed(args.host, "run envs on it")
    _check_port(args.host, args.port)
    print(f"mtp-gym OpenEnv server on http://{args.host}:{args.port} (default env {args.env}); Ctrl-C stops it")
    serve(args.host, args.port, args.env, env_kwargs, args.max_sessions)
    return 0
