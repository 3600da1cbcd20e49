"""Movie Recommendation: generator constraints, protocol, scoring, ties, and the oracle.

Full oracle sweep over the 1000 benchmark configurations (slow, a few minutes):
``pytest -m slow tests/test_movie_rec.py`` (or ``python benchmarks/movie_rec.py``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtp_gym.agents.oracles.movie_rec import MovieRecOracle, VersionSpace, expected_rank_scores, synthetic_unseen_sets
from mtp_gym.core import InvalidAction
from mtp_gym.envs.movie_rec import (
    ATTRIBUTES,
    DEFAULTS,
    NO,
    NO_PREFERENCE,
    YES,
    MovieRecEnv,
    _benchmark_data,
    answer,
    format_table,
    normalize_title,
    parse_question,
    parse_table,
    rank_of,
    rank_score,
    sample_movie,
    sample_movie_set,
    sample_weights,
)
from mtp_gym.episode import run_episode
from mtp_gym.eval import evaluate, summarize

ENV_ID = "MTP/MovieRec-v0"
ROOT = Path(__file__).resolve().parents[1]
USERS, SETS = _benchmark_data()


def _question(a: str, b: str) -> str:
    return f"<question>Would you prefer watching {a} over {b}?</question>"


# ---------------------------------------------------------------- generator
def test_benchmark_split_layout():
    assert len(USERS) == 20 and len(set(USERS)) == 20
    assert len(SETS) == 50
    for w in USERS:
        assert len(w) == 8 and any(w)
        assert all(x in [i / 10 for i in range(11)] for x in w)
    env = gym.make(ENV_ID)
    assert env.unwrapped.num_configs == 1000
    _, info = env.reset(options={"config_id": 3 * 50 + 7})
    assert info["hidden"]["user_id"] == 3 and info["hidden"]["movie_set_id"] == 7
    assert tuple(info["hidden"]["weights"].values()) == USERS[3]
    assert list(info["hidden"]["weights"]) == list(ATTRIBUTES)


@pytest.mark.parametrize(
    "movie_set", SETS[:10] + tuple(sample_movie_set(np.random.default_rng(s), **DEFAULTS) for s in range(10))
)
def test_movie_sets_respect_every_constraint(movie_set):
    g = DEFAULTS
    low, high = g["base_budget"], g["base_budget"] + g["budget_delta"]
    seen, unseen = movie_set.seen_scores, movie_set.unseen_scores
    assert seen.shape == (20, 8) and unseen.shape == (40, 8)
    for scores, precision in ((seen, g["seen_precision"]), (unseen, g["unseen_precision"])):
        totals = scores.sum(axis=1)
        assert np.all(totals >= low - 1e-9) and np.all(totals <= high + 1e-9)  # budget
        assert np.all(scores >= g["attribute_min_credit"] - 1e-9)  # minimum credit
        assert np.allclose(scores, np.round(scores, precision))  # precision
    # seen: integer scores, exactly 4 of 8 attributes held at the minimum, the rest above it
    at_min = np.isclose(seen, g["attribute_min_credit"]).sum(axis=1)
    assert np.all(at_min >= 4)
    # unseen: dense (2 decimals, so an attribute sits exactly at the minimum only by chance)
    assert np.isclose(unseen, g["attribute_min_credit"]).sum() <= 0.05 * unseen.size
    assert not np.allclose(unseen, np.round(unseen, 0))
    titles = movie_set.seen_titles + movie_set.unseen_titles
    assert len({normalize_title(t) for t in titles}) == 60
    assert all(" over " not in t.lower() and "|" not in t and t.isascii() for t in titles)


def test_sparse_attributes_keep_the_budget():
    rng = np.random.default_rng(0)
    for n_sparse in range(8):
        m = sample_movie(rng, base_budget=30, budget_delta=5, min_credit=2, precision=1, n_sparse=n_sparse)
        assert 30 <= m.sum() <= 35 and np.isclose(m, 2).sum() >= n_sparse


def test_generator_kwargs_shape_the_episode():
    env = MovieRecEnv(
        n_seen=6,
        n_unseen=5,
        base_budget=50,
        budget_delta=1,
        attribute_min_credit=2,
        seen_precision=1,
        unseen_precision=3,
        seen_sparse_fraction=0.25,
        num_questions=2,
    )
    assert env.configs == "generated" and env.num_configs == 0 and env.max_turns == 3
    obs, info = env.reset(seed=4)
    titles, scores = parse_table(obs)
    assert len(titles) == 6 and np.all(np.abs(scores.sum(axis=1) - 50.5) <= 0.5 + 1e-9)
    assert np.all(np.isclose(scores, 2).sum(axis=1) >= 2)
    assert len(info["hidden"]["unseen_utilities"]) == 5 and info["config_id"] is None


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"n_seen": 1}, "n_seen"),
        ({"base_budget": 4.0}, "base_budget"),
        ({"seen_sparse_fraction": 1.0}, "seen_sparse_fraction"),
        ({"seen_precision": -1}, "seen_precision"),
        ({"tie_tolerance": -0.1}, "tie_tolerance"),
        ({"num_questions": 0}, "num_questions"),
    ],
)
def test_bad_kwargs_name_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        MovieRecEnv(**kwargs)
    with pytest.raises(ValueError, match="configs"):
        MovieRecEnv(budget_delta=3.0, configs="benchmark")


def test_users_are_on_the_grid_and_never_all_zero():
    rng = np.random.default_rng(1)
    users = [sample_weights(rng) for _ in range(2000)]
    assert all(any(w) and all(round(x * 10) == x * 10 for x in w) for w in users)
    assert {x for w in users for x in w} == {i / 10 for i in range(11)}


def test_shipped_split_rebuilds(tmp_path):
    out = tmp_path / "benchmark.json"
    subprocess.run(
        [sys.executable, str(ROOT / "assets/scripts/build_movie_rec.py"), "--out", str(out)],
        check=True,
        capture_output=True,
    )
    assert out.read_text() == (ROOT / "assets/movie_rec/benchmark.json").read_text()
    assert json.loads(out.read_text())["generator"] == DEFAULTS


def test_seen_pairs_tie_about_one_percent():
    ties = pairs = 0
    for w in USERS:
        for m in SETS[:10]:
            u = m.seen_scores @ np.array(w)
            i, j = np.triu_indices(20, 1)
            ties += int(np.sum(np.isclose(u[i], u[j])))
            pairs += len(i)
    assert 0.003 < ties / pairs < 0.03


# ---------------------------------------------------------------- rules
def test_answer_and_tolerance():
    assert answer(3.0, 2.0) == YES and answer(2.0, 3.0) == NO and answer(2.5, 2.5) == NO_PREFERENCE
    assert answer(0.1 + 0.2, 0.3) == NO_PREFERENCE  # float round-off never decides
    assert answer(2.0, 2.05, tie_tolerance=0.1) == NO_PREFERENCE and answer(2.0, 2.2, tie_tolerance=0.1) == NO


def test_rank_and_score_formula():
    u = np.array([5.0, 9.0, 7.0, 9.0, 1.0])
    assert [rank_of(k, u) for k in range(5)] == [4, 1, 3, 1, 5]  # ties share the best rank
    assert rank_score(1, 40) == 1.0 and rank_score(40, 40) == 0.0
    assert rank_score(2, 40) == pytest.approx(1 - 1 / 39) and rank_score(20, 40) == pytest.approx(1 - 19 / 39)


def test_table_round_trip():
    scores = np.array([[1, 2, 3, 4, 5, 6, 7, 8], [8.25, 1, 1, 1, 1, 1, 1, 1.5]])
    text = "Header text\n\n" + format_table(("A Dance with Time", "The Obsidian Fortress"), scores, 2) + "\n\nmore"
    titles, parsed = parse_table(text)
    assert titles == ("A Dance with Time", "The Obsidian Fortress") and np.allclose(parsed, scores)


def test_paper_question_parses():
    readings = parse_question("Would you prefer watching Beneath the Crimson Tide over The Obsidian Fortress?")
    assert ("Beneath the Crimson Tide", "The Obsidian Fortress") in readings
    for bad in ("Which do you like more, A or B?", "Would you prefer watching A?"):
        with pytest.raises(InvalidAction):
            parse_question(bad)


# ---------------------------------------------------------------- protocol
def _env_with_titles(titles_seen, titles_unseen, weights, seen, unseen, **kw):
    from mtp_gym.envs.movie_rec import MovieSet

    env = MovieRecEnv(configs="generated", **kw)
    env.reset(seed=0)
    env._set_game(
        weights, MovieSet(titles_seen, np.array(seen, float), titles_unseen, np.array(unseen, float)), None, None
    )
    return env


def test_paper_example_dialogue():
    """Appendix A.4: the question, the "Yes ... 9 questions remaining" reply, the final answer."""
    seen_titles = ("Beneath the Crimson Tide", "The Obsidian Fortress", "The Clockwork Mind")
    unseen_titles = ("A Dance with Time", "Silver Desert", "The Last Game")
    w = (1.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.2)
    seen = [[9, 1, 3, 1, 1, 1, 1, 1], [1, 9, 3, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 11]]
    unseen = [[8.5, 1, 4, 1, 1, 1, 1, 1], [1, 1, 1, 8.5, 1, 1, 1, 4], [2, 2, 2, 2, 2, 2, 2, 2]]
    env = _env_with_titles(seen_titles, unseen_titles, w, seen, unseen)
    obs, _, _, _, info = env.step("Let me think.\n" + _question("Beneath the Crimson Tide", "The Obsidian Fortress"))
    assert obs == "Yes\nPlease ask the next question. 9 questions remaining."
    assert info["feedback"]["answer"] == YES and info["feedback"]["questions_remaining"] == 9 and info["turn"] == 1
    # tolerant of case, quotes, spacing and a missing "watching"
    obs, *_ = env.step(
        "<QUESTION> would you prefer  'the obsidian fortress' over \"Beneath the Crimson Tide\" </question>"
    )
    assert obs.startswith("No\n") and "8 questions remaining" in obs
    for _ in range(7):
        obs, *_ = env.step(_question("The Clockwork Mind", "The Obsidian Fortress"))
    assert obs.endswith("1 question remaining.")
    obs, reward, term, trunc, info = env.step(_question("The Obsidian Fortress", "The Clockwork Mind"))
    assert obs.startswith("No\nNow apply whatever you learnt about the user") and not term and reward == 0.0
    assert parse_table(obs)[0] == unseen_titles
    obs, reward, term, trunc, info = env.step("<final_answer>A Dance with Time</final_answer>")
    assert term and not trunc and info["outcome"] == "success" and reward == 1.0 and info["score"] == 1.0
    assert info["feedback"]["rank"] == 1 and info["turn"] == 11


def test_final_pick_scores_its_rank():
    env = gym.make(ENV_ID)
    _, info = env.reset(options={"config_id": 123})
    utilities = info["hidden"]["unseen_utilities"]
    titles = list(utilities)
    for _ in range(10):
        obs, *_ = env.step(_question(*parse_table(env.unwrapped._instructions())[0][:2]))
    worst = min(titles, key=utilities.get)
    _, reward, term, _, info = env.step(f"<final_answer>{worst.upper()}</final_answer>")
    rank = 1 + sum(u > utilities[worst] for u in utilities.values())
    assert term and info["outcome"] == "failure" and info["feedback"]["rank"] == rank
    assert reward == pytest.approx(1 - (rank - 1) / 39)


def test_no_preference_on_equal_utilities():
    w = (0.5, 0.5, 0, 0, 0, 0, 0, 0)
    seen = [[5, 1, 1, 1, 1, 1, 1, 1], [1, 5, 1, 1, 1, 1, 1, 1], [3, 3, 1, 1, 1, 1, 1, 1]]
    env = _env_with_titles(("Alpha Film", "Beta Film", "Gamma Film"), ("Delta Film",), w, seen, [[1] * 8])
    obs, _, _, _, info = env.step(_question("Alpha Film", "Beta Film"))
    assert obs.startswith("No Preference\n") and info["feedback"]["answer"] == NO_PREFERENCE
    obs, *_ = env.step(_question("Gamma Film", "Beta Film"))
    assert obs.startswith("No Preference\n")


@pytest.mark.parametrize(
    "action, message",
    [
        ("<question>Would you prefer watching Alpha Film over Alpha Film?</question>", "itself"),
        ("<question>Would you prefer watching Alpha Film over Nowhere Film?</question>", "not a movie of the library"),
        ("<question>Would you prefer watching Alpha Film over Delta Film?</question>", "not a movie of the library"),
        ("<question>Alpha Film or Beta Film?</question>", "of the form"),
        ("<final_answer>Delta Film</final_answer>", "questions remaining"),
        ("I would ask something.", "no <question>"),
    ],
)
def test_bad_questions_are_re_prompted_without_state_change(action, message):
    env = _env_with_titles(
        ("Alpha Film", "Beta Film"), ("Delta Film", "Omega Film"), (1,) * 8, [[2] * 8, [1] * 8], [[1] * 8, [2] * 8]
    )
    before = env.game_state_digest()
    obs, reward, term, trunc, info = env.step(action)
    assert (
        obs.startswith("Invalid action:")
        and message in obs
        and "<question>Would you prefer watching X over Y?</question>" in obs
    )
    assert not info["valid_action"] and info["turn"] == 0 and not term and reward == 0.0
    assert env.game_state_digest() == before


def test_final_phase_re_prompts():
    env = _env_with_titles(
        ("Alpha Film", "Beta Film"),
        ("Delta Film", "Omega Film"),
        (1,) * 8,
        [[2] * 8, [1] * 8],
        [[1] * 8, [2] * 8],
        num_questions=1,
        max_format_errors=5,
    )
    env.step(_question("Alpha Film", "Beta Film"))
    before = env.game_state_digest()
    for action, message in [
        ("<final_answer>Alpha Film</final_answer>", "questioning library"),
        ("<final_answer>Nowhere Film</final_answer>", "not a movie of the new set"),
        (_question("Alpha Film", "Beta Film"), "questions are over"),
    ]:
        obs, _, term, _, info = env.step(action)
        assert obs.startswith("Invalid action:") and message in obs and not term and info["turn"] == 1
        assert env.game_state_digest() == before
    _, reward, term, _, info = env.step("<final_answer>omega film</final_answer>")
    assert term and info["outcome"] == "success" and reward == 1.0


def test_short_turn_budget_times_out():
    env = gym.make(ENV_ID, max_turns=2)
    obs, _ = env.reset(options={"config_id": 0})
    a, b = parse_table(obs)[0][:2]
    env.step(_question(a, b))
    _, reward, term, trunc, info = env.step(_question(b, a))
    assert trunc and not term and info["outcome"] == "timeout" and reward == 0.0


def test_hidden_utilities_match_the_weights():
    env = gym.make(ENV_ID)
    obs, info = env.reset(options={"config_id": 999})
    hidden = info["hidden"]
    w = np.array(list(hidden["weights"].values()))
    titles, scores = parse_table(obs)
    assert np.allclose([hidden["seen_utilities"][t] for t in titles], scores @ w)
    assert len(hidden["unseen_utilities"]) == 40 and not set(hidden["unseen_utilities"]) & set(titles)
    assert not any(t in obs for t in hidden["unseen_utilities"])


# ---------------------------------------------------------------- agents
def test_version_space_handles_ties_and_keeps_the_truth():
    space = VersionSpace(pool_size=1 << 16)
    w = np.array([3, 3, 0, 0, 0, 0, 0, 0])
    for d in ([1, -1, 0, 0, 0, 0, 0, 0], [0, 0, 1, -1, 0, 0, 0, 0], [1, 0, -1, 0, 0, 0, 0, 0]):
        d = np.array(d)
        space.update(d, int(np.sign(w @ d)))
    pts = space.points
    assert (
        len(pts) > 0
        and np.all(pts[:, 0] == pts[:, 1])
        and np.all(pts[:, 2] == pts[:, 3])
        and np.all(pts[:, 0] > pts[:, 2])
    )
    movies = np.array([[5, 5, 1, 1, 1, 1, 1, 1], [1, 1, 5, 5, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2.0]])
    assert space.pick(movies) == 0 and space.pick(movies, "utility") == 0
    assert expected_rank_scores(np.array([[1, 1, 0, 0, 0, 0, 0, 0]]), movies).tolist() == [1.0, 0.0, 0.5]


def test_decision_questions_ask_what_changes_the_pick():
    """Two questions split the weights alike, but only the first separates the candidate movies
    (which differ on attributes 0 and 1 alone): the decision criterion asks it, whatever its row."""
    space = VersionSpace(pool_size=1 << 16)
    movies = np.array([[[5, 1, 2, 2, 2, 2, 2, 2], [1, 5, 2, 2, 2, 2, 2, 2.0]]])
    relevant, irrelevant = [1, -1, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 1, -1, 0, 0]
    assert space.best_decision_question(np.array([irrelevant, relevant]), movies, 4096) == 1
    assert space.best_decision_question(np.array([relevant, irrelevant]), movies, 4096) == 0


def test_synthetic_unseen_sets_follow_the_generators_prior():
    sets = synthetic_unseen_sets(4)
    assert sets.shape == (4, 40, 8) and not sets.flags.writeable
    budgets = sets.sum(axis=2)
    assert np.all((budgets > 20) & (budgets < 30)) and np.all(sets >= 1.0)
    assert np.allclose(sets * 100, np.round(sets * 100))
    assert synthetic_unseen_sets(4) is sets and not np.array_equal(synthetic_unseen_sets(4, seed=1), sets)
    with pytest.raises(ValueError, match="question must be 'decision' or 'entropy'"):
        MovieRecOracle(question="greedy")


def test_oracle_on_a_tie_episode_never_breaks():
    """Configurations where the oracle meets "No Preference" (8, 21: one tie each at least) still
    end with a valid pick, and the oracle never repeats a question."""
    results = evaluate(ENV_ID, "oracle", [8, 21], keep_transcripts=True)
    for r in results:
        replies = [m["content"] for m in r.transcript if m["role"] == "user"][1:]
        asked = [m["content"] for m in r.transcript if m["role"] == "assistant"][:-1]
        assert any(reply.startswith("No Preference\n") for reply in replies)
        assert len(set(asked)) == 10
        assert r.format_errors == 0 and r.turns == 11 and r.outcome in ("success", "failure") and r.score > 0.9


def test_oracle_thinks_on_one_blas_thread_and_gives_the_count_back():
    """Its BLAS products are small: more threads only spin on cores other processes hold (7x the
    CPU per episode beside two busy processes). The process's count comes back after each move."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    seen = []

    def blas_threads() -> list[int]:
        return [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]

    class Watched(MovieRecOracle):
        def _next_question(self) -> int:
            seen.append(blas_threads())
            return super()._next_question()

    run_episode(gym.make(ENV_ID), MovieRecOracle(), config_id=8)
    pytest.importorskip("scipy.linalg")  # a second BLAS loaded after the oracle's first moves
    before = blas_threads()
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        inside = blas_threads()
        r = run_episode(gym.make(ENV_ID), Watched(), config_id=8)
        assert r.turns == 11 and len(seen) == 10 and all(n == [1] * len(n) for n in seen)
        assert blas_threads() == inside
    assert blas_threads() == before


