"""Train PPO on the Word Guess discrete view, then evaluate it through the harness.

    python examples/train_word_guess.py                         # about a minute on 2 CPU cores
    python examples/train_word_guess.py --timesteps 2000 --configs 4   # smoke run

The view (``mtp_gym.wrappers.WordGuessDiscrete``): action = an index into the episode's
40-word vocabulary; observation = which words were tried, which are still consistent with
every colour feedback so far, and the share of the turn budget used. Nothing masks the
actions: the policy has to learn from the reward alone to pick an untried, consistent word.
Trained on generated vocabularies (fresh words every episode), evaluated on the benchmark
split beside the random and oracle agents; writes ``runs/word_guess_ppo.png``.
"""

from __future__ import annotations

import gymnasium as gym
from sb3_common import make_parser, train_and_compare
from stable_baselines3 import PPO

from mtp_gym.wrappers import WordGuessDiscrete

ENV_ID = "MTP/WordGuess-v0"


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    """Train, evaluate, plot; returns the harness rows by agent name."""
    args = make_parser(__doc__.splitlines()[0], timesteps=300_000, configs="0-399:10").parse_args(argv)
    return train_and_compare(
        args,
        env_id=ENV_ID,
        view=WordGuessDiscrete,
        algo=PPO,
        name="word_guess_ppo",
        title="Word Guess",
        make_view=lambda: WordGuessDiscrete(gym.make(ENV_ID, configs="generated")),
        what=f"benchmark configurations {args.configs} (score = 1 - (n-1)/39 for a solve in n)",
        n_steps_max=256,
        learning_rate=1e-3,
        gamma=1.0,
        ent_coef=0.01,
    )


if __name__ == "__main__":
    main()
