"""The shared base class of every text puzzle: the common env contract in one place.

A puzzle subclasses :class:`TextPuzzleEnv` and implements only its rules. The abstract hooks
(a subclass that lacks one cannot be instantiated):

* ``num_configs`` (size of the fixed benchmark split, 0 if the kwargs have none),
  ``_setup_benchmark(config_id)`` and ``_setup_generated()`` (draw with ``self.np_random``);
* ``_instructions()``: the first observation;
* ``_parse(action)``: turn free text into a move, or raise :class:`InvalidAction` with a
  message saying what was wrong (the game state must not be touched); it gets the reply
  with reasoning blocks already stripped and dashes made ASCII (see "How replies are read"
  below); several candidate tags go through :meth:`TextPuzzleEnv.read_one`;
* ``_play(move)``: apply a legal move and return a :class:`Reply`;
* ``_hidden()``: the secret state exposed as ``info["hidden"]`` (a :class:`FrozenInfo` of it:
  read-only, so every step may share it); a puzzle whose secret does not change within an
  episode sets ``hidden_fixed = True`` and the base class calls ``_hidden()`` once per reset.

Optional hooks: ``_episode_info()`` (extra ``info`` keys fixed for the episode, built once per
reset and shared between its steps as :class:`FrozenInfo`, e.g. a query game's ``game``; an
env whose ``_hidden()`` and ``_episode_info()`` copy all they hold sets ``infos_fresh = True``
and the reset keeps them uncopied),
``_format_hint()`` (appended to every re-prompt: how a well-formed action
looks now), ``_timeout()`` (the reply when the turn budget runs out),
``_benchmark_mismatch()`` (why these kwargs have no benchmark split), ``config_strata()``
(the factors a subset of the split must keep in proportion).

``super().__init__()`` resolves ``configs`` through ``num_configs``: a subclass sets whatever
``num_configs`` and ``_benchmark_mismatch()`` read before it calls ``super().__init__()``.

A reset seeds ``self.np_random`` as ``gym.Env.reset(seed=...)`` does (with the config id when a
configuration is asked for without a seed), through :func:`seeded_rng`: the same generator,
with the PCG64 words of a seed seen before kept, built when ``np_random`` is first read.

A move whose :class:`Reply` has outcome ``"timeout"`` (a puzzle's own budget, e.g. the Turing
Machine's round cap) ends the episode as a truncation, like the turn budget.

How replies are read (every puzzle follows this policy; a reply is never read as a move the
model did not make: a re-prompt costs nothing, a misread costs the game):

1. Reasoning blocks (``<think>…</think>``, ``<thinking>…</thinking>``, text before a lone
   ``</think>``, text after an unclosed ``<think>``) are removed before ``_parse`` sees the
   reply; the transcript keeps the reply as the model wrote it.
2. The move is read from the puzzle's tag (or marker) when the reply has one; letter case,
   whitespace, markdown emphasis and code fences around it do not matter.
3. Without a tag, only an unambiguous answer position counts (e.g. the yes/no words of a
   yes/no answer, read by the sentence: :func:`mtp_gym.envs.twenty_questions.parse_answer`);
   prose that mentions other candidates is never played.
4. Several tags: the same move repeated is one move; two different moves are re-prompted,
   naming them. A tag that does not read as a move beside one that does is a second move
   (a self-correction such as ``<answer>7</answer> … <answer>it must be 9</answer>``), so the
   reply is re-prompted too: the first tag never wins silently. Only a tag that restates the
   format (empty, ``...``, placeholder words such as ``<guess>bits</guess>``, ``<answer>N</answer>``
   or the env's own format text: :func:`mtp_gym.parsing.restates_format`) is ignored
   (:meth:`TextPuzzleEnv.read_one`).
5. A note beside a move is not a move: on a labelled line the move is what stands first
   (``<CHOICE>: 2 - I will not skip this round`` is verifier 2), and a note that corrects it
   (``2, actually 3``) is re-prompted (:func:`mtp_gym.parsing.corrects`). A word the reply
   attributes to someone else (Word Chain's opponent word) is not its move.
6. Every dash-like character reads as ``-`` (:data:`mtp_gym.parsing.DASHES`), so a Unicode
   minus or en dash before a number is a minus sign; a sign is never dropped (where negative
   numbers are not allowed, the reply is re-prompted).
7. A run of more than :data:`mtp_gym.parsing.MAX_DIGITS` digits is rejected before parsing,
   and reading is linear in the reply's length.
8. A rejected reply costs no turn and leaves the game state untouched; ``max_format_errors``
   rejections in a row (default 3, for every puzzle) end the episode as ``"format_error"``.

Every observation lies in ``observation_space``: characters outside :data:`TEXT_CHARSET`
become ``?`` and an over-long text is cut to ``obs_max_length`` (only echoes of the agent's
own text can make it so long).

The base class owns the turn budget, consecutive-format-error limit, ``info`` keys,
transcript, rendering, Text spaces and config selection. Every ``info`` value keeps one type
through an episode (``score`` is 0.0 until ``outcome`` is set): gymnasium's vector envs type
each batched key by the first env's value, so a puzzle's ``feedback`` must do the same.

``info`` is built for speed in vector envs: the per-step keys are flat scalars plus the small
``feedback`` dict, and what does not change within an episode (``hidden``, a query game's
``game``) is a :class:`FrozenInfo` built at reset and shared by every step of the episode. A
``FrozenInfo`` is a read-only :class:`~collections.abc.Mapping`, not a ``dict``: gymnasium's
vector envs keep it as one object per env (``info["hidden"][i]["secret"]``) instead of batching
each nested key (the cost of a step there is mostly that batching, per key). Reading a key
gives a fresh copy of a mutable value, so nobody can change what the next step returns;
``dict(...)``, ``copy.deepcopy`` and :func:`mtp_gym.eval.log.to_jsonable` give plain values
(``json.dumps`` wants ``dict(info["hidden"])``). ``info_secret=False`` (an argument of every
env built on this class that passes it on) leaves ``hidden`` out of ``info`` altogether: for
training, where the learner must never see the secret and every key costs time.

The malformed-action protocol (re-prompt saying what was wrong, count the streak, forfeit at
``max_format_errors``) is :class:`FormatErrors`: the base class, the multi-agent envs and the
probes that answer replies themselves all use it.

The contract for wrappers: a wrapper that rewrites what the agent sees, or answers a reply
itself, uses only :attr:`TextPuzzleEnv.transcript` (a read-only copy),
:meth:`TextPuzzleEnv.replace_last_observation`, :meth:`TextPuzzleEnv.record_exchange`,
:meth:`TextPuzzleEnv.build_info`, :meth:`TextPuzzleEnv.read_move` (with :func:`read_reply`)
and :func:`format_messages`, never the env's private state.
"""

