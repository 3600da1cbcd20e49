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

from pathlib import Path

import gymnasium as gym
from stable_baselines3 import PPO

from sb3_common import batch_size, compare, curve_summary, make_parser, parse_configs, plot_curve, print_rows, train, training_env

from mtp_gym.wrappers import WordGuessDiscrete

ENV_ID = "MTP/WordGuess-v0"


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    """Train, evaluate, plot; returns the harness rows by agent name."""
    parser = make_parser(__doc__.splitlines()[0], timesteps=300_000, configs="0-399:10")
    args = parser.parse_args(argv)
    vec = training_env(lambda: WordGuessDiscrete(gym.make(ENV_ID, configs="generated")), args.n_envs, args.seed)
    n_steps = max(16, min(256, args.timesteps // args.n_envs))
    model = PPO(
        "MlpPolicy", vec, n_steps=n_steps, batch_size=batch_size(n_steps * args.n_envs), n_epochs=10,
        learning_rate=1e-3, gamma=1.0, ent_coef=0.01, seed=args.seed, device="cpu", verbose=0,
    )
    log, seconds = train(model, args.timesteps)
    print(f"trained PPO for {args.timesteps} steps in {seconds:.0f} s ({args.timesteps / seconds:.0f} steps/s); {curve_summary(log)}")
    out = Path(args.out)
    model.save(out / "word_guess_ppo")
    rows = compare(ENV_ID, WordGuessDiscrete, model, parse_configs(args.configs))
    print_rows(rows, f"{ENV_ID}, benchmark configurations {args.configs} (score = 1 - (n-1)/39 for a solve in n)")
    plot_curve(log, out / "word_guess_ppo.png", "Word Guess: PPO on the discrete view",
               {k: rows[k]["mean_score"] for k in ("view-random", "random", "oracle")})
    print(f"learning curve: {out / 'word_guess_ppo.png'}")
    return rows


if __name__ == "__main__":
    main()
