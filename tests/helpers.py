"""Helpers the test modules share (fixtures stay in ``conftest.py``)."""

from __future__ import annotations

import json
import os
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
from mtp_gym.agents.oracles.query_games import VersionSpace, game_from_info
from mtp_gym.episode import play

__all__ = [
    "CLI_ENV",
    "ENV_IDS",
    "ScanPlayer",
    "agent_kinds",
    "cli",
    "free_port",
    "openenv_server",
    "play_random",
    "slow_eval_args",
]

ENV_IDS = sorted(mtp_gym.ENV_IDS)
TESTS = Path(__file__).parent
#: The environment for CLI subprocesses: tests/ importable (``py:harness_agents:…`` agents).
CLI_ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}


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


class ScanPlayer:
    """A query game's scan: asks ``query`` of each item in order and answers as soon as the
    replies (and the rules) determine the answer; the strategy a level must defeat.

    The items are the one-item arguments of ``query`` (``member(3)``, ``sum(3, 3)``), or every
    argument with ``every_arg``; ``skip_known`` skips an item whose reply the remaining
    candidates already agree on (the strongest scan: a plain one asks the same and more).
    """

    def __init__(self, game_cls: type, query: str, every_arg: bool = False, skip_known: bool = False) -> None:
        self.game_cls, self.query, self.every_arg, self.skip_known = game_cls, query, every_arg, skip_known

    def reset(self, seed: int | None = None) -> None:
        self.space, self.evidence = None, {}

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if self.space is None:
            self.space = VersionSpace(game_from_info(self.game_cls, info))
            args = self.space.game.query_args(self.query)
            self.scan = iter(args if self.every_arg else [a for a in args if len(set(a)) == 1])
        feedback = info.get("feedback") or {}
        if "query" in feedback:
            self.evidence[(feedback["query"], tuple(feedback["args"]))] = feedback["answer"]
        alive = self.space.consistent(self.evidence)
        targets = {self.space.targets[i] for i in alive}
        if len(targets) > 1:
            for args in self.scan:  # a reply known now stays known: the candidates only shrink
                if (
                    not self.skip_known
                    or len(set(self.space.codes(self.space.index[(self.query, args)])[0][alive])) > 1
                ):
                    return self.space.game.describe_query(self.query, args)
        return f"<answer>{self.space.game.format_answer(targets.pop())}</answer>"
