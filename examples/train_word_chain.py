"""Train MaskablePPO on the Word Chaining discrete view, then evaluate it through the harness.

    python examples/train_word_chain.py                           # a few minutes on 2 CPU cores
    python examples/train_word_chain.py --unmasked                # plain PPO, no action mask
    python examples/train_word_chain.py --timesteps 300 --configs 4   # smoke run

The view (``mtp_gym.wrappers.WordChainDiscrete``): action = index of a word of the episode's
500-word list, mask = the legal words. Under the paper's rules any legal word keeps the
score at 1, so the masked policy cannot do worse than the oracle: this example shows the
plumbing (MaskablePPO, masks through the harness). ``--unmasked`` trains plain PPO, which
must learn legality itself from the observation (an illegal word loses at once); compare it
with the registered floor ``random`` (a random word of the list, ignoring the rules) and
``random_legal`` (a random legal word, which never loses). Trained on generated games,
evaluated on the benchmark games; writes ``runs/word_chain_<algo>.png``.
"""

from __future__ import annotations

import gymnasium as gym
from sb3_common import make_parser, train_and_compare
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO

from mtp_gym.wrappers import WordChainDiscrete

ENV_ID = "MTP/WordChain-v0"


def main() -> None:
    parser = make_parser(__doc__.splitlines()[0], timesteps=30_000, configs="40")
    parser.add_argument("--unmasked", action="store_true", help="plain PPO without the action mask")
    args = parser.parse_args()
    algo, name = (PPO, "ppo") if args.unmasked else (MaskablePPO, "maskable_ppo")
    train_and_compare(
        args,
        env_id=ENV_ID,
        view=WordChainDiscrete,
        algo=algo,
        name=f"word_chain_{name}",
        title="Word Chaining",
        make_view=lambda: WordChainDiscrete(gym.make(ENV_ID, configs="generated")),
        what=f"benchmark games {args.configs} (score = game ended without a loss by the agent)",
        n_steps_max=256,
        baselines=("random", "random_legal", "oracle"),
        extra={"random_legal": "random_legal"},
        learning_rate=3e-4,
        gamma=0.99,
        ent_coef=0.0,
    )


if __name__ == "__main__":
    main()
