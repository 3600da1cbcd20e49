"""``mtp-gym``: ``eval`` (play agents over benchmark splits), ``report`` (tables, figures), ``play``.

    mtp-gym eval --env ID[,ID…|all] --agent oracle|random|openai:MODEL|hf:PATH[,…]
                 [--base-url URL] [--split full|N] [--workers W] [--out DIR]
                 [--finisher B --handoff-turn n] [--env-kwargs JSON] [--agent-kwargs JSON]
                 [--backend local|ray [--address ADDR]] …
    mtp-gym report DIR… [--out DIR] [--price AGENT=IN,OUT]
    mtp-gym play ID [--config-id I | --seed S] [--out DIR --name NAME]
    mtp-gym serve [--out DIR] / mtp-gym view DIR / mtp-gym list

Each agent of ``eval`` gets its own run directory ``OUT/<agent>`` (resumable, see
:mod:`mtp_gym.eval.log`); ``eval`` ends by printing the report of the run directories it wrote.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from mtp_gym.registration import ENV_IDS

__all__ = ["main", "format_table"]

COLUMNS = (
    "env",
    "agent",
    "episodes",
    "mean_score",
    "ci95",
    "success_rate",
    "mean_turns",
    "mean_turns_success",
    "format_errors",
    "seconds",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # exit code 2 with the usage, as argparse does
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


#: ``mtp-gym eval``'s exit status when episodes still lack a result because the endpoint failed.
EXIT_INFRA = 3


def _fail(message: str) -> SystemExit:
    return SystemExit(f"mtp-gym: error: {message}")


def _env_ids(text: str) -> list[str]:
    ids = list(ENV_IDS) if text == "all" else [t.strip() for t in text.split(",") if t.strip()]
    unknown = [i for i in ids if i not in ENV_IDS]
    if unknown or not ids:
        raise _fail(f"--env: unknown id(s) {unknown or [text]}; allowed: {sorted(ENV_IDS)} or 'all'")
    return ids


def _json_arg(name: str, text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise _fail(f"{name}: not JSON ({err}); expected an object like '{{\"max_turns\": 5}}'") from None
    if not isinstance(value, dict):
        raise _fail(f"{name}: expected a JSON object like '{{\"max_turns\": 5}}', got {text!r}")
    return value


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a positive int, got {text!r}")
    return int(text)


def _non_negative_int(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"must be a non-negative int, got {text!r}")
    return int(text)


def _unit_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1], got {text!r}")
    return value


EVAL_EXAMPLES = (
    "mtp-gym eval --env all --agent oracle,random --split 100",
    "mtp-gym eval --env MTP/WordGuess-v0 --agent openai:gpt-4o-mini --base-url http://127.0.0.1:8000/v1 \\\n"
    "      --temperature 0.7 --top-p 0.95 --samples 4 --workers 16",
    "mtp-gym eval --env MTP/HiddenNumber-v0 --agent oracle --env-kwargs '{\"difficulty\": 5}' --out runs/L5",
    "mtp-gym eval --env MTP/HiddenNumber-v0 --agent random --probe noise --out runs/noise",
    "mtp-gym eval --env MTP/TuringMachine-v0 --agent hf:smollm2 --split 10 --seed 1",
)


def _listen(parser: argparse.ArgumentParser, port: int) -> None:
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)"
    )
    parser.add_argument("--port", type=_non_negative_int, default=port, help=f"port (default {port}; 0: any free port)")


def _examples(*lines: str) -> dict[str, Any]:
    """``add_parser`` kwargs that end a command's ``--help`` with example command lines."""
    return {
        "epilog": "examples:\n" + "\n".join(f"  {line}" for line in lines),
        "formatter_class": argparse.RawDescriptionHelpFormatter,
    }


def _model_kwargs(spec: str, args: argparse.Namespace, extra: dict[str, Any]) -> dict[str, Any]:
    """The CLI's sampling/prompt options, for the agent kinds that take them."""
    if spec.startswith("openai:"):
        opts = {
            "base_url": args.base_url,
            "temperature": args.temperature,
            "top_p": args.top_p,
            "max_tokens": args.max_tokens,
            "prompt_style": args.prompt_style,
            "system_prompt": args.system_prompt,
            "max_history": args.max_history,
        }
    elif spec.startswith("hf:"):
        opts = {
            "temperature": args.temperature,
            "top_p": args.top_p,
            "max_new_tokens": args.max_tokens,
            "prompt_style": args.prompt_style,
            "system_prompt": args.system_prompt,
            "max_history": args.max_history,
        }
    else:
        opts = {}
    return {k: v for k, v in opts.items() if v is not None} | extra


