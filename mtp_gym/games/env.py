"""One generic Gymnasium env for every hidden-state query game (interactive reasoning paper).

The env class :class:`GameEnv` carries the documentation (Gymnasium headings).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Hashable
from typing import Any

from mtp_gym.core import (
    PAPERS,
    InvalidAction,
    PuzzleInfo,
    Reply,
    TextPuzzleEnv,
    check_choice,
    check_int,
    control_field,
)
from mtp_gym.games.base import ACTION_NAMES, LEVELS, Game, missing_action

__all__ = ["GameEnv", "resolve_game", "CONFIGS_PER_LEVEL", "DEFAULT_DIFFICULTY"]

CONFIGS_PER_LEVEL = 20
DEFAULT_DIFFICULTY = 3
#: The rules text of each benchmark configuration shown, in the game's own words: one text for
#: every env (a harness plays each in-flight episode on its own env), emptied when full.
_BENCHMARK_RULES: dict[tuple[type[Game], int, int], str] = {}
_BENCHMARK_RULES_HELD = 2048


def resolve_game(game: type[Game] | str) -> type[Game]:
    """A ``Game`` subclass from itself or from ``"module:Class"``."""
    if isinstance(game, str):
        module, _, attr = game.partition(":")
        game = getattr(importlib.import_module(module), attr)
    if not (isinstance(game, type) and issubclass(game, Game)):
        raise ValueError(f"game must be a Game subclass or 'module:Class', got {game!r}")
    return game


def feedback_value(answer: Hashable) -> Hashable:
    """A query's answer as ``info["feedback"]["answer"]``: yes/no as 1/0, so that a game whose
    queries answer both yes/no and counts batches into one integer array in gymnasium's vector
    envs (which type a batched info key by its first env's value)."""
    return int(answer) if isinstance(answer, bool) else answer


class GameEnv(TextPuzzleEnv):
    """One generic Gymnasium env for every hidden-state query game (interactive reasoning paper).

    Description:
        Algorithm 1 of the paper: the env instantiates a :class:`~mtp_gym.games.base.Game` from a
        configuration and a difficulty level, shows its rules, answers queries and checks the
        final answer. Each game is registered as ``MTP/<GameName>-v0`` with this class as entry
        point and the game class as the ``game`` kwarg (see ``mtp_gym/registration.py``).

    Prompt Format:
        The game's rules (``Game.rules()``): objective, the public part of the configuration, one
        example per query, the answer format and the turn budget. A query reply is
        ``<query_NAME>args</query_NAME>: VALUE`` (Yes/No, a number, ...).

    Action Format:
        ``<query_NAME>arg1, arg2</query_NAME>`` or ``<answer>...</answer>`` anywhere in the reply;
        one move per reply (the same tag repeated is fine; two different moves are a re-prompt
        naming both; a tag that holds no move is ignored); tag names are case-insensitive. A missing tag, an unknown
        query, wrong argument count/type, an illegal argument or an unparseable answer is a
        format error: re-prompt, no turn spent, state untouched. Deviation from the paper
        (which stops at the first format error): the episode ends with ``format_error`` after
        ``max_format_errors`` consecutive errors (default 3, as TurnBench retries); pass
        ``max_format_errors=1`` for the paper's protocol.

    Observation Space:
        ``Text`` over printable ASCII.

    Rewards:
        0 per step; terminal reward = score = 1.0 for a correct answer, else 0.0.

    Starting State:
        Benchmark split: ``configs_per_level`` (20) configurations per game and level, instance
        ``i`` drawn by the game from ``config_rng(name, level, i)`` (fixed seeds). ``configs=
        "generated"`` draws a fresh instance from ``self.np_random``.

    Episode End:
        An ``<answer>`` ends the episode (``success`` if right, else ``failure``); the turn budget
        (``Game.budgets[level-1]`` unless ``max_turns`` is given; queries and the answer all
        count) truncates with ``timeout``; ``max_format_errors`` consecutive format errors end it
        with ``format_error``.

    Information:
        The common keys, plus ``game`` (public, seen by agents): ``name``, ``structure``,
        ``inference``, ``level``, ``public``. ``feedback`` after a query: ``query``, ``args``
        (tuple), ``answer`` (the value, yes/no as 1/0: ``feedback_value``); after an answer:
        ``submitted`` (parsed), ``correct``; on a format error: ``error``. Probes that alter an
        answer must alter ``feedback["answer"]`` too, and announce a correction as
        ``feedback["corrections"] = [{"query", "args", "answer"}]``. ``hidden``: ``state`` (the
        hidden state), ``target`` (the right answer text), ``public``, ``level``. ``game`` and
        ``hidden`` are built once per reset and shared by the episode's steps as read-only
        mappings (:class:`~mtp_gym.core.FrozenInfo`); ``info_secret=False`` leaves ``hidden`` out.

    Arguments:
        ``game`` (a ``Game`` subclass or ``"module:Class"``), ``difficulty`` (1-5, default 3),
        ``max_turns`` (``None``: the game's budget for the level), ``configs`` (``None`` |
        ``"benchmark"`` | ``"generated"``), ``configs_per_level`` (20), ``vocabulary`` (override
        of the game's entity nouns, for isomorphic rewrites), ``wording`` (another telling of the
        rules and query helps, see ``Game.check_wording``), ``max_format_errors`` (3),
        ``render_mode``, ``info_secret`` (``True``; ``False``: no ``hidden`` in ``info``, for training).

    Version History:
        v0: initial release. Before the first tagged release, the turn budgets were set by the
        rule of ``mtp_gym/games/README.md`` (twice the oracle's mean turns, room for the
        ``careful`` player); the benchmark split's rules text (and golden hashes) changed.
    """

    hidden_fixed = True  # the game's hidden state is drawn at reset and never changes
    infos_fresh = True  # _hidden() and public_view() copy the game's state and public part

    @classmethod
    def puzzle_info(cls, game: type[Game] | str = "", **kwargs: Any) -> PuzzleInfo:
        """The facts of the query game ``game`` (its cell and levels)."""
        game_cls = resolve_game(game)
        return PuzzleInfo(
            PAPERS[2],
            "a correct final answer (score the same)",
            cell=(game_cls.structure, game_cls.inference),
            levels=LEVELS,
            default_level=DEFAULT_DIFFICULTY,
        )

    @classmethod
    def play_controls(cls, seen: list[str]) -> list[dict[str, Any]]:
        """Read from the last answer example of the latest message that shows one (the rules, or a
        probe's task): ``Answer``, which fills the answer's tag and the tag lines that follow it
        in the example (the necessity probe's ``<unnecessary>``), and, when the example is the
        rules' own line, one ``Ask <query>`` per query example line just above it (a text field
        for the arguments when the example has any). An example inside a sentence (a task that
        asks for the answer only) offers ``Answer`` alone."""
        tag_line = re.compile(r"[ \t]*<(\w+)>.*?</\1>[ \t]*$")
        query_line = re.compile(r"[ \t]*<(query_\w+)>(.*?)</\1>")
        for message in reversed(seen):
            examples = list(re.finditer(r"<answer>.*?</answer>", message))
            if examples:
                break
        else:
            return []
        at = message.rfind("\n", 0, examples[-1].start()) + 1  # the example's line
        tags = []
        for line in message[at:].splitlines():
            m = tag_line.match(line)
            if m is None or m[1].startswith("query_"):
                break
            tags.append(m[1])
        answer = {
            "label": "Answer",
            "template": "\n".join(f"<{t}>{{{t}}}</{t}>" for t in tags or ["answer"]),
            "fields": [control_field(t) for t in tags or ["answer"]],
        }
        above = message[:at].splitlines()[::-1]
        if above and not query_line.match(above[0]):
            above = above[1:]  # the "submit:" line
        queries: list[dict[str, Any]] = []
        for line in above if tags else []:
            q = query_line.match(line)
            if q is None:
                break
            tag, example = q[1], q[2].strip()
            queries.insert(
                0,
                {
                    "label": "Ask " + tag.removeprefix("query_"),
                    "template": f"<{tag}>" + ("{arguments}" if example else "") + f"</{tag}>",
                    "fields": [control_field("arguments")] if example else [],
                },
            )
        return [*queries, answer]

    def __init__(
        self,
        game: type[Game] | str,
        difficulty: int = DEFAULT_DIFFICULTY,
        max_turns: int | None = None,
        configs: str | None = None,
        configs_per_level: int = CONFIGS_PER_LEVEL,
        vocabulary: dict[str, str] | None = None,
        wording: dict[str, Any] | None = None,
        max_format_errors: int = 3,
        render_mode: str | None = None,
        info_secret: bool = True,
    ) -> None:
        self.game_cls = resolve_game(game)
        check_choice("difficulty", difficulty, LEVELS)
        check_int("configs_per_level", configs_per_level)
        self.difficulty = difficulty
        self.configs_per_level = configs_per_level
        self.vocabulary = dict(vocabulary) if vocabulary else None
        self.game_cls.check_vocabulary(self.vocabulary)
        self.wording = self.game_cls.check_wording(wording) or None
        super().__init__(
            max_turns=self.game_cls.budget(difficulty) if max_turns is None else max_turns,
            configs=configs,
            max_format_errors=max_format_errors,
            render_mode=render_mode,
            info_secret=info_secret,
        )
        self.game: Game | None = None

    @property
    def num_configs(self) -> int:
        return self.configs_per_level

    @property
    def live_game(self) -> Game:
        """The game of the current episode (``reset()`` sets :attr:`game`)."""
        if self.game is None:
            raise RuntimeError("step() called before reset()")
        return self.game

    def _setup_benchmark(self, config_id: int) -> None:
        self.game = self.game_cls.benchmark(
            self.difficulty, config_id, vocabulary=self.vocabulary, wording=self.wording
        )

    def _setup_generated(self) -> None:
        self.game = self.game_cls.generate(
            self.difficulty, self.np_random, vocabulary=self.vocabulary, wording=self.wording
        )

    def _instructions(self) -> str:
        if self._config_id is None or self.vocabulary is not None or self.wording is not None:
            return self.live_game.rules()
        key = (self.game_cls, self.difficulty, self._config_id)
        text = _BENCHMARK_RULES.get(key)
        if text is None:
            if len(_BENCHMARK_RULES) >= _BENCHMARK_RULES_HELD:
                _BENCHMARK_RULES.clear()
            text = _BENCHMARK_RULES[key] = self.live_game.rules()
        return text

    def _format_hint(self) -> str:
        return "Reply with one <query_NAME>args</query_NAME> or <answer>...</answer>."

    def _parse(self, action: str) -> tuple[str, Any]:
        return self.read_tags(
            action,
            ACTION_NAMES,
            self._read_tag,
            "moves",
            show=lambda m: f"{m[0]} {m[1]}",
            missing=lambda: missing_action(action),
        )

    def _read_tag(self, found: tuple[str, str]) -> tuple[str, Any]:
        tag, content = found
        if tag == "answer":
            if not content:
                raise InvalidAction(f"the answer is empty; submit as {self.live_game.answer_format}.")
            return "answer", self.live_game.parse_answer(content)
        name = tag[len("query_") :]
        return name, self.live_game.parse_query(name, content)

    def _play(self, move: tuple[str, Any]) -> Reply:
        kind, value = move
        game = self.live_game
        if kind == "answer":
            right = game.check(value)
            text = "Correct! " if right else "Wrong. "
            text += f"The answer was {game.format_answer(game.target(game.hidden))}. The game is over."
            outcome = "success" if right else "failure"
            return Reply(text, {"submitted": value, "correct": right}, outcome, 1.0 if right else 0.0)
        answer = game.respond(game.hidden, kind, value)
        return Reply(game.reply(kind, value, answer), {"query": kind, "args": value, "answer": feedback_value(answer)})

    def _timeout(self) -> Reply:
        game = self.live_game
        target = game.format_answer(game.target(game.hidden))
        return Reply(
            f"You have used all {self.max_turns} turns without an answer. The answer was {target}.",
            {},
            "timeout",
            0.0,
        )

    def _hidden(self) -> dict[str, Any]:
        game = self.game
        if game is None:
            return {}
        view = game.public_view()
        return {
            "state": _plain_copy(game.hidden),
            "target": game.format_answer(game.target(game.hidden)),
            "public": view["public"],
            "level": game.level,
        }

    def _episode_info(self) -> dict[str, dict[str, Any]]:
        return {"game": self.live_game.public_view()}


def _plain_copy(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain_copy(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_plain_copy(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain_copy(v) for k, v in value.items()}
    return value