from __future__ import annotations

import abc
import copy
import pickle
import string
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import gymnasium as gym
import numpy as np

from mtp_gym.parsing import (
    MAX_DIGITS,
    find_tags,
    format_restater,
    long_number,
    prepare_reply,
    restates_format,
    retracts,
)
from mtp_gym.spaces import TextSpace

__all__ = [
    "CONFIG_SOURCES",
    "PAPERS",
    "PuzzleInfo",
    "FormatRestated",
    "FrozenInfo",
    "thaw",
    "InvalidAction",
    "Reply",
    "TextPuzzleEnv",
    "TEXT_CHARSET",
    "OUTCOMES",
    "check_choice",
    "check_int",
    "control_field",
    "FormatErrors",
    "format_messages",
    "read_reply",
    "read_one",
    "refuse_retraction",
    "single",
    "to_charset",
]

#: Characters of every observation and action space: printable ASCII.
TEXT_CHARSET = string.printable
_CHARSET = frozenset(TEXT_CHARSET)
_ROLES = ("user", "assistant")  # a transcript's roles, by message index parity
_CHARSET_BYTES = TEXT_CHARSET.encode()
OUTCOMES = ("success", "failure", "format_error", "timeout")
CONFIG_SOURCES = ("benchmark", "generated")


class InvalidAction(ValueError):
    """Raised by a puzzle's ``_parse``: the message tells the agent what was wrong."""


class FormatRestated(InvalidAction):
    """Raised by a reader for a candidate that restates the format (``BLUE=X, YELLOW=Y``):
    ignored beside a real move (:func:`read_one`)."""


class Reply(NamedTuple):
    """What a puzzle returns for a legal move.

    ``outcome`` stays ``None`` while the game goes on; a puzzle that ends the game sets it
    (``"success"`` or ``"failure"``) together with ``score``.
    """

    text: str
    feedback: dict[str, Any]
    outcome: str | None = None
    score: float | None = None


#: The report's panels, in order: the two papers of env-level puzzles, then the query games.
PAPERS = ("Multi-Turn Puzzles", "TurnBench-MS", "Query games")