def _styled_env_kwargs(env_id: str, env_kwargs: dict[str, Any], spec: str, style: str | None) -> dict[str, Any]:
    """``env_kwargs``, plus the env's own variant of a model's ``--prompt-style`` where the
    paper has one (its class's ``puzzle.prompt_styles``: TurnBench's Answer-Only and CoT prompts), so the two never disagree."""
    from mtp_gym import puzzle_info
    from mtp_gym.agents.base import MODEL_PREFIXES

    if spec.startswith(MODEL_PREFIXES) and style in puzzle_info(env_id).prompt_styles:
        return {"prompt_style": style, **env_kwargs}
    return env_kwargs


def _check_agent(spec: str, env_ids: list[str], what: str) -> None:
    from mtp_gym.agents import agent_kinds
    from mtp_gym.agents.base import MODEL_PREFIXES

    if spec.startswith(MODEL_PREFIXES):
        return
    for env_id in env_ids:
        if spec not in agent_kinds(env_id):
            raise _fail(
                f"{what}: {spec!r} is not available for {env_id}; allowed: {agent_kinds(env_id)} "
                "or 'openai:MODEL', 'hf:PATH', 'py:module:factory'"
            )


def cmd_eval(args: argparse.Namespace) -> int:
    from mtp_gym.eval.harness import (
        BACKENDS,
        EXECUTORS,
        AgentConfig,
        BackendUnavailable,
        EndpointDown,
        run_eval,
        select_configs,
    )

    env_ids = _env_ids(args.env)
    specs = [a.strip() for a in args.agent.split(",") if a.strip()]
    if not specs:
        raise _fail("--agent: empty; allowed: oracle, random, openai:MODEL, hf:PATH, py:module:factory")
    if args.env == "all":  # skip ids whose scripted agent has not landed yet, loudly
        from mtp_gym.agents import agent_kinds
        from mtp_gym.agents.base import MODEL_PREFIXES

        for spec in specs + ([args.finisher] if args.finisher else []):
            if not spec.startswith(MODEL_PREFIXES):
                missing = [e for e in env_ids if spec not in agent_kinds(e)]
                if missing:
                    print(f"--env all: skipping {missing}: no {spec!r} agent registered", file=sys.stderr)
                env_ids = [e for e in env_ids if e not in missing]
        if not env_ids:
            raise _fail(f"--env all: no registered env has agent(s) {specs}")
    for spec in specs:
        _check_agent(spec, env_ids, "--agent")
    try:
        select_configs(args.split, 1)
    except ValueError as err:
        raise _fail(str(err)) from None
    if (args.finisher is None) != (args.handoff_turn is None):
        raise _fail("--finisher and --handoff-turn go together: give both or neither")
    if args.finisher is not None:
        _check_agent(args.finisher, env_ids, "--finisher")
    if args.executor not in EXECUTORS:
        raise _fail(f"--executor: {args.executor!r}; allowed: {list(EXECUTORS)}")
    if args.backend not in BACKENDS:
        raise _fail(f"--backend: {args.backend!r}; allowed: {list(BACKENDS)}")
    if args.address is not None and args.backend != "ray":
        raise _fail(f"--address: only for --backend ray (got --backend {args.backend})")
    if args.executor != "auto" and args.backend != "local":
        raise _fail(f"--executor: only for --backend local (got --backend {args.backend})")
    env_kwargs = _json_arg("--env-kwargs", args.env_kwargs)
    if args.probe is not None:  # a probe wrapper, taken by the query games' entry point (mtp_gym.wrappers.probes)
        from mtp_gym.registration import GAME_IDS
        from mtp_gym.wrappers.probes import PROBES

        if args.probe not in PROBES or any(e not in GAME_IDS for e in env_ids):
            raise _fail(f"--probe: {args.probe!r} on {env_ids}; allowed: {sorted(PROBES)}, on query-game ids only")
        env_kwargs["probe"] = args.probe
    agent_extra = _json_arg("--agent-kwargs", args.agent_kwargs)
    out = Path(args.out)
    dirs = []
    infra = 0
    for spec in specs:
        config = AgentConfig(
            spec,
            _model_kwargs(spec, args, agent_extra),
            args.finisher,
            _model_kwargs(args.finisher, args, agent_extra) if args.finisher else {},
            args.handoff_turn,
        )
        try:
            log = run_eval(
                env_ids,
                config,
                out / config.slug,
                split=args.split,
                workers=args.workers,
                env_kwargs={e: _styled_env_kwargs(e, env_kwargs, spec, args.prompt_style) for e in env_ids},
                executor=args.executor,
                backend=args.backend,
                address=args.address,
                progress=not args.no_progress,
                samples=args.samples,
                seed=args.seed,
            )
        except (ValueError, BackendUnavailable, EndpointDown) as err:  # bad kwargs, a changed config, no ray
            raise _fail(str(err)) from None
        dirs.append(log.dir)
        missing = sum(r["outcome"] == "infra_error" for r in log.records)
        infra += missing
        if missing:
            print(
                f"{config.label}: {missing} episode(s) ended in infra_error (endpoint failure): they stay out of "
                "the scores; re-run the same command to play them again",
                file=sys.stderr,
            )
    if not args.no_report:
        report = _report(
            dirs, out / "report", args.price, baselines=True, progress=not args.no_progress, trust_code=True
        )
        print(report)
    return EXIT_INFRA if infra else 0


