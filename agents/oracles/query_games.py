"""The generic solver of every hidden-state query game, and the generic random agent.

:class:`QueryGameOracle` keeps the version space of hidden states consistent with every
``(query, answer)`` pair seen so far and asks the legal query whose answer has maximum
entropy over that space (= maximum expected information gain, answers being deterministic
functions of the state), submitting as soon as every consistent state has the same target.

It sees only what a player sees: ``info["game"]`` (level and public part of the instance)
and ``info["feedback"]`` (the query, its args and the answer value). The evidence is a dict
keyed by ``(query, args)`` and the version space is recomputed from all of it on every turn,
so a later answer to the same query, or a correction announced by a probe as
``feedback["corrections"] = [{"query", "args", "answer"}]``, replaces the earlier pair.

Large spaces: an enumerable game's space is always filtered exactly; when more than
``sample_size`` states remain, the information gain is estimated on a seeded uniform sample
of them. A game with ``enumerable = False`` is played on ``Game.sample_consistent`` (up to
``sample_size`` consistent states per turn); it submits when every sampled state has the
same target.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from mtp_gym.games.base import Game

__all__ = ["QueryGameOracle", "QueryGameRandomAgent", "VersionSpace"]


class VersionSpace:
    """Every candidate state of a game instance with a lazily built answer table."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.states = list(game.candidate_states()) if game.enumerable else []
        self.queries = game.all_queries()
        self.index = {q: i for i, q in enumerate(self.queries)}
        self.targets = [game.target(s) for s in self.states]
        #: each state's target as a number (the targets' order of first appearance)
        self.target_codes = _coded(self.targets)[0]
        self._codes: dict[int, tuple[np.ndarray, dict[Hashable, int]]] = {}
        self._yes_no: tuple[dict[int, int], np.ndarray] | None = None

    def codes(self, qi: int) -> tuple[np.ndarray, dict[Hashable, int]]:
        """Answer codes of query ``qi`` for every state, and the value -> code map."""
        if qi not in self._codes:
            answers = self.game.candidate_answers(*self.queries[qi]) if self.states else []
            if isinstance(answers, np.ndarray) and answers.dtype == bool:
                self._codes[qi] = answers.view(np.uint8), {False: 0, True: 1}
            elif isinstance(answers, np.ndarray) and answers.dtype.kind in "iu" and len(answers):
                self._codes[qi] = _first_seen_codes(answers)
            else:
                self._codes[qi] = _coded(answers)
        return self._codes[qi]

    def one_target(self, alive: np.ndarray) -> bool:
        """Whether the states ``alive`` (indices; False when there are none) all have one target."""
        codes = self.target_codes[alive]
        return len(codes) > 0 and bool((codes == codes[0]).all())

    def consistent(self, evidence: dict[tuple[str, tuple], Hashable]) -> np.ndarray:
        """Indices of the states that agree with every ``(query, args) -> answer`` pair."""
        mask = np.ones(len(self.states), dtype=bool)
        for q, answer in evidence.items():
            qi = self.index.get(q)
            if qi is None:
                continue
            row, values = self.codes(qi)
            code = values.get(answer)
            if code is None:
                return np.zeros(0, dtype=np.int64)
            mask &= row == code
        return np.flatnonzero(mask)

    def entropies(self, alive: np.ndarray, asked: set[tuple[str, tuple]]) -> dict[int, float]:
        """Answer entropy over ``alive`` of every unasked query, in query order.

        The queries of two answers are counted in one pass over a table of their codes; each
        entropy is the same float as the per-query count gives (the sum of two terms, or one)."""
        unasked = [qi for qi, q in enumerate(self.queries) if q not in asked]
        two: dict[int, float] = {}
        if len(alive):
            where, table = self._two_answer_table()
            picked = [qi for qi in unasked if qi in where]
            if picked:
                n = len(alive)
                rows = np.array([where[qi] for qi in picked], dtype=np.intp)
                ones = table[np.ix_(rows, alive)].sum(axis=1, dtype=np.int64)
                zeros = n - ones
                with np.errstate(divide="ignore", invalid="ignore"):
                    p0, p1 = zeros / n, ones / n
                    terms = np.where(zeros > 0, p0 * np.log2(p0), 0.0) + np.where(ones > 0, p1 * np.log2(p1), 0.0)
                two = dict(zip(picked, (-terms).tolist()))
        out = {}
        for qi in unasked:
            h = two.get(qi)
            if h is None:
                row, _ = self.codes(qi)
                counts = np.bincount(row[alive])
                p = counts[counts > 0] / len(alive)
                h = float(-(p * np.log2(p)).sum())
            out[qi] = h
        return out

    def _two_answer_table(self) -> tuple[dict[int, int], np.ndarray]:
        """The codes (0 or 1) of every query with at most two answers, one row each, and the
        row of each such query (built once; their :meth:`codes` then read these rows)."""
        if self._yes_no is None:
            rows = [qi for qi in range(len(self.queries)) if len(self.codes(qi)[1]) <= 2]
            table = np.zeros((len(rows), len(self.states)), dtype=np.uint8)
            for i, qi in enumerate(rows):
                row, values = self._codes[qi]
                table[i] = row
                self._codes[qi] = table[i], values
            self._yes_no = {qi: i for i, qi in enumerate(rows)}, table
        return self._yes_no


