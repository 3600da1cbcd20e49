"""Circuit Decoding oracle: max-information-gain queries, then the most likely joint truth table.

The oracle reads the shape, labels, gate inventory and query budget from the instructions
and knows the documented generator (``mtp_gym.circuit_decoding.env``), nothing hidden. Its
belief is :class:`mtp_gym.circuit_decoding.inference.CircuitPosterior` (exact Bayesian
inference over the generator's circuit space).

Queries. Answers are deterministic, so the expected information gain of a query equals the
entropy of its answer; the oracle asks the query (circuit, input row) whose answer is the
most uncertain, and answers as soon as nothing is uncertain any more.

Answer. The most likely *joint* truth table (``CircuitPosterior.map_tables``).

Figures on the benchmark split: ``python benchmarks/circuit_decoding.py``; the target is
checked by ``pytest -m slow tests/test_circuit_decoding.py -k full_split``.
"""

from __future__ import annotations

import re
from typing import Any

from mtp_gym.circuit_decoding.env import call_text, input_row, row_inputs, table_string
from mtp_gym.circuit_decoding.inference import CircuitPosterior, read_setup

_ANSWER_RE = re.compile(r"([A-Z])\(([01](?:, [01])*)\) = ([01])")
_REMAINING_RE = re.compile(r"(\d+) quer(?:y|ies) remaining")


class CircuitDecodingOracle:
    """Max-information-gain queries, then the most likely joint truth table.

    Answers are read from ``info["feedback"]`` (``circuit``, ``inputs``, ``output``,
    ``queries_remaining``), or from the reply text when a harness passes no feedback.
    """

    def __init__(self, node_budget: int = 200_000) -> None:
        self.node_budget = node_budget
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self.posterior: CircuitPosterior | None = None
        self._setup: dict[str, Any] = {}
        self._left = 0

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if self.posterior is None:
            self._setup = s = read_setup(observation)
            self.posterior = CircuitPosterior(s["num_circuits"], s["num_inputs"], s["inventory"])
            self._left = s["num_queries"]
        else:
            self._record(observation, info.get("feedback") or {})
        post, s = self.posterior, self._setup
        if self._left > 0:
            c, row, h = post.best_query()
            if h > 0:
                return f"<query>{call_text(s['labels'][c], row_inputs(row, s['num_inputs']))}</query>"
        tables = post.map_tables(self.node_budget)
        return f"<guess>{''.join(table_string(t, s['num_inputs']) for t in tables)}</guess>"

    def _record(self, observation: str, feedback: dict[str, Any]) -> None:
        labels = self._setup["labels"]
        if "output" in feedback:
            c, row, out = labels.index(feedback["circuit"]), input_row(feedback["inputs"]), feedback["output"]
            self._left = feedback["queries_remaining"]
        elif (match := _ANSWER_RE.search(observation)) is not None and not observation.startswith("Invalid"):
            bits = tuple(int(b) for b in match.group(2).split(", "))
            c, row, out = labels.index(match.group(1)), input_row(bits), int(match.group(3))
            left = _REMAINING_RE.search(observation)
            self._left = int(left.group(1)) if left else 0
        else:
            if "used all" in observation:  # a re-prompt after the budget: answer now
                self._left = 0
            return
        assert self.posterior is not None  # made at the first observation
        self.posterior.observe(c, row, out)
