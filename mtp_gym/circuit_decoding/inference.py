"""Circuit Decoding: what a player can infer about the hidden circuits from what it sees.

:func:`read_setup` reads the shape, labels, gate inventory and query budget from the
instructions. :class:`CircuitPosterior` is exact Bayesian inference over the documented
generator's circuit space (``mtp_gym.circuit_decoding.env``), given the answers so far.

Belief. For one circuit with ``a`` AND, ``k-1-a`` OR and ``n`` NOT gates,
``function_distribution`` gives the exact distribution of its truth table under the
layer-by-layer process. Every circuit's candidate functions are the union of these supports
over all allotments ``(a, n)`` the inventory allows. The allotments of the circuits are tied
together by the shared inventory (``sum a = x``, ``sum n = z``) and have the prior of the
gate dealing, which factorizes per circuit (``allotment_weight``). The posterior after the
queries is therefore a chain: per circuit, ``g[(a, n), f] = weight(a, n) * P(f | a, n) *
[f agrees with the answers]``, and a dynamic program over the running totals ``(sum a,
sum n)`` gives the exact marginal of every circuit's truth table.

The most likely *joint* truth table (:meth:`CircuitPosterior.map_tables`) is found exactly by
branch and bound over the candidates (bound: each later circuit takes its best function per
allotment). A node budget guards pathological cases (the best joint table found so far is
returned; the search starts from each circuit's most likely table).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from mtp_gym.circuit_decoding.env import (
    AND,
    LABELS,
    NOT,
    OR,
    allotment_weight,
    function_distribution,
)

_INVENTORY_RE = re.compile(r"total of (\d+) AND gates?, (\d+) OR gates? and (\d+) NOT gates?")
_CIRCUITS_RE = re.compile(r"distributed across (\d+) circuits")
_INPUTS_RE = re.compile(r"accepts (\d+) binary inputs?")
_QUERIES_RE = re.compile(r"You have (\d+) quer(?:y|ies) to figure")


def read_setup(observation: str) -> dict[str, Any]:
    """Shape, inventory and query budget from the Circuit Decoding instructions."""
    inventory, circuits, inputs, queries = (
        r.search(observation) for r in (_INVENTORY_RE, _CIRCUITS_RE, _INPUTS_RE, _QUERIES_RE)
    )
    if inventory is None or circuits is None or inputs is None or queries is None:
        raise ValueError("no Circuit Decoding instructions in this observation")
    x, y, z = (int(g) for g in inventory.groups())
    c = int(circuits.group(1))
    return {
        "num_circuits": c,
        "num_inputs": int(inputs.group(1)),
        "labels": LABELS[:c],
        "inventory": {AND: x, OR: y, NOT: z},
        "num_queries": int(queries.group(1)),
    }


def _entropy(p: np.ndarray) -> np.ndarray:
    q = np.clip(p, 1e-300, 1.0)
    r = np.clip(1.0 - p, 1e-300, 1.0)
    h = -(p * np.log2(q) + (1.0 - p) * np.log2(r))
    return np.where((p <= 1e-12) | (p >= 1 - 1e-12), 0.0, h)


class CircuitPosterior:
    """Exact posterior over the joint truth tables of ``C`` circuits sharing an inventory."""

    def __init__(self, num_circuits: int, num_inputs: int, inventory: dict[str, int]) -> None:
        self.c, self.k = num_circuits, num_inputs
        self.x, self.z = inventory[AND], inventory[NOT]
        if self.x + inventory[OR] != num_circuits * (num_inputs - 1):
            raise ValueError(f"inventory {inventory} does not fit {num_circuits} circuits of {num_inputs} inputs")
        per = num_inputs - 1
        self.allotments = [(a, n) for a in range(min(per, self.x) + 1) for n in range(self.z + 1)]
        dists = [function_distribution(num_inputs, a, per - a, n) for a, n in self.allotments]
        self.functions = sorted({f for d in dists for f in d})
        index = {f: i for i, f in enumerate(self.functions)}
        self.prior = np.zeros((len(self.allotments), len(self.functions)))
        for s, ((a, n), d) in enumerate(zip(self.allotments, dists)):
            w = allotment_weight(num_inputs, a, n)
            for f, p in d.items():
                self.prior[s, index[f]] = w * p
        rows = 1 << num_inputs
        self.bits = np.array([[(f >> j) & 1 for j in range(rows)] for f in self.functions], dtype=bool)
        self.alive = np.ones((num_circuits, len(self.functions)), dtype=bool)
        self._marginals: np.ndarray | None = None

    # ------------------------------------------------------------------ evidence
    def observe(self, circuit: int, row: int, output: int) -> None:
        self.alive[circuit] &= self.bits[:, row] == bool(output)
        self._marginals = None

    def weights(self) -> np.ndarray:
        """``g[c, s, f]``: unnormalized weight of allotment ``s`` and function ``f`` for circuit ``c``."""
        return self.prior[None, :, :] * self.alive[:, None, :]

    # ------------------------------------------------------------------ chain DP over totals
    def _shift_add(self, totals: np.ndarray, per_allotment: np.ndarray) -> np.ndarray:
        """Totals after one more circuit: ``out[A+a, N+n] += totals[A, N] * w[(a, n)]``."""
        out = np.zeros_like(totals)
        X, Z = totals.shape
        for (a, n), w in zip(self.allotments, per_allotment):
            if w:
                out[a:, n:] += totals[: X - a, : Z - n] * w
        return out

    def _backward(self, per_circuit: np.ndarray) -> list[np.ndarray]:
        """``bwd[i][A, N]``: weight of circuits ``i..`` completing totals ``(A, N)`` to ``(x, z)``."""
        shape = (self.x + 1, self.z + 1)
        end = np.zeros(shape)
        end[self.x, self.z] = 1.0
        bwd = [end]
        for c in range(self.c - 1, -1, -1):
            nxt, cur = bwd[0], np.zeros(shape)
            for (a, n), w in zip(self.allotments, per_circuit[c]):
                if w:
                    cur[: shape[0] - a, : shape[1] - n] += nxt[a:, n:] * w
            bwd.insert(0, cur)
        return bwd

    def marginals(self) -> np.ndarray:
        """``m[c, f]``: posterior probability that circuit ``c`` computes function ``f``."""
        if self._marginals is not None:
            return self._marginals
        g = self.weights()
        z = g.sum(axis=2)  # (C, S)
        bwd = self._backward(z)
        fwd = np.zeros((self.x + 1, self.z + 1))
        fwd[0, 0] = 1.0
        out = np.zeros((self.c, len(self.functions)))
        X, Z = fwd.shape
        for c in range(self.c):
            for s, (a, n) in enumerate(self.allotments):
                if z[c, s]:
                    mass = float((fwd[: X - a, : Z - n] * bwd[c + 1][a:, n:]).sum())
                    out[c] += mass * g[c, s]
            fwd = self._shift_add(fwd, z[c])
        total = out.sum(axis=1, keepdims=True)
        if np.any(total <= 0):
            raise ValueError("the answers contradict every circuit the generator can build")
        self._marginals = out / total
        return self._marginals

    def one_probabilities(self) -> np.ndarray:
        """``p[c, row]``: probability that circuit ``c`` outputs 1 on ``row``."""
        return self.marginals() @ self.bits

    def best_query(self) -> tuple[int, int, float]:
        """(circuit, row, answer entropy in bits) of the most informative query."""
        h = _entropy(self.one_probabilities())
        c, row = np.unravel_index(int(np.argmax(h)), h.shape)
        return int(c), int(row), float(h[c, row])

    def map_tables(self, node_budget: int = 200_000) -> tuple[int, ...]:
        """The most likely joint truth table (exact branch and bound)."""
        m = self.marginals()
        g = self.weights()
        cands = [[int(f) for f in np.argsort(-m[c], kind="stable") if m[c, f] > 0] for c in range(self.c)]
        bound_bwd = self._backward(g.max(axis=2))
        best_value, best_choice = 0.0, tuple(int(cs[0]) for cs in cands)
        nodes = [0]
        start = np.zeros((self.x + 1, self.z + 1))
        start[0, 0] = 1.0

        def search(c: int, fwd: np.ndarray, chosen: tuple[int, ...]) -> None:
            nonlocal best_value, best_choice
            for f in cands[c]:
                nodes[0] += 1
                if nodes[0] > node_budget:
                    return
                nxt = self._shift_add(fwd, g[c, :, f])
                if c + 1 == self.c:
                    value = float(nxt[self.x, self.z])
                    if value > best_value:
                        best_value, best_choice = value, chosen + (f,)
                elif float((nxt * bound_bwd[c + 1]).sum()) > best_value:
                    search(c + 1, nxt, chosen + (f,))

        search(0, start, ())
        return tuple(self.functions[f] for f in best_choice)

    def certain(self) -> bool:
        return bool(np.all(self.marginals().max(axis=1) >= 1 - 1e-12))