@dataclass(frozen=True)
class PuzzleInfo:
    """A puzzle's own facts, read by the report, the play page, the CLI and the docs
    (``mtp_gym.puzzle_info(env_id)``); each env class sets ``puzzle``."""

    #: The paper that defines it: one of :data:`PAPERS`.
    paper: str
    #: What success means and how the score is computed (the report's footnote).
    success_means: str
    #: Values of the env's ``prompt_style`` kwarg that a model's ``--prompt-style`` selects
    #: (the paper's own prompt variants); empty: the env has one prompt.
    prompt_styles: tuple[str, ...] = ()
    #: A query game's cell, ``(structure, inference)``; ``None`` for env-level puzzles.
    cell: tuple[str, str] | None = None
    #: A query game's difficulty levels and the default one; empty for env-level puzzles.
    levels: tuple[int, ...] = ()
    default_level: int | None = None

    @property
    def suite(self) -> str:
        """The report panel: the paper, or a query game's cell (``"set × deductive"``)."""
        return f"{self.cell[0]} × {self.cell[1]}" if self.cell else self.paper

    @property
    def order(self) -> int:
        """Sort key of the panel (the order of :data:`PAPERS`)."""
        return PAPERS.index(self.paper)

    def styled(self, env_kwargs: Mapping[str, Any], prompt_style: str | None) -> dict[str, Any]:
        """``env_kwargs`` plus the env's own variant of a model's ``prompt_style`` where the paper
        has one (TurnBench's Answer-Only and CoT prompts); an explicit ``prompt_style`` kwarg wins."""
        if prompt_style in self.prompt_styles:
            return {"prompt_style": prompt_style, **env_kwargs}
        return dict(env_kwargs)


class FrozenInfo(Mapping[str, Any]):
    """A read-only mapping for the parts of ``info`` that do not change within an episode
    (built once per reset, shared by every step). Not a ``dict``, so gymnasium's vector envs
    store it as one object per env instead of batching each nested key.

    Reading a key gives a fresh copy of a mutable value (dicts, lists and sets, all the way
    down; hashable tuples are shared), so a caller can never change what another step
    returns; ``dict(m)`` is therefore a plain, independent dict, and ``copy.deepcopy`` gives
    one too. Equal to any mapping with the same items. Pickles as itself.
    """

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any] | None = None, *, fresh: bool = False) -> None:
        """``data`` is copied all the way down, unless it is ``fresh`` (made for this mapping
        alone, as ``_hidden()`` makes its dict on every call: then only its top level is)."""
        items = (data or {}).items()
        self._data: dict[str, Any] = dict(items) if fresh else {k: thaw(v) for k, v in items}

    def __getitem__(self, key: str) -> Any:
        value = self._data[key]
        return value if isinstance(value, (str, int, float, type(None))) else thaw(value)

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __repr__(self) -> str:
        return f"FrozenInfo({self._data!r})"

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return {k: copy.deepcopy(v, memo) for k, v in self._data.items()}

    def __copy__(self) -> FrozenInfo:
        return self  # immutable

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenInfo, (self._data,))


def thaw(value: Any) -> Any:
    """A copy of ``value`` that shares nothing mutable: new dicts, lists and sets; a hashable
    tuple (immutable all the way down) is shared as it is."""
    if isinstance(value, (str, int, float)) or value is None:
        return value
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list):
        return [thaw(v) for v in value]
    if isinstance(value, set):
        return set(value)  # set members are hashable, hence immutable
    if isinstance(value, tuple):
        try:
            hash(value)
        except TypeError:  # holds a list, dict or set
            return tuple(thaw(v) for v in value)
    return value


class FormatErrors:
    """The malformed-action protocol shared by every env (:class:`TextPuzzleEnv`, the
    multi-agent envs, the probes that answer replies themselves): a malformed action is
    rejected with a re-prompt that says what was wrong and costs nothing; ``limit``
    rejections in a row end the episode (outcome ``"format_error"``). One counter per player
    and episode (make a new one on reset)."""

    def __init__(self, limit: int) -> None:
        #: Rejections in a row that end the episode (the env's ``max_format_errors``).
        self.limit = limit
        #: Rejections in this episode (``info["format_errors"]``).
        self.total = 0
        #: Rejections since the last well-formed action.
        self.in_a_row = 0

    def accept(self) -> None:
        """A well-formed action: the streak ends."""
        self.in_a_row = 0

    def reject(self, message: str, hint: str = "", end: str = "The game is over.") -> tuple[str, bool]:
        """Count one malformed action (``message``: what was wrong); the re-prompt and whether
        the streak reached :attr:`limit`. The re-prompt is ``Invalid action: <message> <hint>
        (format error k of n in a row)``; the last one has ``end`` instead of ``hint``, after
        the count."""
        self.total += 1
        self.in_a_row += 1
        count = f"(format error {self.in_a_row} of {self.limit} in a row)"
        if self.in_a_row >= self.limit:
            return f"Invalid action: {message} {count} {end}", True
        hint = f" {hint}" if hint else ""
        return f"Invalid action: {message}{hint} {count}", False


