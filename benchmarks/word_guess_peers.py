"""Word Guess against peer Wordle envs: env steps/s in a plain step loop, in one process.

Run: ``python benchmarks/word_guess_peers.py [--steps N] [--rounds R]``. Peers measured when
installed (they are not dependencies of mtp-gym)::

    pip install --no-deps gem-llm textarena && pip install reasoning-gym==0.1.23 msgspec

- GEM (``gem-llm``), ``gem.envs.game_env.wordle.WordleEnv``: actions ``\\boxed{WORD}``.
- TextArena (``textarena``), ``textarena.envs.Wordle.env.WordleEnv``: actions ``[word]``.

Both read their secret words from nltk's ``words`` corpus and download it (and TextArena a
part-of-speech tagger) at run time. This script runs offline: it serves them a ``words``
corpus made of our first benchmark vocabulary (40 words, ``en-basic``, the peers' secret
list) and our SCOWL list (``en``), turns ``nltk.download`` into a no-op and tags every word a
noun. So every env draws its secret from 40 words and is sent the same pre-drawn stream of
random guesses from its 40 words (episodes of the same length), 40 guesses at most, resets
included, in ``--rounds`` alternating rounds, four times: with repeated action strings (what
a discrete view or a scripted player sends; Word Guess reads each distinct string once), with
every reply unique by a lead-in before the move (``Guess 17: ``; Word Guess reads a reply from
its first ``<``, so it reads each move once here too), and with every reply unique from its
first character (a reasoning block first, ``<think>guess 17</think>``: every reply's reasoning
stripped, the move behind it read once, as behind a lead-in; the peers' parsers do not strip
reasoning), and with such a block whose reasoning says "think" (``<think>I think 17</think>``,
as a model's chain of thought does: the block is still cut by string search), timed in CPU
seconds (the machine may be shared). Printed: the median steps/s per env and the median (and
range) over the rounds of each round's ratio of ours to each peer.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from mtp_gym.data import scowl_words
from mtp_gym.envs.word_guess import WordGuessEnv, benchmark_vocabularies

MAX_TURNS = 40
VOCABULARY = [w.lower() for w in benchmark_vocabularies()[0]]


def offline_nltk_words() -> None:
    """Serve nltk a ``words`` corpus from our own lists and keep it from downloading."""
    import nltk

    root = Path(tempfile.mkdtemp(prefix="nltk_words_"))
    corpus = root / "corpora" / "words"
    corpus.mkdir(parents=True)
    (corpus / "en-basic").write_text("\n".join(VOCABULARY) + "\n")
    (corpus / "en").write_text("\n".join(sorted(set(scowl_words()) | set(VOCABULARY))) + "\n")
    (corpus / "README").write_text("offline stand-in for the benchmark\n")
    nltk.data.path.insert(0, str(root))
    nltk.download = lambda *args, **kwargs: True


def ours(idx: list[int], prefixes: list[str]) -> float:
    env = WordGuessEnv(max_turns=MAX_TURNS)
    actions = [[f"<attempt>{w}</attempt>" for w in v] for v in benchmark_vocabularies()]
    _, info = env.reset(seed=0)
    table = actions[info["hidden"]["vocabulary_id"]]
    step, reset = env.step, env.reset
    start = time.process_time()
    for i, prefix in zip(idx, prefixes):
        _, _, term, trunc, info = step(prefix + table[i])
        if term or trunc:
            _, info = reset()
            table = actions[info["hidden"]["vocabulary_id"]]
    return len(idx) / (time.process_time() - start)


def gem(idx: list[int], prefixes: list[str]) -> float:
    from gem.envs.game_env.wordle import WordleEnv

    random.seed(0)
    env = WordleEnv(word_length=5, max_turns=MAX_TURNS)
    actions = [f"\\boxed{{{w.upper()}}}" for w in env.available_words]
    step, reset = env.step, env.reset
    reset(seed=0)
    start = time.process_time()
    for i, prefix in zip(idx, prefixes):
        _, _, term, trunc, _ = step(prefix + actions[i % len(actions)])
        if term or trunc:
            reset()
    return len(idx) / (time.process_time() - start)


def textarena(idx: list[int], prefixes: list[str]) -> float:
    import textarena.envs.Wordle.env as module

    module.pos_tag = lambda words: [(w, "NN") for w in words]
    random.seed(0)
    env = module.WordleEnv(word_length=5, num_guesses=MAX_TURNS)
    actions = [f"[{w}]" for w in env.word_list]
    step = env.step
    env.reset(num_players=1, seed=0)
    start = time.process_time()
    for i, prefix in zip(idx, prefixes):
        done, _ = step(prefix + actions[i % len(actions)])
        if done:
            env.reset(num_players=1)
    return len(idx) / (time.process_time() - start)


def available() -> dict[str, Callable[[list[int], list[str]], float]]:
    runs: dict[str, Callable[[list[int], list[str]], float]] = {"mtp-gym WordGuess": ours}
    for name, module, run in (("GEM Wordle", "gem", gem), ("TextArena Wordle", "textarena", textarena)):
        try:
            __import__(module)
        except ImportError as err:
            print(f"{name}: not installed ({err}); see this script's docstring")
            continue
        runs[name] = run
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    offline_nltk_words()
    runs = available()
    idx = np.random.default_rng(12345).integers(1 << 20, size=args.steps) % 40
    idx_list = idx.tolist()
    streams = {
        "repeated action strings (a discrete view, a scripted player)": [""] * args.steps,
        "every reply unique (a model's replies: 'Guess 17: ' before the move)": [
            f"Guess {k}: " for k in range(args.steps)
        ],
        "every reply unique from its first character ('<think>guess 17</think>' before the move)": [
            f"<think>guess {k}</think>" for k in range(args.steps)
        ],
        "a reasoning block in which the model says 'think' ('<think>I think 17</think>' before the move)": [
            f"<think>I think {k}</think>" for k in range(args.steps)
        ],
    }
    print(f"{args.steps:,} steps per run, median of {args.rounds} alternating rounds")
    for title, prefixes in streams.items():
        rates: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(args.rounds):
            for name, run in runs.items():
                rates[name].append(run(idx_list, prefixes))
        ours_rates = rates["mtp-gym WordGuess"]
        print(title)
        for name, values in rates.items():
            rate = statistics.median(values)
            spread = f"{min(values):,.0f}-{max(values):,.0f}"
            ratio = ""
            if name != "mtp-gym WordGuess":  # each round's ratio: a slow spell of the machine hits both
                paired = sorted(a / b for a, b in zip(ours_rates, values))
                ratio = f"  mtp-gym / this = {statistics.median(paired):.2f}x (rounds {paired[0]:.2f}-{paired[-1]:.2f})"
            print(f"  {name:<18}: {rate:>10,.0f} steps/s (range {spread}){ratio}")


if __name__ == "__main__":
    main()