ORACLE_SAMPLE = range(5, 1000, 25)  # 40 configurations: every user, 40 movie sets


def test_oracle_and_random_on_a_sample():
    oracle = summarize(evaluate(ENV_ID, "oracle", ORACLE_SAMPLE))
    rnd = summarize(evaluate(ENV_ID, "random", ORACLE_SAMPLE))
    assert oracle["format_errors"] == 0 and rnd["format_errors"] == 0
    assert oracle["mean_turns"] == 11 and rnd["mean_turns"] == 11
    # This sample gives 0.976 / 62.5% top-1 (full split: 0.9774 / 60.0%).
    assert oracle["mean_score"] >= 0.965 and oracle["success_rate"] >= 0.55
    assert 0.35 <= rnd["mean_score"] <= 0.65
    assert oracle["mean_score"] - rnd["mean_score"] > 0.3


@pytest.mark.slow
def test_oracle_full_split():
    """The full sweep (1000 configurations, about 3 minutes): measured 0.9774 mean, 60.0% top-1,
    above the independent Bayesian questioner the issue measured (0.973 / 56.5% on 200)."""
    s = summarize(evaluate(ENV_ID, "oracle"))
    assert s["format_errors"] == 0 and s["mean_turns"] == 11
    assert s["mean_score"] >= 0.97 and s["success_rate"] >= 0.55