class SeedSequence(np.random.SeedSequence):
    """NumPy's ``SeedSequence`` whose :meth:`generate_state`, a pure function of its entropy,
    spawn key and pool size, is kept for the last :data:`SEED_STATES_KEPT` inputs: a reset seeds
    the generator Gymnasium's ``seeding.np_random`` makes (same state, ``spawn()`` and pickling)
    in half the time, most of a seeding being the PCG64 words generated from the pool."""

    def generate_state(self, n_words: int, dtype: Any = np.uint32) -> np.ndarray:
        try:
            key = (self.entropy, self.spawn_key, self.pool_size, n_words, dtype)
            words = _SEED_STATES.get(key)
        except TypeError:  # an entropy given as a list or an array: nothing kept
            return super().generate_state(n_words, dtype)
        if words is None:
            if len(_SEED_STATES) >= SEED_STATES_KEPT:
                _SEED_STATES.clear()
            words = _SEED_STATES[key] = super().generate_state(n_words, dtype)
        return words.copy()


#: Inputs of :meth:`SeedSequence.generate_state` whose words are kept (emptied when full).
SEED_STATES_KEPT = 4096
_SEED_STATES: dict[tuple, np.ndarray] = {}


def seeded_rng(seed: int) -> tuple[np.random.Generator, int]:
    """Gymnasium's ``seeding.np_random(seed)`` for an int ``seed >= 0``: the generator and its
    seed, from a :class:`SeedSequence`."""
    return np.random.Generator(np.random.PCG64(SeedSequence(seed))), seed


def control_field(name: str, options: list[str] | None = None) -> dict[str, Any]:
    """One input of a play control (:meth:`TextPuzzleEnv.play_controls`): a list where
    ``options`` is given, else free text."""
    return {"name": name, "options": options}


