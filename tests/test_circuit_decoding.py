"""Circuit Decoding: circuit rules, the generator's constraints, the protocol, the oracle.

The full oracle sweep over the 300 benchmark configurations is marked slow:
``pytest -m slow tests/test_circuit_decoding.py``.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections import Counter
from math import factorial, prod
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from mtp_gym.agents import make_agent
from mtp_gym.circuit_decoding.env import (
    AND,
    NOT,
    OR,
    benchmark_configs,
    build_layers,
    circuit_expression,
    deal_gates,
    depends_on_all_inputs,
    evaluate_circuit,
    evaluate_layers,
    function_distribution,
    generate_benchmark_split,
    input_row,
    input_table,
    is_constant,
    parse_table,
    row_inputs,
    table_string,
)
from mtp_gym.circuit_decoding.inference import CircuitPosterior, read_setup
from mtp_gym.eval import evaluate, summarize
from mtp_gym.eval.runner import run_episode

ENV_ID = "MTP/CircuitDecoding-v0"
ROOT = Path(__file__).resolve().parents[1]
PAPER_BEST = 0.322  # Gemini 2.0 Pro on Circuit Decoding (paper, section on cost/performance)


# ---------------------------------------------------------------------- circuit rules
def test_truth_table_conventions():
    assert table_string(input_table(0, 3), 3) == "00001111"  # the first input is the most significant
    assert table_string(input_table(2, 3), 3) == "01010101"
    assert input_row((0, 1, 1)) == 3 and row_inputs(6, 3) == (1, 1, 0)
    for k in (1, 2, 3, 4):
        for row in range(1 << k):
            assert input_row(row_inputs(row, k)) == row
    assert parse_table("01010111") == 0b11101010 and table_string(0b11101010, 3) == "01010111"


def test_layers_evaluate_by_hand():
    # x1 AND x2 makes a new signal after the carried x3; then OR of the two.
    layers = [(AND, (0, 1)), (OR, (0, 1))]
    assert circuit_expression(layers, 3) == "OR(x3, AND(x1, x2))"
    assert table_string(evaluate_layers(layers, 3), 3) == "01010111"
    assert evaluate_circuit(layers, (1, 1, 0)) == 1 and evaluate_circuit(layers, (1, 0, 0)) == 0
    # NOT replaces x1 (moved to the end), then AND: x2 AND NOT x1.
    layers = [(NOT, (0,)), (AND, (0, 1))]
    assert circuit_expression(layers, 2) == "AND(x2, NOT(x1))"
    assert table_string(evaluate_layers(layers, 2), 2) == "0100"
    assert table_string(evaluate_layers([(NOT, (0,)), (NOT, (0,))], 1), 1) == "01"


@pytest.mark.parametrize(
    "layers, k",
    [([(AND, (0, 1))], 3), ([(AND, (0, 2))], 2), ([(NOT, (0, 1))], 2), ([("XOR", (0, 1))], 2), ([(OR, (1, 1))], 2)],
)
def test_malformed_layers_raise(layers, k):
    with pytest.raises(ValueError):
        evaluate_layers(layers, k)


# ---------------------------------------------------------------------- the generator
def _check_config(config: dict, max_not: int) -> None:
    c, k = config["num_circuits"], config["num_inputs"]
    inv = config["inventory"]
    assert inv[AND] + inv[OR] == c * (k - 1) and 0 <= inv[NOT] <= max_not
    assert len(config["circuits"]) == c
    for gate in (AND, OR, NOT):  # all gates used, distributed without replacement
        assert sum(circ["gates"][gate] for circ in config["circuits"]) == inv[gate]
    for circ in config["circuits"]:
        gates, layers = circ["gates"], circ["layers"]
        assert gates[AND] + gates[OR] == k - 1  # the reading of A.2 documented in CircuitDecodingEnv (>= ceil(log2 k))
        assert Counter(g for g, _ in layers) == Counter({g: n for g, n in gates.items() if n})
        width = k  # one gate per layer, indexing the previous layer's signals
        for gate, inputs in layers:
            assert len(inputs) == (1 if gate == NOT else 2) and len(set(inputs)) == len(inputs)
            assert all(0 <= i < width for i in inputs) and list(inputs) == sorted(inputs)
            width -= gate != NOT
        assert width == 1
        table = evaluate_layers(layers, k)
        assert not is_constant(table, k) and depends_on_all_inputs(table, k)


def test_benchmark_split_shapes_inventories_and_constraints():
    configs = benchmark_configs()
    assert len(configs) == 300
    for i, config in enumerate(configs):
        shape = (config["num_circuits"], config["num_inputs"])
        assert shape == ((3, 3) if i < 150 else (6, 2))
        assert config["num_circuits"] << config["num_inputs"] == 24
        _check_config(config, 4)
    for block in (configs[:150], configs[150:]):
        combos = Counter((c["inventory"][AND], c["inventory"][NOT]) for c in block)
        assert combos == Counter({(x, z): 6 for x in range(1, 6) for z in range(5)})


def test_shipped_split_rebuilds_identically(tmp_path):
    assert tuple(generate_benchmark_split()) == benchmark_configs()
    subprocess.run(
        [sys.executable, str(ROOT / "assets/scripts/build_circuit_configs.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    rel = "circuit_decoding/benchmark.json"
    assert (tmp_path / rel).read_bytes() == (ROOT / "assets" / rel).read_bytes()


@pytest.mark.parametrize(
    "kwargs", [{}, {"num_circuits": 4, "num_inputs": 4, "max_not": 6}, {"num_circuits": 2, "num_inputs": 1}]
)
def test_generated_configurations(kwargs):
    env = gym.make(ENV_ID, configs="generated", **kwargs)
    seen = set()
    for seed in range(40):
        obs, info = env.reset(seed=seed)
        hidden = info["hidden"]
        assert info["config_id"] is None
        if kwargs:
            assert (hidden["num_circuits"], hidden["num_inputs"]) == (kwargs["num_circuits"], kwargs["num_inputs"])
        config = {
            "num_circuits": hidden["num_circuits"],
            "num_inputs": hidden["num_inputs"],
            "inventory": hidden["inventory"],
            "circuits": [
                {"gates": c["gates"], "layers": [(layer["gate"], layer["inputs"]) for layer in c["layers"]]}
                for c in hidden["circuits"]
            ],
        }
        _check_config(config, kwargs.get("max_not", 4))
        seen.add(obs)
    assert env.reset(seed=3)[0] == env.reset(seed=3)[0] and len(seen) >= 5


def test_dealing_and_layer_process_follow_the_exact_prior():
    rng = np.random.default_rng(0)
    n = 10_000
    # Step 2: empirical truth-table frequencies against function_distribution.
    for k, gates in ((3, {AND: 1, OR: 1, NOT: 2}), (2, {AND: 1, OR: 0, NOT: 3})):
        counts = Counter(evaluate_layers(build_layers(rng, k, gates), k) for _ in range(n))
        exact = function_distribution(k, gates[AND], gates[OR], gates[NOT])
        assert set(counts) <= set(exact) and abs(sum(exact.values()) - 1) < 1e-12
        assert max(abs(counts[f] / n - p) for f, p in exact.items()) < 0.015
    # Step 1: allotment frequencies against the product formula of allotment_weight.
    counts = Counter(tuple((g[AND], g[NOT]) for g in deal_gates(rng, 3, 3, 2, 4, 3)) for _ in range(n))
    for allot, seen in counts.items():
        p = prod(factorial(2) / factorial(a) / factorial(2 - a) for a, _ in allot) / 15
        p *= factorial(3) / prod(factorial(m) for _, m in allot) / 3**3
        assert abs(seen / n - p) < 0.01


def test_k2_functions_follow_not_parity():
    # Two-input circuits: the parity of the NOT count fixes the parity class of the function.
    assert set(function_distribution(2, 1, 0, 0)) == {0b1000}  # AND = "0001"
    assert {table_string(f, 2) for f in function_distribution(2, 1, 0, 1)} == {"0100", "0010", "1110"}
    assert {table_string(f, 2) for f in function_distribution(2, 0, 1, 2)} == {"0111", "1110", "0010", "0100"}


# ---------------------------------------------------------------------- the protocol
def test_paper_prompt_and_example_transcript():
    env = gym.make(ENV_ID)
    obs, info = env.reset(options={"config_id": 7})
    hidden = info["hidden"]
    inv = hidden["inventory"]
    assert f"You have a total of {inv[AND]} AND gates, {inv[OR]} OR gates and {inv[NOT]} NOT gates." in obs
    assert "These are distributed across 3 circuits, labeled A, B, C." in obs
    assert "Each circuit accepts 3 binary inputs (0 or 1) and produces a single binary output (0 or 1)." in obs
    assert "No circuit will always output 0 or always output 1, regardless of input." in obs
    assert "You have 18 queries to figure all the circuits out." in obs
    assert "<query>A(0, 1, 1)</query>" in obs and "<guess>bits</guess>" in obs and "24 binary digits" in obs
    assert "A(0, 0, 0), A(0, 0, 1), A(0, 1, 0), ..., A(1, 1, 1)" in obs
    assert read_setup(obs) == {"num_circuits": 3, "num_inputs": 3, "labels": "ABC", "inventory": inv, "num_queries": 18}
    tables = [c["truth_table"] for c in hidden["circuits"]]
    # The paper's first model turn, with its trailing control token.
    reply, reward, term, trunc, info = env.step("<query>A(0, 0, 0)</query><ctrl100>")
    assert reply == f"A(0, 0, 0) = {tables[0][0]}\nPlease send your next query. 17 queries remaining."
    assert info["feedback"] == {
        "circuit": "A",
        "inputs": (0, 0, 0),
        "output": int(tables[0][0]),
        "queries_remaining": 17,
    }
    for i in range(16):
        reply, *_ = env.step(f"<query>B({', '.join(map(str, row_inputs(i % 8, 3)))})</query>")
    assert reply.endswith("1 query remaining.")
    reply, _, term, _, info = env.step("<query>C(0, 0, 0)</query>")
    assert (
        reply
        == f"C(0, 0, 0) = {tables[2][0]}\nPlease provide the truth tables for all circuits in the format requested."
    )
    assert not term and info["turn"] == 18
    reply, _, term, _, info = env.step("<query>C(0, 0, 1)</query>")
    assert reply.startswith("Invalid action: you have used all 18 queries") and info["turn"] == 18
    # The paper's final guess has 25 digits: a re-prompt that states the length, no turn spent.
    reply, _, term, _, info = env.step("<guess>1011111101000101010111111</guess>")
    assert "has 25 digits but must have exactly 24" in reply and "(8 digits each)" in reply
    assert not term and info["turn"] == 18 and not info["valid_action"]
    reply, reward, term, trunc, info = env.step(f"<guess>{' '.join(tables)}</guess>")
    assert term and not trunc and info["outcome"] == "success" and reward == info["score"] == 1.0
    assert info["turn"] == 19 and "All 3 circuits are right!" in reply


def test_two_input_prompt_and_partial_score():
    env = gym.make(ENV_ID)
    obs, info = env.reset(options={"config_id": 150})
    assert "labeled A, B, C, D, E, F." in obs and "<query>A(0, 1)</query>" in obs
    assert "A(0, 0), A(0, 1), A(1, 0), A(1, 1)" in obs and "24 binary digits" in obs
    tables = [c["truth_table"] for c in info["hidden"]["circuits"]]
    reply, *_ = env.step("<query>f(1,1)</query>")
    assert reply.startswith(f"F(1, 1) = {tables[5][3]}\n")
    flipped = "".join("1" if b == "0" else "0" for b in tables[1])
    guess = ", ".join([tables[0], flipped, *tables[2:]])
    reply, reward, term, _, info = env.step(f"I am done. <guess>{guess}</guess>")  # an early guess ends the game
    assert term and info["outcome"] == "failure" and info["turn"] == 2
    assert info["feedback"]["correct"] == (True, False, True, True, True, True) and info["feedback"]["num_correct"] == 5
    assert reward == info["score"] == pytest.approx(5 / 6) and "You got 5 of 6 circuits right." in reply
    assert all(t in reply for t in tables)


@pytest.mark.parametrize(
    "action, needle",
    [
        ("A(0, 1, 1)", "no <query>"),
        ("<query>D(0, 1, 1)</query>", "there is no circuit D; the circuits are A, B, C."),
        ("<query>A(0, 1)</query>", "circuit A takes 3 inputs, the query gives 2."),
        ("<query>A(0, 2, 1)</query>", "every input must be 0 or 1"),
        ("<query>A 0 1 1</query>", "is not a circuit call like A(0, 1, 1)"),
        ("<guess>01x</guess>", "must be a string of the digits 0 and 1"),
        ("<guess>0101</guess>", "has 4 digits but must have exactly 24"),
    ],
)
def test_format_errors_reprompt_and_change_nothing(action, needle):
    env = gym.make(ENV_ID).unwrapped
    env.reset(options={"config_id": 0})
    before = env.game_state_digest()
    reply, reward, term, trunc, info = env.step(action)
    assert reply.startswith("Invalid action:") and needle in reply
    assert "<query>A(0, 1, 1)</query>" in reply and not term and info["turn"] == 0
    assert env.game_state_digest() == before


def test_tolerant_parsing_and_one_move_per_reply():
    env = gym.make(ENV_ID)
    _, info = env.reset(options={"config_id": 3})
    tables = [c["truth_table"] for c in info["hidden"]["circuits"]]
    reply, *_ = env.step("Thinking... <QUERY> b ( 1 ,0, 1 ) </QUERY>")
    assert reply.startswith(f"B(1, 0, 1) = {tables[1][5]}")
    # The format restated in the reasoning holds no move: the real tag is read.
    reply, *_ = env.step("The format is <guess>bits</guess>; first: <query>C(1 1 1)</query>")
    assert reply.startswith(f"C(1, 1, 1) = {tables[2][7]}")
    # Two queries, or a query and a guess: re-prompted, nothing answered, no turn spent.
    before = env.unwrapped.game_state_digest()
    for text in (
        "<query>A(0,0,0)</query> <query>A(1,1,1)</query>",
        f"<query>A(0,0,0)</query> <guess>{tables[0]}{tables[1]}{tables[2]}</guess>",
    ):
        reply, _, term, _, info = env.step(text)
        assert reply.startswith("Invalid action: the reply names 2 different actions") and not term
        assert not info["valid_action"] and info["turn"] == 2
    assert env.unwrapped.game_state_digest() == before
    reply, *_ = env.step("<query>A(0,0,0)</query> and again <query>A(0, 0, 0)</query>")
    assert reply.startswith(f"A(0, 0, 0) = {tables[0][0]}")
    _, _, term, _, info = env.step(f"final: <guess>\n{tables[0]}\n{tables[1]}\n{tables[2]}\n</guess>")
    assert term and info["score"] == 1.0


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"num_circuits": 3}, "num_inputs"),
        ({"num_circuits": 3, "num_inputs": 6}, "num_inputs"),
        ({"num_circuits": 0, "num_inputs": 2}, "num_circuits"),
        ({"max_not": -1}, "max_not"),
        ({"num_queries": 18, "max_turns": 10}, "max_turns"),
        ({"num_queries": -2}, "num_queries"),
        ({"configs": "benchmark", "num_circuits": 3, "num_inputs": 3}, "generated"),
    ],
)
def test_bad_kwargs(kwargs, name):
    with pytest.raises(ValueError, match=name):
        gym.make(ENV_ID, **kwargs)


def test_turn_budget_kwargs():
    env = gym.make(ENV_ID, max_turns=4)
    assert env.unwrapped.num_queries == 3 and "You have 3 queries" in env.reset(options={"config_id": 0})[0]
    env = gym.make(ENV_ID, num_queries=0)
    _, info = env.reset(options={"config_id": 0})
    assert env.step("<query>A(0, 0, 0)</query>")[0].startswith("Invalid action: you have used all 0 queries")
    _, _, term, _, info = env.step(f"<guess>{info['hidden']['answer']}</guess>")
    assert term and info["score"] == 1.0


# ---------------------------------------------------------------------- the oracle
def _brute_force_posterior(c, k, x, y, z, observations):
    """Joint distribution of the truth tables by enumerating every dealing outcome."""
    binary = [AND] * x + [OR] * y
    joint: dict[tuple[int, ...], float] = {}
    orders = list(itertools.permutations(range(len(binary))))
    for order in orders:
        for nots in itertools.product(range(c), repeat=z):
            p_deal = 1 / len(orders) / c**z
            allot = []
            for i in range(c):
                chunk = [binary[j] for j in order[i * (k - 1) : (i + 1) * (k - 1)]]
                allot.append((chunk.count(AND), chunk.count(OR), nots.count(i)))
            dists = [function_distribution(k, *a) for a in allot]
            for funcs in itertools.product(*(d.items() for d in dists)):
                tables = tuple(f for f, _ in funcs)
                if all((tables[i] >> row) & 1 == out for i, row, out in observations):
                    joint[tables] = joint.get(tables, 0.0) + p_deal * prod(p for _, p in funcs)
    total = sum(joint.values())
    return {t: p / total for t, p in joint.items()}


@pytest.mark.parametrize(
    "c, k, x, z, observations", [(2, 3, 2, 2, [(0, 7, 1), (1, 0, 1)]), (3, 2, 1, 2, [(2, 3, 0)]), (2, 2, 1, 3, [])]
)
def test_oracle_posterior_is_exact(c, k, x, z, observations):
    y = c * (k - 1) - x
    joint = _brute_force_posterior(c, k, x, y, z, observations)
    post = CircuitPosterior(c, k, {AND: x, OR: y, NOT: z})
    for i, row, out in observations:
        post.observe(i, row, out)
    marg = post.marginals()
    for i in range(c):
        for fi, f in enumerate(post.functions):
            expected = sum(p for t, p in joint.items() if t[i] == f)
            assert marg[i, fi] == pytest.approx(expected, abs=1e-9)
    best = max(joint.values())
    assert joint[post.map_tables()] == pytest.approx(best, rel=1e-9)


def test_oracle_reaches_the_target_on_a_ci_sample():
    sample = range(0, 300, 3)  # 50 configurations of each shape, every inventory
    results = evaluate(ENV_ID, "oracle", sample)
    assert all(r.format_errors == 0 and r.turns <= 19 for r in results)
    full = sum(r.score == 1.0 for r in results) / len(results)
    assert full >= 0.95 > PAPER_BEST


def test_oracle_reads_the_reply_text_without_feedback():
    env = gym.make(ENV_ID)
    for config_id in (4, 151):
        oracle = make_agent("oracle", ENV_ID)
        obs, info = env.reset(options={"config_id": config_id})
        done = False
        while not done:
            obs, _, term, trunc, info = env.step(oracle.act(obs, {}))
            done = term or trunc
        assert info["score"] == 1.0 and info["format_errors"] == 0


@pytest.mark.slow
def test_oracle_reaches_the_target_on_the_full_split():
    """``pytest -m slow tests/test_circuit_decoding.py -k full_split`` (a few seconds)."""
    results = evaluate(ENV_ID, "oracle")
    assert len(results) == 300 and all(r.format_errors == 0 and r.turns <= 19 for r in results)
    assert sum(r.score == 1.0 for r in results) >= 0.95 * 300


def test_oracle_and_random_on_other_shapes():
    for kwargs in (
        {"num_circuits": 4, "num_inputs": 3, "num_queries": 24},
        {"num_circuits": 2, "num_inputs": 4, "num_queries": 30},
    ):
        env = gym.make(ENV_ID, configs="generated", **kwargs)
        oracle = [run_episode(env, make_agent("oracle", ENV_ID), seed=s) for s in range(4)]
        rand = [run_episode(env, make_agent("random", ENV_ID), seed=s) for s in range(4)]
        assert all(r.format_errors == 0 for r in oracle + rand)
        assert sum(r.score for r in oracle) > sum(r.score for r in rand)


def test_random_agent_is_well_formed_and_far_below_the_oracle():
    rows = evaluate(ENV_ID, "random", range(0, 300, 3))
    s = summarize(rows)
    assert s["format_errors"] == 0 and all(r.turns == 19 for r in rows)
    assert s["mean_score"] < 0.15