def _report(
    dirs: list[Path], out: Path, price: list[str], baselines: bool, progress: bool = False, trust_code: bool = False
) -> str:
    """The report of ``dirs``. A run directory is data: unless ``trust_code``, no baseline is
    played where its env kwargs name code outside mtp_gym (``"module:Class"``)."""
    from mtp_gym.eval.report import BASELINES, compute_rows, load_runs, parse_prices, run_env_kwargs, write_report

    try:
        prices = parse_prices(price or [])
        records = load_runs(dirs)
    except ValueError as err:
        raise _fail(str(err)) from None
    if baselines:
        env_kwargs = run_env_kwargs(dirs)
        untrusted = {e: refs for e, kw in env_kwargs.items() if (refs := foreign_code(kw))}
        if untrusted and not trust_code:
            for (env_id, _, _), refs in untrusted.items():
                print(
                    f"report: no baselines for {env_id}: its env kwargs name code outside mtp_gym ({', '.join(refs)}); "
                    "pass --trust-code to run it",
                    file=sys.stderr,
                )
            records_for = [r for r in records if (r["env_id"], r.get("level"), r.get("probe")) not in untrusted]
        else:
            records_for = records
        records += _baseline_records(records_for, env_kwargs, out / "baselines", BASELINES, progress)
    text = write_report(compute_rows(records, prices), out)
    _write_html(text, dirs + ([out / "baselines"] if (out / "baselines").exists() else []), out, prices)
    return text


def _write_html(text: str, dirs: list[Path], out: Path, prices: dict[str, tuple[float, float]]) -> None:
    """``report.html`` next to ``report.md``: the tables, the figures, every episode's conversation."""
    from mtp_gym.eval.html import write_html
    from mtp_gym.eval.report import FIGURES, load_runs

    records = load_runs(dirs, warn=lambda m: None, slim=False)
    write_html(text, records, out / "report.html", [out / f for f in FIGURES], prices)


_CODE_REF_RE = re.compile(r"^([A-Za-z_][\w.]*):[A-Za-z_][\w.]*$")


def foreign_code(value: Any) -> list[str]:
    """The ``"module:Attr"`` strings in (nested) kwargs whose module is not part of mtp_gym."""
    if isinstance(value, dict):
        return [ref for v in value.values() for ref in foreign_code(v)]
    if isinstance(value, (list, tuple)):
        return [ref for v in value for ref in foreign_code(v)]
    if isinstance(value, str):
        m = _CODE_REF_RE.match(value)
        if m and m.group(1).split(".")[0] != "mtp_gym":
            return [value]
    return []


