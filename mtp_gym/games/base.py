"""The ``Game`` interface of the hidden-state query games (interactive reasoning paper, app. B).

A game file defines one :class:`Game` subclass holding only its hidden state, its queries,
its answer check, its description (the class docstring) and its telling for the isomorphic
probe (``domains``, ``story``: :mod:`mtp_gym.games.domains`). Everything else (XML parsing,
format validation, turn budget, the fixed split of configurations, ``info``, the oracle, the
random agent, the probes) is generic and works from these hooks:

==========================  ===========================================================
class attributes            ``name``, ``structure`` (set/sequence/tree/graph),
                            ``inference`` (deductive/inductive/abductive), ``levels``
                            (5 parameter dicts, level 1..5), ``budgets`` (5 turn budgets),
                            ``queries`` (:class:`QuerySpec` tuple), ``vocabulary``
                            (entity/relation nouns used in rules text and replies),
                            ``rules_template``, ``answer_format``
``candidate_states()``      (abstract, as the next three) every hidden state the level allows (given ``self.public``)
``respond(hidden, q, a)``   the answer to query ``q`` with args ``a`` in state ``hidden``
``query_args(q)``           every legal argument tuple of query ``q``
``parse_answer(text)``      the submitted text -> a target-comparable value (or raise
                            :class:`~mtp_gym.core.InvalidAction`)
optional                    ``target(hidden)`` (what the agent must submit, default the
                            hidden state), ``format_answer(target)`` (answer text, default
                            ``str``), ``sample_public(level, rng)`` (public part of a configuration,
                            default ``{}``), ``sample_hidden(rng)`` (default: uniform over
                            ``candidate_states``), ``enumerable = False`` with
                            ``sample_consistent(evidence, rng, n)`` for huge spaces,
                            ``render_value``, ``wrong_answer``, ``rules_fields``,
                            ``example_args``; the class attributes ``domains`` and
                            ``story`` (the isomorphic probe needs both)
==========================  ===========================================================

Methods that take ``hidden`` as an argument are pure in it, so the oracle can evaluate them
on every candidate state of its version space.

The paper's ``Game`` methods map to: ``initialize_game`` -> :meth:`Game.generate` /
:meth:`Game.benchmark`; ``step``/``produce`` -> :meth:`Game.parse_query` + :meth:`Game.respond`;
``evaluate`` -> :meth:`Game.check`; ``get_all_possible_queries`` -> :meth:`Game.evidence_pool`;
``cf_make_wrong`` -> :meth:`Game.wrong_answer`.
"""

from __future__ import annotations

import abc
import re
import zlib
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from typing import Any, ClassVar

import numpy as np

from mtp_gym.core import InvalidAction, check_choice, single, thaw
from mtp_gym.games.domains import Story
from mtp_gym.parsing import find_tags, ints

__all__ = [
    "QuerySpec",
    "Game",
    "Evidence",
    "config_rng",
    "ACTION_NAMES",
    "action_tags",
    "missing_action",
    "parse_action",
    "answer_items",
    "answer_ints",
    "answer_subset",
    "answer_number",
    "STRUCTURES",
    "INFERENCES",
]

STRUCTURES = ("set", "sequence", "tree", "graph")
INFERENCES = ("deductive", "inductive", "abductive")
LEVELS = (1, 2, 3, 4, 5)

#: ``(query name, args tuple, answer value)``: one observation of the evidence pool.
Evidence = tuple[str, tuple, Hashable]

#: The tag names of a query-game move (a regex for :func:`mtp_gym.parsing.find_tags`).
ACTION_NAMES = "query_[a-z0-9_]+|answer"
_OPEN_RE = re.compile(r"<\s*(query_[a-z0-9_]*|answer)\b", re.IGNORECASE)
_QUERY_ARGS_SPLIT = re.compile(r"[,\s]+")