class TextPuzzleEnv(gym.Env[str, str], abc.ABC):
    """Base class of every text puzzle (see the module docstring for the hooks).

    ``defer_human_render``: a wrapper that rewrites what the agent sees (the probes) sets it
    and calls ``render()`` itself once its text is in the transcript.

    Common arguments:
        max_turns: turn budget; a legal move costs one turn, a malformed one costs none.
        configs: ``"benchmark"`` (reset draws one of the fixed configurations) or
            ``"generated"`` (reset builds a fresh one from ``self.np_random``). ``None``
            picks ``"benchmark"`` when the other kwargs match the benchmark, else
            ``"generated"``. ``reset(options={"config_id": i})`` always selects benchmark
            configuration ``i``; without a ``seed`` it seeds ``np_random`` with ``i``, so a
            configuration plays the same every time (opponents, simulated users).
        max_format_errors: consecutive malformed actions that end the episode with outcome
            ``"format_error"`` (default 3, as TurnBench retries).
        render_mode: ``"ansi"`` (``render()`` returns the transcript) or ``"human"``
            (each new message is printed).
        info_secret: ``True`` (default): ``info["hidden"]`` holds the secret state (for
            analysis; policies never get it, see :func:`mtp_gym.episode.public_info`).
            ``False``: ``info`` has no ``hidden`` key at all, for training loops where the
            learner must not see the secret (and a vector env batches one key less). A
            subclass that accepts it passes it to ``super().__init__()``.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 1}
    defer_human_render = False
    #: ``True``: ``_hidden()`` does not change within an episode, so the base class calls it
    #: once per reset and every step shares that :class:`FrozenInfo`.
    hidden_fixed: ClassVar[bool] = False
    #: ``True``: ``_hidden()`` and ``_episode_info()`` build every container in them anew at each
    #: call, sharing none with the env, so the reset's :class:`FrozenInfo` keeps them uncopied.
    infos_fresh: ClassVar[bool] = False
    #: The puzzle's facts (paper, what success means, prompt styles, a query game's cell).
    puzzle: ClassVar[PuzzleInfo]

    @classmethod
    def puzzle_info(cls, **kwargs: Any) -> PuzzleInfo:
        """:attr:`puzzle`; an env class that serves several puzzles reads its kwargs."""
        return cls.puzzle

    @classmethod
    def play_controls(cls, seen: list[str]) -> list[dict[str, Any]]:
        """Buttons and inputs for a person playing in the browser, read from the env's messages
        so far (``seen``, oldest first). A control is ``{"label", "template", "fields":
        [{"name", "options"}]}``: the page offers one input per field (a list where ``options``
        is given) and sends ``template`` with the fields filled in, exactly the text a model
        would write. Free text is always available too; the default offers nothing else."""
        return []

    #: Honest upper bounds for the Text spaces (subclasses tighten or widen them).
    obs_max_length: int = 16_384
    action_max_length: int = 8_192

    #: The generator, and the seed of the one still to be built (see :meth:`_seed`).
    _rng: np.random.Generator | None = None
    _rng_seed: int | None = None

    #: Attributes that are bookkeeping, not game state (see :meth:`game_state_digest`).
    _BOOKKEEPING = frozenset(
        {
            "_said",
            "_rendered",
            "_errors",
            "_last_feedback",
            "_valid_action",
            "_np_random_seed",
            "_rng",
            "_rng_seed",
            "_episode_keys",
            "_episode_hidden",
        }
    )

    def __init__(
        self,
        *,
        max_turns: int,
        configs: str | None = None,
        max_format_errors: int = 3,
        render_mode: str | None = None,
        info_secret: bool = True,
    ) -> None:
        check_int("max_turns", max_turns)
        check_int("max_format_errors", max_format_errors)
        check_choice("render_mode", render_mode, [*self.metadata["render_modes"], None])
        check_choice("info_secret", info_secret, [True, False])
        if configs is None:
            configs = "benchmark" if self.num_configs > 0 else "generated"
        check_choice("configs", configs, CONFIG_SOURCES)
        if configs == "benchmark" and self.num_configs == 0:
            raise ValueError(
                "configs='benchmark': these kwargs have no fixed benchmark split "
                f"({self._benchmark_mismatch()}); pass configs='generated'"
            )
        self.max_turns = max_turns
        self.configs = configs
        self.max_format_errors = max_format_errors
        self.render_mode = render_mode
        self.info_secret = info_secret
        self.observation_space = TextSpace(max_length=self.obs_max_length, min_length=0, charset=TEXT_CHARSET)
        self.action_space = TextSpace(max_length=self.action_max_length, min_length=0, charset=TEXT_CHARSET)
        self._said: list[str] = []  # the transcript's contents: the env's first, then turn about
        self._rendered = 0
        self._outcome: str | None = None
        self._score = 0.0
        self._turn = 0
        self._errors = FormatErrors(max_format_errors)
        self._config_id: int | None = None
        self._started = False
        self._episode_keys: dict[str, FrozenInfo] = {}
        self._episode_hidden: FrozenInfo | None = None

    # ------------------------------------------------------------------ puzzle hooks
    @property
    @abc.abstractmethod
    def num_configs(self) -> int:
        """Size of the fixed benchmark split for these kwargs (0: none)."""

    @abc.abstractmethod
    def _setup_benchmark(self, config_id: int) -> None:
        """Set up benchmark configuration ``config_id``."""

    @abc.abstractmethod
    def _setup_generated(self) -> None:
        """Set up a fresh configuration drawn with ``self.np_random``."""

    @abc.abstractmethod
    def _instructions(self) -> str:
        """The first observation: the task instructions."""

    @abc.abstractmethod
    def _parse(self, action: str) -> Any:
        """The move in ``action``, or :class:`InvalidAction` (game state untouched)."""

    @abc.abstractmethod
    def _play(self, move: Any) -> Reply:
        """Apply a legal move."""

    @abc.abstractmethod
    def _hidden(self) -> dict[str, Any]:
        """The secret state for ``info["hidden"]`` (wrapped in a :class:`FrozenInfo`; called
        once per reset when :attr:`hidden_fixed`, else once per step)."""

    def _episode_info(self) -> dict[str, dict[str, Any]]:
        """Extra ``info`` keys that stay fixed for the episode (e.g. a query game's public
        ``game``): built once per reset, each shared by every step as a :class:`FrozenInfo`."""
        return {}

    def config_strata(self) -> dict[str, list[Any]]:
        """The strata of the benchmark split: factor name -> its value for every config id
        (e.g. ``{"vocabulary": [...]}``); ``--split N`` keeps every factor's mix. Default: none."""
        return {}

    def _benchmark_mismatch(self) -> str:
        """Why these kwargs have no benchmark split (for the error message)."""
        return "no benchmark split is defined"

    def _format_hint(self) -> str:
        """Appended to every re-prompt: how a well-formed action looks in the current state."""
        return ""

    def _timeout(self) -> Reply:
        """Reply and score when the turn budget runs out (default: score 0)."""
        return Reply("The turn limit has been reached. The game is over.", {}, "timeout", 0.0)

    @property
    def format_hint(self) -> str:
        """How a well-formed action looks now (what a re-prompt appends)."""
        return self._format_hint()

    #: Words of the puzzle's own format text that a restated format may hold besides the
    #: format hint's (e.g. the Turing Machine's ``BLUE=X, YELLOW=Y, PURPLE=Z``), lower case.
    format_words: frozenset[str] = frozenset()

    def read_move(self, action: Any) -> Any:
        """The move a reply makes in the current state, by the reading policy (:func:`read_reply`,
        then ``_parse``); raises :class:`InvalidAction` saying what was wrong. Pure: the game
        state is not touched."""
        return self._parse(read_reply(action))

    def read_one(self, candidates: list[Any], read: Callable[[Any], Any], what: str, show: Any = repr) -> Any:
        """:func:`read_one` with this env's restated formats (its format hint's words and
        example, and :attr:`format_words`)."""
        return read_one(candidates, read, what, show, restated=self._restated)

    def read_tags(
        self,
        text: str,
        names: str,
        read: Callable[[Any], Any],
        what: str,
        show: Any = repr,
        *,
        missing: str | Callable[[], str],
        named: bool = True,
    ) -> Any:
        """The one move of the reply's complete tags whose names match the regex ``names``:
        :meth:`read_one` over ``(name, content)`` pairs (``named``) or contents, after refusing a
        reply that takes its move back after the last tag (:func:`refuse_retraction`).
        ``missing``: the error (or a function making it) when there is no such tag."""
        tags = find_tags(text, names)
        if not tags:
            raise InvalidAction(missing() if callable(missing) else missing)
        refuse_retraction(text[tags[-1].end :])
        return self.read_one([(t.name, t.content) if named else t.content for t in tags], read, what, show)

    def _restated(self, content: str, strict: bool = False) -> bool:
        return format_restater(self._format_hint(), self.format_words)(content, strict=strict)

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset()
        if seed is not None:
            self._seed(seed)
        config_id = None
        if options:
            unknown = set(options) - {"config_id"}
            if unknown:
                raise ValueError(f"reset options {sorted(unknown)} are not supported; allowed: ['config_id']")
            config_id = options.get("config_id")
        if config_id is not None:
            config_id = self._check_config_id(config_id)
            if seed is None:  # a benchmark configuration always plays the same (opponents, simulated users)
                self._seed(config_id)
        elif self.configs == "benchmark":
            config_id = int(self.np_random.integers(self.num_configs))
        if config_id is None:
            self._setup_generated()
        else:
            self._setup_benchmark(config_id)
        self._config_id = config_id
        self._turn = 0
        self._errors = FormatErrors(self.max_format_errors)
        self._outcome = None
        self._score = 0.0
        self._started = True
        fresh = self.infos_fresh
        self._episode_keys = {k: FrozenInfo(v, fresh=fresh) for k, v in self._episode_info().items()}
        if self.hidden_fixed and self.info_secret:
            self._episode_hidden = FrozenInfo(self._hidden(), fresh=fresh)
        else:
            self._episode_hidden = None
        obs = self._instructions()
        self._said = [obs]
        self._rendered = 0
        if self.render_mode == "human" and not self.defer_human_render:
            self.render()
        return obs, self._info({}, True)

    def _seed(self, seed: Any) -> None:
        """``gym.Env.reset(seed=seed)``: the same generator (see :func:`seeded_rng`), built when it
        is first read (most episodes of a benchmark configuration draw nothing)."""
        if type(seed) is int and seed >= 0:
            self._rng, self._rng_seed, self._np_random_seed = None, seed, seed
        else:  # Gymnasium's check names what is wrong with the seed
            super().reset(seed=seed)

    # Gymnasium's ``_np_random`` (read by ``np_random`` and by its env checker) as a property over
    # ``_rng``: the generator of ``_rng_seed`` is built when it is first read.
    @property
    def _np_random(self) -> np.random.Generator | None:
        rng = self._rng
        if rng is None and self._rng_seed is not None:
            rng, _ = seeded_rng(self._rng_seed)
            self._rng, self._rng_seed = rng, None
        return rng

    @_np_random.setter
    def _np_random(self, value: np.random.Generator | None) -> None:
        self._rng, self._rng_seed = value, None

    @property
    def np_random(self) -> np.random.Generator:
        """Gymnasium's ``np_random``: the generator of the last seeded reset (seeded at random when
        no seed was ever given)."""
        rng = self._rng
        return rng if rng is not None else super().np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self._rng, self._rng_seed, self._np_random_seed = value, None, -1

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self._outcome is not None:
            raise RuntimeError(f"step() called after the episode ended (outcome={self._outcome!r}); call reset()")
        if not self._started:
            raise RuntimeError("step() called before reset()")
        try:
            move = self.read_move(action)
        except InvalidAction as err:
            return self._reject(action if isinstance(action, str) else repr(action), str(err))
        self._errors.accept()
        self._turn += 1
        text, feedback, outcome, score = self._play(move)
        # A puzzle's own budget (outcome "timeout") truncates like the turn budget.
        truncated = outcome == "timeout"
        if outcome is not None:
            self._outcome, self._score = outcome, float(score or 0.0)
        elif self._turn >= self.max_turns:
            end = self._timeout()
            text = f"{text}\n{end.text}" if text else end.text
            truncated = True
            self._outcome, self._score = end.outcome, float(end.score or 0.0)
        terminated = self._outcome is not None and not truncated
        if not (text.isascii() and text.isprintable()) or len(text) > self.obs_max_length:
            text = self._observation(text)
        self._said += (action, text)
        if self.render_mode == "human" and not self.defer_human_render:
            self.render()
        reward = self._score if self._outcome is not None else 0.0
        return text, reward, terminated, truncated, self._info(feedback, True)

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self.transcript_text()
        if self.render_mode == "human":
            start = self._rendered
            self._rendered = len(self._said)
            if start < self._rendered:
                print(format_messages(self._messages(start)), flush=True)
        return None

    # ------------------------------------------------------------------ the contract for wrappers
    @property
    def transcript(self) -> list[dict[str, str]]:
        """The episode so far as chat messages (env = ``user``, agent = ``assistant``), made
        anew on each call: change it through :meth:`replace_last_observation` and :meth:`record_exchange`."""
        return self._messages(0)

    def _messages(self, start: int) -> list[dict[str, str]]:
        return [{"role": _ROLES[i & 1], "content": c} for i, c in enumerate(self._said[start:], start)]

    def transcript_text(self) -> str:
        """The transcript as ``render()`` shows it (:func:`format_messages`)."""
        return format_messages(self._messages(0))

    def replace_last_observation(self, text: str) -> None:
        """Make the transcript's last env message ``text``: for a wrapper that changed what the
        agent got (the record must hold what the agent saw). No-op if the last message is the
        agent's."""
        if len(self._said) & 1:
            self._said[-1] = text

    def record_exchange(self, action: str, observation: str) -> None:
        """Append one exchange to the transcript: the agent's ``action`` and the env's
        ``observation`` answering it (``step`` records its own; a wrapper that answers a reply
        itself, without stepping the env, records its exchange here)."""
        self._said += (action, observation)

    def build_info(self, feedback: dict[str, Any], valid: bool) -> dict[str, Any]:
        """The ``info`` dict of the current state with this step's ``feedback`` and whether
        the action was ``valid`` (every key of the contract; a puzzle's extra keys included):
        for a wrapper that answers a reply itself."""
        return self._info(feedback, valid)

    # ------------------------------------------------------------------ helpers
    def game_state_digest(self) -> bytes:
        """Pickle of every attribute except bookkeeping: equal digests, equal game state."""
        state = {k: v for k, v in sorted(vars(self).items()) if k not in self._BOOKKEEPING}
        return pickle.dumps(state)

    def _check_config_id(self, config_id: Any) -> int:
        n = self.num_configs
        if n == 0:
            raise ValueError(f"config_id: these kwargs have no benchmark split ({self._benchmark_mismatch()})")
        if isinstance(config_id, bool) or not isinstance(config_id, int) and not hasattr(config_id, "__index__"):
            raise ValueError(f"config_id must be an int in [0, {n - 1}], got {config_id!r}")
        config_id = int(config_id)
        if not 0 <= config_id < n:
            raise ValueError(f"config_id must be an int in [0, {n - 1}], got {config_id}")
        return config_id

    def _reject(self, action: str, message: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        text, terminated = self._errors.reject(message, self._format_hint())
        if terminated:
            self._outcome, self._score = "format_error", 0.0
        text = self._observation(text)
        self.record_exchange(action, text)
        if self.render_mode == "human" and not self.defer_human_render:
            self.render()
        return text, 0.0, terminated, False, self._info({"error": message}, False)

    def _observation(self, text: str) -> str:
        """``text`` inside the observation space: foreign characters as ``?``, cut to length."""
        if not (text.isascii() and text.isprintable()):
            text = to_charset(text)
        if len(text) > self.obs_max_length:
            text = text[: self.obs_max_length - 5] + " [..]"
        return text

    def _info(self, feedback: dict[str, Any], valid: bool) -> dict[str, Any]:
        info = {
            "turn": self._turn,
            "max_turns": self.max_turns,
            "feedback": feedback,
            "valid_action": valid,
            "format_errors": self._errors.total,
            "outcome": self._outcome,
            "score": self._score,
            "config_id": self._config_id,
        }
        if self.info_secret:
            hidden = self._episode_hidden
            info["hidden"] = FrozenInfo(self._hidden(), fresh=True) if hidden is None else hidden
        if self._episode_keys:
            info.update(self._episode_keys)
        return info


def to_charset(text: str) -> str:
    """``text`` with every character outside :data:`TEXT_CHARSET` replaced by ``?``."""
    if text.isascii() and not text.encode("ascii").translate(None, _CHARSET_BYTES):  # nothing left: all in
        return text
    return "".join(c if c in _CHARSET else "?" for c in text)


def single(values: list[Any], what: str, show: Any = repr) -> Any:
    """The one move named in ``values`` (repeats allowed), ``None`` if none; several different
    ones are an :class:`InvalidAction` naming them (a reply is never read as a move the
    model did not make)."""
    distinct = list(dict.fromkeys(values))
    if len(distinct) > 1:
        names = ", ".join(str(show(v))[:40] for v in distinct[:4])
        raise InvalidAction(f"the reply names {len(distinct)} different {what} ({names}); give exactly one.")
    return distinct[0] if distinct else None


def read_one(
    candidates: list[Any],
    read: Callable[[Any], Any],
    what: str,
    show: Any = repr,
    *,
    restated: Callable[..., bool] = restates_format,
) -> Any:
    """The one move that the ``candidates`` (tag contents, or ``(tag, content)`` pairs, in
    order) make through ``read`` (which raises :class:`InvalidAction` for a candidate that is
    not a move, :class:`FormatRestated` for one that restates the format).

    A candidate that restates the format (``restated(content, strict=...)``: placeholders
    such as ``<guess>bits</guess>``, or a copy of the env's own format example) is ignored
    beside one that does not; of candidates that read as moves, only placeholder words count
    as restated (``strict``: a single letter or an empty tag is a move of some puzzles). Different moves are an :class:`InvalidAction` naming them (:func:`single`).
    A candidate that is not a move beside one that is counts as a second move (a
    self-correction that does not parse as written), so it is an :class:`InvalidAction` too.
    With no move at all, the last candidate's error is raised.
    """
    if len(candidates) == 1:
        return read(candidates[0])
    moves: list[tuple[Any, Any]] = []
    unread: list[tuple[Any, InvalidAction]] = []
    for candidate in dict.fromkeys(candidates):
        try:
            moves.append((candidate, read(candidate)))
        except InvalidAction as err:
            unread.append((candidate, err))
    if not moves:
        raise unread[-1][1]

    def restating(candidate: Any, strict: bool = False) -> bool:
        return restated(str(candidate[-1] if isinstance(candidate, tuple) else candidate), strict=strict)

    if len({m for _, m in moves}) > 1:
        kept = [(c, m) for c, m in moves if not restating(c, strict=True)]
        moves = kept or moves
    move = single([m for _, m in moves], what, show)
    for candidate, error in unread:
        if not isinstance(error, FormatRestated) and not restating(candidate):
            raise InvalidAction(
                f"the reply names {show(move)} and also another move that is not valid as written "
                f"({str(error).rstrip('.')}); give exactly one."
            )
    return move


def refuse_retraction(tail: str) -> None:
    """An :class:`InvalidAction` when the text after a move takes it back (``— no wait, make
    that TRADE``): the reply then names another move than the one it wrote."""
    if retracts(tail):
        raise InvalidAction(
            "the reply takes its move back after making it; give exactly one move and no correction after it."
        )


def read_reply(action: Any) -> str:
    """A reply as every reader sees it (the module docstring's reading policy, steps 1, 6 and
    7): reasoning blocks removed and dashes made ASCII; an :class:`InvalidAction` for an action
    that is not text or holds a run of more than :data:`~mtp_gym.parsing.MAX_DIGITS` digits."""
    if not isinstance(action, str):
        raise InvalidAction(f"the action must be text (str), got {type(action).__name__}.")
    text = prepare_reply(action)
    if long_number(text):
        raise InvalidAction(f"the reply holds a number of more than {MAX_DIGITS} digits.")
    return text


def format_messages(messages: list[dict[str, str]]) -> str:
    """Chat messages as one text, the way ``render()`` shows a transcript: ``[ENV]`` and
    ``[AGENT]`` blocks separated by blank lines."""
    names = {"user": "ENV", "assistant": "AGENT"}
    return "\n\n".join(f"[{names.get(m['role'], m['role'])}]\n{m['content']}" for m in messages)


def check_choice(name: str, value: Any, allowed: Iterable[Any]) -> None:
    """A ``ValueError`` naming the argument and the allowed values unless ``value`` is one of
    ``allowed`` (a bool is not an int here: ``True`` is not ``1``)."""
    allowed = list(allowed)
    if not any(value == a and isinstance(value, bool) == isinstance(a, bool) for a in allowed):
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")


def check_int(name: str, value: Any, low: int = 1, high: int | None = None) -> None:
    """A ``ValueError`` naming the argument unless ``value`` is an int (not a bool) in
    ``low..high`` (``high=None``: no upper bound)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        if high is not None:
            allowed = f"an int in [{low}, {high}]"
        else:
            allowed = {0: "a non-negative int", 1: "a positive int"}.get(low, f"an int >= {low}")
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
