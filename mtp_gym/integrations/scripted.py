"""A scripted "model" for dry runs: an agent's moves replayed to any framework, offline.

Before spending a model's tokens on a pipeline (an Inspect task, a verifiers rollout, an
OpenEnv trainer), play it once with a player whose scores are known:
:func:`scripted_moves` records an agent's episodes (the oracle's by default) as a table from
the conversation so far to the next move, :func:`table_model` turns the table into a function
of a chat conversation, and :class:`ScriptedEndpoint` serves that function as an
OpenAI-compatible chat-completions endpoint on 127.0.0.1 (plain and streamed replies). The
pipeline must then reproduce the agent's scores exactly.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import gymnasium as gym

from mtp_gym.agents import make_agent
from mtp_gym.episode import EpisodeResult, Step, run_episode
from mtp_gym.integrations.session import Draw, env_id_of, source_kwargs

__all__ = ["ScriptedEndpoint", "scripted_draws", "scripted_moves", "table_model"]

#: What a scripted model answers a conversation its table does not hold.
UNKNOWN = "I am not sure."


def scripted_moves(
    env_id: str, config_ids: list[int], agent: str = "oracle", env_kwargs: dict[str, Any] | None = None
) -> tuple[dict[tuple[str, ...], str], dict[int, EpisodeResult]]:
    """``agent``'s episodes on ``config_ids``: a table from the env's messages so far (a tuple;
    from the last fresh context on, ``info["context_reset"]``) to the agent's next move, and
    each episode's result as ``mtp-gym eval`` records it."""
    draws = [Draw(c, c, 0, c) for c in config_ids]
    moves, results = scripted_draws(env_id, draws, agent, env_kwargs)
    return moves, {d.index: results[d.name] for d in draws}


def scripted_draws(
    env_id: str,
    draws: list[Draw],
    agent: str = "oracle",
    env_kwargs: dict[str, Any] | None = None,
    configs: str = "benchmark",
) -> tuple[dict[tuple[str, ...], str], dict[str, EpisodeResult]]:
    """:func:`scripted_moves` over episodes of :func:`~mtp_gym.integrations.session.draws`
    (samples with their reset seeds, or generated configurations: ``configs``); the results
    keyed by :attr:`~mtp_gym.integrations.session.Draw.name`."""
    env_id = env_id_of(env_id)
    env, policy = gym.make(env_id, **source_kwargs(env_kwargs, configs)), make_agent(agent, env_id)
    moves: dict[tuple[str, ...], str] = {}
    results = {}
    said: list[str] = []

    def record(step: Step) -> None:
        if step.action is not None:
            moves[tuple(said)] = step.action
        if step.info.get("context_reset"):  # the model sees the conversation from here on only
            said.clear()
        said.append(step.observation)

    for draw in draws:
        said.clear()
        results[draw.name] = run_episode(env, policy, config_id=draw.config_id, seed=draw.seed, on_step=record)
    env.close()
    return moves, results


def _text(content: Any) -> str:
    if isinstance(content, list):  # content parts
        return "".join(part.get("text", "") if isinstance(part, Mapping) else str(part) for part in content)
    return str(content)


def table_model(moves: Mapping[tuple[str, ...], str]) -> Callable[[list[Any]], str]:
    """A function from a chat conversation (dicts or objects with ``role`` and ``content``/``text``)
    to the table's next move (:data:`UNKNOWN` for a conversation it does not hold)."""

    def reply(messages: list[Any]) -> str:
        said = []
        for m in messages:
            if isinstance(m, Mapping):
                role, content = m.get("role"), _text(m.get("content", ""))
            else:
                role, content = m.role, m.text
            if role == "user":
                said.append(content)
        return moves.get(tuple(said), UNKNOWN)

    return reply


def _completion(text: str) -> dict[str, Any]:
    return {
        "id": "scripted",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


def _stream(text: str) -> bytes:
    head = {"id": "scripted", "object": "chat.completion.chunk", "created": 0, "model": "scripted"}
    events = [
        {**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}]},
        {
            **head,
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        },
    ]
    return ("".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n").encode()


class ScriptedEndpoint:
    """``POST /v1/chat/completions`` on 127.0.0.1 answered by ``reply(messages)``.

    ``with ScriptedEndpoint(table_model(moves)) as ep:`` then point a client at ``ep.url``;
    ``ep.requests`` holds each request's JSON body. Serves at most ``max_requests``, then 503.
    """

    def __init__(self, reply: Callable[[list[Any]], str], max_requests: int = 10_000) -> None:
        self.reply = reply
        self.max_requests = max_requests
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with endpoint.lock:
                    endpoint.requests.append(body)
                    over = len(endpoint.requests) > endpoint.max_requests
                if over:
                    return self._send(503, b'{"error": {"message": "scripted endpoint: max_requests reached"}}')
                text = endpoint.reply(body.get("messages", []))
                if body.get("stream"):
                    self.close_connection = True
                    return self._send(200, _stream(text), "text/event-stream")
                self._send(200, json.dumps(_completion(text)).encode())

            def _send(self, code: int, payload: bytes, content_type: str = "application/json") -> None:
                self.send_response(code)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> ScriptedEndpoint:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