@dataclass(frozen=True)
class QuerySpec:
    """A named query: ``<query_NAME>arg1, arg2</query_NAME>``; ``args`` are ``int`` or ``str``."""

    name: str
    args: tuple[type, ...] = ()
    help: str = ""

    @property
    def tag(self) -> str:
        return f"query_{self.name}"

    def example(self, args: Sequence[Any]) -> str:
        """The XML action asking this query with ``args``."""
        tag = self.tag
        return f"<{tag}>{', '.join(map(str, args))}</{tag}>"


def config_rng(game_name: str, level: int, index: int) -> np.random.Generator:
    """The generator of benchmark configuration ``index`` of ``game_name`` at ``level``.

    Seeded from a stable hash of the name, so the split is the same on every machine and
    does not move when other games are added.
    """
    return np.random.default_rng([zlib.crc32(game_name.encode()), level, index])


def answer_items(text: str) -> list[str]:
    """The comma- or space-separated items of an ``<answer>`` (enclosing brackets and a final
    period stripped)."""
    return [p for p in re.split(r"[,;\s]+", text.strip(" .{}[]()")) if p]


def _allowed_values(values: list[Any]) -> str:
    """``1 to 5``, ``one of A, B, C`` (at most 12 listed)."""
    if values and all(isinstance(v, int) for v in values):
        ints = sorted(values)
        if ints == list(range(ints[0], ints[-1] + 1)):
            return f"{ints[0]} to {ints[-1]}"
        values = ints
    shown = ", ".join(map(str, values[:12])) + (", ..." if len(values) > 12 else "")
    return f"one of {shown}"


def answer_ints(text: str, answer_format: str) -> list[int]:
    """``answer_items`` as ints; an item that is not one is an ``InvalidAction`` that shows
    ``answer_format``."""
    try:
        return [int(p) for p in answer_items(text)]
    except ValueError:
        raise InvalidAction(f"the answer {text[:60]!r} is not a list of numbers; submit as {answer_format}.") from None


def answer_number(text: str, choices: Iterable[int], message: str) -> int:
    """The one number in an ``<answer>`` ("4", "node 4."); none, several, or one not among
    ``choices`` is an ``InvalidAction(message)``."""
    numbers = ints(text)
    if len(numbers) != 1 or numbers[0] not in choices:
        raise InvalidAction(message)
    return numbers[0]


def answer_subset(text: str, answer_format: str, k: int, low: int, high: int, message: str) -> tuple[int, ...]:
    """Exactly ``k`` distinct integers from ``low..high`` (``answer_ints``), sorted; a repeat,
    a wrong count or a number out of range is an ``InvalidAction(message)``."""
    values = answer_ints(text, answer_format)
    out = tuple(sorted(set(values)))
    if len(values) != k or len(out) != k or not all(low <= x <= high for x in out):
        raise InvalidAction(message)
    return out


def action_tags(text: str) -> list[tuple[str, str]]:
    """``(tag, content)`` of every complete ``<query_NAME>`` / ``<answer>`` tag, in order
    (``tag`` lower case, content stripped). Raises :class:`InvalidAction` when there is none."""
    found = [(t.name, t.content) for t in find_tags(text, ACTION_NAMES)]
    if not found:
        raise InvalidAction(missing_action(text))
    return found


def missing_action(text: str) -> str:
    """Why ``text`` holds no complete query-game move tag."""
    if _OPEN_RE.search(text):
        return "a <query_NAME> or <answer> tag is not closed."
    return "no <query_NAME>...</query_NAME> or <answer>...</answer> tag found."


def parse_action(text: str) -> tuple[str, str]:
    """``(tag, content)`` of the reply's one action tag (the same tag repeated is fine).

    ``tag`` is ``"answer"`` or ``"query_NAME"`` (lower case). Raises :class:`InvalidAction`
    when no complete tag is present or two different ones are.
    """
    return single(action_tags(text), "actions", show=lambda t: f"<{t[0]}>{t[1][:20]}</{t[0]}>")