def _coded(items: Sequence[Hashable] | np.ndarray) -> tuple[np.ndarray, dict[Hashable, int]]:
    """Each item as a number, distinct items numbered in the order of their first appearance,
    and the item -> number map."""
    values = {v: i for i, v in enumerate(dict.fromkeys(items))}
    return np.fromiter(map(values.__getitem__, items), dtype=np.int32, count=len(items)), values


def _first_seen_codes(answers: np.ndarray) -> tuple[np.ndarray, dict[Hashable, int]]:
    """:func:`_coded` of an integer array, at once."""
    distinct, first, inverse = np.unique(answers, return_index=True, return_inverse=True)
    rank = np.empty(len(distinct), dtype=np.int32)
    rank[np.argsort(first, kind="stable")] = np.arange(len(distinct), dtype=np.int32)
    return rank[inverse.ravel()], dict(zip(distinct.tolist(), rank.tolist()))


def _pick(entropies: dict[Any, float], strategy: str, rng: np.random.Generator | None) -> Any:
    """``best``: the query of maximum entropy (first on ties); ``any``: a uniformly random one of
    those with any entropy at all (None when no query tells the candidates apart)."""
    informative = [q for q, h in entropies.items() if h > 1e-12]
    if strategy == "any" and informative:
        assert rng is not None, "strategy 'any' needs an rng"
        return informative[int(rng.integers(len(informative)))]
    best = None
    for q in informative:
        if best is None or entropies[q] > entropies[best] + 1e-12:
            best = q
    return best


def game_from_info(game_cls: type[Game], info: dict[str, Any]) -> Game:
    """The game a player sees in ``info["game"]`` (level and public part, no hidden state)."""
    view = info.get("game")
    if not view or view.get("name") != game_cls.name:
        raise ValueError(f"info['game'] does not describe a {game_cls.name} game: {view!r}")
    return game_cls(view["level"], view["public"])


def _evidence_items(feedback: dict[str, Any]) -> list[tuple[tuple[str, tuple], Hashable]]:
    items = []
    if "query" in feedback:
        items.append(((feedback["query"], tuple(feedback["args"])), feedback["answer"]))
    for c in feedback.get("corrections", ()):
        items.append(((c["query"], tuple(c["args"])), c["answer"]))
    return items