def _baseline_records(records, env_kwargs, out: Path, kinds, progress: bool) -> list[dict[str, Any]]:
    """Random and oracle episodes on the configurations the models played (sample 0), where
    missing; one run directory per baseline and task (env, level, probe)."""
    from mtp_gym.agents import agent_kinds
    from mtp_gym.eval.harness import AgentConfig, run_eval
    from mtp_gym.eval.log import latest

    def task(r: dict[str, Any]) -> tuple[str, int | None, str | None]:
        return r["env_id"], r.get("level"), r.get("probe")

    have = {(task(r), r["agent"]) for r in records}
    extra = []
    for kind in kinds:
        wanted: dict[tuple[str, int | None, str | None], set[int]] = {}
        for r in records:
            if r["agent"] not in kinds and (task(r), kind) not in have and kind in agent_kinds(r["env_id"]):
                wanted.setdefault(task(r), set()).add(r["config_id"])
        for (env_id, level, probe), ids in sorted(wanted.items(), key=lambda kv: repr(kv[0])):
            # One directory under out/kind whatever a log names its probe (never a path of its own).
            name = "_".join(str(p) for p in (env_id, level and f"L{level}", probe) if p)
            slug = re.sub(r"[^A-Za-z0-9._@-]+", "_", name)
            try:
                log = run_eval(
                    [env_id],
                    AgentConfig(kind),
                    out / kind / slug,
                    env_kwargs={env_id: env_kwargs.get((env_id, level, probe), {})},
                    config_ids={env_id: sorted(ids)},
                    progress=progress,
                )
            except (ValueError, TypeError) as err:  # env kwargs from a log that no env accepts
                print(f"report: no {kind} baseline for {name}: {err}", file=sys.stderr)
                continue
            extra += [
                r | {"agent": kind, "level": level, "probe": probe}
                for r in latest(log.records)
                if r["config_id"] in ids and r.get("sample", 0) == 0
            ]
    return extra


def cmd_report(args: argparse.Namespace) -> int:
    out = Path(args.out) if args.out else Path(args.dirs[0]) / "report"
    dirs = [Path(d) for d in args.dirs]
    print(_report(dirs, out, args.price, baselines=not args.no_baselines, trust_code=args.trust_code))
    print(
        f"\nwritten: {out}/report.md, report.html, report.csv, macro.csv and the figures "
        f"(open the page with: mtp-gym view {out})",
        file=sys.stderr,
    )
    return 0


class _TerminalPlayer:
    """A person at the terminal as a policy: each observation printed, the next action read
    with line editing and history (``readline``), and the expected format shown as a hint."""

    def __init__(self, hint: Any = None) -> None:
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


def cmd_play(args: argparse.Namespace) -> int:
    """A person plays in the terminal: the instructions, each reply, a prompt for the next action.
    With ``--out``, the finished game is logged as agent ``human:<name>`` for ``mtp-gym report``."""
    import gymnasium as gym

    from mtp_gym.episode import run_episode

    if args.env not in ENV_IDS:
        raise _fail(f"ID: unknown env id {args.env!r}; allowed: {sorted(ENV_IDS)}")
    if args.out is not None:
        from mtp_gym.eval.human import check_name

        try:
            check_name(args.name)
        except ValueError as err:
            raise _fail(f"--name: {err}") from None
    env_kwargs = _json_arg("--env-kwargs", args.env_kwargs)
    last: list[Any] = []
    try:
        env = gym.make(args.env, **env_kwargs)
        player = _TerminalPlayer(lambda: env.unwrapped.format_hint)
        result = run_episode(env, player, config_id=args.config_id, seed=args.seed, on_step=last.append)
    except ValueError as err:
        raise _fail(str(err)) from None
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


def _warn_exposed(host: str, what: str) -> None:
    """Print a warning when a server's ``--host`` is not a loopback address."""
    from mtp_gym.web.server import exposure_warning

    warning = exposure_warning(host, what)
    if warning:
        print(warning, file=sys.stderr)


