"""Hidden-state query games: generic tests over every registered game and level.

The full sweeps (the oracle on every benchmark configuration of every level; the budget rule
checked on every game) are marked slow: ``python -m pytest tests/test_query_games.py -m slow``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Hashable
from functools import cache

import gymnasium as gym
import numpy as np
import pytest

import mtp_gym  # noqa: F401
from mtp_gym.agents import make_agent
from mtp_gym.agents.oracles.query_games import QueryGameOracle, QueryGameRandomAgent, VersionSpace
from mtp_gym.agents.oracles.sweeps import budget_rule
from mtp_gym.core import InvalidAction
from mtp_gym.episode import play, play_to_end, public_info, run_episode
from mtp_gym.games import Game, GameEnv, parse_action, resolve_game
from mtp_gym.games.base import INFERENCES, STRUCTURES, config_rng
from mtp_gym.games.hidden_number import HiddenNumber
from mtp_gym.registration import GAME_IDS

GAME_ENV_IDS = sorted(GAME_IDS)
LEVELS = (1, 2, 3, 4, 5)
CI_CONFIGS = (0, 7, 13)


def _game(env_id: str) -> type[Game]:
    return resolve_game(GAME_IDS[env_id])


def _play(env: gym.Env, agent, config_id: int, seed: int = 0):
    steps = list(play(env, agent, config_id=config_id, seed=seed))
    return steps[-1].info, [s.action for s in steps[1:]]


@pytest.mark.parametrize("env_id", GAME_ENV_IDS)
def test_game_class_is_complete(env_id):
    cls = _game(env_id)
    assert cls.structure in STRUCTURES and cls.inference in INFERENCES
    assert len(cls.levels) == 5 and len(cls.budgets) == 5 and all(b > 1 for b in cls.budgets)
    assert env_id == f"MTP/{cls.name}-v0"
    sizes = [len(cls.benchmark(level, 0).candidate_states()) for level in LEVELS]
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1], "the hidden space must grow with the level"


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("env_id", GAME_ENV_IDS)
def test_well_posed_by_brute_force(env_id, level):
    """Given the answers to ALL legal queries, every hidden state has a unique target."""
    for config_id in CI_CONFIGS:
        game = _game(env_id).benchmark(level, config_id)
        states = game.candidate_states()
        assert game.hidden in states
        columns = [game.candidate_answers(n, a) for n, a in game.all_queries()]
        if all(isinstance(c, np.ndarray) for c in columns):  # a vectorised game: one row per state
            signatures: list = [row.tobytes() for row in np.stack(columns, axis=1)]
        else:
            signatures = list(zip(*columns))
        targets_by_signature: dict[Hashable, set] = defaultdict(set)
        for s, signature in zip(states, signatures):
            targets_by_signature[signature].add(game.target(s))
        ambiguous = [sig for sig, t in targets_by_signature.items() if len(t) > 1]
        assert not ambiguous, f"{len(ambiguous)} answer signatures fit several targets"


@pytest.mark.parametrize("env_id", [e for e in GAME_ENV_IDS if _game(e).answer_columns is not Game.answer_columns])
def test_vectorised_answers_equal_respond_state_by_state(env_id):
    """A game's ``answer_columns`` (what the oracle and the necessity probe read through
    ``candidate_answers``) give, for every query, the answer ``respond`` gives in each candidate
    state, in order."""
    for level in LEVELS:
        game = _game(env_id).benchmark(level, 7)
        states = game.candidate_states()
        queries = game.all_queries()
        for query in queries[:: max(1, len(queries) // 40)] + queries[-1:]:
            columns = game.candidate_answers(*query)
            assert isinstance(columns, np.ndarray), (level, query)  # read from the columns
            assert columns.tolist() == [game.respond(s, *query) for s in states], (level, query)


@pytest.mark.parametrize("env_id", [e for e in GAME_ENV_IDS if _game(e).answer_columns is not Game.answer_columns])
def test_the_version_space_codes_vectorised_answers_as_it_codes_a_list(env_id):
    """The codes of a list (each answer numbered where it first appears) whatever form the
    answers come in; yes/no answers may be numbered False 0, True 1 (an entropy of two terms
    sums alike in either order). So the oracle's entropies, and its questions, are those of the
    plain per-state answers."""
    game = _game(env_id).benchmark(2, 3)
    space = VersionSpace(game)
    for qi in range(0, len(space.queries), max(1, len(space.queries) // 30)):
        row, values = space.codes(qi)
        answers = [game.respond(s, *space.queries[qi]) for s in space.states]
        plain: dict = {}
        if all(type(a) is bool for a in answers):
            codes, plain = [int(a) for a in answers], {False: 0, True: 1}
        else:
            codes = [plain.setdefault(a, len(plain)) for a in answers]
        assert row.tolist() == codes and values == plain, space.queries[qi]


def test_a_subclass_that_answers_otherwise_keeps_its_own_answers():
    """A game's answer columns hold for its own rules only: a subclass that changes ``respond``
    (or ``candidate_states``, as ``_ShiftedNumber`` below) is answered state by state."""
    from mtp_gym.games.hidden_order import HiddenOrder

    class Contrary(HiddenOrder):
        def respond(self, hidden, name, args):
            return not super().respond(hidden, name, args)

    game = Contrary.benchmark(2, 0)
    query = game.all_queries()[5]
    assert game.candidate_answers(*query) == [game.respond(s, *query) for s in game.candidate_states()]
    assert isinstance(HiddenOrder.benchmark(2, 0).candidate_answers(*query), np.ndarray)


def _plain_entropies(space: VersionSpace, alive: np.ndarray, asked: set) -> dict[int, float]:
    """The answer entropy of each unasked query counted query by query (the oracle's first way)."""
    out = {}
    for qi, q in enumerate(space.queries):
        if q not in asked:
            counts = np.bincount(space.codes(qi)[0][alive])
            p = counts[counts > 0] / len(alive)
            out[qi] = float(-(p * np.log2(p)).sum())
    return out


@pytest.mark.parametrize(
    "env_id", ["MTP/HiddenNumber-v0", "MTP/HiddenSubset-v0", "MTP/TagRule-v0", "MTP/SwapHistory-v0"]
)
def test_the_oracle_entropies_are_the_plain_count_exactly(env_id):
    """Yes/no queries counted together give the very floats of the count query by query, in the
    same order (the oracle's choice of question, first on ties, rests on them): on all states,
    one, two, and random subsets, with some queries asked."""
    game = _game(env_id).benchmark(2, 1)
    space = VersionSpace(game)
    rng = np.random.default_rng(0)
    n = len(space.states)
    for size in (n, 1, 2, 3, n // 2, n // 7 + 1, *rng.integers(1, n + 1, size=6).tolist()):
        alive = np.sort(rng.choice(n, size=size, replace=False))
        asked = {space.queries[i] for i in rng.choice(len(space.queries), size=len(space.queries) // 5)}
        got, plain = space.entropies(alive, asked), _plain_entropies(space, alive, asked)
        assert list(got) == list(plain) and all(got[q] == plain[q] for q in plain), size
    assert space._yes_no is not None  # the table was read (Swap History: no yes/no query in it)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("env_id", GAME_ENV_IDS)
def test_oracle_solves_within_budget(env_id, level):
    env = gym.make(env_id, difficulty=level)
    oracle = make_agent("oracle", env_id)
    for config_id in CI_CONFIGS:
        info, _ = _play(env, oracle, config_id)
        assert info["outcome"] == "success" and info["score"] == 1.0
        assert info["turn"] <= env.unwrapped.max_turns


@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("env_id", GAME_ENV_IDS)
def test_oracle_solves_the_whole_split(env_id, level):
    env = gym.make(env_id, difficulty=level)
    oracle = make_agent("oracle", env_id)
    for config_id in range(env.unwrapped.num_configs):
        info, _ = _play(env, oracle, config_id)
        assert info["outcome"] == "success", config_id


@cache
def oracle_turns(env_id: str, level: int) -> tuple[int, ...]:
    """The oracle's turns on every configuration of a level's split (played once per session:
    the budget rule and the level checks both need them)."""
    env = gym.make(env_id, difficulty=level)
    oracle = make_agent("oracle", env_id)
    return tuple(play_to_end(env, oracle, config_id=c).info["turn"] for c in range(env.unwrapped.num_configs))


#: One game per structure and inference where it is cheap; the rest run with ``-m slow``.
BUDGET_SAMPLE = {
    "MTP/HiddenNumber-v0", "MTP/NumberConcept-v0", "MTP/WeighedBasket-v0", "MTP/RangeSums-v0",
    "MTP/TreeLabelRule-v0", "MTP/TreeTraitMutations-v0", "MTP/RouteTaken-v0",
}  # fmt: skip


@pytest.mark.parametrize(
    "env_id", [e if e in BUDGET_SAMPLE else pytest.param(e, marks=pytest.mark.slow) for e in GAME_ENV_IDS]
)
def test_budgets_follow_the_rule(env_id):
    """The rule of ``mtp_gym/games/README.md`` on the whole split of every level: each budget is
    the smallest within which the oracle wasting 30% / 50% of its turns on redundant questions
    still wins 93% / 80% of its episodes, and never less than the previous level's (so it is no
    larger than a sound, verbose player needs: a larger budget lets reasoning-free sweeps in)."""
    budgets, previous = _game(env_id).budgets, 0
    for level in LEVELS:
        previous = budget_rule(list(oracle_turns(env_id, level)), previous)
        assert budgets[level - 1] == previous, (level, budgets, previous)


@pytest.mark.parametrize("env_id", GAME_ENV_IDS)
def test_levels_get_harder(env_id):
    """Over each level's whole split: the hypotheses rise from level 1 to level 5 (flat steps
    allowed, no decrease); an abductive game offers at least 4 candidate explanations at level 1;
    the random agent's exact chance is at most 25% at level 1 (the paper's Hidden Number level 1,
    4 numbers, is exactly 25%) and at most 5% at level 5."""
    cls = _game(env_id)
    hypotheses, random_rate, fewest_targets = [], [], []
    for level in LEVELS:
        games = [cls.benchmark(level, c) for c in range(gym.make(env_id, difficulty=level).unwrapped.num_configs)]
        hypotheses.append(sum(len(g.candidate_states()) for g in games) / len(games))
        random_rate.append(sum(QueryGameRandomAgent.chance(g) for g in games) / len(games))
        fewest_targets.append(min(len({g.target(s) for s in g.candidate_states()}) for g in games))
    assert hypotheses == sorted(hypotheses) and hypotheses[0] < hypotheses[-1], f"hypotheses by level: {hypotheses}"
    if cls.inference == "abductive":
        assert fewest_targets[0] >= 4, f"candidate explanations at level 1: {fewest_targets[0]}"
    assert random_rate[0] <= 0.25 + 1e-9, f"random success at level 1: {random_rate[0]:.3f}"
    assert random_rate[-1] <= 0.05 + 1e-9, f"random success at level 5: {random_rate[-1]:.3f}"


@pytest.mark.parametrize(
    "env_id", [e if e in BUDGET_SAMPLE else pytest.param(e, marks=pytest.mark.slow) for e in GAME_ENV_IDS]
)
def test_the_oracle_needs_more_turns_at_higher_levels(env_id):
    """The oracle's mean turns over each level's whole split rise from level 1 to level 5 (flat
    steps allowed). It plays every configuration (a dozen seconds a game): the budget sample by
    default, where the budget rule has played them already; every game with ``-m slow``."""
    mean_turns = [sum(turns) / len(turns) for turns in (oracle_turns(env_id, level) for level in LEVELS)]
    assert mean_turns == sorted(mean_turns) and mean_turns[0] < mean_turns[-1], f"oracle mean turns: {mean_turns}"


def test_random_agent_wins_at_its_exact_chance():
    """``QueryGameRandomAgent.chance`` (what the level checks use) is what the agent wins when
    played: on a FaultDiagnosis level-1 configuration, 600 seeded episodes."""
    env = gym.make("MTP/FaultDiagnosis-v0", difficulty=1)
    game = _game("MTP/FaultDiagnosis-v0").benchmark(1, 0)
    agent = make_agent("random", "MTP/FaultDiagnosis-v0")
    wins = sum(play_to_end(env, agent, config_id=0, seed=s).info["outcome"] == "success" for s in range(600))
    p = QueryGameRandomAgent.chance(game)
    assert 0 < p < 1 and abs(wins / 600 - p) < 4 * (p * (1 - p) / 600) ** 0.5, (wins, p)


@pytest.mark.parametrize("level", (1, 5))
@pytest.mark.parametrize("env_id", GAME_ENV_IDS)
def test_enumerated_queries_match_the_env_replies(env_id, level):
    cls = _game(env_id)
    game = cls.benchmark(level, 3)
    pool = game.evidence_pool()
    assert len(pool) == len(set((n, a) for n, a, _ in pool)) > 0
    env = gym.make(env_id, difficulty=level, max_turns=len(pool) + 1)
    env.reset(options={"config_id": 3})
    for name, args, answer in pool:
        obs, _, term, trunc, info = env.step(game.describe_query(name, args))
        assert info["valid_action"] and not (term or trunc)
        assert info["feedback"] == {"query": name, "args": args, "answer": answer}
        assert obs == game.reply(name, args, answer)
    assert info["turn"] == len(pool)


@pytest.mark.parametrize("env_id", GAME_ENV_IDS)
def test_illegal_queries_are_format_errors(env_id):
    game = _game(env_id).benchmark(1, 0)
    spec = game.queries[-1]
    bad_args = ["x"] * len(spec.args) if spec.args else ["1"]
    for action in (
        "<query_nonexistent>1</query_nonexistent>",
        f"<{spec.tag}>{', '.join(bad_args)}</{spec.tag}>",
        f"<{spec.tag}>{', '.join(['999999'] * (len(spec.args) + 1))}</{spec.tag}>",
        f"<{spec.tag}>",
        "<answer></answer>",
    ):
        with pytest.raises(InvalidAction):
            tag, content = parse_action(action)
            if tag == "answer":
                if not content:
                    raise InvalidAction("empty")
            else:
                game.parse_query(tag[len("query_") :], content)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("env_id", GAME_ENV_IDS)
def test_wrong_answer_differs_from_the_truth(env_id, level):
    game = _game(env_id).benchmark(level, 1)
    for name, args, answer in game.evidence_pool():
        wrong = game.wrong_answer(name, args)
        assert wrong != answer and type(wrong) is type(answer), (name, args)


@pytest.mark.parametrize("env_id", GAME_ENV_IDS)
def test_oracle_recovers_from_a_corrected_wrong_answer(env_id):
    """The counterfactual-revision protocol: 2nd answer wrong, corrected with the 3rd reply."""
    cls = _game(env_id)
    for level in LEVELS:
        env = gym.make(env_id, difficulty=level)
        game_env: GameEnv = env.unwrapped
        oracle = QueryGameOracle(cls, min_turns_before_answer=3)
        obs, info = env.reset(options={"config_id": 2})
        oracle.reset(seed=0)
        done, corrected = False, None
        while not done:
            obs, _, term, trunc, info = env.step(oracle.act(obs, public_info(info)))
            done = term or trunc
            fb = info["feedback"]
            if info["turn"] == 2 and "query" in fb:
                true = fb["answer"]
                fb["answer"] = game_env.game.wrong_answer(fb["query"], fb["args"])
                corrected = {"query": fb["query"], "args": fb["args"], "answer": true}
            elif info["turn"] == 3 and corrected:
                fb["corrections"] = [corrected]
        if info["turn"] == 3 and "submitted" in info["feedback"]:
            continue  # nothing left to ask before the correction (SwapHistory L1): the probe withholds such an answer
        assert info["outcome"] == "success", level
        assert info["turn"] <= game_env.max_turns


@pytest.mark.parametrize("env_id", GAME_ENV_IDS)
def test_random_agent_is_below_the_oracle(env_id):
    env = gym.make(env_id, difficulty=3)
    wins = sum(_play(env, make_agent("random", env_id), c, seed=c)[0]["outcome"] == "success" for c in range(10))
    assert wins < 10


@pytest.mark.parametrize("env_id", GAME_ENV_IDS)
def test_vocabulary_rewrite_keeps_the_problem(env_id):
    cls = _game(env_id)
    vocab = {k: f"zz{v}" for k, v in cls.vocabulary.items()}
    plain, rewritten = gym.make(env_id), gym.make(env_id, vocabulary=vocab)
    oracle = make_agent("oracle", env_id)
    info_a, actions_a = _play(plain, oracle, 5)
    info_b, actions_b = _play(rewritten, oracle, 5)
    assert actions_a == actions_b and info_a["hidden"] == info_b["hidden"]
    rules = rewritten.reset(options={"config_id": 5})[0]
    assert all(v in rules for v in vocab.values())
    with pytest.raises(ValueError, match="vocabulary"):
        gym.make(env_id, vocabulary={"no_such_noun": "x"})


def test_bad_difficulty_names_the_argument():
    with pytest.raises(ValueError, match="difficulty"):
        gym.make("MTP/HiddenNumber-v0", difficulty=6)
    with pytest.raises(ValueError, match="game"):
        GameEnv(game=int)


def test_hidden_number_is_the_papers_example():
    env = gym.make("MTP/HiddenNumber-v0", difficulty=1)
    rules, info = env.reset(options={"config_id": 0})
    assert rules.startswith("I have selected a hidden number from {1,2,3,4}. Your goal is to find the number.")
    for tag in (
        "<query_odd></query_odd>",
        "<query_greater>2</query_greater>",
        "<query_equal>3</query_equal>",
        "<answer>3</answer>",
    ):
        assert tag in rules
    n = info["hidden"]["state"]
    obs, *_ = env.step("I think <query_greater>2</query_greater>")
    assert obs.endswith("Yes" if n > 2 else "No")
    _, reward, term, _, info = env.step(f"<ANSWER> {n} </answer>")
    assert term and reward == 1.0 and info["outcome"] == "success"
    assert {HiddenNumber.benchmark(1, i).hidden for i in range(20)} == {1, 2, 3, 4}


def test_one_action_per_reply_and_unclosed_tags_are_explained():
    assert parse_action("<query_odd></query_odd> again: <QUERY_ODD> </query_odd>") == ("query_odd", "")
    with pytest.raises(InvalidAction, match="2 different actions"):
        parse_action("<answer>2</answer> no wait <query_odd></query_odd>")
    with pytest.raises(InvalidAction, match="not closed"):
        parse_action("<query_odd>")
    env = gym.make("MTP/HiddenNumber-v0", difficulty=1)
    env.reset(options={"config_id": 0})
    # The format restated in the reasoning holds no move; the real tag is read.
    obs, _, _, _, info = env.step("Format: <answer>NUMBER</answer>. So: <query_greater>2</query_greater>")
    assert info["valid_action"] and info["feedback"]["query"] == "greater"
    obs, _, _, _, info = env.step("<query_greater>2</query_greater> or <query_greater>3</query_greater>")
    assert not info["valid_action"] and "2 different moves" in obs


def test_benchmark_split_is_fixed_and_generated_configs_follow_the_seed():
    a = [config_rng("HiddenSubset", 4, i).integers(1 << 30) for i in range(3)]
    b = [config_rng("HiddenSubset", 4, i).integers(1 << 30) for i in range(3)]
    assert a == b and len(set(a)) == 3
    env = gym.make("MTP/HiddenSubset-v0", configs="generated")
    h1 = env.reset(seed=9)[1]["hidden"]
    h2 = env.reset(seed=9)[1]["hidden"]
    assert h1 == h2 and h1["state"] is not h2["state"]


@pytest.mark.parametrize("env_id", GAME_ENV_IDS)
def test_golden_hash_of_every_level(env_id):
    """The benchmark split of EVERY level is fixed (the contract test covers the default one)."""
    import json
    from pathlib import Path

    from test_contract import config_hash

    golden = json.loads((Path(__file__).parent / "golden_hashes.json").read_text())
    for level in LEVELS:
        env = gym.make(env_id, difficulty=level)
        n = env.unwrapped.num_configs
        key = f"{env_id}@difficulty={level}"
        got = config_hash(env, range(n))
        assert key in golden, f"add {key!r}: {{'configs': {n}, 'sha256': {got!r}}} to tests/golden_hashes.json"
        assert golden[key] == {"configs": n, "sha256": got}


def test_oracle_plays_a_non_enumerable_game_by_sampling():
    """The sampled path (``enumerable = False``) used by games with huge hidden spaces."""
    from mtp_gym.games.hidden_subset import HiddenSubset

    class SampledSubset(HiddenSubset):
        name = "HiddenSubset"  # the same game, seen through the sampling hooks only
        enumerable = False

    for level in (1, 3, 5):
        env = GameEnv(SampledSubset, difficulty=level)
        oracle = QueryGameOracle(SampledSubset, sample_size=64)
        info, _ = _play(env, oracle, 0)
        assert info["outcome"] == "success", level


class _ShiftedNumber(HiddenNumber):
    """A game with a public part drawn per configuration (the domain starts at ``offset``)."""

    name = "ShiftedNumber"
    rules_template = "Hidden {number} in {low}..{high}. {query_formats}\n{answer_format} ({budget} turns)"

    @classmethod
    def sample_public(cls, level, rng):
        offset = int(rng.integers(0, 50))
        return {"low": 1 + offset, "high": cls.levels[level - 1]["n"] + offset, "shown": (offset, (1, 2))}

    def candidate_states(self):
        return tuple(range(self.public["low"], self.public["high"] + 1))

    def query_args(self, name):
        return [()] if name == "odd" else [(x,) for x in self.candidate_states()]

    def example_args(self, name):
        return () if name == "odd" else (self.public["low"],)


def test_public_configuration_reaches_agents_intact():
    env = GameEnv(_ShiftedNumber, difficulty=4)
    oracle = QueryGameOracle(_ShiftedNumber)
    publics = set()
    for config_id in range(4):
        info, _ = _play(env, oracle, config_id)
        assert info["outcome"] == "success"
        assert info["game"]["public"]["shown"] == info["hidden"]["public"]["shown"]
        assert isinstance(info["game"]["public"]["shown"], tuple)
        publics.add(info["game"]["public"]["low"])
    assert len(publics) > 1
    env = GameEnv(_ShiftedNumber, difficulty=2, configs="generated")
    for seed in range(3):
        assert run_episode(env, oracle, seed=seed).outcome == "success"


@pytest.mark.parametrize("env_id", GAME_ENV_IDS)
def test_sample_consistent_returns_only_consistent_states(env_id):
    import numpy as np

    game = _game(env_id).benchmark(3, 4)
    evidence = game.evidence_pool()[::7][:4]
    states = game.sample_consistent(evidence, np.random.default_rng(0), 10**6)
    assert game.hidden in states
    assert all(game.respond(s, q, a) == v for s in states for q, a, v in evidence)
    expected = [s for s in game.candidate_states() if all(game.respond(s, q, a) == v for q, a, v in evidence)]
    assert states == expected
    assert len(game.sample_consistent(evidence, np.random.default_rng(0), 2)) == min(2, len(expected))


def test_public_view_shares_nothing_mutable():
    """``info["game"]["public"]`` is a fresh copy: hashable tuples are shared (immutable),
    lists, dicts and sets are new on every call."""
    from mtp_gym.core import thaw

    data = {"edges": ((1, 2), (2, 3)), "lists": [1, [2, 3]], "mixed": ([1], 2), "set": {1, 2}}
    copy = thaw(data)
    assert copy == data and copy is not data
    assert copy["edges"] is data["edges"]
    assert copy["lists"] is not data["lists"] and copy["lists"][1] is not data["lists"][1]
    assert copy["mixed"][0] is not data["mixed"][0] and copy["set"] is not data["set"]
    env = gym.make("MTP/HiddenColoring-v0")
    _, info = env.reset(options={"config_id": 0})
    assert info["game"]["public"]
    info["game"]["public"].clear()
    info2 = env.step("not an action")[-1]
    assert info2["game"]["public"] and env.unwrapped.game.public


@pytest.mark.parametrize("env_id", GAME_ENV_IDS)
def test_every_rejected_argument_says_why(env_id):
    """An out-of-range argument names the allowed values; a legal pair given the wrong way round
    says which comes first; a pair that is no question of this instance says so with an example."""
    env = gym.make(env_id, difficulty=2)
    env.reset(options={"config_id": 0})
    for spec in (q for q in env.unwrapped.game.queries if q.args):
        bad = ["999" if typ is int else "ZZ" for typ in spec.args]
        env.reset(options={"config_id": 0})  # (three rejections in a row would end the episode)
        obs, *_, info = env.step(f"<query_{spec.name}>{', '.join(bad)}</query_{spec.name}>")
        assert not info["valid_action"], obs
        assert re.search(r"argument( \d)? must be (\d+ to \d+|one of .+), not|takes .+ among .+; got", obs), obs
        legal = {tuple(a) for a in env.unwrapped.game.query_args(spec.name)}
        flipped = next((a for a in sorted(legal, key=str) if len(a) == 2 and a[::-1] not in legal), None)
        if flipped is not None and flipped[0] != flipped[1] and all(type(v) is int for v in flipped):
            env.reset(options={"config_id": 0})
            obs, *_ = env.step(f"<query_{spec.name}>{flipped[1]}, {flipped[0]}</query_{spec.name}>")
            unordered = spec.args[0] is spec.args[1] and all(a[0] <= a[1] for a in legal)
            reasons = ("give the smaller one first",) if unordered else ("must be", "do not form a question")
            assert any(r in obs for r in reasons), obs


@pytest.mark.parametrize("env_id", ["MTP/HiddenColoring-v0", "MTP/RouteTaken-v0"])
def test_the_example_answer_is_a_possible_answer_of_the_instance(env_id):
    """The rules' example is a legal instance (a proper colouring of the shown graph, a route over
    its links), chosen without looking at the hidden state."""
    for level in LEVELS:
        env = gym.make(env_id, difficulty=level)
        for config_id in range(5):
            obs, _ = env.reset(options={"config_id": config_id})
            game = env.unwrapped.game
            example = game.answer_format
            assert example in obs
            targets = {game.target(s) for s in game.candidate_states()}
            assert game.parse_answer(parse_action(example)[1]) in targets


def test_swap_history_states_the_range_of_minutes_it_can_ask_about():
    obs, _ = gym.make("MTP/SwapHistory-v0", difficulty=2).reset(options={"config_id": 0})
    assert "what was the order of the row right after this minute (ask about minutes 1 to 47)?" in obs


@pytest.mark.parametrize("env_id", GAME_ENV_IDS)
def test_an_illegal_query_is_refused_for_its_real_reason(env_id):
    """'give the smaller one first' only for an unordered pair given the wrong way round; a
    (node, number) pair whose reverse happens to be legal is refused for the argument that is
    wrong (issue 25: ``<query_within>2, 3</query_within>`` in HiddenNode)."""
    game = _game(env_id).benchmark(1, 0)
    for spec in game.queries:
        if len(spec.args) != 2:
            continue
        legal = {tuple(a) for a in game.query_args(spec.name)}
        unordered = spec.args[0] is spec.args[1] and all(a[0] <= a[1] for a in legal)
        for args in sorted(legal, key=str):
            flipped = args[::-1]
            if flipped in legal or flipped == args:
                continue
            message = game._why_illegal(spec.name, flipped) if game.is_legal(spec.name, args) else ""
            assert ("smaller one first" in message) == unordered, (spec.name, flipped, message)
            break


def test_every_env_shows_a_benchmark_configuration_the_same_rules_text_each_its_own_game_and_level():
    """The rules text of a benchmark configuration is built once for every env (a harness plays
    each in-flight episode on its own env), never lent to another game, level or wording."""
    import mtp_gym.games.env as game_env

    def first(env_id: str, config_id: int, **kwargs) -> tuple[str, GameEnv]:
        env = gym.make(env_id, disable_env_checker=True, **kwargs).unwrapped
        return env.reset(options={"config_id": config_id})[0], env

    game_env._BENCHMARK_RULES.clear()
    seen: dict[tuple, str] = {}
    for env_id, level, config_id in [
        ("MTP/HiddenNumber-v0", 3, 5),
        ("MTP/HiddenNumber-v0", 4, 5),
        ("MTP/HiddenNumber-v0", 3, 6),
        ("MTP/RangeSums-v0", 3, 5),
    ]:
        for _ in range(2):
            text, env = first(env_id, config_id, difficulty=level)
            assert text == env.live_game.rules()
            assert seen.setdefault((env_id, level, config_id), text) is text  # the same text object
    hn = seen["MTP/HiddenNumber-v0", 3, 5]
    assert hn != seen["MTP/HiddenNumber-v0", 4, 5] and hn != seen["MTP/RangeSums-v0", 3, 5]
    reworded = first("MTP/HiddenNumber-v0", 5, difficulty=3, vocabulary={"number": "token"})
    assert reworded[0] == reworded[1].live_game.rules() != seen["MTP/HiddenNumber-v0", 3, 5]

    game_env._BENCHMARK_RULES_HELD, held = 2, game_env._BENCHMARK_RULES_HELD
    try:
        for config_id in range(5):
            first("MTP/HiddenNumber-v0", config_id, difficulty=2)
            assert len(game_env._BENCHMARK_RULES) <= 2
    finally:
        game_env._BENCHMARK_RULES_HELD = held


def _mutable_ids(value, seen=None) -> set[int]:
    """The ids of every list, dict and set reachable from ``value``."""
    seen = set() if seen is None else seen
    if isinstance(value, (list, dict, set)):
        if id(value) in seen:
            return seen
        seen.add(id(value))
    if isinstance(value, dict):
        for k, v in value.items():
            _mutable_ids(k, seen)
            _mutable_ids(v, seen)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            _mutable_ids(v, seen)
    return seen


@pytest.mark.parametrize("env_id", GAME_ENV_IDS)
def test_the_infos_kept_for_an_episode_share_nothing_mutable_with_the_game(env_id):
    """A query game's env keeps ``_hidden()`` and ``_episode_info()`` uncopied (``infos_fresh``):
    nothing in them may be a container the game holds, or a later change would show through."""
    env = gym.make(env_id, difficulty=5, disable_env_checker=True).unwrapped
    assert env.infos_fresh
    for config_id in (0, 3):
        _, info = env.reset(options={"config_id": config_id})
        game = env.live_game
        held = _mutable_ids(game.hidden) | _mutable_ids(game.public) | _mutable_ids(vars(game))
        kept = _mutable_ids(env._episode_hidden._data) | _mutable_ids(env._episode_keys["game"]._data)
        assert not held & kept
        assert info["hidden"]["state"] == env._hidden()["state"] and info["game"] == game.public_view()
