"""Circuit Decoding (Multi-Turn Puzzles, section 2.1 and appendices A.2, A.4).

The env class :class:`CircuitDecodingEnv` carries the documentation (Gymnasium headings).
"""

from __future__ import annotations

import re
from functools import cache
from math import comb
from typing import Any

import numpy as np

from mtp_gym.core import PAPERS, InvalidAction, PuzzleInfo, Reply, TextPuzzleEnv, check_int
from mtp_gym.data import load_json

AND, OR, NOT = "AND", "OR", "NOT"
GATES = (AND, OR, NOT)
BENCH_SHAPES = ((3, 3), (6, 2))
CONFIGS_PER_SHAPE = 150
BENCH_MAX_NOT = 4
BENCH_SEED = 2025
LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_INPUTS = 5
MAX_NOT_LIMIT = 8

INSTRUCTIONS = """**Welcome to the Circuit Deduction Challenge!**

**Your Inventory:** You have a total of {components}. These are distributed across {num_circuits} circuits, labeled {circuit_labels}.

**Your Goal:** Deduce the logical structure of each circuit.

**The Setup:**

* Each circuit accepts {num_inputs} binary inputs (0 or 1) and produces a single binary output (0 or 1).
* Circuits are implemented in layers. Each layer takes two inputs from the previous layer and produces a single output.
* No circuit will always output 0 or always output 1, regardless of input.
* All circuit components are being used and are distributed without replacement across {num_circuits} circuits.

**Your Tools:** You have {num_questions} queries to figure all the circuits out. Each query is a call to a circuit with specific inputs. At each turn of the conversation with me, you must make only 1 query. Hence, there will be {num_questions} turns of the conversation before you have to make your final guess.

**How to Play:**

1. At each turn, you must make one query
2. Use the following format for your query:
<query>{example_query}</query>
where {first_label} is the label of the circuit and the {num_inputs} digits are its inputs, in order.
3. You must make only 1 query at each turn

**Think Strategically:**

* Reason about the behavior of each circuit based on the available components.
* Plan your {num_questions} queries carefully to maximize information gained.

**Final Submission:**

After your {num_questions} queries, provide the truth tables for all circuits ({circuit_labels}) in this format:
<guess>bits</guess>
where bits is a string of {total_bits} binary digits: the truth table of circuit {label_order}, {table_bits} bits each, concatenated in that order. Each truth table lists the circuit's outputs for its inputs in binary counting order: {counting_order}.

Please start with your first query. Plan your steps before making the queries."""

NEXT_QUERY = "Please send your next query. {n} {queries} remaining."
FINAL_PROMPT = "Please provide the truth tables for all circuits in the format requested."


# ---------------------------------------------------------------------- truth tables
def input_table(position: int, num_inputs: int) -> int:
    """Truth table (bit ``j`` = value on input row ``j``) of input ``position`` (0-based).

    Row ``j`` sets input ``i`` to bit ``num_inputs - 1 - i`` of ``j``: the first input is the
    most significant, so rows run in binary counting order.
    """
    shift = num_inputs - 1 - position
    return sum(1 << j for j in range(1 << num_inputs) if (j >> shift) & 1)


def full_mask(num_inputs: int) -> int:
    return (1 << (1 << num_inputs)) - 1


def input_row(inputs: tuple[int, ...] | list[int]) -> int:
    """Row index of an input tuple (binary counting order, first input most significant)."""
    row = 0
    for bit in inputs:
        row = (row << 1) | bit
    return row


def row_inputs(row: int, num_inputs: int) -> tuple[int, ...]:
    """The inputs of truth-table row ``row``."""
    return tuple((row >> (num_inputs - 1 - i)) & 1 for i in range(num_inputs))


def table_string(table: int, num_inputs: int) -> str:
    """Truth table as the guess format writes it: one digit per row, row 0 first."""
    return "".join("1" if (table >> j) & 1 else "0" for j in range(1 << num_inputs))


def parse_table(bits: str) -> int:
    """Inverse of :func:`table_string`."""
    return sum(1 << j for j, c in enumerate(bits) if c == "1")


