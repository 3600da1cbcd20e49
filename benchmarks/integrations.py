"""Framework adapters: time per env step through each, against ``gym.make`` in the same run.

Run: ``python benchmarks/integrations.py [--env MTP/TuringMachine-v0] [--configs 20]``
(needs the ``[inspect]`` and ``[openenv]`` extras; a framework that is not installed is
skipped). The oracle's moves are replayed as a scripted "model" (a table from the
conversation so far to the next move), so every figure is the adapter's cost, not a model's:

* ``gym.make``: ``EnvSession`` over the env, the baseline;
* Inspect AI: ``inspect_ai.eval`` of :func:`mtp_task` with the ``mockllm`` provider (the whole
  eval: dataset, solver loop, scoring, log writing);
* OpenEnv: :class:`MTPEnvClient` over a WebSocket session to the server on 127.0.0.1.

Each line prints ms per step and the ratio to ``gym.make``. verifiers runs its chat loop as
a separate program per rollout (see ``tests/test_integrations.py``); its cost is dominated by
that process start, so it is not timed here.
"""

from __future__ import annotations

import argparse
import socket
import tempfile
import threading
import time
from typing import Any

from mtp_gym.integrations import EnvSession, configurations, scripted_moves, table_model


def time_session(env_id: str, ids: list[int], moves: dict) -> float:
    session = EnvSession(env_id)
    start = time.perf_counter()
    for config_id in ids:
        said = [session.start(config_id)]
        while not session.done:
            said.append(session.send(moves[tuple(said)]))
    return time.perf_counter() - start


def time_inspect(env_id: str, ids: list[int], moves: dict) -> float | None:
    try:
        import inspect_ai
        from inspect_ai.model import ModelOutput, ModelUsage, get_model

        from mtp_gym.integrations.inspect_tasks import mtp_task
    except ImportError:
        return None

    model = table_model(moves)

    def output(messages: list[Any], *_: Any) -> ModelOutput:
        out = ModelOutput.from_content("mockllm/model", model(messages))
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    task = mtp_task(env_id, split=len(ids))
    with tempfile.TemporaryDirectory() as logs:
        start = time.perf_counter()
        inspect_ai.eval(task, model=get_model("mockllm/model", custom_outputs=output), log_dir=logs, display="none")
        return time.perf_counter() - start


def time_openenv(env_id: str, ids: list[int], moves: dict) -> float | None:
    try:
        import uvicorn

        from mtp_gym.integrations.openenv_server import MTPAction, MTPEnvClient, make_app
    except ImportError:
        return None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(make_app(env_id), host="127.0.0.1", port=port, log_level="critical"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        with MTPEnvClient(base_url=f"http://127.0.0.1:{port}").sync() as client:
            start = time.perf_counter()
            for config_id in ids:
                step = client.reset(config_id=config_id)
                said = [step.observation.text]
                while not step.done:
                    step = client.step(MTPAction(message=moves[tuple(said)]))
                    said.append(step.observation.text)
            return time.perf_counter() - start
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="MTP/TuringMachine-v0")
    parser.add_argument("--configs", type=int, default=20)
    args = parser.parse_args()
    ids = configurations(args.env, None, args.configs)
    moves, results = scripted_moves(args.env, ids)
    steps = sum(r.turns for r in results.values())
    base = time_session(args.env, ids, moves)
    print(f"{args.env}: {len(ids)} configurations, {steps} oracle steps")
    print(f"gym.make (EnvSession)   : {1000 * base / steps:8.3f} ms/step")
    for name, timer in (("Inspect AI (mockllm)", time_inspect), ("OpenEnv (WebSocket)", time_openenv)):
        seconds = timer(args.env, ids, moves)
        if seconds is None:
            print(f"{name:<24}:  not installed")
        else:
            print(f"{name:<24}: {1000 * seconds / steps:8.3f} ms/step  ({seconds / base:,.0f}x gym.make)")


if __name__ == "__main__":
    main()
