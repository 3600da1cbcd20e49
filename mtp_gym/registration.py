"""Every ``MTP/*`` environment id, registered in one place and grouped by paper.

Entry points are strings, so this module imports no env: it is the table every layer may read.
No id sets ``max_episode_steps``: each env enforces its own turn budget (a malformed action
costs no turn, which a ``TimeLimit`` wrapper would get wrong).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

import gymnasium as gym

#: env id -> entry point, grouped by paper.
ENV_IDS: dict[str, str] = {
    # Multi-Turn Puzzles
    "MTP/WordGuess-v0": "mtp_gym.envs.word_guess:WordGuessEnv",
    "MTP/MovieRec-v0": "mtp_gym.envs.movie_rec:MovieRecEnv",
    "MTP/CircuitDecoding-v0": "mtp_gym.circuit_decoding.env:CircuitDecodingEnv",
    "MTP/WordChain-v0": "mtp_gym.envs.word_chain:WordChainEnv",
    "MTP/TwentyQuestions-v0": "mtp_gym.envs.twenty_questions:TwentyQuestionsEnv",
    # TurnBench-MS
    "MTP/TuringMachine-v0": "mtp_gym.turing_machine.env:TuringMachineEnv",
}

#: The scripted agents of each env-level puzzle: kind -> entry point, loaded when first made
#: (``mtp_gym.agents`` registers them; the query games' generic ones are bound to each game there).
SCRIPTED_AGENTS: dict[str, dict[str, str]] = {
    "MTP/WordGuess-v0": {
        "oracle": "mtp_gym.agents.oracles.word_guess:WordGuessOracle",
        "random": "mtp_gym.agents.random_agent:WordGuessRandomAgent",
    },
    "MTP/MovieRec-v0": {
        "oracle": "mtp_gym.agents.oracles.movie_rec:MovieRecOracle",
        "random": "mtp_gym.agents.random_agent:MovieRecRandomAgent",
    },
    "MTP/CircuitDecoding-v0": {
        "oracle": "mtp_gym.agents.oracles.circuit_decoding:CircuitDecodingOracle",
        "random": "mtp_gym.agents.random_agent:CircuitDecodingRandomAgent",
    },
    "MTP/WordChain-v0": {
        "oracle": "mtp_gym.agents.oracles.word_chain:WordChainOracle",
        # The floor is a random word of the list: a random LEGAL word never loses under the
        # paper's rules, so it would score like the oracle.
        "random": "mtp_gym.agents.random_agent:WordChainRandomWordAgent",
        "random_legal": "mtp_gym.agents.random_agent:WordChainRandomAgent",
    },
    "MTP/TwentyQuestions-v0": {
        "oracle": "mtp_gym.agents.oracles.twenty_questions:TwentyQuestionsOracle",
        "adversarial": "mtp_gym.agents.oracles.twenty_questions:TwentyQuestionsAdversary",
        "random": "mtp_gym.agents.random_agent:TwentyQuestionsRandomAgent",
    },
    "MTP/TuringMachine-v0": {
        "oracle": "mtp_gym.agents.oracles.turing_machine:TuringMachineOracle",
        "random": "mtp_gym.agents.random_agent:TuringMachineRandomAgent",
    },
}

#: Hidden-state query games (interactive reasoning paper): env id -> ``Game`` class. One generic
#: env (``GAME_ENTRY_POINT``) serves them all; add one line per game file in mtp_gym/games/.
GAME_ENTRY_POINT = "mtp_gym.wrappers.probes:make_game_env"
GAME_IDS: dict[str, str] = {
    "MTP/HiddenNumber-v0": "mtp_gym.games.hidden_number:HiddenNumber",
    "MTP/HiddenSubset-v0": "mtp_gym.games.hidden_subset:HiddenSubset",
    "MTP/NumberConcept-v0": "mtp_gym.games.number_concept:NumberConcept",
    "MTP/TagRule-v0": "mtp_gym.games.tag_rule:TagRule",
    "MTP/FaultDiagnosis-v0": "mtp_gym.games.fault_diagnosis:FaultDiagnosis",
    "MTP/WeighedBasket-v0": "mtp_gym.games.weighed_basket:WeighedBasket",
    "MTP/HiddenEdges-v0": "mtp_gym.games.hidden_edges:HiddenEdges",
    "MTP/HiddenColoring-v0": "mtp_gym.games.hidden_coloring:HiddenColoring",
    "MTP/ConnectionRule-v0": "mtp_gym.games.connection_rule:ConnectionRule",
    "MTP/MoveRule-v0": "mtp_gym.games.move_rule:MoveRule",
    "MTP/BrokenLink-v0": "mtp_gym.games.broken_link:BrokenLink",
    "MTP/OutbreakSource-v0": "mtp_gym.games.outbreak_source:OutbreakSource",
    "MTP/HiddenNode-v0": "mtp_gym.games.hidden_node:HiddenNode",
    "MTP/RouteTaken-v0": "mtp_gym.games.route_taken:RouteTaken",
    "MTP/HiddenOrder-v0": "mtp_gym.games.hidden_order:HiddenOrder",
    "MTP/RangeSums-v0": "mtp_gym.games.range_sums:RangeSums",
    "MTP/SequenceRule-v0": "mtp_gym.games.sequence_rule:SequenceRule",
    "MTP/SequenceTransform-v0": "mtp_gym.games.sequence_transform:SequenceTransform",
    "MTP/SwapHistory-v0": "mtp_gym.games.swap_history:SwapHistory",
    "MTP/LostItems-v0": "mtp_gym.games.lost_items:LostItems",
    "MTP/HiddenTreeNode-v0": "mtp_gym.games.hidden_tree_node:HiddenTreeNode",
    "MTP/HiddenTreeShape-v0": "mtp_gym.games.hidden_tree_shape:HiddenTreeShape",
    "MTP/TreeLabelRule-v0": "mtp_gym.games.tree_label_rule:TreeLabelRule",
    "MTP/TreeRecursionRule-v0": "mtp_gym.games.tree_recursion_rule:TreeRecursionRule",
    "MTP/TreeFaultDiagnosis-v0": "mtp_gym.games.tree_fault_diagnosis:TreeFaultDiagnosis",
    "MTP/TreeTraitMutations-v0": "mtp_gym.games.tree_trait_mutations:TreeTraitMutations",
}
ENV_IDS.update({env_id: GAME_ENTRY_POINT for env_id in GAME_IDS})

#: Discrete views for classic RL (``mtp_gym/wrappers/``): id -> a factory that builds the text
#: env from the same kwargs and wraps it. Not text envs, so not in ``ENV_IDS``.
DISCRETE_IDS: dict[str, str] = {
    "MTP/WordGuessDiscrete-v0": "mtp_gym.wrappers.word_guess_discrete:make_env",
    "MTP/CircuitDecodingDiscrete-v0": "mtp_gym.wrappers.circuit_decoding_discrete:make_env",
    "MTP/WordChainDiscrete-v0": "mtp_gym.wrappers.word_chain_discrete:make_env",
    "MTP/TuringMachineDiscrete-v0": "mtp_gym.wrappers.turing_machine_discrete:make_env",
}


def game_ids(names: str) -> list[str]:
    """The ids of the query games named in ``names`` (a comma list such as
    ``"HiddenNumber,RangeSums"``; empty: every game); a ``ValueError`` lists the allowed names."""
    wanted = {f"MTP/{name.strip()}-v0" for name in names.split(",") if name.strip()}
    unknown = wanted - set(GAME_IDS)
    if unknown:
        raise ValueError(f"unknown game(s) {sorted(unknown)}; allowed: {sorted(i[4:-3] for i in GAME_IDS)}")
    return sorted(wanted or GAME_IDS)


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The one of ``choices`` closest to a misspelled ``word`` (case ignored), if any is close."""
    folded = {c.lower(): c for c in choices}
    close = difflib.get_close_matches(word.lower(), list(folded), n=1)
    return folded[close[0]] if close else None


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``" (did you mean 'X'?)"`` with the :func:`closest` choice, else ``""``: the hint of an
    error naming an unknown id, agent, probe or kwarg."""
    near = closest(word, choices)
    return f" (did you mean {near!r}?)" if near else ""


def register_envs() -> None:
    """Register every id (idempotent)."""
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in gym.registry:
            kwargs = {"game": GAME_IDS[env_id]} if env_id in GAME_IDS else {}
            gym.register(id=env_id, entry_point=entry_point, kwargs=kwargs)
    for env_id, entry_point in DISCRETE_IDS.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=entry_point)
