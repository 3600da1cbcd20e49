"""``mtp-gym eval``: play agents over benchmark splits, then write the report and print its summary.

The arguments are read and checked here (:func:`validate`); what runs after is the eval
layer's (:mod:`mtp_gym.eval.pipeline`).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mtp_gym.cli.common import (
    add_env_kwargs,
    add_price,
    check_env_kwargs,
    examples,
    fail,
    json_arg,
    non_negative_int,
    positive_int,
    unit_float,
)
from mtp_gym.registration import ENV_IDS, did_you_mean

if TYPE_CHECKING:
    from mtp_gym.eval.pipeline import AgentRun

__all__ = [
    "EXIT_INFRA",
    "EvalPlan",
    "MODEL_OPTIONS",
    "add_model_options",
    "add_parser",
    "cmd_eval",
    "model_kwargs",
    "styled_env_kwargs",
    "validate",
]

#: ``mtp-gym eval``'s exit status when episodes still lack a result because the endpoint failed.
EXIT_INFRA = 3

EVAL_EXAMPLES = (
    "mtp-gym eval --env all --agent oracle,random --split 100",
    "mtp-gym eval --env MTP/WordGuess-v0 --agent openai:gpt-4o-mini --base-url http://127.0.0.1:8000/v1 \\\n"
    "      --temperature 0.7 --top-p 0.95 --samples 4 --workers 16",
    "mtp-gym eval --env MTP/HiddenNumber-v0 --agent oracle --env-kwargs '{\"difficulty\": 5}' --out runs/L5",
    "mtp-gym eval --env MTP/HiddenNumber-v0 --agent random --probe noise --out runs/noise",
    "mtp-gym eval --env MTP/TuringMachine-v0 --agent hf:smollm2 --split 10 --seed 1",
)

#: The options for model agents, by ``dest``: each model provider maps the ones it takes to its
#: kwargs (``cli_options`` of :func:`mtp_gym.agents.base.model_provider`).
MODEL_OPTIONS: dict[str, tuple[str, dict[str, Any]]] = {
    "base_url": (
        "--base-url",
        {"help": "OpenAI-compatible endpoint for openai: agents (default: $OPENAI_BASE_URL or OpenAI)"},
    ),
    "temperature": ("--temperature", {"type": float, "help": "sampling temperature for model agents"}),
    "top_p": ("--top-p", {"type": unit_float, "help": "nucleus sampling: top_p for model agents, in (0, 1]"}),
    "max_tokens": ("--max-tokens", {"type": positive_int, "help": "reply length cap for model agents"}),
    "prompt_style": (
        "--prompt-style",
        {
            "choices": ("plain", "answer_only", "cot"),
            "help": "prompt style for model agents (default: plain); answer_only and cot also switch the Turing "
            "Machine to TurnBench's matching prompt",
        },
    ),
    "system_prompt": ("--system-prompt", {"help": "system prompt for model agents"}),
    "max_history": (
        "--max-history",
        {
            "type": positive_int,
            "help": "model agents: send only the rules and the last N turns (default: the whole history, as the "
            "papers do)",
        },
    ),
}


def add_model_options(parser: argparse.ArgumentParser, *dests: str) -> None:
    """The :data:`MODEL_OPTIONS` named by ``dests`` (default: all of them), in that order."""
    for dest in dests or tuple(MODEL_OPTIONS):
        flag, kwargs = MODEL_OPTIONS[dest]
        parser.add_argument(flag, **kwargs)


def _add_run_options(ev: argparse.ArgumentParser) -> None:
    """What plays where: envs, agents, split, workers, executor, backend, output directory."""
    ev.add_argument("--env", required=True, help="env id(s), comma separated, or 'all'")
    ev.add_argument(
        "--agent",
        default="oracle,random",
        help="agent spec(s), comma separated: oracle, random, openai:MODEL, hf:PATH (hf:smollm2), "
        "py:module:factory (default: oracle,random)",
    )
    ev.add_argument(
        "--split", default="full", help="'full' or N configurations spread evenly over the split (default: full)"
    )
    ev.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        help="episodes played at once; for openai: agents, requests in flight at the server (default: one per "
        "CPU core for scripted agents, 1 for models)",
    )
    ev.add_argument(
        "--executor",
        default="auto",
        help="auto (one event loop for openai: agents, threads for local models, processes for scripted "
        "agents), async, thread, process",
    )
    ev.add_argument(
        "--backend",
        default="local",
        help="local (this machine: --executor pool of --workers) or ray (Ray tasks, --workers in flight; "
        "needs `pip install ray`) (default: local)",
    )
    ev.add_argument(
        "--address",
        help="--backend ray: the Ray cluster ('auto': the one `ray start` runs on this node; "
        "HOST:6379: the head node; default: $RAY_ADDRESS, else a new local instance)",
    )
    ev.add_argument("--out", default="runs", help="output directory; each agent gets OUT/<agent> (default: runs)")


def _add_sample_options(ev: argparse.ArgumentParser) -> None:
    ev.add_argument(
        "--samples",
        type=positive_int,
        default=1,
        help="episodes per configuration (default 1); with K > 1 the report adds mean@K and pass@K",
    )
    ev.add_argument(
        "--seed",
        type=non_negative_int,
        help="base seed: each episode is reset with a fixed mix of (seed, configuration, sample) instead of the "
        "configuration id (model agents send it as the request seed); part of the run directory's identity",
    )


def _add_kwargs_options(ev: argparse.ArgumentParser) -> None:
    """Agent and env kwargs, probes, hand-off."""
    ev.add_argument("--agent-kwargs", help="JSON object of extra agent kwargs, e.g. '{\"max_retries\": 3}'")
    add_env_kwargs(ev, "JSON object of env kwargs, e.g. '{\"max_turns\": 5}'")
    ev.add_argument(
        "--probe",
        help="query games: play under a probe (isomorphic, noise, boundary, counterfactual, "
        "necessity); its options go in --env-kwargs '{\"probe_kwargs\": {...}}'",
    )
    ev.add_argument("--finisher", help="hand-off runs: the agent that takes over the conversation at --handoff-turn")
    ev.add_argument("--handoff-turn", type=positive_int, help="hand-off runs: the turn the finisher plays first")


def add_parser(sub: Any) -> None:
    ev = sub.add_parser(
        "eval",
        help="play agents over benchmark splits (resumable JSONL log), write the report and print its summary",
        **examples(*EVAL_EXAMPLES),
    )
    _add_run_options(ev)
    add_model_options(ev, "base_url", "temperature", "top_p")
    _add_sample_options(ev)
    add_model_options(ev, "max_tokens", "prompt_style", "system_prompt", "max_history")
    _add_kwargs_options(ev)
    add_price(ev, "US$ per 1M prompt,completion tokens of an agent, for the cost column (repeatable)")
    ev.add_argument("--no-progress", action="store_true", help="no progress bar")
    ev.add_argument("--no-report", action="store_true", help="no report (nor its summary) at the end")
    ev.set_defaults(func=cmd_eval)


def model_kwargs(spec: str, args: argparse.Namespace, extra: dict[str, Any]) -> dict[str, Any]:
    """The CLI's sampling/prompt options that ``spec``'s model provider takes, as its kwargs, plus ``extra``."""
    from mtp_gym.agents.base import provider_of

    provider = provider_of(spec)
    options = provider.cli_options if provider is not None else {}
    opts = {kwarg: getattr(args, dest) for dest, kwarg in options.items()}
    return {k: v for k, v in opts.items() if v is not None} | extra


def styled_env_kwargs(env_id: str, env_kwargs: dict[str, Any], spec: str, style: str | None) -> dict[str, Any]:
    """``env_kwargs``, plus the env's own variant of a model's ``--prompt-style`` where the
    paper has one (its class's ``puzzle.prompt_styles``: TurnBench's Answer-Only and CoT prompts), so the two never disagree."""
    from mtp_gym import puzzle_info
    from mtp_gym.agents.base import is_model_spec

    return puzzle_info(env_id).styled(env_kwargs, style) if is_model_spec(spec) else env_kwargs


@dataclass
class EvalPlan:
    """What ``eval`` plays, its arguments checked: the envs, and per agent spec its config and env kwargs."""

    env_ids: list[str]
    runs: list[AgentRun]


def _env_ids(text: str) -> list[str]:
    ids = list(ENV_IDS) if text == "all" else [t.strip() for t in text.split(",") if t.strip()]
    unknown = [i for i in ids if i not in ENV_IDS]
    if unknown or not ids:
        hint = did_you_mean(unknown[0], ENV_IDS) if unknown else ""
        allowed = f"allowed: {sorted(ENV_IDS)} or 'all' (see `mtp-gym list`)"
        raise fail(f"--env: unknown id(s) {unknown or [text]}{hint}; {allowed}")
    return ids


def _agent_specs(text: str) -> list[str]:
    from mtp_gym.agents.base import model_spec_examples

    specs = [a.strip() for a in text.split(",") if a.strip()]
    if not specs:
        raise fail(f"--agent: empty; allowed: {', '.join(['oracle', 'random', *model_spec_examples()])}")
    return specs


def _with_agents(env_ids: list[str], specs: list[str]) -> list[str]:
    """``--env all``: the ids every scripted agent of ``specs`` is registered for (the others skipped, loudly)."""
    from mtp_gym.agents import agent_kinds
    from mtp_gym.agents.base import is_model_spec

    for spec in specs:
        if not is_model_spec(spec):
            missing = [e for e in env_ids if spec not in agent_kinds(e)]
            if missing:
                print(f"--env all: skipping {missing}: no {spec!r} agent registered", file=sys.stderr)
            env_ids = [e for e in env_ids if e not in missing]
    return env_ids


def _check_agent(spec: str, env_ids: list[str], what: str, kwargs: dict[str, Any] | None = None) -> None:
    """Exit unless ``spec`` can be built on every env (``what``: its option) with ``kwargs``
    (``--agent-kwargs`` and the model options), found without building it
    (:func:`mtp_gym.agents.base.check_agent`: the closest name, a missing extra or module)."""
    from mtp_gym.agents.base import check_agent, is_model_spec

    for env_id in env_ids[:1] if is_model_spec(spec) else env_ids:  # a model: the same on every env
        try:
            check_agent(spec, env_id)
        except ValueError as err:
            raise fail(f"{what}: {err}") from None
        try:
            check_agent(spec, env_id, kwargs)
        except ValueError as err:
            raise fail(f"--agent-kwargs: {err}") from None


def _check_options(args: argparse.Namespace, env_ids: list[str], extra: dict[str, Any]) -> None:
    """``--split``, hand-off, ``--executor``, ``--backend`` and ``--address``, alone and together."""
    from mtp_gym.eval.harness import BACKENDS, EXECUTORS, select_configs

    try:
        select_configs(args.split, 1)
    except ValueError as err:
        raise fail(str(err)) from None
    if (args.finisher is None) != (args.handoff_turn is None):
        raise fail("--finisher and --handoff-turn go together: give both or neither")
    if args.finisher is not None:
        _check_agent(args.finisher, env_ids, "--finisher", model_kwargs(args.finisher, args, extra))
    if args.executor not in EXECUTORS:
        raise fail(f"--executor: {args.executor!r}; allowed: {list(EXECUTORS)}")
    if args.backend not in BACKENDS:
        raise fail(f"--backend: {args.backend!r}; allowed: {list(BACKENDS)}")
    if args.address is not None and args.backend != "ray":
        raise fail(f"--address: only for --backend ray (got --backend {args.backend})")
    if args.executor != "auto" and args.backend != "local":
        raise fail(f"--executor: only for --backend local (got --backend {args.backend})")


def _env_kwargs(args: argparse.Namespace, env_ids: list[str]) -> dict[str, Any]:
    """``--env-kwargs``, with ``--probe`` (a wrapper the query games' entry point takes, :mod:`mtp_gym.wrappers.probes`)."""
    env_kwargs = json_arg("--env-kwargs", args.env_kwargs)
    if args.probe is not None:
        from mtp_gym.registration import GAME_IDS
        from mtp_gym.wrappers.probes import PROBES

        if args.probe not in PROBES or any(e not in GAME_IDS for e in env_ids):
            hint = did_you_mean(args.probe, PROBES)
            raise fail(f"--probe: {args.probe!r} on {env_ids}{hint}; allowed: {sorted(PROBES)}, on query-game ids only")
        env_kwargs["probe"] = args.probe
    return env_kwargs


def _check_envs(env_ids: list[str], env_kwargs: dict[str, Any], split: str) -> None:
    """Exit unless every env takes ``env_kwargs`` (their names, then the env made with them:
    the run writes nothing before this); a note for the envs whose split is smaller than ``split``."""
    import gymnasium as gym

    smaller = []
    for env_id in env_ids:
        check_env_kwargs("--env-kwargs", env_id, env_kwargs)
        try:
            env = gym.make(env_id, **{"disable_env_checker": True, **env_kwargs})
        except (ValueError, TypeError) as err:  # gym.make wraps a TypeError: the env's own message
            raise fail(f"--env-kwargs: {env_id}: {err.__cause__ or err}") from None
        total = int(getattr(env.unwrapped, "num_configs", 0))
        env.close()
        if split.isdigit() and 0 < total < int(split):
            smaller.append((env_id, total))
    if len(smaller) == 1:
        ((env_id, total),) = smaller
        print(f"note: --split {split}: {env_id} has {total} configurations; playing all {total}", file=sys.stderr)
    elif smaller:
        named = ", ".join(f"{env_id} ({total})" for env_id, total in smaller[:3])
        more = f" and {len(smaller) - 3} more" if len(smaller) > 3 else ""
        print(
            f"note: --split {split}: {len(smaller)} envs have fewer configurations and play all of them: {named}{more}",
            file=sys.stderr,
        )


def validate(args: argparse.Namespace) -> EvalPlan:
    """Every check of ``eval``'s arguments, in one place; exits (status 1) naming the first one at fault."""
    from mtp_gym.eval.harness import AgentConfig
    from mtp_gym.eval.pipeline import AgentRun

    env_ids = _env_ids(args.env)
    specs = _agent_specs(args.agent)
    if args.env == "all":  # skip ids whose scripted agent has not landed yet, loudly
        env_ids = _with_agents(env_ids, specs + ([args.finisher] if args.finisher else []))
        if not env_ids:
            raise fail(f"--env all: no registered env has agent(s) {specs}")
    extra = json_arg("--agent-kwargs", args.agent_kwargs)
    for spec in specs:
        _check_agent(spec, env_ids, "--agent", model_kwargs(spec, args, extra))
    _check_options(args, env_ids, extra)
    env_kwargs = _env_kwargs(args, env_ids)
    _check_envs(env_ids, env_kwargs, args.split)
    finisher = args.finisher
    runs = [
        AgentRun(
            AgentConfig(
                spec,
                model_kwargs(spec, args, extra),
                finisher,
                model_kwargs(finisher, args, extra) if finisher else {},
                args.handoff_turn,
            ),
            {e: styled_env_kwargs(e, env_kwargs, spec, args.prompt_style) for e in env_ids},
        )
        for spec in specs
    ]
    return EvalPlan(env_ids, runs)


def cmd_eval(args: argparse.Namespace) -> int:
    from mtp_gym.cli.report import make_report, written
    from mtp_gym.eval.harness import BackendUnavailable, EndpointDown
    from mtp_gym.eval.pipeline import eval_agents

    plan = validate(args)
    out = Path(args.out)
    try:
        done = eval_agents(
            plan.env_ids,
            plan.runs,
            out,
            split=args.split,
            workers=args.workers,
            executor=args.executor,
            backend=args.backend,
            address=args.address,
            progress=not args.no_progress,
            samples=args.samples,
            seed=args.seed,
        )
    except (ValueError, BackendUnavailable, EndpointDown) as err:  # bad kwargs, a changed config, no ray
        raise fail(str(err)) from None
    if not args.no_report:
        report = make_report(
            done.dirs, out / "report", args.price, baselines=True, progress=not args.no_progress, trust_code=True
        )
        # A short summary (the macro averages, where the report is); the full tables are in the files.
        print(f"{getattr(report, 'summary', report)}\n\n{written(out / 'report')}")
    return EXIT_INFRA if done.infra else 0
