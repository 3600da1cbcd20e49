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

import gymnasium as gym
from sb3_common import make_parser, train_and_compare
from sb3_contrib import MaskablePPO

from mtp_gym.wrappers import TuringMachineDiscrete

ENV_ID = "MTP/TuringMachine-v0"


def main() -> None:
    args = make_parser(__doc__.splitlines()[0], timesteps=80_000, configs="0-19,90-109,178-197").parse_args()
    train_and_compare(
        args,
        env_id=ENV_ID,
        view=TuringMachineDiscrete,
        algo=MaskablePPO,
        name="turing_machine_maskable_ppo",
        title="Turing Machine",
        make_view=lambda: TuringMachineDiscrete(gym.make(ENV_ID, setups="generated")),
        what=f"classic, published setups {args.configs} (score = right code)",
        learning_rate=3e-4,
        gamma=0.99,
        ent_coef=0.01,
    )


if __name__ == "__main__":
    main()