def cmd_serve(args: argparse.Namespace) -> int:
    """Human play in the browser (``mtp_gym.web.server``)."""
    from mtp_gym.web.server import make_play_server, run_until_interrupted

    _warn_exposed(args.host, f"play games on it, logged into {args.out}")
    try:
        server = make_play_server(args.host, args.port, args.out)
    except OSError as err:
        raise _fail(f"--host/--port: cannot listen on {args.host}:{args.port} ({err})") from None
    host, port = server.server_address[:2]
    print(
        f"mtp-gym play server on http://{host}:{port}/ ; finished games go to {args.out}/human_<name>/; Ctrl-C stops it"
    )
    run_until_interrupted(server)
    return 0


def cmd_view(args: argparse.Namespace) -> int:
    """Serve a report directory's report.html on 127.0.0.1 and open it in the browser."""
    from mtp_gym.web.server import make_view_server, run_until_interrupted

    directory = Path(args.dir)
    if not (directory / "report.html").exists() and (directory / "report" / "report.html").exists():
        directory = directory / "report"
    if not (directory / "report.html").exists():
        raise _fail(f"DIR: no report.html in {args.dir} or {args.dir}/report; run `mtp-gym report {args.dir}` first")
    _warn_exposed(args.host, f"read every file of {directory}")
    try:
        server = make_view_server(args.host, args.port, directory)
    except OSError as err:
        raise _fail(f"--host/--port: cannot listen on {args.host}:{args.port} ({err})") from None
    host, port = server.server_address[:2]
    url = f"http://{host}:{port}/"
    print(f"report of {directory} on {url} ; Ctrl-C stops it (the file also opens on its own: {directory}/report.html)")
    if not args.no_browser:
        import webbrowser

        webbrowser.open(url)
    run_until_interrupted(server)
    return 0


def cmd_serve_env(args: argparse.Namespace) -> int:
    """Serve every env over OpenEnv's protocol (``mtp_gym.integrations.openenv_server``)."""
    if args.env not in ENV_IDS:
        raise _fail(f"--env: unknown env id {args.env!r}; allowed: {sorted(ENV_IDS)}")
    try:
        from mtp_gym.integrations.openenv_server import serve
    except ImportError as err:
        raise _fail(f"serve-env needs OpenEnv: pip install 'mtp-gym[openenv]' ({err})") from None
    _warn_exposed(args.host, "run envs on it")
    print(f"mtp-gym OpenEnv server on http://{args.host}:{args.port} (default env {args.env}); Ctrl-C stops it")
    serve(args.host, args.port, args.env, _json_arg("--env-kwargs", args.env_kwargs), args.max_sessions)
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    """Print every env id with its suite, levels, split size and scripted agents."""
    from mtp_gym.eval.catalog import env_table

    rows = env_table()
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    keys = ("id", "suite", "levels", "split", "agents")
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(str(r[k]) for k in keys) + " |" for r in rows]
    print("\n".join(lines))
    print(
        f"\n{len(rows)} envs. Split: configurations in the benchmark split (query games: per level). "
        "Models play as openai:MODEL, hf:PATH or py:module:factory on every env.",
        file=sys.stderr,
    )
    return 0


