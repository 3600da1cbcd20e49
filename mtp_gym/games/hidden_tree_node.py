"""Hidden Tree Node (tree, deductive): find a hidden {node} of a shown tree from subtree facts.

The rules show a rooted {tree} (node 1 is the root, one line per inner node listing its
children; a random shape per configuration, numbered breadth first, public). The env hides
one node. The only query is ``within(d, v)``: is the hidden node ``v`` or one of its
descendants at most ``d`` edges below ``v`` (``d`` from 0 to the depth of the tree; the number
comes first)? ``within(depth, v)`` asks whether it lies in ``v``'s subtree, ``within(d, 1)``
whether its depth is at most ``d``, ``within(0, v)`` whether it is ``v``. The agent submits the
node's number; the ``within(0, ·)`` answers alone determine it.

Levels grow the tree, at most 3 children per node: depth 2 / 7 nodes at level 1, then depth
7 / 120, 7 / 140, 8 / 160 and 8 / 180 (the hidden space is the node count). From level 2
the tree has many more nodes than the budget has turns: the questions in their natural order
start with ``within(0, v)`` for every ``v`` ("is it this one?"), so a sweep of them fits the
budget only when the hidden node is among the first eighth of the numbers, while a subtree
that holds about half of the nodes still possible (or a depth threshold) halves them: the
oracle needs about ``log2(n) + 1`` turns.

Only ``log2(n)`` bits are hidden, so the lever is the order of the arguments, as in Hidden
Node: a sweep that asked the deepest subtrees first (``within(depth, v)`` for every ``v``) would
descend the tree and fit the budget.

Version History: v0 (issue 25) one query ``within(d, v)`` with the number first (was
``in_subtree(v)``, ``depth()`` and ``leaf()``, whose sweep descended the tree level by level),
and levels 2-5 rebuilt on 120 to 180 nodes (were 12 to 48).
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cached_property, lru_cache

from mtp_gym.games.base import QuerySpec, answer_number
from mtp_gym.games.domains import Story, tree_nouns
from mtp_gym.games.trees import TREE_WORDS, ShownTreeGame, depths_of, nodes_of, subtree_masks


@lru_cache(maxsize=64)
def _within_masks(parents: tuple[int, ...], max_depth: int) -> tuple[tuple[int, ...], ...]:
    """``masks[d][v]``: bitmask of the {nodes} of ``v``'s subtree at most ``d`` {link}s below ``v``."""
    depth, masks = depths_of(parents), subtree_masks(parents)
    by_depth = [0] * (max(depth) + 2)
    for u in nodes_of(parents):
        by_depth[depth[u]] |= 1 << u
    upto = [sum(by_depth[: i + 1]) for i in range(len(by_depth))]
    return tuple(
        tuple(0 if v == 0 else masks[v] & upto[min(depth[v] + d, len(upto) - 1)] for v in range(len(parents) + 1))
        for d in range(max_depth + 1)
    )


class HiddenTreeNode(ShownTreeGame):
    """Hidden Tree Node (tree, deductive): find a hidden node of a shown tree.

    Shown: a rooted tree. Hidden: one node. Query: ``within(d, v)`` (is the hidden node ``v`` or
    below ``v``, at most ``d`` edges down?, Yes/No). Answer: the node. Levels (depth / nodes):
    2 / 7, 7 / 120, 7 / 140, 8 / 160, 8 / 180.
    """

    name = "HiddenTreeNode"
    structure = "tree"
    inference = "deductive"
    levels = tuple({"depth": d, "n": n, "max_children": 3} for d, n in ((2, 7), (7, 120), (7, 140), (8, 160), (8, 180)))
    budgets = (11, 19, 20, 20, 21)
    transient = ("_index",)
    queries = (
        QuerySpec(
            "within",
            (int, int),
            "is the hidden {node} this {node} or one of its descendants at most this many {link}s "
            "(0 to {depth}) below it? (the number comes first)",
        ),
    )
    vocabulary = {
        **TREE_WORDS,
        "link": "edge",
    }
    rules_template = (
        "Here is a {tree} of {n} {nodes} numbered 1 to {n}; {node} 1 is the {root} and each line "
        "lists the {children} of one {node}:\n{tree_text}\n"
        "I have selected one hidden {node} of this {tree}. Your goal is to find it. You may ask one "
        "question per turn using the following format:\n{query_formats}\n"
        "When you know the answer, submit the {node}'s number:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )
    answer_format = "<answer>4</answer>"

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = tree_nouns("tree node nodes root children link")
    story = Story(
        setting="A {tree} has {n} {nodes}, numbered 1 to {n}, with {node} 1 at its {root}; each line "
        "below gives the {children} of one {node}:\n{tree_text}\nOne {node} of it was picked out of "
        "sight. Find which one.",
        answer="the number of that {node}",
        queries={
            "within": "counting down from this {node}, is the picked {node} either this one or somewhere "
            "beneath it, no more than this many {link}s down (0 to {depth}; that count goes first)?",
        },
    )

    def candidate_states(self) -> tuple[int, ...]:
        return tuple(nodes_of(self.parents))

    def query_args(self, name: str) -> list[tuple]:
        return [(d, v) for d in range(self.params["depth"] + 1) for v in nodes_of(self.parents)]

    def example_args(self, name: str) -> tuple:
        return (1, 2)

    @cached_property
    def _index(self) -> tuple[tuple[int, ...], ...]:
        return _within_masks(self.parents, self.params["depth"])

    def respond(self, hidden: int, name: str, args: tuple) -> Hashable:
        d, v = args
        return bool(self._index[d][v] >> hidden & 1)

    def parse_answer(self, text: str) -> int:
        message = f"submit one {self.vocab['node']} number from 1 to {self.params['n']}, as {self.answer_format}."
        return answer_number(text, nodes_of(self.parents), message)
