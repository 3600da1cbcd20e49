"""Hidden Tree Shape (tree, deductive): reconstruct a hidden rooted tree from ancestry facts.

The env hides a rooted tree on the nodes ``1..n``: node 1 is the root and every other node
``v`` has a parent ``p(v) < v`` (a recursive tree), so there are ``(n - 1)!`` possible shapes.
Queries: ``ancestor(u, v)`` (is ``u`` an ancestor of ``v``? for ``2 <= u < v``),
``depth(v)`` (edges from the root to ``v``) and ``children(v)`` (how many children ``v``
has). The agent submits the parents of nodes ``2..n`` in order. The answers to all
``ancestor`` queries determine the tree (the parent of ``v`` is its largest ancestor, or the
root when it has none among ``2..v-1``). Levels grow ``n``: 4, 5, 6, 7, 8 nodes, i.e. 6, 24,
120, 720 and 5040 shapes (depth up to 3..7).
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache
from itertools import product

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import Game, QuerySpec, answer_ints
from mtp_gym.games.trees import children_of, depths_of, subtree_masks


@cache
def _recursive_trees(n: int) -> tuple[tuple[int, ...], ...]:
    """Every parent tuple ``(p(2), ..., p(n))`` with ``p(v) < v``, lexicographic order."""
    return tuple(product(*(range(1, v) for v in range(2, n + 1))))


def _full(hidden: tuple[int, ...]) -> tuple[int, ...]:
    return (0,) + tuple(hidden)


class HiddenTreeShape(Game):
    name = "HiddenTreeShape"
    structure = "tree"
    inference = "deductive"
    levels = tuple({"n": n} for n in (4, 5, 6, 7, 8))
    budgets = (6, 8, 11, 14, 19)
    queries = (
        QuerySpec(
            "ancestor",
            (int, int),
            "is the first {node} an ancestor of the second (on the path from the {root} down to it)?",
        ),
        QuerySpec("depth", (int,), "how many {link}s separate this {node} from the {root}?"),
        QuerySpec("children", (int,), "how many {children} does this {node} have?"),
    )
    vocabulary = {
        "tree": "tree",
        "node": "node",
        "nodes": "nodes",
        "root": "root",
        "parent": "parent",
        "children": "children",
        "link": "edge",
    }
    rules_template = (
        "I have built a hidden {tree} on the {nodes} 1 to {n}. {node_cap} 1 is the {root}; every other "
        "{node} has exactly one {parent}, and the {parent} always has a smaller number than the {node} "
        "itself. Your goal is to find the {parent} of every {node}. You may ask one question per turn "
        "using the following format:\n{query_formats}\n"
        "(ancestor questions take two {nodes} a, b with 2 <= a < b <= {n}.)\n"
        "When you know the answer, submit the {parent}s of {nodes} 2, 3, ..., {n} in this order, "
        "separated by commas:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        return "<answer>" + ", ".join(str(max(1, v - 2)) for v in range(2, self.params["n"] + 1)) + "</answer>"

    def rules_fields(self) -> dict[str, str]:
        node = self.vocab["node"]
        return {"node_cap": node[:1].upper() + node[1:]}

    def candidate_states(self) -> tuple[tuple[int, ...], ...]:
        return _recursive_trees(self.params["n"])

    def query_args(self, name: str) -> list[tuple]:
        n = self.params["n"]
        if name == "ancestor":
            return [(u, v) for u in range(2, n + 1) for v in range(u + 1, n + 1)]
        if name == "depth":
            return [(v,) for v in range(2, n + 1)]
        return [(v,) for v in range(1, n + 1)]

    def example_args(self, name: str) -> tuple:
        return (2, 4) if name == "ancestor" else (3,)

    def respond(self, hidden: tuple[int, ...], name: str, args: tuple) -> Hashable:
        parents = _full(hidden)
        if name == "ancestor":
            u, v = args
            return bool(subtree_masks(parents)[u] >> v & 1)
        if name == "depth":
            return depths_of(parents)[args[0]]
        return len(children_of(parents)[args[0]])

    def parse_answer(self, text: str) -> tuple[int, ...]:
        values = tuple(answer_ints(text, self.answer_format))
        n = self.params["n"]
        if len(values) != n - 1 or not all(1 <= p < v for v, p in enumerate(values, start=2)):
            raise InvalidAction(
                f"submit {n - 1} {self.vocab['parent']}s, one per {self.vocab['node']} 2..{n}, each smaller "
                f"than its {self.vocab['node']}, as {self.answer_format}."
            )
        return values

    def format_answer(self, target: Hashable) -> str:
        return ", ".join(str(p) for p in target)
