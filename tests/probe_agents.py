"""Necessity-probe players the probe tests load directly or as ``py:probe_agents:…`` (tests/ on
PYTHONPATH): the reference solver's answers with other pruning choices."""

from __future__ import annotations

import re
from typing import Any

from mtp_gym.agents.oracles.necessity import NecessityOracle
from mtp_gym.games import resolve_game
from mtp_gym.registration import GAME_IDS

_UNNECESSARY = re.compile(r"<unnecessary>(.*?)</unnecessary>", re.DOTALL)


class _Pruner:
    """The reference solver's answers; :meth:`prune` rewrites its ``<unnecessary>`` list."""

    def __init__(self, seed: int | None = None) -> None:
        self._seed = seed
        self._solvers: dict[str, NecessityOracle] = {}

    def reset(self, seed: int | None = None) -> None:
        for solver in self._solvers.values():
            solver.reset(seed)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        name = info["game"]["name"]
        if name not in self._solvers:
            self._solvers[name] = NecessityOracle(resolve_game(GAME_IDS[f"MTP/{name}-v0"]), seed=self._seed)
        action = self._solvers[name].act(observation, info)
        return _UNNECESSARY.sub(lambda m: f"<unnecessary>{self.prune(m.group(1))}</unnecessary>", action)

    def prune(self, optimal: str) -> str:
        raise NotImplementedError


class KeepAll(_Pruner):
    """Right answers, no observation named unnecessary: the player the old score could not tell
    from an optimal pruner."""

    def prune(self, optimal: str) -> str:
        return ""


class HalfPruner(_Pruner):
    """Right answers, the first half (rounded down) of an optimal pruner's removals."""

    def prune(self, optimal: str) -> str:
        from mtp_gym.wrappers.probes.necessity import format_numbers

        numbers = _numbers(optimal)
        return format_numbers(numbers[: len(numbers) // 2])


def _numbers(text: str) -> list[int]:
    out: list[int] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return out


class Garbage:
    """Replies that are never a move (every episode ends in ``format_error``)."""

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: str, info: dict[str, Any]) -> str:
        return "I would rather not say."
