"""Hidden Tree Shape (tree, deductive): complete a tree by finding where two loose {nodes} hang.

The rules show a rooted {tree} on the {nodes} ``1..n`` (a random shape per configuration,
numbered breadth first, public) and two loose {nodes} ``n + 1`` and ``n + 2``, each hanging
below one {node} of the {tree} (both may hang below the same one). The hidden state is the
pair of their {parents}, which completes the {tree}. Queries: ``within(d, u, v)`` (is the
loose {node} ``v`` in ``u``'s subtree, at most ``d`` {links} below ``u``? ``d`` from 1 to
``reach``, the number comes first: ``within(1, u, v)`` asks whether ``u`` is ``v``'s {parent},
a larger ``d`` whether ``u`` is an ancestor not too far up) and ``depth(v)`` (how many {links}
separate the loose {node} ``v`` from the {root}). The agent submits the two {parents}; the
``within(1, ·, ·)`` answers alone determine them.

This is the unbalanced merge of Hidden Order, in a {tree}: a depth and a subtree question that
holds about half of the {nodes} still possible halve them, so the oracle places a loose {node}
in about ``log2(n)`` questions, while the questions in their natural order start with
``within(1, u, v)`` for every ``u`` ("is ``u`` its {parent}?"), which a sweep asks {node} by
{node} until it has met both {parents}. Reconstructing a whole hidden {tree} (the earlier
version of this game: every {parent} of a recursive tree on up to 8 {nodes}) does not separate
the two: a read-off of the ancestor pairs with exact books needs about as many questions as a
good player, and larger trees cannot be enumerated.

Levels: level 1 is small (a {tree} of 3 {nodes}: 9 completions); levels 2-5 show 40, 44, 48
and 52 {nodes} (1,600 to 2,704 completions), depth 4, ``reach`` 3.

Version History: v0 (issue 25) two loose {nodes} in a shown {tree} (was a whole hidden
recursive tree on 4 to 8 {nodes}, which a read-off of the ancestor pairs solved within the
budget at every level).
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cached_property, lru_cache

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import QuerySpec, answer_ints
from mtp_gym.games.domains import Story, tree_nouns
from mtp_gym.games.trees import TREE_WORDS, ShownTreeGame, depths_of, nodes_of, subtree_masks

#: ``(parent of n + 1, parent of n + 2)``
Completion = tuple[int, int]


@lru_cache(maxsize=64)  # bounded: generated trees bring new keys forever
def completions(parents: tuple[int, ...]) -> tuple[Completion, ...]:
    """Every way to hang the loose nodes ``n + 1`` and ``n + 2`` below nodes of the tree."""
    n = len(parents)
    return tuple((a, b) for a in range(1, n + 1) for b in range(1, n + 1))


@lru_cache(maxsize=64)
def _within_masks(parents: tuple[int, ...], reach: int) -> tuple[tuple[int, ...], ...]:
    """``masks[d][u]``: bitmask of the nodes ``p`` such that a loose node hanging below ``p`` is in
    ``u``'s subtree at most ``d`` edges below ``u`` (``u`` is ``p`` or an ancestor of it, at most
    ``d - 1`` edges above ``p``)."""
    depth, masks = depths_of(parents), subtree_masks(parents)
    n = len(parents)
    return tuple(
        tuple(
            0 if u == 0 else sum(1 << p for p in nodes_of(parents) if masks[u] >> p & 1 and depth[p] - depth[u] < d)
            for u in range(n + 1)
        )
        for d in range(reach + 1)
    )


class HiddenTreeShape(ShownTreeGame):
    """Hidden Tree Shape (tree, deductive): find where two loose nodes hang in a shown tree.

    Shown: a rooted tree on ``1..n`` and two loose nodes ``n + 1`` and ``n + 2``. Hidden: the parent
    of each. Queries: ``within(d, u, v)`` (is loose node ``v`` below ``u``, at most ``d`` edges
    down?, Yes/No) and ``depth(v)`` (how many edges separate ``v`` from the root?). Answer: the two
    parents. Levels: ``n`` = 3, 40, 44, 48, 52: 9 to 2704 completions.
    """

    name = "HiddenTreeShape"
    structure = "tree"
    inference = "deductive"
    levels = tuple(
        {"depth": d, "n": n, "max_children": 3, "reach": r}
        for d, n, r in ((1, 3, 2), (4, 40, 3), (4, 44, 3), (4, 48, 3), (4, 52, 3))
    )
    budgets = (11, 26, 26, 27, 29)
    transient = ("_index",)
    queries = (
        QuerySpec(
            "within",
            (int, int, int),
            "is the loose {node} given third at most this many {links} (1 to {reach}; given first) below the "
            "{node} given second?",
        ),
        QuerySpec("depth", (int,), "how many {links} separate this loose {node} from the {root}?"),
    )
    vocabulary = {
        **TREE_WORDS,
        "parent": "parent",
        "parents": "parents",
        "links": "edges",
    }
    rules_template = (
        "Here is a {tree} of {n} {nodes} numbered 1 to {n}; {node} 1 is the {root} and each line "
        "lists the {children} of one {node}:\n{tree_text}\n"
        "Two more {nodes}, {x} and {y}, are loose: each hangs below one {node} of this {tree} (both may "
        "hang below the same one), which is its {parent}. Your goal is to find the {parents} of {x} "
        "and {y}, which completes the {tree}. You may ask one question per turn using the "
        "following format:\n{query_formats}\n"
        "When you know the answer, submit the {parent} of {x}, then the {parent} of {y}:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = tree_nouns(
        "tree node nodes root parent parents children links",
        education={"parents": "supervisors", "links": "reporting lines"},
        healthcare={"parents": "referring clinics", "links": "referral routes"},
        transportation={"parents": "supplying depots", "links": "delivery routes"},
        manufacturing={"parents": "parent parts", "links": "assembly links"},
        law={"parents": "appellate courts", "links": "appeal routes"},
    )
    story = Story(
        setting="The {tree} below has {n} {nodes}, numbered 1 to {n}, with {node} 1 as its {root}; each "
        "line gives a {node} followed by its {children}:\n{tree_text}\nTwo further {nodes}, {x} and {y}, "
        "were hung on it out of sight, each directly beneath some {node} of the {tree} (possibly the same "
        "one for both), which became its {parent}. Work out the {parents} of {x} and {y}.",
        answer="the {parent} of {x} first, then the {parent} of {y}, with a comma between them",
        queries={
            "within": "counting down from the {node} named second, does the loose {node} named third sit no "
            "more than this many {links} (1 to {reach}) beneath it?",
            "depth": "how many {links} lie between this loose {node} and the {root}?",
        },
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        n = self.params["n"]
        return f"<answer>{min(2, n)}, {min(3, n)}</answer>"

    @cached_property
    def _index(self) -> tuple[tuple[int, ...], ...]:
        return _within_masks(self.parents, self.params["reach"])

    def rules_fields(self) -> dict:
        n = self.params["n"]
        return super().rules_fields() | {"x": n + 1, "y": n + 2}

    def candidate_states(self) -> tuple[Completion, ...]:
        return completions(self.parents)

    def query_args(self, name: str) -> list[tuple]:
        n = self.params["n"]
        loose = (n + 1, n + 2)
        if name == "depth":
            return [(v,) for v in loose]
        return [(d, u, v) for d in range(1, self.params["reach"] + 1) for u in range(1, n + 1) for v in loose]

    def example_args(self, name: str) -> tuple:
        n = self.params["n"]
        return (n + 1,) if name == "depth" else (2, min(2, n), n + 2)

    def respond(self, hidden: Completion, name: str, args: tuple) -> Hashable:
        n = self.params["n"]
        if name == "depth":
            return depths_of(self.parents)[hidden[args[0] - n - 1]] + 1
        d, u, v = args
        return bool(self._index[d][u] >> hidden[v - n - 1] & 1)

    def parse_answer(self, text: str) -> Completion:
        n = self.params["n"]
        values = tuple(answer_ints(text, self.answer_format))
        if len(values) != 2 or not all(1 <= p <= n for p in values):
            raise InvalidAction(
                f"submit the {self.vocab['parent']} of {n + 1}, then the {self.vocab['parent']} of {n + 2} "
                f"({self.vocab['nodes']} 1 to {n}), as {self.answer_format}."
            )
        return values

    def format_answer(self, target: Completion) -> str:
        return ", ".join(str(p) for p in target)