def format_table(rows: list[dict]) -> str:
    """Rows (dicts with the keys of ``COLUMNS``) as a Markdown table."""

    def cell(v: object) -> str:
        return f"{v:.3f}" if isinstance(v, float) else str(v)

    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cell(r[c]) for c in COLUMNS) + " |" for r in rows]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    from mtp_gym import __version__

    parser = _Parser(prog="mtp-gym", description="Multi-turn puzzles for LLM agents.")
    parser.add_argument("--version", action="version", version=f"mtp-gym {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    ls = sub.add_parser(
        "list",
        help="every env id with its suite, levels, split size and scripted agents",
        **_examples("mtp-gym list", "mtp-gym list --json"),
    )
    ls.add_argument("--json", action="store_true", help="print JSON instead of a Markdown table")
    ls.set_defaults(func=cmd_list)
    ev = sub.add_parser(
        "eval",
        help="play agents over benchmark splits (resumable JSONL log) and print the report",
        **_examples(*EVAL_EXAMPLES),
    )
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
        type=_positive_int,
        default=1,
        help="episodes played at once; for openai: agents, requests in flight at the server (default: 1)",
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
    ev.add_argument(
        "--base-url", help="OpenAI-compatible endpoint for openai: agents (default: $OPENAI_BASE_URL or OpenAI)"
    )
    ev.add_argument("--temperature", type=float, help="sampling temperature for model agents")
    ev.add_argument("--top-p", type=_unit_float, help="nucleus sampling: top_p for model agents, in (0, 1]")
    ev.add_argument(
        "--samples",
        type=_positive_int,
        default=1,
        help="episodes per configuration (default 1); with K > 1 the report adds mean@K and pass@K",
    )
    ev.add_argument(
        "--seed",
        type=_non_negative_int,
        help="base seed: each episode is reset with a fixed mix of (seed, configuration, sample) instead of the "
        "configuration id (model agents send it as the request seed); part of the run directory's identity",
    )
    ev.add_argument("--max-tokens", type=_positive_int, help="reply length cap for model agents")
    ev.add_argument(
        "--prompt-style",
        choices=("plain", "answer_only", "cot"),
        help="prompt style for model agents (default: plain); answer_only and cot also switch the Turing Machine "
        "to TurnBench's matching prompt",
    )
    ev.add_argument("--system-prompt", help="system prompt for model agents")
    ev.add_argument(
        "--max-history",
        type=_positive_int,
        help="model agents: send only the rules and the last N turns (default: the whole history, as the papers do)",
    )
    ev.add_argument("--agent-kwargs", help="JSON object of extra agent kwargs, e.g. '{\"max_retries\": 3}'")
    ev.add_argument("--env-kwargs", help="JSON object of env kwargs, e.g. '{\"max_turns\": 5}'")
    ev.add_argument(
        "--probe",
        help="query games: play under a probe (isomorphic, noise, boundary, counterfactual, "
        "necessity); its options go in --env-kwargs '{\"probe_kwargs\": {...}}'",
    )
    ev.add_argument("--finisher", help="hand-off runs: the agent that takes over the conversation at --handoff-turn")
    ev.add_argument("--handoff-turn", type=_positive_int, help="hand-off runs: the turn the finisher plays first")
    ev.add_argument(
        "--price",
        action="append",
        default=[],
        metavar="AGENT=IN,OUT",
        help="US$ per 1M prompt,completion tokens of an agent, for the cost column (repeatable)",
    )
    ev.add_argument("--no-progress", action="store_true", help="no progress bar")
    ev.add_argument("--no-report", action="store_true", help="do not print/write the report at the end")
    ev.set_defaults(func=cmd_eval)
    rp = sub.add_parser(
        "report",
        help="tables (Markdown, CSV), figures and report.html from run directories",
        **_examples(
            "mtp-gym report runs",
            "mtp-gym report runs/openai_gpt-4o runs/human_alice --out cmp --price openai:gpt-4o=2.5,10",
        ),
    )
    rp.add_argument("dirs", nargs="+", metavar="DIR", help="run directories, or directories holding them")
    rp.add_argument("--out", help="where to write report.md/.csv and the figures (default: DIR/report)")
    rp.add_argument(
        "--price",
        action="append",
        default=[],
        metavar="AGENT=IN,OUT",
        help="US$ per 1M prompt,completion tokens of an agent (repeatable)",
    )
    rp.add_argument("--no-baselines", action="store_true", help="do not add random/oracle rows the directories lack")
    rp.add_argument(
        "--trust-code",
        action="store_true",
        help="let the baselines import the code a run directory's env kwargs name ('module:Class' outside mtp_gym)",
    )
    rp.set_defaults(func=cmd_report)
    pl = sub.add_parser(
        "play",
        help="play an env yourself in the terminal",
        **_examples(
            "mtp-gym play MTP/WordGuess-v0 --config-id 0", "mtp-gym play MTP/TuringMachine-v0 --out runs --name alice"
        ),
    )
    pl.add_argument("env", metavar="ID", help="env id")
    pl.add_argument("--config-id", type=int, help="benchmark configuration (default: drawn from --seed)")
    pl.add_argument("--seed", type=int, help="seed for reset")
    pl.add_argument("--env-kwargs", help="JSON object of env kwargs")
    pl.add_argument("--out", help="log the finished game into OUT/human_<name>/ (read by `mtp-gym report OUT`)")
    pl.add_argument("--name", default="player", help="your name in the report, as agent human:<name> (default: player)")
    pl.set_defaults(func=cmd_play)
    sv = sub.add_parser(
        "serve",
        help="play the puzzles in the browser; finished games are logged for `mtp-gym report`",
        **_examples(
            "mtp-gym serve --out runs        # then open http://127.0.0.1:8765/",
            "mtp-gym report runs             # human:<name> rows beside the models",
        ),
    )
    _listen(sv, 8765)
    sv.add_argument("--out", default="runs", help="where finished games go: OUT/human_<name>/ (default: runs)")
    sv.set_defaults(func=cmd_serve)
    vw = sub.add_parser(
        "view",
        help="open a report's report.html through a small local server",
        **_examples("mtp-gym view runs/report", "mtp-gym view runs --port 0 --no-browser"),
    )
    vw.add_argument("dir", metavar="DIR", help="a report directory (or a run directory holding report/)")
    _listen(vw, 8766)
    vw.add_argument("--no-browser", action="store_true", help="do not open a browser")
    vw.set_defaults(func=cmd_view)
    se = sub.add_parser(
        "serve-env",
        help="serve every env over OpenEnv's HTTP/WebSocket protocol (needs the [openenv] extra)",
        epilog="example: mtp-gym serve-env --port 8000, then MTPEnvClient(base_url='http://127.0.0.1:8000')"
        ".sync().reset(env_id='MTP/TuringMachine-v0', config_id=3)",
    )
    se.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    se.add_argument("--port", type=_positive_int, default=8000, help="port (default 8000)")
    se.add_argument("--env", default="MTP/WordGuess-v0", help="the env a session gets when reset names none")
    se.add_argument("--env-kwargs", help="JSON object of kwargs for that default env")
    se.add_argument("--max-sessions", type=_positive_int, default=64, help="concurrent WebSocket sessions (default 64)")
    se.set_defaults(func=cmd_serve_env)
    return parser