class Game(abc.ABC):
    """One instance of a hidden-state query game: ``level``, ``public`` part, ``hidden`` state.

    ``hidden`` may be ``None`` (a player's or the oracle's view: only the public part is
    known). Subclasses implement the hooks listed in the module docstring (the abstract
    methods and the class attributes without a default) and describe the game in their
    docstring: what is hidden, the queries, the answer, the levels' sizes.
    """

    name: ClassVar[str]
    structure: ClassVar[str]
    inference: ClassVar[str]
    #: Level parameters, ``levels[level - 1]`` (5 dicts).
    levels: ClassVar[tuple[dict[str, Any], ...]]
    #: Turn budget per level, ``budgets[level - 1]`` (queries and the answer all count).
    budgets: ClassVar[tuple[int, ...]]
    queries: ClassVar[tuple[QuerySpec, ...]]
    #: Entity/relation nouns used (as ``{key}`` fields) in ``rules_template`` and replies; the
    #: isomorphic-perturbation probe passes another mapping with the same keys.
    vocabulary: ClassVar[dict[str, str]] = {}
    #: The rules prompt; ``str.format`` fields: vocabulary keys, level params, ``rules_fields()``.
    rules_template: ClassVar[str]
    #: How to submit, shown in the rules and re-prompts, e.g. ``"<answer>3</answer>"``.
    answer_format: ClassVar[str] = "<answer>...</answer>"
    #: The isomorphic probe's nouns: domain (:data:`~mtp_gym.games.domains.DOMAINS`) -> a noun for
    #: every key of ``vocabulary`` (built with :func:`~mtp_gym.games.domains.nouns`).
    domains: ClassVar[dict[str, dict[str, str]]] = {}
    #: The isomorphic probe's retelling of the rules (:class:`~mtp_gym.games.domains.Story`).
    story: ClassVar[Story | None] = None
    #: ``False`` when ``candidate_states()`` is too large to list (say > 10^5 states): the
    #: oracle then works on ``sample_consistent`` and the game should override it.
    enumerable: ClassVar[bool] = True
    #: Lazily built caches set as plain attributes: left out of pickles, so a reply that builds
    #: one (a refused answer, say) leaves the state digest equal. ``cached_property`` values are
    #: left out without being listed here (a reply or a rules text may read one first).
    transient: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self,
        level: int,
        public: dict[str, Any] | None = None,
        hidden: Any = None,
        vocabulary: dict[str, str] | None = None,
        wording: dict[str, Any] | None = None,
    ) -> None:
        check_choice("difficulty", level, LEVELS)
        self.level = level
        self.params: dict[str, Any] = dict(self.levels[level - 1])
        self.public: dict[str, Any] = dict(public or {})
        self.hidden = hidden
        self.vocab = self.check_vocabulary(vocabulary)
        self.wording = self.check_wording(wording)
        self._specs = {q.name: q for q in self.queries}
        self._legal: dict[str, frozenset[tuple]] = {}  # a cache, left out of pickles

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_legal"] = {}
        for name in (*self.transient, *_derived(type(self))):
            state.pop(name, None)
        return state

    @classmethod
    def check_vocabulary(cls, vocabulary: dict[str, str] | None) -> dict[str, str]:
        """The game's vocabulary with ``vocabulary`` overrides; unknown keys raise ``ValueError``."""
        vocab = dict(cls.vocabulary)
        if vocabulary:
            unknown = set(vocabulary) - set(vocab)
            if unknown:
                raise ValueError(f"vocabulary keys {sorted(unknown)} unknown; allowed: {sorted(vocab)}")
            vocab.update(vocabulary)
        return vocab

    @classmethod
    def check_wording(cls, wording: dict[str, Any] | None) -> dict[str, Any]:
        """Another telling of the rules: ``{"rules": template, "queries": {name: help}}`` (both
        optional; the same ``str.format`` fields as ``rules_template`` and the query helps).
        Unknown keys or query names raise ``ValueError``."""
        wording = dict(wording or {})
        unknown = set(wording) - {"rules", "queries"}
        if unknown:
            raise ValueError(f"wording keys {sorted(unknown)} unknown; allowed: ['queries', 'rules']")
        names = {q.name for q in cls.queries}
        if set(wording.get("queries", {})) - names:
            raise ValueError(
                f"wording queries {sorted(set(wording['queries']) - names)} unknown; allowed: {sorted(names)}"
            )
        return wording

    # ------------------------------------------------------------------ construction
    @classmethod
    def generate(cls, level: int, rng: np.random.Generator, **kwargs: Any) -> Game:
        """A new instance: public part, then hidden state, both drawn from ``rng``."""
        game = cls(level, cls.sample_public(level, rng), None, **kwargs)
        game.hidden = game.sample_hidden(rng)
        return game

    @classmethod
    def benchmark(cls, level: int, index: int, **kwargs: Any) -> Game:
        """Benchmark configuration ``index`` of ``level`` (fixed seeds, see :func:`config_rng`;
        drawn once per process, so resetting to a configuration again costs no generation)."""
        public, hidden = _benchmark_draw(cls, level, index)
        return cls(level, public, hidden, **kwargs)

    @classmethod
    def budget(cls, level: int) -> int:
        return cls.budgets[level - 1]

    # ------------------------------------------------------------------ game hooks
    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        """The public part of a configuration (shown in the rules); default none."""
        return {}

    @abc.abstractmethod
    def candidate_states(self) -> Sequence[Any]:
        """Every hidden state this level and public part allow (hashable values)."""

    def sample_hidden(self, rng: np.random.Generator) -> Any:
        """A hidden state drawn with ``rng`` (default: uniform over ``candidate_states``)."""
        states = self.candidate_states()
        return states[int(rng.integers(len(states)))]

    def sample_consistent(self, evidence: Sequence[Evidence], rng: np.random.Generator, n: int) -> list[Any]:
        """Up to ``n`` distinct hidden states that agree with every ``(query, args, answer)``.

        Default: filter ``candidate_states`` (enumerable games), else rejection-sample
        ``sample_hidden`` (``200 * n`` draws). A game with a huge space overrides this with
        a generator that builds consistent states directly.
        """

        def fits(s: Any) -> bool:
            return all(self.respond(s, q, a) == v for q, a, v in evidence)

        if self.enumerable:
            states = [s for s in self.candidate_states() if fits(s)]
            if len(states) > n:
                states = [states[i] for i in sorted(rng.choice(len(states), size=n, replace=False))]
            return states
        found: dict[Any, None] = {}
        for _ in range(200 * n):
            s = self.sample_hidden(rng)
            if s not in found and fits(s):
                found[s] = None
                if len(found) >= n:
                    break
        return list(found)

    @abc.abstractmethod
    def respond(self, hidden: Any, name: str, args: tuple) -> Hashable:
        """The true answer to query ``name(*args)`` when the hidden state is ``hidden``."""

    def candidate_answers(self, name: str, args: tuple) -> Sequence[Hashable] | np.ndarray:
        """The answer to ``name(*args)`` in each candidate state, in ``candidate_states()`` order
        (enumerable games): :meth:`answer_columns` where the game has them and a subclass kept
        the states and answers they were written for, else ``respond`` state by state."""
        if _columns_hold(type(self)):
            columns = self.answer_columns(name, args)
            if columns is not None:
                return columns
        return [self.respond(s, name, args) for s in self.candidate_states()]

    def answer_columns(self, name: str, args: tuple) -> np.ndarray | None:
        """``candidate_answers`` computed for every state at once (a numpy array, read-only where
        a game caches it), or None for the state-by-state loop (the default; also for arguments
        outside the game's tables). It must equal ``respond`` state by state: a contract test
        checks every game that has it."""
        return None

    @abc.abstractmethod
    def query_args(self, name: str) -> Iterable[tuple]:
        """Every legal argument tuple of query ``name`` (``[()]`` for a query without args)."""

    def target(self, hidden: Any) -> Any:
        """What the agent must submit for ``hidden`` (default: the hidden state itself)."""
        return hidden

    @abc.abstractmethod
    def parse_answer(self, text: str) -> Hashable:
        """The submitted text as a value comparable with ``target``; raise ``InvalidAction``."""

    def format_answer(self, target: Any) -> str:
        """The content of ``<answer>`` that submits ``target``."""
        return str(target)

    def render_value(self, name: str, args: tuple, value: Any) -> str:
        """An answer value as reply text (default: Yes/No for bools, else ``str``)."""
        if isinstance(value, bool):
            return "Yes" if value else "No"
        return str(value)

    def rules_fields(self) -> dict[str, Any]:
        """Extra ``str.format`` fields of ``rules_template`` (e.g. the public part rendered)."""
        return {}

    # ------------------------------------------------------------------ generic, from the hooks
    def rules(self) -> str:
        """The rules prompt (the paper's ``getRules``)."""
        fields = {**self.params, **self.public, **self.vocab, **self.rules_fields()}
        fields["budget"] = self.budget(self.level)
        helps = {q.name: q.help for q in self.queries} | self.wording.get("queries", {})
        fields["query_formats"] = "\n".join(
            f"  {q.example(self.example_args(q.name))}  {helps[q.name].format(**fields)}".rstrip() for q in self.queries
        )
        fields["answer_format"] = self.answer_format
        return self.wording.get("rules", self.rules_template).format(**fields)

    def example_args(self, name: str) -> tuple:
        args = list(self.query_args(name))
        return args[len(args) // 2] if args else ()

    def all_queries(self) -> list[tuple[str, tuple]]:
        """Every legal ``(name, args)``, in a fixed order."""
        return [(q.name, tuple(a)) for q in self.queries for a in self.query_args(q.name)]

    def evidence_pool(self, hidden: Any = None) -> list[Evidence]:
        """Every legal query with its true answer (the paper's ``get_all_possible_queries``)."""
        h = self.hidden if hidden is None else hidden
        return [(n, a, self.respond(h, n, a)) for n, a in self.all_queries()]

    def is_legal(self, name: str, args: tuple) -> bool:
        legal = self._legal.get(name)
        if legal is None:
            if name not in self._specs:
                return False
            legal = self._legal[name] = _legal_args(self, name)
        return args in legal

    def parse_query(self, name: str, content: str) -> tuple:
        """Typed args of ``<query_NAME>content</query_NAME>``; raise ``InvalidAction``."""
        spec = self._specs.get(name)
        if spec is None:
            known = ", ".join(f"query_{q}" for q in self._specs)
            if name == "name":  # the format's placeholder, copied
                raise InvalidAction(f"<query_NAME> is the format: put a query's name in place of NAME ({known}).")
            raise InvalidAction(f"unknown query 'query_{name}'; the queries are: {known}.")
        parts = [p for p in _QUERY_ARGS_SPLIT.split(content.strip().strip("()[]{}")) if p]
        if len(parts) != len(spec.args):
            raise InvalidAction(
                f"query_{name} takes {len(spec.args)} argument(s), got {len(parts)} in {content[:60]!r}."
            )
        args: list[Any] = []
        for part, typ in zip(parts, spec.args):
            if typ is int:
                try:
                    args.append(int(part))
                except ValueError:
                    raise InvalidAction(f"query_{name}: {part[:30]!r} is not an integer.") from None
            else:
                args.append(part)
        out = tuple(args)
        if not self.is_legal(name, out):
            raise InvalidAction(
                f"query_{name} does not accept {content.strip()[:60]!r}: {self._why_illegal(name, out)}."
            )
        return out

    def _why_illegal(self, name: str, args: tuple) -> str:
        """Why ``query_NAME(*args)`` is not a legal question (``is_legal`` is false)."""
        legal = self._legal[name]
        spec = self._specs[name]
        if len(args) == 2 and spec.args[0] is spec.args[1] and args[::-1] in legal and all(a[0] <= a[1] for a in legal):
            return "give the smaller one first"  # an unordered pair the wrong way round
        for k, value in enumerate(args):
            allowed = sorted({a[k] for a in legal}, key=str)
            if value not in allowed:
                where = f"argument {k + 1}" if len(args) > 1 else "the argument"
                return f"{where} must be {_allowed_values(allowed)}, not {value!r}"
        example = min(legal, key=str)
        return (
            f"these {len(args)} arguments do not form a question of this game "
            f"(e.g. <query_{name}>{', '.join(map(str, example))}</query_{name}> does)"
        )

    def check(self, answer: Hashable, hidden: Any = None) -> bool:
        """Whether a parsed answer is right (the paper's ``checkAnswer``)."""
        return answer == self.target(self.hidden if hidden is None else hidden)

    def wrong_answer(self, name: str, args: tuple, hidden: Any = None) -> Hashable:
        """A controlled wrong answer to ``name(*args)`` (the paper's ``cf_make_wrong``).

        Default: the answer this query gets in the most candidate states among those that
        answer differently (ties: first in candidate order), so the wrong observation is a
        plausible one; a bool query flips; an int query with one possible answer gets +1.
        """
        h = self.hidden if hidden is None else hidden
        truth = self.respond(h, name, args)
        if isinstance(truth, bool):
            return not truth
        counts: dict[Hashable, int] = {}
        if self.enumerable:
            states = self.candidate_states()
        else:
            rng = np.random.default_rng(0)
            states = [self.sample_hidden(rng) for _ in range(256)]
        for s in states:
            v = self.respond(s, name, args)
            if v != truth:
                counts[v] = counts.get(v, 0) + 1
        if counts:
            return max(counts, key=counts.__getitem__)
        if isinstance(truth, int):
            return truth + 1
        raise NotImplementedError(f"{self.name}: override wrong_answer for query {name}")

    def describe_query(self, name: str, args: tuple) -> str:
        return self._specs[name].example(args)

    def reply(self, name: str, args: tuple, value: Hashable) -> str:
        """The env's reply text to a query."""
        return f"{self.describe_query(name, args)}: {self.render_value(name, args, value)}"

    def public_view(self) -> dict[str, Any]:
        """What every player knows (``info["game"]``): name, cell, level, public part."""
        return {
            "name": self.name,
            "structure": self.structure,
            "inference": self.inference,
            "level": self.level,
            "public": thaw(self.public),
        }


_DERIVED: dict[type, tuple[str, ...]] = {}


def _derived(cls: type) -> tuple[str, ...]:
    """The ``cached_property`` names of ``cls``: values derived from the state when first read
    (left out of pickles, so a reply that reads one first leaves the state digest equal)."""
    names = _DERIVED.get(cls)
    if names is None:
        names = _DERIVED[cls] = tuple(
            {n for klass in cls.__mro__ for n, v in vars(klass).items() if isinstance(v, cached_property)}
        )
    return names


#: Legal argument sets shared by instances with the same class, level, public part and
#: vocabulary (a cycled split resets to the same configurations); emptied when full.
_LEGAL: dict[Hashable, frozenset[tuple]] = {}
_LEGAL_MAX = 4096


def _legal_args(game: Game, name: str) -> frozenset[tuple]:
    """``frozenset`` of ``game.query_args(name)``, shared through :data:`_LEGAL` when the public
    part is hashable (else built for this instance)."""
    try:
        key: Hashable = (type(game), game.level, name, tuple(sorted(game.public.items())), tuple(game.vocab.items()))
        hash(key)
    except TypeError:  # a list or dict in the public part
        return frozenset(tuple(a) for a in game.query_args(name))
    legal = _LEGAL.get(key)
    if legal is None:
        if len(_LEGAL) >= _LEGAL_MAX:
            _LEGAL.clear()
        legal = _LEGAL[key] = frozenset(tuple(a) for a in game.query_args(name))
    return legal


@lru_cache(maxsize=8192)
def _benchmark_draw(cls: type[Game], level: int, index: int) -> tuple[dict[str, Any], Any]:
    """The public part and hidden state of a benchmark configuration (treat as read-only)."""
    game = cls.generate(level, config_rng(cls.name, level, index))
    return game.public, game.hidden


@cache
def _columns_hold(kind: type[Game]) -> bool:
    """Whether ``kind`` answers by the ``answer_columns`` of a class whose ``candidate_states``
    and ``respond`` it keeps (a subclass that changes either is answered state by state)."""
    owner: Any = next(c for c in kind.__mro__ if "answer_columns" in vars(c))
    return owner is not Game and kind.candidate_states is owner.candidate_states and kind.respond is owner.respond
