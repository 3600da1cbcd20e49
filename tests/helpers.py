"""Helpers the test modules share (fixtures stay in ``conftest.py``)."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import gymnasium as gym

import mtp_gym
from mtp_gym.agents import agent_kinds, make_agent
from mtp_gym.episode import play

__all__ = [
    "CLI_ENV",
    "ENV_IDS",
    "agent_kinds",
    "cli",
    "free_port",
    "openenv_server",
    "play_random",
    "shown_tags",
    "slow_eval_args",
]

ENV_IDS = sorted(mtp_gym.ENV_IDS)
TESTS = Path(__file__).parent
#: The environment for CLI subprocesses: tests/ importable (``py:harness_agents:…`` agents).
CLI_ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}


_TAG_NAME_RE = re.compile(r"<\s*/?\s*([A-Za-z_][A-Za-z0-9_]*)\s*>")
_EXAMPLE_RE = re.compile(r"<([A-Za-z_][A-Za-z0-9_]*)>([^<]{1,200})</\1>")


def shown_tags(env: gym.Env, first_observation: str) -> tuple[list[str], list[tuple[str, str]]]:
    """Every tag name an env shows the player (its instructions and its format hint), plus the
    reasoning tags every env strips; and every example move they show, as (tag, content)."""
    shown = first_observation + getattr(env.unwrapped, "format_hint", "")
    names = {m.group(1) for m in _TAG_NAME_RE.finditer(shown)}
    examples = list(dict.fromkeys(m.groups() for m in _EXAMPLE_RE.finditer(shown)))
    return sorted(names | {"think", "thinking", "answer"}), examples


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def openenv_server() -> Iterator[int]:
    """``mtp-gym serve-env``'s server (the CLI's uvicorn config) on a free loopback port, for
    the length of the ``with``; yields the port."""
    import uvicorn

    from mtp_gym.integrations.openenv_server import server_config

    port = free_port()
    server = uvicorn.Server(server_config("127.0.0.1", port, log_level="critical"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the OpenEnv server did not start"
        time.sleep(0.05)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def cli(*args: str, env: dict[str, str] | None = None, **kw: Any) -> subprocess.CompletedProcess:
    """``mtp-gym ARGS`` in a subprocess, output captured."""
    cmd = [sys.executable, "-m", "mtp_gym.cli", *args]
    return subprocess.run(cmd, env=env or CLI_ENV, capture_output=True, text=True, **kw)


def slow_eval_args(
    out: Path, env_id: str, split: str, delay: float, workers: int = 1, executor: str = "thread"
) -> list[str]:
    """``eval`` arguments for the env's random agent slowed to ``delay`` s per action (runs a test can kill)."""
    agent_kwargs = json.dumps({"env": env_id, "delay": delay})
    return [
        "eval", "--env", env_id, "--agent", "py:harness_agents:SlowAgent", "--agent-kwargs", agent_kwargs,
        "--split", split, "--workers", str(workers), "--executor", executor, "--out", str(out),
        "--no-report", "--no-progress",
    ]  # fmt: skip


def play_random(env: gym.Env, env_id: str, config_id: int, seed: int = 0) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield (observation, info) along one episode of the env's random agent."""
    for step in play(env, make_agent("random", env_id), config_id=config_id, seed=seed):
        yield step.observation, step.info