def apply_gate(gate: str, values: tuple[int, ...], mask: int) -> int:
    """Truth table of ``gate`` applied to the truth tables ``values``."""
    if gate == AND:
        return values[0] & values[1]
    if gate == OR:
        return values[0] | values[1]
    if gate == NOT:
        return ~values[0] & mask
    raise ValueError(f"gate must be one of {GATES}, got {gate!r}")


def _next_signals(signals: list, inputs: tuple[int, ...], out: Any) -> list:
    return [s for i, s in enumerate(signals) if i not in inputs] + [out]


def _check_layer(gate: str, inputs: tuple[int, ...], width: int) -> None:
    arity = 1 if gate == NOT else 2
    if gate not in GATES or len(inputs) != arity or len(set(inputs)) != arity:
        raise ValueError(f"bad layer {gate!r} {inputs!r}")
    if not all(0 <= i < width for i in inputs):
        raise ValueError(f"layer {gate!r} {inputs!r} indexes past the {width} signals of the previous layer")


def evaluate_layers(layers: list | tuple, num_inputs: int) -> int:
    """Truth table of a circuit given as layers ``(gate, input indices)`` (see the module doc)."""
    mask = full_mask(num_inputs)
    signals = [input_table(i, num_inputs) for i in range(num_inputs)]
    for gate, inputs in layers:
        inputs = tuple(inputs)
        _check_layer(gate, inputs, len(signals))
        signals = _next_signals(signals, inputs, apply_gate(gate, tuple(signals[i] for i in inputs), mask))
    if len(signals) != 1:
        raise ValueError(f"the layers leave {len(signals)} signals, not a single output")
    return signals[0]


def evaluate_circuit(layers: list | tuple, inputs: tuple[int, ...]) -> int:
    """Output of a circuit on one input tuple."""
    return (evaluate_layers(layers, len(inputs)) >> input_row(inputs)) & 1


def circuit_expression(layers: list | tuple, num_inputs: int) -> str:
    """The circuit as a formula over ``x1..xk``, e.g. ``OR(x2, NOT(AND(x1, x3)))``."""
    signals = [f"x{i + 1}" for i in range(num_inputs)]
    for gate, inputs in layers:
        inputs = tuple(inputs)
        _check_layer(gate, inputs, len(signals))
        signals = _next_signals(signals, inputs, f"{gate}({', '.join(signals[i] for i in inputs)})")
    return signals[0]


def is_constant(table: int, num_inputs: int) -> bool:
    return table in (0, full_mask(num_inputs))


def depends_on_all_inputs(table: int, num_inputs: int) -> bool:
    """Whether flipping each input changes the output on some row."""
    rows = 1 << num_inputs
    for i in range(num_inputs):
        bit = 1 << (num_inputs - 1 - i)
        if all(((table >> j) & 1) == ((table >> (j ^ bit)) & 1) for j in range(rows)):
            return False
    return True


def score_guess(guess: str, tables: list[int] | tuple[int, ...], num_inputs: int) -> tuple[bool, ...]:
    """Per circuit, whether its slice of ``guess`` is exactly its truth table."""
    n = 1 << num_inputs
    return tuple(guess[c * n : (c + 1) * n] == table_string(t, num_inputs) for c, t in enumerate(tables))


# ---------------------------------------------------------------------- generation
def deal_gates(
    rng: np.random.Generator, num_circuits: int, num_inputs: int, num_and: int, num_or: int, num_not: int
) -> list[dict[str, int]]:
    """Step 1 of the generator: each circuit's allotment ``{"AND": a, "OR": o, "NOT": n}``."""
    per = num_inputs - 1
    if num_and < 0 or num_or < 0 or num_not < 0 or num_and + num_or != num_circuits * per:
        raise ValueError(
            f"the inventory needs num_and + num_or = num_circuits * (num_inputs - 1) = {num_circuits * per} "
            f"and no negative count; got AND={num_and}, OR={num_or}, NOT={num_not}"
        )
    binary = [AND] * num_and + [OR] * num_or
    order = rng.permutation(len(binary)).tolist()
    allot = []
    for c in range(num_circuits):
        chunk = [binary[i] for i in order[c * per : (c + 1) * per]]
        allot.append({AND: chunk.count(AND), OR: chunk.count(OR), NOT: 0})
    for _ in range(num_not):
        allot[int(rng.integers(num_circuits))][NOT] += 1
    return allot


