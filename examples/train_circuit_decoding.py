"""Train MaskablePPO on the Circuit Decoding discrete view, then evaluate it through the harness.

    python examples/train_circuit_decoding.py                      # a few minutes on 2 idle CPU cores
    python examples/train_circuit_decoding.py --unmasked           # plain PPO, no action mask
    python examples/train_circuit_decoding.py --timesteps 300 --configs 4   # smoke run

The view (``mtp_gym.wrappers.CircuitDecodingDiscrete``): action = one of the 24 (circuit,
input) queries, or "submit", which sends the most likely truth tables given the answers so
far; the mask removes the queries once the 18 are spent. ``--unmasked`` trains plain PPO,
which must learn to submit by itself (a query after the budget is a format error; the
greedy policy of a short run tends to repeat one query until the episode ends in format
errors). Trained on generated configurations, evaluated on the benchmark split beside the
random and oracle agents; writes ``runs/circuit_decoding_<algo>.png``.
"""

from __future__ import annotations

import gymnasium as gym
from sb3_common import make_parser, train_and_compare
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO

from mtp_gym.wrappers import CircuitDecodingDiscrete

ENV_ID = "MTP/CircuitDecoding-v0"


def main() -> None:
    parser = make_parser(__doc__.splitlines()[0], timesteps=100_000, configs="0-29,150-179")
    parser.add_argument("--unmasked", action="store_true", help="plain PPO without the action mask")
    args = parser.parse_args()
    algo, name = (PPO, "ppo") if args.unmasked else (MaskablePPO, "maskable_ppo")
    train_and_compare(
        args,
        env_id=ENV_ID,
        view=CircuitDecodingDiscrete,
        algo=algo,
        name=f"circuit_decoding_{name}",
        title="Circuit Decoding",
        make_view=lambda: CircuitDecodingDiscrete(gym.make(ENV_ID, configs="generated")),
        what=f"benchmark configurations {args.configs} (score = fraction of circuits right)",
        learning_rate=3e-4,
        gamma=1.0,
        ent_coef=0.01,
    )


if __name__ == "__main__":
    main()
