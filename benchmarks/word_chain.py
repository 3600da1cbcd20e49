"""Word Chaining throughput and oracle figures: single-agent env and PettingZoo AEC steps/s,
oracle / random seconds per full split, forced-loss count of the 400 games.

Run: ``python benchmarks/word_chain.py [--steps N]``. The scripted player sends a random
legal word (``info["legal_moves"]`` indexed by pre-drawn integers), so the figure is
mostly the env's cost (parsing, rules, the opponent's move, ``info``).
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
from _common import single_env_rate

import mtp_gym  # noqa: F401
from mtp_gym import word_chain_v0
from mtp_gym.agents.oracles.word_chain import WordChainSolver
from mtp_gym.envs.word_chain import WordChainEnv, benchmark_games, lexicon_tables
from mtp_gym.eval import evaluate, summarize

ENV_ID = "MTP/WordChain-v0"


def send_legal_word(info: dict, k: int) -> str:
    """The scripted player: legal word ``k`` (modulo their number) of the current position."""
    legal = info["legal_moves"]
    return f"'{legal[k % len(legal)]}'"


def aec_rate(action_type: str, picks: np.ndarray) -> float:
    """Steps/s of two random-legal-word players in the AEC env (raw, resets included)."""
    env = word_chain_v0.raw_env(action_type=action_type)
    env.reset(seed=0)
    n = 0
    start = time.perf_counter()
    while n < len(picks):
        for _agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = info["legal_moves"]
            word = legal[int(picks[n]) % len(legal)]
            env.step(env.unwrapped._game.index[word] if action_type == "discrete" else f"'{word}'")
            n += 1
            if n >= len(picks):
                break
        env.reset()
    return n / (time.perf_counter() - start)


def forced_losses() -> tuple[int, int, int, float]:
    """Games whose side to move is in a forced loss: at the opening, and for the agent facing
    the opponent's opening word; with the number of opener games and the seconds spent."""
    start = time.perf_counter()
    at_start = after_opener = openers = 0
    for g in benchmark_games():
        solver = WordChainSolver(g["lexicon"], "draw")
        at_start += solver.value((), None, 40) == -1
        if g["first"] == 1:
            openers += 1
            after_opener += solver.value((g["opener"],), g["opener"], 39) == -1
    return at_start, after_opener, openers, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    args = parser.parse_args()
    picks = np.random.default_rng(12345).integers(1 << 30, size=args.steps)
    for g in benchmark_games():  # warm the per-lexicon tables, as a long training run would
        lexicon_tables(g["lexicon"])

    raw, _, episodes = single_env_rate(WordChainEnv(), picks.tolist(), send_legal_word)
    made = single_env_rate(gym.make(ENV_ID), picks.tolist(), send_legal_word).wall
    print(
        f"single-agent, raw class    : {raw:>10,.0f} steps/s  ({args.steps / max(episodes, 1):.1f} agent moves/episode)"
    )
    print(f"single-agent, gym.make     : {made:>10,.0f} steps/s  ({made / raw:.2f}x raw)")
    text = aec_rate("text", picks)
    print(
        f"AEC text, raw              : {text:>10,.0f} steps/s  ({text / raw:.2f}x single-agent raw; one word per step)"
    )
    disc = aec_rate("discrete", picks)
    print(f"AEC discrete + mask, raw   : {disc:>10,.0f} steps/s  ({disc / raw:.2f}x single-agent raw)")

    for kind in ("oracle", "random", "random_legal"):
        start = time.perf_counter()
        s = summarize(evaluate(ENV_ID, kind))
        print(
            f"{kind + ', full split (400)':<27}: {time.perf_counter() - start:>10.2f} s  "
            f"mean score {s['mean_score']:.4f} (no loss in {s['success_rate']:.1%}), mean agent moves {s['mean_turns']:.2f}"
        )
    at_start, after_opener, openers, seconds = forced_losses()
    print(
        f"forced losses (solver)     : {at_start} of 400 at the opening, {after_opener} of {openers} for the agent "
        f"facing the opener ({seconds:.2f} s)"
    )


if __name__ == "__main__":
    main()
