"""Hidden Tree Node (tree, deductive): find a hidden {node} of a shown tree from subtree facts.

The rules show a rooted tree (node 1 is the root, one line per inner node listing its
children). The env hides one node. Queries: ``in_subtree(v)`` (is the hidden node ``v`` or a
descendant of ``v``?), ``depth()`` (the hidden node's depth, the root has depth 0) and
``leaf()`` (is the hidden node a leaf?). The agent submits the node's number; the answers to
every ``in_subtree`` query determine it (the deepest ``v`` answered Yes). Levels grow the
tree's depth and size, at most 3 children per node: depth 2 / 7 nodes, 3 / 12, 4 / 20,
5 / 32, 6 / 48 (the hidden space is the node count). The tree is a random shape drawn per
configuration and is part of the public configuration.
"""

from __future__ import annotations

from collections.abc import Hashable

from mtp_gym.games.base import QuerySpec, answer_number
from mtp_gym.games.trees import ShownTreeGame, children_of, depths_of, nodes_of, subtree_masks


class HiddenTreeNode(ShownTreeGame):
    name = "HiddenTreeNode"
    structure = "tree"
    inference = "deductive"
    levels = tuple({"depth": d, "n": n, "max_children": 3} for d, n in ((2, 7), (3, 12), (4, 20), (5, 32), (6, 48)))
    budgets = (7, 9, 11, 14, 20)
    queries = (
        QuerySpec("in_subtree", (int,), "is the hidden {node} this {node} or one of its descendants?"),
        QuerySpec("depth", (), "how many {link}s separate the hidden {node} from the {root}?"),
        QuerySpec("leaf", (), "is the hidden {node} a {leaf} (a {node} without {children})?"),
    )
    vocabulary = {
        "tree": "tree",
        "node": "node",
        "nodes": "nodes",
        "root": "root",
        "children": "children",
        "leaf": "leaf",
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

    def candidate_states(self) -> tuple[int, ...]:
        return tuple(nodes_of(self.parents))

    def query_args(self, name: str) -> list[tuple]:
        if name == "in_subtree":
            return [(v,) for v in nodes_of(self.parents)]
        return [()]

    def example_args(self, name: str) -> tuple:
        return (2,) if name == "in_subtree" else ()

    def respond(self, hidden: int, name: str, args: tuple) -> Hashable:
        if name == "in_subtree":
            return bool(subtree_masks(self.parents)[args[0]] >> hidden & 1)
        if name == "depth":
            return depths_of(self.parents)[hidden]
        return not children_of(self.parents)[hidden]

    def parse_answer(self, text: str) -> int:
        message = f"submit one {self.vocab['node']} number from 1 to {self.params['n']}, as {self.answer_format}."
        return answer_number(text, nodes_of(self.parents), message)