def build_layers(rng: np.random.Generator, num_inputs: int, gates: dict[str, int]) -> list[tuple[str, tuple[int, ...]]]:
    """Step 2 of the generator: one circuit's layers from its allotment."""
    if gates[AND] + gates[OR] != num_inputs - 1:
        raise ValueError(f"a circuit of {num_inputs} inputs needs {num_inputs - 1} AND/OR gates, got {gates}")
    remaining = dict(gates)
    width = num_inputs
    layers = []
    while any(remaining.values()):
        types = [g for g in GATES if remaining[g] > 0]
        gate = types[int(rng.integers(len(types)))]
        if gate == NOT:
            inputs: tuple[int, ...] = (int(rng.integers(width)),)
        else:
            inputs = tuple(sorted(int(i) for i in rng.choice(width, size=2, replace=False)))
            width -= 1
        remaining[gate] -= 1
        layers.append((gate, inputs))
    return layers


def generate_config(
    rng: np.random.Generator, num_circuits: int, num_inputs: int, num_and: int, num_or: int, num_not: int
) -> dict[str, Any]:
    """A full configuration (plain JSON-able values): shape, inventory, each circuit's layers."""
    allot = deal_gates(rng, num_circuits, num_inputs, num_and, num_or, num_not)
    circuits = []
    for gates in allot:
        while True:  # read-once circuits are never constant; the check guards the rule anyway
            layers = build_layers(rng, num_inputs, gates)
            if not is_constant(evaluate_layers(layers, num_inputs), num_inputs):
                break
        circuits.append({"gates": gates, "layers": [[g, list(i)] for g, i in layers]})
    return {
        "num_circuits": num_circuits,
        "num_inputs": num_inputs,
        "inventory": {AND: num_and, OR: num_or, NOT: num_not},
        "circuits": circuits,
    }


