"""Hidden Node (graph, deductive): find the hidden {node} of a shown graph from distance facts.

The rules show a connected {graph} on the {nodes} ``1..n`` (its {edges}); the env hides one
{node}. The only query is ``within(x, d)``: is the hidden {node} at most ``d`` {steps} from
{node} ``x`` (``d`` = 0, 1 or 2; a {step} follows one {edge})? The agent submits the {node};
it follows deductively from the replies and the shown {edges} (``within(x, 0)`` for every
``x`` always suffices; intersecting neighbourhoods needs far fewer). Levels grow the graph,
``(n nodes, m edges)``: (6, 7), (9, 11), (13, 16), (18, 23), (25, 32); the hidden space is
the ``n`` {nodes}.
"""

from __future__ import annotations

from collections.abc import Hashable

from mtp_gym.games._graph import ShownGraphGame, adjacency, bfs_distances
from mtp_gym.games.base import QuerySpec, answer_number

MAX_RADIUS = 2


class HiddenNode(ShownGraphGame):
    name = "HiddenNode"
    structure = "graph"
    inference = "deductive"
    levels = tuple({"n": n, "m": m} for n, m in ((6, 7), (9, 11), (13, 16), (18, 23), (25, 32)))
    budgets = (8, 9, 10, 11, 12)
    queries = (
        QuerySpec(
            "within",
            (int, int),
            f"is the hidden {{node}} at most this many {{steps}} (0 to {MAX_RADIUS}) away from this {{node}}?",
        ),
    )
    vocabulary = {
        "node": "node",
        "nodes": "nodes",
        "edges": "edges",
        "graph": "graph",
        "step": "step",
        "steps": "steps",
    }
    rules_template = (
        "Here is a {graph} on the {nodes} numbered 1 to {n}; its {edges} are: {edge_list}. "
        "A {step} goes along one of these {edges}, in either direction.\n"
        "I have selected a hidden {node}. Your goal is to find it. You may ask one question per turn "
        "using the following format (first the {node}, then the number of {steps}):\n{query_formats}\n"
        "When you know the answer, submit the hidden {node}:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )
    answer_format = "<answer>3</answer>"

    def _distances(self) -> dict[int, dict[int, int]]:
        """All-pairs hop distances of the shown graph (computed once per instance)."""
        dist = getattr(self, "_dist_cache", None)
        if dist is None:
            adj = adjacency(self.params["n"], self.public["edges"])
            dist = self._dist_cache = {v: bfs_distances(adj, v) for v in adj}
        return dist

    def candidate_states(self) -> tuple[int, ...]:
        return tuple(range(1, self.params["n"] + 1))

    def query_args(self, name: str) -> list[tuple]:
        return [(x, d) for x in range(1, self.params["n"] + 1) for d in range(MAX_RADIUS + 1)]

    def example_args(self, name: str) -> tuple:
        return (2, 1)

    def respond(self, hidden: int, name: str, args: tuple) -> Hashable:
        return self._distances()[args[0]][hidden] <= args[1]

    def parse_answer(self, text: str) -> int:
        n = self.params["n"]
        message = f"submit one {self.vocab['node']} number from 1 to {n}, as {self.answer_format}."
        return answer_number(text, range(1, n + 1), message)
