"""Play a few configurations through Inspect AI, OpenEnv and verifiers, next to our harness.

Run: ``python examples/integrations.py [--env MTP/TuringMachine-v0] [--configs 3]`` after
``pip install -e ".[inspect,openenv]"`` (and ``".[verifiers]"`` in a separate environment:
verifiers 0.4 pins ``openai<3``). Offline: the "model" is the oracle's moves replayed
(:mod:`mtp_gym.integrations.scripted`), so each framework must print the oracle's scores;
``--model openai/gpt-4o-mini`` (any Inspect model) plays the Inspect part with a real model.
A framework that is not installed is skipped with the command that installs it.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from mtp_gym.agents import make_agent
from mtp_gym.integrations import ScriptedEndpoint, configurations, scripted_moves, table_model


def via_inspect(env_id: str, ids: list[int], moves: dict, model: str | None) -> None:
    try:
        import inspect_ai
        from inspect_ai.model import ModelOutput, ModelUsage, get_model

        from mtp_gym.integrations.inspect_tasks import mtp_task
    except ImportError:
        print('Inspect AI: not installed (pip install "mtp-gym[inspect]")')
        return
    if model is None:
        reply = table_model(moves)

        def scripted(messages, *_):
            out = ModelOutput.from_content("mockllm/model", reply(messages))
            out.usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)
            return out

        model = get_model("mockllm/model", custom_outputs=scripted)
    with tempfile.TemporaryDirectory() as logs:
        log = inspect_ai.eval(mtp_task(env_id, split=len(ids)), model=model, log_dir=logs, display="none")[0]
        scores = {s.id: s.scores["mtp_env_score"].value["score"] for s in log.samples}
    print(f"Inspect AI  : {scores}")


def via_openenv(env_id: str, ids: list[int]) -> None:
    try:
        import uvicorn

        from mtp_gym.integrations.openenv_server import MTPAction, MTPEnvClient, make_app
    except ImportError:
        print('OpenEnv     : not installed (pip install "mtp-gym[openenv]")')
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(make_app(), host="127.0.0.1", port=port, log_level="critical"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.02)
    oracle, scores = make_agent("oracle", env_id), {}
    with MTPEnvClient(base_url=f"http://127.0.0.1:{port}").sync() as client:
        for config_id in ids:
            step = client.reset(env_id=env_id, config_id=config_id)
            oracle.reset(seed=config_id)
            while not step.done:  # the oracle reads only the observation's text and info
                step = client.step(MTPAction(message=oracle.act(step.observation.text, step.observation.info)))
            scores[config_id] = step.observation.score
    server.should_exit = True
    print(f"OpenEnv     : {scores}")


def via_verifiers(env_id: str, ids: list[int], moves: dict) -> None:
    vf_eval = Path(sys.executable).parent / "vf-eval"
    command = ["vf-eval", "mtp_gym_verifiers", "--env.taskset.env", env_id, "--env.taskset.split", str(len(ids))]
    if not vf_eval.exists():
        print(f'verifiers   : not installed here (pip install "mtp-gym[verifiers]"), then: {" ".join(command)} ...')
        return
    with ScriptedEndpoint(table_model(moves)) as endpoint, tempfile.TemporaryDirectory() as out:
        run = [str(vf_eval), *command[1:], "--model", "scripted", "--client.base-url", endpoint.url, "--no-push"]
        subprocess.run([*run, "-o", out, "-n", str(len(ids))], check=True, capture_output=True)
        episodes = [json.loads(line) for line in next(Path(out).glob("*/traces.jsonl")).read_text().splitlines()]
    rewards = {e["traces"][0]["info"]["config_id"]: e["traces"][0]["rewards"]["mtp_score"]["score"] for e in episodes}
    print(f"verifiers   : {dict(sorted(rewards.items()))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="MTP/TuringMachine-v0")
    parser.add_argument("--configs", type=int, default=3)
    parser.add_argument("--model", help="an Inspect model for the Inspect part (default: the oracle's moves)")
    args = parser.parse_args()
    ids = configurations(args.env, None, args.configs)
    moves, results = scripted_moves(args.env, ids)
    print(f"{args.env}, configurations {ids}")
    print(f"our harness : { {c: r.score for c, r in results.items()} } (the oracle)")
    via_inspect(args.env, ids, moves, args.model)
    via_openenv(args.env, ids)
    via_verifiers(args.env, ids, moves)


if __name__ == "__main__":
    main()
