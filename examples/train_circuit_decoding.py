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

from pathlib import Path

import gymnasium as gym
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO

from sb3_common import batch_size, compare, curve_summary, make_parser, parse_configs, plot_curve, print_rows, train, training_env

from mtp_gym.wrappers import CircuitDecodingDiscrete

ENV_ID = "MTP/CircuitDecoding-v0"


def main() -> None:
    parser = make_parser(__doc__.splitlines()[0], timesteps=100_000, configs="0-29,150-179")
    parser.add_argument("--unmasked", action="store_true", help="plain PPO without the action mask")
    args = parser.parse_args()
    vec = training_env(lambda: CircuitDecodingDiscrete(gym.make(ENV_ID, configs="generated")), args.n_envs, args.seed)
    n_steps = max(16, min(512, args.timesteps // args.n_envs))
    algo, name = (PPO, "ppo") if args.unmasked else (MaskablePPO, "maskable_ppo")
    model = algo(
        "MlpPolicy", vec, n_steps=n_steps, batch_size=batch_size(n_steps * args.n_envs), n_epochs=10,
        learning_rate=3e-4, gamma=1.0, ent_coef=0.01, seed=args.seed, device="cpu", verbose=0,
    )
    log, seconds = train(model, args.timesteps)
    print(f"trained {algo.__name__} for {args.timesteps} steps in {seconds:.0f} s ({args.timesteps / seconds:.0f} steps/s); {curve_summary(log)}")
    out = Path(args.out)
    model.save(out / f"circuit_decoding_{name}")
    configs = parse_configs(args.configs)
    rows = compare(ENV_ID, CircuitDecodingDiscrete, model, configs)
    print_rows(rows, f"{ENV_ID}, benchmark configurations {args.configs} (score = fraction of circuits right)")
    plot_curve(log, out / f"circuit_decoding_{name}.png", f"Circuit Decoding: {algo.__name__} on the discrete view",
               {k: rows[k]["mean_score"] for k in ("view-random", "random", "oracle")})
    print(f"learning curve: {out / f'circuit_decoding_{name}.png'}")


if __name__ == "__main__":
    main()
