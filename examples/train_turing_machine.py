"""Train MaskablePPO on the Turing Machine discrete view, then evaluate it through the harness.

    python examples/train_turing_machine.py                       # a few minutes on 2 CPU cores
    python examples/train_turing_machine.py --timesteps 300 --configs 4   # smoke run

The view (``mtp_gym.wrappers.TuringMachineDiscrete``): one ``Discrete(132)`` read by stage
(125 codes: the round's proposal or a submission; 6 verifiers; SKIP), with the stage's legal
actions as the mask, and an observation that includes the codes still possible. Trained on
generated setups (classic mode), evaluated on the published TurnBench setups beside the
random and oracle agents; writes ``runs/turing_machine_maskable_ppo.png``.
"""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
from sb3_contrib import MaskablePPO

from sb3_common import batch_size, compare, curve_summary, make_parser, parse_configs, plot_curve, print_rows, train, training_env

from mtp_gym.wrappers import TuringMachineDiscrete

ENV_ID = "MTP/TuringMachine-v0"


def main() -> None:
    args = make_parser(__doc__.splitlines()[0], timesteps=80_000, configs="0-19,90-109,178-197").parse_args()
    vec = training_env(lambda: TuringMachineDiscrete(gym.make(ENV_ID, setups="generated")), args.n_envs, args.seed)
    n_steps = max(16, min(512, args.timesteps // args.n_envs))
    model = MaskablePPO(
        "MlpPolicy", vec, n_steps=n_steps, batch_size=batch_size(n_steps * args.n_envs), n_epochs=10,
        learning_rate=3e-4, gamma=0.99, ent_coef=0.01, seed=args.seed, device="cpu", verbose=0,
    )
    log, seconds = train(model, args.timesteps)
    print(f"trained MaskablePPO for {args.timesteps} steps in {seconds:.0f} s ({args.timesteps / seconds:.0f} steps/s); {curve_summary(log)}")
    out = Path(args.out)
    model.save(out / "turing_machine_maskable_ppo")
    rows = compare(ENV_ID, TuringMachineDiscrete, model, parse_configs(args.configs))
    print_rows(rows, f"{ENV_ID} (classic, published setups {args.configs}; score = right code)")
    plot_curve(log, out / "turing_machine_maskable_ppo.png", "Turing Machine: MaskablePPO on the discrete view",
               {k: rows[k]["mean_score"] for k in ("view-random", "random", "oracle")})
    print(f"learning curve: {out / 'turing_machine_maskable_ppo.png'}")


if __name__ == "__main__":
    main()