#: Exit status after Ctrl-C (SIGINT): 128 + 2, as a shell reports a process SIGINT ended.
EXIT_INTERRUPTED = 130
#: The errors of a full disk (or a spent quota).
DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})
_URL_RE = re.compile(r"https?://[^\s\"',]+")


def _command(argv: list[str]) -> str:
    """The command line that ran, to run again (credentials in URLs masked, as in the logs)."""
    from mtp_gym.agents.llm.endpoint import redact_url

    return shlex.join(["mtp-gym", *(_URL_RE.sub(lambda m: redact_url(m.group(0)) or "", a) for a in argv)])


def _stopped(args: argparse.Namespace, argv: list[str], why: str, first: str = "") -> str:
    """Two lines for an ``eval`` or ``report`` that stopped early: the logs are whole, and the
    command that resumes (after ``first``, what to do before)."""
    command = _command(argv)
    masked = " (credentials masked: put them back)" if command != shlex.join(["mtp-gym", *argv]) else ""
    if args.command == "eval":
        kept = f"the log is whole: every finished episode is kept under {args.out}/"
        again = "resume with the same command"
    else:
        kept = "the run logs were only read and are whole (every finished baseline episode is kept)"
        again = "run the same command again"
    return f"mtp-gym {args.command}: {why}; {kept}.\n{first}{again}{masked}: {command}"


def main(argv: list[str] | None = None) -> int:
    """Run one ``mtp-gym`` command; ``eval`` and ``report`` end in two lines, not a traceback,
    on Ctrl-C (exit status 130) or a full disk (1): the logs are whole, and how to resume.

    Run as the program (``argv`` ``None``), a Ctrl-C'd local ``eval`` exits at once: its
    worker threads or processes would otherwise finish their episodes, which are not logged.
    """
    program = argv is None
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    if args.command not in ("eval", "report"):
        return args.func(args)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print(f"\n{_stopped(args, argv, 'interrupted')}", file=sys.stderr)
        if program and getattr(args, "backend", "local") == "local":  # Ray shuts its cluster down at exit
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(EXIT_INTERRUPTED)  # every log line is already written (os.write) and the logs closed
        return EXIT_INTERRUPTED
    except OSError as err:
        if err.errno not in DISK_FULL:
            raise
        where = f": {err.filename}" if err.filename else ""
        why = f"error: disk full ({err.strerror or err}{where})"
        raise SystemExit(_stopped(args, argv, why, first="free some space, then ")) from None


if __name__ == "__main__":
    sys.exit(main())