class QueryGameOracle:
    """Max-information-gain version-space solver for any :class:`Game` (see module docstring).

    Args:
        game_cls: the game it plays (bound at registration).
        sample_size: states on which the information gain is estimated when more remain.
        min_turns_before_answer: never submit before this many queries were answered (e.g.
            3 under the counterfactual-revision probe, whose correction of the 2nd answer
            arrives with the 3rd reply).
        strategy: ``"best"`` asks the query of maximum information gain; ``"any"`` asks a
            uniformly random still-informative one (the registered ``careful`` player: sound,
            never wasteful, not optimal; the level budgets must leave room for it).
        seed: seeds the sample of large version spaces (and the ``any`` strategy's choices).
    """

    def __init__(
        self,
        game_cls: type[Game],
        sample_size: int = 2048,
        min_turns_before_answer: int = 0,
        strategy: str = "best",
        seed: int | None = None,
    ) -> None:
        if strategy not in ("best", "any"):
            raise ValueError(f"strategy={strategy!r}: allowed values are 'best', 'any'")
        self.game_cls = game_cls
        self.strategy = strategy
        self.sample_size = sample_size
        self.min_turns_before_answer = min_turns_before_answer
        self._seed = seed
        self._spaces: dict[tuple, VersionSpace] = {}
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(self._seed if seed is None else seed)
        self.space: VersionSpace | None = None
        self.evidence: dict[tuple[str, tuple], Hashable] = {}

    @property
    def live_space(self) -> VersionSpace:
        """The current configuration's hypothesis space (set by the first ``act``)."""
        assert self.space is not None, "act() before the first observation"
        return self.space

    def observe(self, query: str, args: tuple, answer: Hashable) -> None:
        """Record (or replace) the answer to ``query(*args)``."""
        self.evidence[(query, tuple(args))] = answer

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if self.space is None:
            game = game_from_info(self.game_cls, info)
            key = (game.level, repr(sorted(game.public.items())))
            if key not in self._spaces:
                self._spaces = {key: VersionSpace(game)}  # keep one: configs rarely repeat otherwise
            self.space = self._spaces[key]
        for q, answer in _evidence_items(info.get("feedback") or {}):
            self.observe(*q, answer)
        if not self.space.game.enumerable:
            return self._act_sampled()
        space = self.space
        alive = space.consistent(self.evidence)
        unasked = [q for q in space.queries if q not in self.evidence]
        if len(alive) == 0:  # contradictory evidence: a wrong answer not corrected yet
            return self._ask(unasked[0]) if unasked else self._submit(space.targets[0])
        if space.one_target(alive):
            if len(self.evidence) >= self.min_turns_before_answer or not unasked:
                return self._submit(space.targets[alive[0]])
            return self._ask(unasked[0])  # waiting for a possible correction
        if len(alive) > self.sample_size:
            alive = np.sort(self.rng.choice(alive, size=self.sample_size, replace=False))
        qi = _pick(space.entropies(alive, set(self.evidence)), self.strategy, self.rng)
        if qi is None:  # no query separates the remaining states (an ill-posed instance)
            return self._submit(space.targets[alive[0]])
        return self._ask(space.queries[qi])

    def _act_sampled(self) -> str:
        game = self.live_space.game
        evidence = [(q, a, v) for (q, a), v in self.evidence.items()]
        states = game.sample_consistent(evidence, self.rng, self.sample_size)
        unasked = [q for q in self.live_space.queries if q not in self.evidence]
        if not states:
            return self._ask(unasked[0]) if unasked else self._submit(game.target(game.sample_hidden(self.rng)))
        targets = {game.target(s) for s in states}
        if len(targets) == 1 and (len(self.evidence) >= self.min_turns_before_answer or not unasked):
            return self._submit(targets.pop())
        entropies = {}
        for q in unasked:
            counts: dict[Hashable, int] = {}
            for s in states:
                v = game.respond(s, *q)
                counts[v] = counts.get(v, 0) + 1
            p = np.fromiter(counts.values(), dtype=float) / len(states)
            entropies[q] = float(-(p * np.log2(p)).sum())
        best = _pick(entropies, self.strategy, self.rng)
        if best is None:
            return self._ask(unasked[0]) if len(targets) == 1 and unasked else self._submit(game.target(states[0]))
        return self._ask(best)

    def _submit(self, target: Hashable) -> str:
        return f"<answer>{self.live_space.game.format_answer(target)}</answer>"

    def _ask(self, q: tuple[str, tuple]) -> str:
        name, args = q
        return self.live_space.game.describe_query(name, args)


class QueryGameRandomAgent:
    """A uniformly random legal query each turn; on the last turn, a random candidate's target.
    Under the necessity probe: a random candidate's target in both phases, and in phase 1 each
    observation named unnecessary with probability 1/2."""

    def __init__(self, game_cls: type[Game], seed: int | None = None) -> None:
        self.game_cls = game_cls
        self._seed = seed
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(self._seed if seed is None else seed)
        self.game: Game | None = None

    @staticmethod
    def chance(game: Game) -> float:
        """Its exact chance of winning ``game`` (hidden state known): the share of candidate
        states whose target is the true one, as it answers a random candidate's target."""
        states, goal = game.candidate_states(), game.target(game.hidden)
        return sum(game.target(s) == goal for s in states) / len(states)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if self.game is None:
            self.game = game_from_info(self.game_cls, info)
            self._queries = self.game.all_queries()
        necessity = info.get("necessity")
        if necessity or info.get("turn", 0) + 1 >= info.get("max_turns", 1):
            states = self.game.candidate_states()
            state = states[int(self.rng.integers(len(states)))]
            answer = f"<answer>{self.game.format_answer(self.game.target(state))}</answer>"
            if necessity and necessity["phase"] == 1:  # the necessity probe: also prune at random
                drop = [i for i in range(1, necessity["pool_size"] + 1) if self.rng.random() < 0.5]
                answer += f"<unnecessary>{', '.join(map(str, drop))}</unnecessary>"
            return answer
        name, args = self._queries[int(self.rng.integers(len(self._queries)))]
        return self.game.describe_query(name, args)
