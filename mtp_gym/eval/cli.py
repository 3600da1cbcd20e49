"""``mtp-gym`` command line: ``mtp-gym eval --env ID[,ID…] --agent oracle,random``."""

from __future__ import annotations

import argparse
import sys
import time

from mtp_gym.registration import ENV_IDS

COLUMNS = ("env", "agent", "episodes", "mean_score", "ci95", "success_rate", "mean_turns", "mean_turns_success", "format_errors", "seconds")


def _env_ids(text: str) -> list[str]:
    ids = list(ENV_IDS) if text == "all" else [t.strip() for t in text.split(",") if t.strip()]
    unknown = [i for i in ids if i not in ENV_IDS]
    if unknown:
        raise SystemExit(f"--env: unknown id(s) {unknown}; allowed: {sorted(ENV_IDS)} or 'all'")
    return ids


def _config_ids(split: str, total: int) -> range:
    if split == "full":
        return range(total)
    if not split.isdigit() or int(split) < 1:
        raise SystemExit(f"--split must be 'full' or a positive int, got {split!r}")
    return range(min(int(split), total))


def cmd_eval(args: argparse.Namespace) -> int:
    import gymnasium as gym

    from agents import agent_kinds
    from mtp_gym.eval.runner import evaluate, summarize

    rows = []
    for env_id in _env_ids(args.env):
        total = gym.make(env_id).unwrapped.num_configs
        for agent in [a.strip() for a in args.agent.split(",") if a.strip()]:
            if agent not in agent_kinds(env_id):
                raise SystemExit(f"--agent: {agent!r} is not available for {env_id}; allowed: {agent_kinds(env_id)}")
            start = time.perf_counter()
            summary = summarize(evaluate(env_id, agent, _config_ids(args.split, total)))
            rows.append({"env": env_id, "agent": agent, **summary, "seconds": time.perf_counter() - start})
    print(format_table(rows))
    return 0


def format_table(rows: list[dict]) -> str:
    """Rows as a Markdown table."""
    def cell(v: object) -> str:
        return f"{v:.3f}" if isinstance(v, float) else str(v)

    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cell(r[c]) for c in COLUMNS) + " |" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mtp-gym", description="Multi-turn puzzles for LLM agents.")
    sub = parser.add_subparsers(dest="command", required=True)
    ev = sub.add_parser("eval", help="play agents over benchmark splits and print the summary table")
    ev.add_argument("--env", required=True, help="env id(s), comma separated, or 'all'")
    ev.add_argument("--agent", default="oracle,random", help="agent spec(s), comma separated (default: oracle,random)")
    ev.add_argument("--split", default="full", help="'full' or the number of configurations to play (default: full)")
    ev.set_defaults(func=cmd_eval)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
