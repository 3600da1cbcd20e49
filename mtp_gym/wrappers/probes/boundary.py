"""Inter-game boundary control (paper sections 3.3, 3.5): a new game behind an old transcript.

"Each game is initialized with the full interaction history of another randomly sampled
game": the first observation is the whole transcript of a previous episode (its rules, every
action and reply, its end message), then the new game's rules. The Policy protocol hands an
agent one observation string, so the previous conversation is rendered in it the way
``render()`` shows a transcript (``[ENV]`` / ``[AGENT]`` blocks), and the new rules follow as
the next ``[ENV]`` block, as the next message of one ongoing conversation; nothing announces
the boundary unless ``announce=True``.

Where the previous transcript comes from (seeded, so every run sees the same one): a game
drawn uniformly from ``games`` (default: every other registered query game, or this same
game when it is the only one), at the same difficulty level, benchmark configuration drawn
uniformly from its split, taken from the transcript ``source``: by name, that game's
registered agent playing it (``"oracle"``, default: a clean, successful episode; or
``"random"``: a failed, longer one; :mod:`mtp_gym.agents` registers both), or any callable
(e.g. pre-played transcripts). The draw is a function of the reset seed and the probe's
``seed``. ``info["probe"]["previous"]`` names the
previous game, configuration, agent and outcome.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

import gymnasium as gym

from mtp_gym.core import format_messages
from mtp_gym.games.env import CONFIGS_PER_LEVEL, GameEnv
from mtp_gym.registration import GAME_IDS
from mtp_gym.wrappers.probes.base import ProbeWrapper

__all__ = ["InterGameBoundary", "TRANSCRIPT_SOURCES", "TranscriptSource", "register_transcript_source"]

#: ``source(env_id, level, config_id, seed) -> (messages, outcome)``: the chat messages of a
#: previous game of ``env_id`` at ``level``, benchmark configuration ``config_id`` (played with
#: ``seed``), and its outcome. Pre-played transcripts fit too: ``lambda *key: table[key]``.
TranscriptSource = Callable[[str, int, int, int], tuple[list[dict[str, str]], str]]

#: Named sources; :mod:`mtp_gym.agents` registers ``"oracle"`` and ``"random"`` (its agents
#: playing the previous game) when it is imported.
TRANSCRIPT_SOURCES: dict[str, TranscriptSource] = {}


def register_transcript_source(name: str, source: TranscriptSource) -> None:
    """Make ``InterGameBoundary(env, source=name)`` take its previous games from ``source``."""
    TRANSCRIPT_SOURCES[name] = source


@lru_cache(maxsize=1024)
def _previous_text(source: TranscriptSource, env_id: str, level: int, config_id: int) -> tuple[str, str]:
    """The previous game (seeded with its config id) as one text, and its outcome."""
    messages, outcome = source(env_id, level, config_id, config_id)
    return format_messages(messages), outcome


class InterGameBoundary(ProbeWrapper):
    """Put a previous game's whole transcript in front of each new game (see module docstring).

    Args:
        source: where the previous games come from: the name of a registered source
            (``"oracle"`` or ``"random"`` once :mod:`mtp_gym.agents` is imported), or a
            :data:`TranscriptSource` callable.
        games: env ids the previous game is drawn from (default: every other id of
            ``GAME_IDS``; this game's own id if it is the only one).
        announce: add "A new game starts now." between the transcript and the new rules.
        seed: salts the draw.
    """

    probe = "boundary"
    base: GameEnv

    def __init__(
        self,
        env: gym.Env,
        source: str | TranscriptSource = "oracle",
        games: list[str] | tuple[str, ...] | None = None,
        announce: bool = False,
        seed: int = 0,
    ) -> None:
        super().__init__(env, seed=seed, source=source, games=games, announce=announce)
        if callable(source):
            self.source_name = getattr(source, "__name__", type(source).__name__)
        elif source in TRANSCRIPT_SOURCES:
            self.source_name, source = source, TRANSCRIPT_SOURCES[source]
        else:
            raise ValueError(
                f"source must be a transcript source callable or one of {sorted(TRANSCRIPT_SOURCES)}, got {source!r}"
                + ("" if TRANSCRIPT_SOURCES else " (import mtp_gym.agents to register 'oracle' and 'random')")
            )
        own = f"MTP/{self.base.game_cls.name}-v0"
        if games is None:
            games = [g for g in sorted(GAME_IDS) if g != own] or [own]
        games = list(games)
        unknown = [g for g in games if g not in GAME_IDS]
        if unknown or not games:
            raise ValueError(f"games: unknown query-game id(s) {unknown or games}; allowed: {sorted(GAME_IDS)}")
        self.source, self.games, self.announce = source, games, bool(announce)
        self.previous: dict[str, Any] | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        rng = self._reseed(seed)
        env_id = self.games[int(rng.integers(len(self.games)))]
        level = self.base.difficulty
        config_id = int(rng.integers(CONFIGS_PER_LEVEL))
        text, outcome = _previous_text(self.source, env_id, level, config_id)
        self.previous = {
            "env_id": env_id,
            "level": level,
            "config_id": config_id,
            "source": self.source_name,
            "outcome": outcome,
        }
        rules = f"A new game starts now.\n\n{obs}" if self.announce else obs
        obs = f"{text}\n\n[ENV]\n{rules}"
        self._set_last_message(obs)
        return obs, self._tag(info)

    def step(self, action: str):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, truncated, self._tag(info)

    def _public(self) -> dict[str, Any]:
        return {"name": self.probe, "previous": dict(self.previous) if self.previous else None}
