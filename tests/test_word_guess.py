"""Word Guess rules, configurations, agents and the optimality of the oracle."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtp_gym.agents import make_agent
from mtp_gym.agents.oracles.word_guess import WordGuessSolver
from mtp_gym.envs.word_guess import (
    INSTRUCTIONS,
    attempts_score,
    benchmark_vocabularies,
    feedback,
    generation_pool,
)
from mtp_gym.eval import evaluate, summarize

G, Y, X = "green", "yellow", "grey"
ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "secret, guess, expected",
    [
        ("SPARK", "PROOF", (Y, Y, X, X, X)),  # the paper's worked example
        ("ABBEY", "BOBBY", (Y, X, G, X, G)),  # two extra B's: one yellow, one grey
        ("CRANE", "EERIE", (X, X, Y, X, G)),  # the green E uses up the only E
        ("LLAMA", "ALLOT", (Y, G, Y, X, X)),
        ("SPEED", "ERASE", (Y, X, X, Y, Y)),
        ("ROBOT", "ROBOT", (G, G, G, G, G)),
        ("MAMMA", "AMMAM", (Y, Y, G, Y, Y)),
    ],
)
def test_feedback_colours(secret, guess, expected):
    assert feedback(guess, secret) == expected


def test_paper_prompt_and_example_reply():
    env = gym.make("MTP/WordGuess-v0")
    obs, info = env.reset(options={"config_id": 0})
    vocab = benchmark_vocabularies()[0]
    assert obs == INSTRUCTIONS.format(vocab=", ".join(vocab))
    assert "if the secret word is SPARK and you guessed PROOF" in obs and "<attempt>Your guess</attempt>" in obs
    guess = next(w for w in vocab if w != info["hidden"]["secret"])
    reply, *_ = env.step(f"Let me think.\n<attempt> {guess.lower()} </attempt>")
    assert reply == ", ".join(feedback(guess, info["hidden"]["secret"]))


def test_instructions_do_not_depend_on_the_secret():
    env = gym.make("MTP/WordGuess-v0")
    firsts = {env.reset(options={"config_id": i})[0] for i in range(40, 80)}
    assert len(firsts) == 1


def test_benchmark_split_layout():
    vocabs = benchmark_vocabularies()
    assert len(vocabs) == 10 and all(len(v) == 40 and len(set(v)) == 40 for v in vocabs)
    words = [w for v in vocabs for w in v]
    assert len(set(words)) == 400 and all(len(w) == 5 and w.isalpha() and w.isupper() for w in words)
    env = gym.make("MTP/WordGuess-v0")
    secrets = [env.reset(options={"config_id": i})[1]["hidden"]["secret"] for i in range(400)]
    assert secrets == words


def test_solve_scores_and_counts_out_of_vocabulary_attempts():
    env = gym.make("MTP/WordGuess-v0")
    _, info = env.reset(options={"config_id": 5})
    secret = info["hidden"]["secret"]
    obs, reward, term, _, info = env.step("<attempt>ZZZZZ</attempt>")
    assert "not in the vocabulary" in obs and info["turn"] == 1 and info["feedback"]["in_vocabulary"] is False
    assert not term and reward == 0.0
    obs, reward, term, trunc, info = env.step(f"<attempt>{secret}</attempt>")
    assert term and not trunc and info["outcome"] == "success"
    assert reward == info["score"] == pytest.approx(1 - 1 / 39)
    assert attempts_score(1, 40) == 1.0 and attempts_score(40, 40) == 0.0


def test_format_errors_cost_no_turn_and_a_legal_move_clears_the_streak():
    env = gym.make("MTP/WordGuess-v0", max_format_errors=2)
    _, info = env.reset(options={"config_id": 0})
    legal = next(w for w in benchmark_vocabularies()[0] if w != info["hidden"]["secret"])
    for turn, action in enumerate(("PROOF", "<attempt>two words</attempt>", "<attempt></attempt>")):
        obs, _, term, _, info = env.step(action)
        assert obs.startswith("Invalid action") and "<attempt>WORD</attempt>" in obs
        assert info["turn"] == turn and not term and info["format_errors"] == turn + 1
        _, _, _, _, info = env.step(f"<attempt>{legal}</attempt>")
        assert info["turn"] == turn + 1 and info["valid_action"]


def test_timeout_after_max_turns():
    env = gym.make("MTP/WordGuess-v0", max_turns=3)
    _, info = env.reset(options={"config_id": 0})
    wrong = [w for w in benchmark_vocabularies()[0] if w != info["hidden"]["secret"]]
    for w in wrong[:3]:
        obs, reward, term, trunc, info = env.step(f"<attempt>{w}</attempt>")
    assert trunc and not term and info["outcome"] == "timeout" and reward == 0.0
    assert info["hidden"]["secret"] in obs


def test_generated_configurations():
    env = gym.make("MTP/WordGuess-v0", configs="generated", vocab_size=30, word_length=6)
    obs, info = env.reset(seed=11)
    vocab = info["hidden"]["vocabulary"]
    assert info["config_id"] is None and len(vocab) == 30 and all(len(w) == 6 for w in vocab)
    assert env.reset(seed=11)[0] == obs and env.reset(seed=12)[0] != obs
    bench = {w for v in benchmark_vocabularies() for w in v}
    five = gym.make("MTP/WordGuess-v0", configs="generated").reset(seed=3)[1]["hidden"]["vocabulary"]
    assert not bench & set(five)
    assert len(generation_pool(5)) > 2000


@pytest.mark.parametrize(
    "kwargs, name",
    [({"word_length": 2}, "word_length"), ({"vocab_size": 1}, "vocab_size"), ({"vocab_size": 10**6}, "vocab_size")],
)
def test_bad_kwargs(kwargs, name):
    with pytest.raises(ValueError, match=name):
        gym.make("MTP/WordGuess-v0", **kwargs)


def test_benchmark_needs_benchmark_shape():
    with pytest.raises(ValueError, match="generated"):
        gym.make("MTP/WordGuess-v0", configs="benchmark", word_length=6)
    env = gym.make("MTP/WordGuess-v0", word_length=6)
    with pytest.raises(ValueError, match="config_id"):
        env.reset(options={"config_id": 0})


def _brute_force_total(solver: WordGuessSolver, cands: tuple[int, ...]) -> int:
    """Optimal total attempts by plain recursion over every guess (no bounds, no memo)."""
    if len(cands) == 1:
        return 1
    best = None
    for g in range(len(solver.words)):
        groups = solver.partition(g, cands)
        if len(groups) == 1 and g not in cands:
            continue
        total = len(cands) + sum(
            _brute_force_total(solver, p) for code, p in groups.items() if code != solver.solved_code
        )
        best = total if best is None else min(best, total)
    return best


@pytest.mark.parametrize("vocab_id", [0, 3, 8])
def test_solver_matches_unbounded_exhaustive_search(vocab_id):
    rng = np.random.default_rng(vocab_id)
    vocab = benchmark_vocabularies()[vocab_id]
    words = tuple(sorted(rng.choice(vocab, size=14, replace=False)))
    solver = WordGuessSolver(words)
    everything = tuple(range(len(words)))
    assert solver.best(everything)[0] == _brute_force_total(solver, everything)


def test_solver_lower_bound_is_respected():
    for vocab in benchmark_vocabularies():
        total = WordGuessSolver(vocab).best(tuple(range(40)))[0]
        assert 79 <= total < 40 * 3


def test_oracle_solves_every_configuration_with_the_optimum():
    results = evaluate("MTP/WordGuess-v0", "oracle")
    assert len(results) == 400 and all(r.success and r.format_errors == 0 for r in results)
    for vocab_id, vocab in enumerate(benchmark_vocabularies()):
        turns = sum(r.turns for r in results[vocab_id * 40 : (vocab_id + 1) * 40])
        assert turns == WordGuessSolver(vocab).best(tuple(range(40)))[0]


def test_oracle_on_generated_and_large_vocabularies():
    for kwargs in ({"configs": "generated"}, {"vocab_size": 200, "word_length": 4}):
        env = gym.make("MTP/WordGuess-v0", **kwargs)
        from mtp_gym.eval.runner import run_episode

        for seed in range(5):
            assert run_episode(env, make_agent("oracle", "MTP/WordGuess-v0"), seed=seed).success


def test_random_agent_is_well_formed_and_worse_than_the_oracle():
    random_rows = summarize(evaluate("MTP/WordGuess-v0", "random", range(0, 400, 4)))
    oracle_rows = summarize(evaluate("MTP/WordGuess-v0", "oracle", range(0, 400, 4)))
    assert random_rows["format_errors"] == 0 and random_rows["success_rate"] == 1.0
    assert 12 < random_rows["mean_turns"] < 29
    assert oracle_rows["mean_score"] > random_rows["mean_score"] + 0.3


@pytest.mark.skipif(not Path("/usr/share/dict/scowl/english-words.10").exists(), reason="Debian's scowl not installed")
def test_shipped_word_lists_rebuild_identically(tmp_path):
    subprocess.run(
        [sys.executable, str(ROOT / "assets/scripts/build_word_lists.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    for rel in ("words/scowl-35.txt", "word_guess/vocabularies.json", "words/SCOWL-COPYRIGHT.txt"):
        assert (tmp_path / rel).read_bytes() == (ROOT / "assets" / rel).read_bytes(), rel


def test_a_reply_sent_again_reads_the_same_and_a_bad_one_is_refused_every_time():
    """Word Guess remembers what a reply attempts (replies repeat under a discrete view)."""
    env = gym.make("MTP/WordGuess-v0")
    _, info = env.reset(options={"config_id": 0})
    vocab = info["hidden"]["vocabulary"]
    word = next(w for w in vocab if w != info["hidden"]["secret"])
    for reply in (f"<attempt>{word}</attempt>", f"<attempt>{word}</attempt>", f"<attempt>{word.lower()}</attempt>"):
        _, _, _, _, info = env.step(reply)
        assert info["valid_action"] and info["feedback"]["guess"] == word
    for _ in range(2):
        obs, _, _, _, info = env.step(f"<attempt>{word}</attempt> or <attempt>{vocab[-1]}</attempt>")
        assert not info["valid_action"] and "different attempts" in obs and info["turn"] == 3


ONE_PASS_REPLIES = [
    "<attempt>ports</attempt>",
    "Guess 17: <attempt>PORTS</attempt>",
    "<ATTEMPT> `Ports`. </Attempt>  \n",
    "<attempt>**PORTS**</attempt> is my guess",
    "<attempt>P-O-R-T-S</attempt>",
    "<attempt>P - O - R - T - S</attempt>",
    "<attempt>two words</attempt>",
    "<attempt></attempt>",
    "<attempt>PORTS</attempt> no wait, make that SLICE",
    "<attempt>PORTS</attempt> actually, no",
    "<attempt>PORT5</attempt>",
    "<attempt>caf\u00e9</attempt>",
    "<attempt>PORTS</attempt> \u2014 final",
    "<think>maybe <attempt>SLICE</attempt></think><attempt>PORTS</attempt>",
    "<think>guess 17</think>\n\n<attempt>PORTS</attempt>",
    "<think>PORTS?</think><attempt>PORTS</attempt> no wait, SLICE",
    "<think>a</think><think>b</think><attempt>PORTS</attempt>",
    "so </think><attempt>ports</attempt>",
    "<thinking>x</thinking><attempt>PORTS</attempt>",
    "I think <attempt>PORTS</attempt>",
    "<attempt>PORTS</attempt><attempt>SLICE</attempt>",
    "< attempt >PORTS</ attempt>",
    "<attempt>PORTS",
    "PORTS</attempt><attempt>",
    "<attempt>a<b</attempt>",
    "1" * 1001 + " <attempt>PORTS</attempt>",
    "no tag at all",
    "<attempt>PORTS</attempt>" + " " * 300,
    "<attempt>'\rPORTS</attempt>",  # \r after a stripped quote stays: not a word
    "<attempt>PORTS\x0b'</attempt>",
    "<attempt>*\x1cPORTS</attempt>",
    "Guess 3: <attempt> `ports`. </attempt>\r\n",
]


@pytest.mark.parametrize("reply", ONE_PASS_REPLIES)
def test_the_one_pass_reading_reads_as_the_full_policy(reply):
    """``WordGuessEnv.read_move``'s shortcuts (one pass over a reply of the common shape, a
    remembered short reply) give the same word, or the same re-prompt, as ``read_reply`` then
    the tag reader."""
    from mtp_gym.core import InvalidAction, read_reply
    from mtp_gym.envs.word_guess import WordGuessEnv, _attempt_in, _plain_attempt

    def outcome(read):
        try:
            return "word", read()
        except InvalidAction as err:
            return "error", str(err)

    full = outcome(lambda: _attempt_in(read_reply(reply)))
    plain = outcome(lambda: _plain_attempt(reply))
    assert plain == full or plain == ("word", None)  # None: not the common shape, the full reading runs
    env = WordGuessEnv()
    for _ in range(2):  # the second time from memory
        assert outcome(lambda: env.read_move(reply)) == full


def test_the_one_pass_reading_covers_a_model_reply():
    from mtp_gym.envs.word_guess import _plain_attempt

    assert _plain_attempt("Guess 17: <Attempt> ports </attempt>\n") == "PORTS"


_PIECES = ["<attempt>", "</attempt>", "<ATTEMPT>", "</Attempt>", "PORTS", "ports", "slice", " ", "\t", "\n", "\r",
           "\x0b", "\x1c", "'", '"', "`", ".", "*", "-", "no, ", "actually ", "I think ", "5", "\u00e9", "<", ">",
           "<think>", "</think>", "<THINK>", "</thinking>", "\u2014"]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join))
def test_the_one_pass_reading_matches_the_full_policy_on_any_mix(reply):
    """Replies assembled from tags, words, the characters the reading strips, other whitespace,
    dashes, retractions and reasoning blocks: the shortcuts read each as the full policy does."""
    test_the_one_pass_reading_reads_as_the_full_policy(reply)


_LEAD_INS = st.one_of(
    st.text(st.characters(exclude_characters="<"), max_size=40),
    st.sampled_from(["I think ", "Thinking it over \u2014 ", "think> ", "/think ", "Guess 17: ", "PORTS? no: "]),
    st.builds(str.__add__, st.sampled_from(["", "x ", "\u2014"]), st.integers(995, 1005).map("7".__mul__)),
)  # a run of digits just under, at or over MAX_DIGITS


@settings(max_examples=300, deadline=None)
@given(_LEAD_INS, st.lists(st.sampled_from(_PIECES), max_size=10).map("".join), _LEAD_INS)
def test_a_lead_in_before_the_first_tag_never_changes_the_reading(lead, rest, other):
    """A reply is read from its first ``<`` on when what comes before holds at most
    ``MAX_DIGITS`` characters: any such lead-in (dashes, digits, the word "think", a run of
    digits either side of the bound) gives the word, or the re-prompt, of the full policy,
    read fresh or from memory after another lead-in before the same move."""
    from mtp_gym.envs import word_guess

    word_guess._ATTEMPTS.clear()
    test_the_one_pass_reading_reads_as_the_full_policy(other + rest)
    test_the_one_pass_reading_reads_as_the_full_policy(lead + rest)