def benchmark_inventory(j: int) -> tuple[int, int, int]:
    """(AND, OR, NOT) of configuration ``j`` within a benchmark shape."""
    num_and = 1 + (j // 5) % 5
    return num_and, 6 - num_and, j % 5


def generate_benchmark_split() -> list[dict[str, Any]]:
    """The 300 benchmark configurations, built from fixed seeds (what the asset holds)."""
    configs = []
    for shape, (c, k) in enumerate(BENCH_SHAPES):
        for j in range(CONFIGS_PER_SHAPE):
            rng = np.random.default_rng([BENCH_SEED, shape, j])
            configs.append(generate_config(rng, c, k, *benchmark_inventory(j)))
    return configs


@cache
def benchmark_configs() -> tuple[dict[str, Any], ...]:
    """The shipped benchmark split (read-only)."""
    return tuple(load_json("circuit_decoding", "benchmark.json")["configs"])


# ---------------------------------------------------------------------- exact prior
@cache
def function_distribution(num_inputs: int, num_and: int, num_or: int, num_not: int) -> dict[int, float]:
    """Exact distribution of the truth table :func:`build_layers` yields for one allotment
    (cached: treat the dict as read-only)."""
    if num_and + num_or != num_inputs - 1 or min(num_and, num_or, num_not) < 0:
        raise ValueError(f"a circuit of {num_inputs} inputs needs {num_inputs - 1} AND/OR gates")
    mask = full_mask(num_inputs)
    start = tuple(sorted(input_table(i, num_inputs) for i in range(num_inputs)))
    memo: dict[tuple, dict[int, float]] = {}

    def walk(signals: tuple[int, ...], a: int, o: int, n: int) -> dict[int, float]:
        key = (signals, a, o, n)
        if key in memo:
            return memo[key]
        if a + o + n == 0:
            memo[key] = {signals[0]: 1.0}
            return memo[key]
        out: dict[int, float] = {}
        types = [g for g, left in ((AND, a), (OR, o), (NOT, n)) if left > 0]
        m = len(signals)
        branches: list[tuple[tuple[int, ...], float]]
        for gate in types:
            if gate == NOT:
                branches = [((i,), 1.0 / m) for i in range(m)]
            else:
                p = 1.0 / comb(m, 2)
                branches = [((i, j), p) for i in range(m) for j in range(i + 1, m)]
            for inputs, p in branches:
                value = apply_gate(gate, tuple(signals[i] for i in inputs), mask)
                nxt = tuple(sorted(_next_signals(list(signals), inputs, value)))
                sub = walk(nxt, a - (gate == AND), o - (gate == OR), n - (gate == NOT))
                for f, q in sub.items():
                    out[f] = out.get(f, 0.0) + q * p / len(types)
        memo[key] = out
        return out

    return walk(start, num_and, num_or, num_not)


def allotment_weight(num_inputs: int, num_and: int, num_not: int) -> float:
    """One circuit's factor in the probability of an allotment vector.

    :func:`deal_gates` gives the vector ``(a_c, n_c)`` probability
    ``prod_c comb(k-1, a_c) / comb(x+y, x)  *  z! / prod_c n_c! / C^z``: up to constants that
    the inventory fixes, the product of these factors.
    """
    weight = float(comb(num_inputs - 1, num_and))
    for i in range(2, num_not + 1):
        weight /= i
    return weight


# ---------------------------------------------------------------------- prompt
def components_text(num_and: int, num_or: int, num_not: int) -> str:
    parts = [f"{n} {g} gate{'s' * (n != 1)}" for g, n in ((AND, num_and), (OR, num_or), (NOT, num_not))]
    return f"{parts[0]}, {parts[1]} and {parts[2]}"


def call_text(label: str, inputs: tuple[int, ...]) -> str:
    """A circuit call as the paper writes it: ``A(0, 1, 1)``."""
    return f"{label}({', '.join(str(b) for b in inputs)})"


def instructions_text(num_circuits: int, num_inputs: int, inventory: dict[str, int], num_queries: int) -> str:
    labels = LABELS[:num_circuits]
    rows = 1 << num_inputs
    order = [call_text(labels[0], row_inputs(j, num_inputs)) for j in range(rows)]
    counting = ", ".join(order) if rows <= 4 else f"{order[0]}, {order[1]}, {order[2]}, ..., {order[-1]}"
    return INSTRUCTIONS.format(
        components=components_text(inventory[AND], inventory[OR], inventory[NOT]),
        num_circuits=num_circuits,
        circuit_labels=", ".join(labels),
        num_inputs=num_inputs,
        num_questions=num_queries,
        example_query=call_text(labels[0], row_inputs((1 << (num_inputs - 1)) - 1, num_inputs)),
        first_label=labels[0],
        total_bits=num_circuits * rows,
        label_order=", then of ".join(labels) if num_circuits > 1 else labels,
        table_bits=rows,
        counting_order=counting,
    )


# ---------------------------------------------------------------------- parsing

_CALL_RE = re.compile(r"^([A-Za-z])\s*\((.*)\)$", re.DOTALL)
_GUESS_JUNK_RE = re.compile(r"[\s,;|]")
_ARGS_SPLIT_RE = re.compile(r"[\s,]+")


def parse_call(content: str, labels: str, num_inputs: int) -> tuple[int, tuple[int, ...]]:
    """Circuit index and inputs of a query like ``A(0, 1, 1)``; raises :class:`InvalidAction`."""
    match = _CALL_RE.match(content.strip().strip("`'\"").strip())
    if match is None:
        example = call_text(labels[0], row_inputs((1 << (num_inputs - 1)) - 1, num_inputs))
        raise InvalidAction(f"the query {content[:60]!r} is not a circuit call like {example}.")
    label = match.group(1).upper()
    if label not in labels:
        raise InvalidAction(f"there is no circuit {label}; the circuits are {', '.join(labels)}.")
    args = [a for a in _ARGS_SPLIT_RE.split(match.group(2).strip()) if a]
    if len(args) != num_inputs:
        raise InvalidAction(f"circuit {label} takes {num_inputs} inputs, the query gives {len(args)}.")
    if any(a not in ("0", "1") for a in args):
        raise InvalidAction(f"every input must be 0 or 1, got {', '.join(args)}.")
    return labels.index(label), tuple(int(a) for a in args)


def parse_guess(content: str, num_circuits: int, num_inputs: int) -> str:
    """The bits of a guess, checked for alphabet and length; raises :class:`InvalidAction`."""
    bits = _GUESS_JUNK_RE.sub("", content).strip("`'\"")
    total, rows = num_circuits << num_inputs, 1 << num_inputs
    labels = ", ".join(LABELS[:num_circuits])
    if not bits or set(bits) - {"0", "1"}:
        raise InvalidAction(f"the guess must be a string of the digits 0 and 1, got {content[:60]!r}.")
    if len(bits) != total:
        raise InvalidAction(
            f"your guess has {len(bits)} digits but must have exactly {total}: the truth tables of "
            f"circuits {labels} ({rows} digits each) concatenated in that order."
        )
    return bits


# ---------------------------------------------------------------------- game records
def prepare_game(config: dict[str, Any]) -> tuple[tuple[int, ...], dict[str, Any]]:
    """Truth tables and the ``info["hidden"]`` record of a configuration (treat as read-only)."""
    c, k = config["num_circuits"], config["num_inputs"]
    tables = tuple(evaluate_layers(circ["layers"], k) for circ in config["circuits"])
    circuits: list[dict[str, Any]] = [
        {
            "label": label,
            "gates": dict(circ["gates"]),
            "layers": [{"gate": g, "inputs": list(i)} for g, i in circ["layers"]],
            "expression": circuit_expression(circ["layers"], k),
            "truth_table": table_string(t, k),
        }
        for label, circ, t in zip(LABELS, config["circuits"], tables)
    ]
    hidden = {
        "num_circuits": c,
        "num_inputs": k,
        "labels": list(LABELS[:c]),
        "inventory": dict(config["inventory"]),
        "circuits": circuits,
        "answer": "".join(circ["truth_table"] for circ in circuits),
    }
    return tables, hidden


@cache
def _benchmark_game(config_id: int) -> tuple[tuple[int, ...], dict[str, Any]]:
    return prepare_game(benchmark_configs()[config_id])


# ---------------------------------------------------------------------- env
class CircuitDecodingEnv(TextPuzzleEnv):
    """Circuit Decoding (Multi-Turn Puzzles, section 2.1 and appendices A.2, A.4).

    Description:
        ``C`` hidden Boolean circuits (labels ``A``, ``B``, ...) each take ``k`` binary inputs and
        give one output. Together they use a fixed inventory of ``x`` AND, ``y`` OR and ``z`` NOT
        gates, which the agent is told. The agent calls circuits on inputs of its choice
        (``num_queries`` queries, 18 in the benchmark) and then submits every circuit's truth table.

        Circuit construction follows appendix A.2 under the reading that keeps
        the task well-posed: a circuit starts from its ``k`` input signals; each *layer* applies
        exactly one gate: an AND or OR gate consumes two signals and yields one, a NOT gate
        replaces one signal by its negation, and every other signal is carried forward. Layers are
        added until the circuit's allotted gates are used up, leaving a single output signal. A
        circuit that ends in one signal with all its gates used therefore has exactly ``k - 1``
        AND/OR gates (the paper's minimum ``ceil(log2 k)`` for ``k <= 3``, above it for larger
        ``k``, so the paper's "at least" holds), while NOT
        gates may fall anywhere (on inputs, inner signals, the output, twice on one wire). So
        ``x + y = C * (k - 1)`` and ``z`` is free. Every input is read exactly once, so no circuit
        is constant (the generator checks this anyway) and every circuit depends on all inputs.

        The random process, in full (``generate_config``; ``function_distribution`` computes the
        exact distribution of the resulting truth table, which the oracle uses as its prior):

        1. Gate distribution: the ``x + y`` AND/OR gates are shuffled uniformly and dealt
           ``k - 1`` to each circuit in label order; each NOT gate goes to a circuit drawn
           uniformly at random, independently.
        2. Layers, per circuit: the gate type of the next layer is drawn uniformly among the
           types (AND, OR, NOT) the circuit still has; an AND/OR gate takes two distinct signals
           drawn uniformly, a NOT gate one signal drawn uniformly.

    Prompt Format:
        The paper's appendix A.4 prompt with its placeholders filled (``{components}`` as
        ``4 AND gates, 2 OR gates and 3 NOT gates``, labels as ``A, B, C``). Two deviations: the
        paper's line "1. At each turn, you must make two queries" contradicts its own line 3 and
        reads "one query" here, and the formats the paper elides are spelled out: the query
        format with an example, and the final answer format (length, order of the bits).
        A query is answered as in the paper: ``A(0, 1, 1) = 1`` then
        ``Please send your next query. 17 queries remaining.``; after the last query
        ``Please provide the truth tables for all circuits in the format requested.``

    Action Format:
        ``<query>A(0, 1, 1)</query>``: a circuit label (any case) and ``k`` inputs, each 0 or 1,
        separated by commas or spaces. ``<guess>bits</guess>``: ``C * 2^k`` binary digits (spaces
        and commas ignored), the truth table of each circuit in label order, each listing the
        outputs for the inputs in binary counting order (``A(0, 0, 0)``, ``A(0, 0, 1)``, ...,
        ``A(1, 1, 1)``, then ``B(0, 0, 0)``, ...). The tag may sit anywhere in the reply; several
        different queries or a query and a guess in one reply are a re-prompt that names them
        (one action per turn; a tag that holds no move, like ``<guess>bits</guess>`` restated,
        is ignored). A guess ends the game whenever it comes (the paper's
        models sometimes answer before using every query). Format errors (re-prompt, no turn
        spent, state untouched): no tag, an unknown label, the wrong number of inputs, a
        non-binary input, a query after all queries are spent, a guess with other characters
        than 0/1, and a guess of the wrong length (the re-prompt states the length).

    Observation Space:
        ``Text`` over printable ASCII; the instructions at reset, then the replies.

    Rewards:
        0 per step; at the end the score, the paper's metric: the fraction of circuits whose
        truth table is exactly right.

    Starting State:
        Benchmark configuration ``i`` (300, shipped in ``assets/circuit_decoding/benchmark.json``
        and rebuilt by ``assets/scripts/build_circuit_configs.py``): ``0-149`` have 3 circuits of
        3 inputs, ``150-299`` 6 circuits of 2 inputs (``C * 2^k = 24`` both). Within a shape,
        configuration ``j`` has ``z = j % 5`` NOT gates and ``x = 1 + (j // 5) % 5`` AND gates
        (``y = 6 - x`` OR gates), so every inventory with both gate types and 0-4 NOT gates
        appears 6 times per shape; gates are distributed and circuits built by the process above
        from ``np.random.default_rng([2025, shape, j])``. Generated configurations
        (``configs="generated"``) use the given shape (both benchmark shapes at random when
        ``num_circuits``/``num_inputs`` are ``None``), ``x`` uniform in ``[1, C(k-1) - 1]``
        (``[0, C(k-1)]`` when ``C(k-1) < 2``) and ``z`` uniform in ``[0, max_not]``.

    Episode End:
        Terminated by a guess (outcome ``success`` when every truth table is right, else
        ``failure``) or by ``max_format_errors`` consecutive format errors (``format_error``).
        After the last query only a guess is legal, so the turn budget (``num_queries + 1``)
        never truncates an episode.

    Information:
        The common keys. ``feedback`` for a query: ``circuit`` (label), ``inputs`` (tuple),
        ``output``, ``queries_remaining``; for a guess: ``guess``, ``correct`` (tuple of bools,
        per circuit), ``num_correct``; on a format error ``error``. ``hidden``: ``num_circuits``,
        ``num_inputs``, ``labels``, ``inventory`` (``{"AND": x, "OR": y, "NOT": z}``), ``answer``
        (the correct guess string) and ``circuits``: per circuit ``label``, ``gates`` (its
        allotment), ``layers`` (list of ``{"gate", "inputs"}``: the inputs index the previous
        layer's signals, which start as the circuit inputs ``x1..xk``; the next layer's signals
        are the unused ones in order followed by the gate's output), ``expression`` (e.g.
        ``OR(x2, NOT(AND(x1, x3)))``) and ``truth_table`` (string).

    Arguments:
        ``num_circuits`` (``None`` or 1-26), ``num_inputs`` (``None`` or 1-5; both ``None``: the
        benchmark shapes), ``max_not`` (4: NOT gates of generated configurations, 0-8),
        ``num_queries`` (18), ``max_turns`` (``None``: ``num_queries + 1``; if given alone it sets
        ``num_queries = max_turns - 1``), ``configs``, ``max_format_errors`` (3), ``render_mode``,
        ``info_secret`` (``False``: no ``info["hidden"]``).
        The benchmark split exists for the default shape and ``max_not=4``.

    Version History:
        v0: initial release.
    """

    puzzle = PuzzleInfo(PAPERS[0], "every circuit's truth table right (score: the fraction right)")

    def __init__(
        self,
        num_circuits: int | None = None,
        num_inputs: int | None = None,
        max_not: int = BENCH_MAX_NOT,
        num_queries: int | None = None,
        max_turns: int | None = None,
        configs: str | None = None,
        max_format_errors: int = 3,
        render_mode: str | None = None,
        info_secret: bool = True,
    ) -> None:
        if (num_circuits is None) != (num_inputs is None):
            raise ValueError(
                "num_circuits and num_inputs must be given together (both None: the benchmark shapes "
                f"{BENCH_SHAPES}), got num_circuits={num_circuits!r}, num_inputs={num_inputs!r}"
            )
        if num_circuits is not None:
            check_int("num_circuits", num_circuits, 1, len(LABELS))
            check_int("num_inputs", num_inputs, 1, MAX_INPUTS)
        check_int("max_not", max_not, 0, MAX_NOT_LIMIT)
        if max_turns is not None:
            check_int("max_turns", max_turns, 1, (1 << 16) + 1)
        if num_queries is None:
            num_queries = 18 if max_turns is None else max_turns - 1
        check_int("num_queries", num_queries, 0, 1 << 16)
        if max_turns is None:
            max_turns = num_queries + 1
        elif max_turns != num_queries + 1:
            raise ValueError(
                f"max_turns must equal num_queries + 1 = {num_queries + 1} (the queries plus the final "
                f"guess), got {max_turns!r}"
            )
        self.num_circuits = num_circuits
        self.num_inputs = num_inputs
        self.max_not = max_not
        self.num_queries = num_queries
        shapes = BENCH_SHAPES if num_circuits is None or num_inputs is None else ((num_circuits, num_inputs),)
        longest = max(
            max(len(instructions_text(c, k, {AND: 99, OR: 99, NOT: 99}, num_queries)), c * ((1 << k) + 8))
            for c, k in shapes
        )
        self.obs_max_length = longest + 1024  # the final reply lists every truth table
        super().__init__(
            max_turns=max_turns,
            configs=configs,
            max_format_errors=max_format_errors,
            render_mode=render_mode,
            info_secret=info_secret,
        )
        self._config: dict[str, Any] = {}
        self._labels = ""
        self._k = 0
        self._tables: tuple[int, ...] = ()
        self._queries_left = 0
        self._hidden_state: dict[str, Any] = {}

    # ------------------------------------------------------------------ configs
    @property
    def num_configs(self) -> int:
        if self.num_circuits is None and self.max_not == BENCH_MAX_NOT:
            return len(BENCH_SHAPES) * CONFIGS_PER_SHAPE
        return 0

    def _benchmark_mismatch(self) -> str:
        return (
            f"the benchmark has num_circuits=None, num_inputs=None (shapes {BENCH_SHAPES}) and "
            f"max_not={BENCH_MAX_NOT}; got num_circuits={self.num_circuits}, num_inputs={self.num_inputs}, "
            f"max_not={self.max_not}"
        )

    def config_strata(self) -> dict[str, list[Any]]:
        configs = benchmark_configs()[: self.num_configs]
        return {
            "shape": [(c["num_circuits"], c["num_inputs"]) for c in configs],
            "not_gates": [c["inventory"]["NOT"] for c in configs],
        }

    def _setup_benchmark(self, config_id: int) -> None:
        self._set_game(benchmark_configs()[config_id], _benchmark_game(config_id))

    def _setup_generated(self) -> None:
        rng = self.np_random
        if self.num_circuits is None or self.num_inputs is None:  # both None (checked together)
            c, k = BENCH_SHAPES[int(rng.integers(len(BENCH_SHAPES)))]
        else:
            c, k = self.num_circuits, self.num_inputs
        binary = c * (k - 1)
        num_and = int(rng.integers(1, binary)) if binary >= 2 else int(rng.integers(binary + 1))
        num_not = int(rng.integers(self.max_not + 1))
        self._set_game(generate_config(rng, c, k, num_and, binary - num_and, num_not))

    def _set_game(self, config: dict[str, Any], prepared: tuple | None = None) -> None:
        c, k = config["num_circuits"], config["num_inputs"]
        self._config = config
        self._labels = LABELS[:c]
        self._k = k
        self._tables, self._hidden_state = prepared or prepare_game(config)
        self._queries_left = self.num_queries

    format_words = frozenset({"circuit", "circuits", "label"})

    def _format_hint(self) -> str:
        k = self._k
        return (
            f"Reply with one query such as <query>{call_text('A', row_inputs((1 << (k - 1)) - 1, k))}</query>, "
            f"or with your final answer as <guess>bits</guess> ({len(self._labels) << k} digits)."
        )

    # ------------------------------------------------------------------ game
    def _instructions(self) -> str:
        return instructions_text(len(self._labels), self._k, self._config["inventory"], self.num_queries)

    def _parse(self, action: str) -> tuple:
        return self.read_tags(
            action,
            "query|guess",
            self._read_tag,
            "actions (one query or guess per turn)",
            show=self._show_move,
            missing="no <query>...</query> or <guess>...</guess> tag found.",
        )

    def _read_tag(self, tag: tuple[str, str]) -> tuple:
        kind, content = tag
        if kind == "guess":
            return ("guess", parse_guess(content, len(self._labels), self._k))
        if self._queries_left == 0:
            raise InvalidAction(
                f"you have used all {self.num_queries} queries; provide the truth tables for all circuits "
                "as <guess>bits</guess>."
            )
        return ("query", *parse_call(content, self._labels, self._k))

    def _show_move(self, move: tuple) -> str:
        if move[0] == "guess":
            return f"<guess>{move[1]}</guess>"
        return f"<query>{call_text(self._labels[move[1]], move[2])}</query>"

    def _play(self, move: tuple) -> Reply:
        if move[0] == "guess":
            return self._judge(move[1])
        _, circuit, inputs = move
        output = (self._tables[circuit] >> input_row(inputs)) & 1
        self._queries_left -= 1
        left = self._queries_left
        prompt = FINAL_PROMPT if left == 0 else NEXT_QUERY.format(n=left, queries="query" if left == 1 else "queries")
        feedback = {"circuit": self._labels[circuit], "inputs": inputs, "output": output, "queries_remaining": left}
        return Reply(f"{call_text(self._labels[circuit], inputs)} = {output}\n{prompt}", feedback)

    def _judge(self, guess: str) -> Reply:
        correct = score_guess(guess, self._tables, self._k)
        n, c = sum(correct), len(correct)
        tables = ", ".join(f"{label} = {table_string(t, self._k)}" for label, t in zip(self._labels, self._tables))
        head = f"All {c} circuits are right!" if n == c else f"You got {n} of {c} circuits right."
        return Reply(
            f"{head} The truth tables were: {tables}.",
            {"guess": guess, "correct": correct, "num_correct": n},
            "success" if n == c else "failure",
            n / c,
        )

    def _hidden(self) -> dict[str, Any]:
        h = self._hidden_state  # rebuilt, not shared: callers keep what step() returns
        return {
            "num_circuits": h["num_circuits"],
            "num_inputs": h["num_inputs"],
            "labels": list(h["labels"]),
            "inventory": dict(h["inventory"]),
            "circuits": [
                {
                    "label": c["label"],
                    "gates": dict(c["gates"]),
                    "layers": [{"gate": layer["gate"], "inputs": list(layer["inputs"])} for layer in c["layers"]],
                    "expression": c["expression"],
                    "truth_table": c["truth_table"],
                }
                for c in h["circuits"]
            ],
            "answer": h["answer"],
        }
