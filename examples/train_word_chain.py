"""Train MaskablePPO on the Word Chaining discrete view, then evaluate it through the harness.

    python examples/train_word_chain.py                           # a few minutes on 2 CPU cores
    python examples/train_word_chain.py --unmasked                # plain PPO, no action mask
    python examples/train_word_chain.py --timesteps 300 --configs 4   # smoke run

The view (``mtp_gym.wrappers.WordChainDiscrete``): action = index of a word of the episode's
500-word list, mask = the legal words. Under the paper's rules any legal word keeps the
score at 1, so the masked policy cannot do worse than the oracle: this example shows the
plumbing (MaskablePPO, masks through the harness). ``--unmasked`` trains plain PPO, which
must learn legality itself from the observation (an illegal word loses at once); compare it
with the ``random_word`` agent, which ignores the rules. Trained on generated games,
evaluated on the benchmark games; writes ``runs/word_chain_<algo>.png``.
"""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO

from sb3_common import batch_size, compare, curve_summary, make_parser, parse_configs, plot_curve, print_rows, train, training_env

from mtp_gym.wrappers import WordChainDiscrete

ENV_ID = "MTP/WordChain-v0"


def main() -> None:
    parser = make_parser(__doc__.splitlines()[0], timesteps=30_000, configs="40")
    parser.add_argument("--unmasked", action="store_true", help="plain PPO without the action mask")
    args = parser.parse_args()
    vec = training_env(lambda: WordChainDiscrete(gym.make(ENV_ID, configs="generated")), args.n_envs, args.seed)
    n_steps = max(16, min(256, args.timesteps // args.n_envs))
    algo, name = (PPO, "ppo") if args.unmasked else (MaskablePPO, "maskable_ppo")
    model = algo(
        "MlpPolicy", vec, n_steps=n_steps, batch_size=batch_size(n_steps * args.n_envs), n_epochs=10,
        learning_rate=3e-4, gamma=0.99, ent_coef=0.0, seed=args.seed, device="cpu", verbose=0,
    )
    log, seconds = train(model, args.timesteps)
    print(f"trained {algo.__name__} for {args.timesteps} steps in {seconds:.0f} s ({args.timesteps / seconds:.0f} steps/s); {curve_summary(log)}")
    out = Path(args.out)
    model.save(out / f"word_chain_{name}")
    rows = compare(ENV_ID, WordChainDiscrete, model, parse_configs(args.configs), extra={"random_word": "random_word"})
    print_rows(rows, f"{ENV_ID}, benchmark games {args.configs} (score = game ended without a loss by the agent)")
    plot_curve(log, out / f"word_chain_{name}.png", f"Word Chaining: {algo.__name__} on the discrete view",
               {k: rows[k]["mean_score"] for k in ("random_word", "random", "oracle")})
    print(f"learning curve: {out / f'word_chain_{name}.png'}")


if __name__ == "__main__":
    main()