def test_the_default_prompt_is_the_papers_and_the_weight_hint_is_opt_in():
    paper = (
        "The user's preference can be modeled as a linear function of the 8 scores and this function is hidden "
        "from you. The user will always act consistently based on the predefined user preference function."
    )
    obs, _ = gym.make(ENV_ID).reset(options={"config_id": 0})
    assert paper in obs and "steps of 0.1" not in obs
    hinted, _ = gym.make(ENV_ID, weight_hint=True).reset(options={"config_id": 0})
    assert "hidden from you: the user's score for a movie is the weighted sum" in hinted and "steps of 0.1" in hinted
    with pytest.raises(ValueError, match="weight_hint"):
        gym.make(ENV_ID, weight_hint="yes")


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("ab C.'\"*“”") + ["\t", "\n", "\u00a0", "\u2003", "\x1c", "\u3000", "\x85"]))
)
def test_a_title_key_collapses_every_unicode_space_as_the_regex_did(text):
    import re

    from mtp_gym.envs.movie_rec import normalize_title

    spaced = re.sub(r"\s+", " ", text).strip().strip("\"'`*_.,;:!?“”‘’ ").strip()
    assert normalize_title(text) == spaced.lower()


def test_a_question_that_repeats_over_is_a_reprompt_at_once_and_a_few_are_still_read():
    """A looping model's "X over X over ..." (each " over " a reading whose halves are read: its
    length squared in time and memory) is a format error, the game state untouched; a question
    with up to MAX_OVERS " over " (titles may hold the word) is read as before."""
    from mtp_gym.envs.movie_rec import MAX_OVERS

    env = MovieRecEnv()
    env.reset(options={"config_id": 0})
    first, second = env._movies.seen_titles[:2]
    before = env.game_state_digest()
    obs, _, _, _, info = env.step(f"<question>Would you prefer watching {f'{first} over ' * 2_000}{second}?</question>")
    assert not info["valid_action"] and f"more than {MAX_OVERS}" in obs and env.game_state_digest() == before
    few = f"Would you prefer watching {'Nothing over ' * (MAX_OVERS - 1)}{first} over {second}?"
    assert len(parse_question(few)) == MAX_OVERS
    _, _, _, _, info = env.step(f"<question>Would you prefer watching {first} over {second}?</question>")
    assert info["valid_action"]
