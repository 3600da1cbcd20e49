"""``mtp-gym play``: a person plays an env in the terminal."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from mtp_gym.cli.common import add_env_kwargs, check_env_id, check_env_kwargs, examples, fail, json_arg

__all__ = ["add_parser", "cmd_play"]


def add_parser(sub: Any) -> None:
    pl = sub.add_parser(
        "play",
        help="play an env yourself in the terminal",
        **examples(
            "mtp-gym play MTP/WordGuess-v0 --config-id 0", "mtp-gym play MTP/TuringMachine-v0 --out runs --name alice"
        ),
    )
    pl.add_argument("env", metavar="ID", help="env id")
    pl.add_argument("--config-id", type=int, help="benchmark configuration (default: drawn from --seed)")
    pl.add_argument("--seed", type=int, help="seed for reset")
    add_env_kwargs(pl, "JSON object of env kwargs")
    pl.add_argument("--out", help="log the finished game into OUT/human_<name>/ (read by `mtp-gym report OUT`)")
    pl.add_argument("--name", default="player", help="your name in the report, as agent human:<name> (default: player)")
    pl.set_defaults(func=cmd_play)


class TerminalPlayer:
    """A person at the terminal as a policy: each observation printed, the next action read
    with line editing and history (``readline``), and the expected format shown as a hint."""

    def __init__(self, hint: Callable[[], str] | None = None) -> None:
        self.hint = hint or (lambda: "")
        self.hinted = False
        try:
            import readline  # noqa: F401  (gives input() line editing and history)
        except ImportError:  # not on every platform
            pass

    def reset(self, seed: int | None = None) -> None:
        self.hinted = False

    def act(self, observation: str, info: dict[str, Any]) -> str:
        print(observation)
        if not self.hinted:
            print("\n(Type your action on one line; a line ending in '\\' continues it. Ctrl-D quits.)")
            self.hinted = True
        hint = self.hint()
        if hint:
            print(f"[format] {hint}")
        lines: list[str] = []
        while True:
            line = input(f"\n[turn {info['turn'] + 1}/{info['max_turns']}] > " if not lines else "... ")
            if not line.endswith("\\"):
                lines.append(line)
                return "\n".join(lines)
            lines.append(line[:-1])


def _check_name(args: argparse.Namespace) -> None:
    if args.out is not None:
        from mtp_gym.eval.human import check_name

        try:
            check_name(args.name)
        except ValueError as err:
            raise fail(f"--name: {err}") from None


def cmd_play(args: argparse.Namespace) -> int:
    """A person plays in the terminal: the instructions, each reply, a prompt for the next action.
    With ``--out``, the finished game is logged as agent ``human:<name>`` for ``mtp-gym report``."""
    import gymnasium as gym

    from mtp_gym.episode import run_episode

    check_env_id("ID", args.env)
    _check_name(args)
    env_kwargs = json_arg("--env-kwargs", args.env_kwargs)
    check_env_kwargs("--env-kwargs", args.env, env_kwargs)
    last: list[Any] = []
    try:
        env = gym.make(args.env, **env_kwargs)
        base: Any = env.unwrapped
        player = TerminalPlayer(lambda: base.format_hint)
        result = run_episode(env, player, config_id=args.config_id, seed=args.seed, on_step=last.append)
    except ValueError as err:
        raise fail(str(err)) from None
    except EOFError:
        print("\nQuit before the end of the episode.")
        return 1
    print(last[-1].observation)
    print(
        f"\nGame over: outcome={result.outcome}, score={result.score:.3f}, turns={result.turns}, "
        f"format errors={result.format_errors}"
    )
    if args.out is not None:
        from mtp_gym.eval.human import log_human_episode

        record = log_human_episode(args.out, args.name, args.env, env_kwargs, result)
        print(f"Logged as {record['agent']} in {args.out}; `mtp-gym report {args.out}` shows it beside the models.")
    return 0
