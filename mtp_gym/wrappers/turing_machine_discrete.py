"""A discrete view of the Turing Machine (TurnBench-MS) for classic RL (stable-baselines3).

Action: one ``Discrete(133)`` read by stage, so a plain ``Discrete`` policy (PPO, DQN,
``MaskablePPO``) drives all three stages of a round:

* ``0-124``: a code (index ``25 (B-1) + 5 (Y-1) + (P-1)``, ``rules.code_index``): the
  round's proposal in the proposal stage, a submission in the deduce stage;
* ``125-130``: query verifier ``0-5`` (question stage);
* ``131``: SKIP (question or deduce stage);
* ``132``: submit a still-possible code (deduce stage): the lowest-index code among the
  possible answers of the observation (below), i.e. the answer once only one remains. This
  shortcut spares a policy learning the 125-way map from "possible codes" to "code action";
  the raw code actions stay available.

Each legal action is sent as the env's own text (``<CHOICE>: BLUE=1, YELLOW=2, PURPLE=3``,
``<CHOICE>: 2``, ``<CHOICE>: SKIP``; with a ``<REASONING>`` line in CoT style). An action
that is not legal in the current stage (a verifier in the proposal stage, a code in the
question stage, a verifier the setup does not have) is sent as ``<CHOICE>: none``, which
the env answers with its stage re-prompt: a format error, no turn spent, and
``max_format_errors`` (4) in a row end the episode with score 0. :meth:`action_masks` is
exactly the legal actions, for sb3-contrib's ``MaskablePPO``.

Observation: one float vector of 280 in ``[0, 1]``, all from what a player sees (the cards
in the instructions and the PASS/FAIL results): the stage (one-hot of 3), the fraction of
the round cap used, the queries made this round (/3), the round's proposal (one-hot of
125, zero outside a round), the codes that are still possible answers (125: the unique
solution of some criteria assignment consistent with every result and the game's rules,
``mtp_gym.turing_machine.inference.TuringMachineBelief``, the oracle's exact tracker), the
number of possible answers (/125), and per verifier slot 0-5: whether the setup has it,
whether it was queried this round, its result (1 PASS) and the fraction of the consistent
hypotheses under which it would PASS the round's proposal (0 outside a round). Works in
both modes (in nightmare mode the tracker also enumerates the secret permutations).

Reward, termination and ``info`` are the text env's (the terminal reward is 1 for the
right code, else 0).

>>> import gymnasium as gym, mtp_gym
>>> from mtp_gym.wrappers import TuringMachineDiscrete
>>> env = TuringMachineDiscrete(gym.make("MTP/TuringMachine-v0"))
>>> obs, info = env.reset(seed=0)
>>> obs.shape, int(env.action_space.n), env.action_text(0), env.action_text(131)
((280,), 133, '<CHOICE>: BLUE=1, YELLOW=1, PURPLE=1', '<CHOICE>: none')
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from mtp_gym.turing_machine import rules
from mtp_gym.turing_machine.env import MAX_QUERIES_PER_ROUND, TuringMachineEnv
from mtp_gym.turing_machine.inference import TuringMachineBelief, read_instructions

__all__ = [
    "TuringMachineDiscrete",
    "make_env",
    "MAX_VERIFIERS",
    "SKIP_ACTION",
    "SUBMIT_POSSIBLE_ACTION",
    "VERIFIER_OFFSET",
]

MAX_VERIFIERS = max(max(v) for v in rules.VERIFIER_COUNTS.values())
VERIFIER_OFFSET = rules.N_CODES
SKIP_ACTION = VERIFIER_OFFSET + MAX_VERIFIERS
SUBMIT_POSSIBLE_ACTION = SKIP_ACTION + 1
STAGES = ("proposal", "question", "deduce")
INVALID_CHOICE = "none"


class TuringMachineDiscrete(gym.Wrapper):
    """Turing Machine with code / verifier / SKIP indices, an action mask and an array observation."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        base = env.unwrapped
        if not isinstance(base, TuringMachineEnv):
            raise ValueError(f"env must be a Turing Machine env, got {type(base).__name__}")
        self.base = base
        self.action_space = gym.spaces.Discrete(SUBMIT_POSSIBLE_ACTION + 1)
        size = len(STAGES) + 2 + 2 * rules.N_CODES + 1 + 4 * MAX_VERIFIERS
        self.observation_space = gym.spaces.Box(0.0, 1.0, shape=(size,), dtype=np.float32)
        self._belief: Any = None
        self._cot = False
        self._num_verifiers = 0
        self._stage = "proposal"
        self._round = 1
        self._code: int | None = None
        self._queried = np.zeros(MAX_VERIFIERS, dtype=np.float32)
        self._passed = np.zeros(MAX_VERIFIERS, dtype=np.float32)

    # ------------------------------------------------------------------ actions
    def action_masks(self) -> np.ndarray:
        """The legal actions in the current stage."""
        mask = np.zeros(SUBMIT_POSSIBLE_ACTION + 1, dtype=bool)
        if self._stage in ("proposal", "deduce"):
            mask[: rules.N_CODES] = True
        if self._stage == "question":
            mask[VERIFIER_OFFSET : VERIFIER_OFFSET + self._num_verifiers] = True
        if self._stage in ("question", "deduce"):
            mask[SKIP_ACTION] = True
        mask[SUBMIT_POSSIBLE_ACTION] = self._stage == "deduce"
        return mask

    def possible_code(self) -> int:
        """The code action 132 submits: the lowest-index code still possible."""
        possible = self._belief.candidate_answers()
        return int(possible.min()) if len(possible) else 0

    def action_text(self, action: int) -> str:
        """The text the view sends to the env for ``action`` in the current stage."""
        action = int(action)
        if not self.action_masks()[action]:
            choice = INVALID_CHOICE
        elif action < rules.N_CODES or action == SUBMIT_POSSIBLE_ACTION:
            code = action if action < rules.N_CODES else self.possible_code()
            choice = rules.choice_str(rules.CODES[code])
        elif action == SKIP_ACTION:
            choice = "SKIP"
        else:
            choice = str(action - VERIFIER_OFFSET)
        reasoning = "<REASONING>: discrete policy\n" if self._cot else ""
        return f"{reasoning}<CHOICE>: {choice}"

    # ------------------------------------------------------------------ observation
    def _obs(self) -> np.ndarray:
        belief = self._belief
        stage = np.zeros(len(STAGES), dtype=np.float32)
        stage[STAGES.index(self._stage)] = 1.0
        proposal = np.zeros(rules.N_CODES, dtype=np.float32)
        candidates = np.zeros(rules.N_CODES, dtype=np.float32)
        answers = belief.candidate_answers()
        candidates[answers] = 1.0
        present = np.zeros(MAX_VERIFIERS, dtype=np.float32)
        present[: self._num_verifiers] = 1.0
        p_pass = np.zeros(MAX_VERIFIERS, dtype=np.float32)
        if self._code is not None:
            proposal[self._code] = 1.0
            passes, total = belief.pass_counts()
            if total.sum() > 0:
                p_pass[: self._num_verifiers] = passes[:, :, self._code].sum(axis=0) / total.sum()
        head = [self._round / self.base.max_rounds, self._queried.sum() / MAX_QUERIES_PER_ROUND]
        parts: list[Any] = [
            stage,
            head,
            proposal,
            candidates,
            [len(answers) / rules.N_CODES],
            present,
            self._queried,
            self._passed,
            p_pass,
        ]
        return np.clip(np.concatenate(parts), 0.0, 1.0).astype(np.float32)

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        cards, nightmare, self._cot = read_instructions(obs)
        if len(cards) > MAX_VERIFIERS:
            raise ValueError(f"the setup has {len(cards)} verifiers, the view supports at most {MAX_VERIFIERS}")
        self._belief = TuringMachineBelief(cards, nightmare)
        self._num_verifiers = len(cards)
        self._stage, self._round, self._code = "proposal", 1, None
        self._queried[:] = 0.0
        self._passed[:] = 0.0
        return self._obs(), info

    def step(self, action: int):
        action = int(action)
        _, reward, terminated, truncated, info = self.env.step(self.action_text(action))
        fb = info["feedback"]
        if "error" not in fb and not (terminated or truncated):
            if fb["stage"] == "proposal":
                self._code = action
                self._queried[:] = 0.0
                self._passed[:] = 0.0
            elif fb.get("result") is not None:
                slot = int(fb["verifier"])
                self._belief.observe(self._code, slot, fb["result"] == "PASS")
                self._queried[slot] = 1.0
                self._passed[slot] = float(fb["result"] == "PASS")
            self._stage = fb["next_stage"]
            self._round = fb["rounds"]
            if self._stage == "proposal":
                self._code = None
                self._queried[:] = 0.0
                self._passed[:] = 0.0
        return self._obs(), float(reward), bool(terminated), bool(truncated), info


def make_env(**kwargs: Any) -> TuringMachineDiscrete:
    """``MTP/TuringMachineDiscrete-v0``: a TuringMachine env built from ``kwargs``, in the discrete view."""
    return TuringMachineDiscrete(TuringMachineEnv(**kwargs))
